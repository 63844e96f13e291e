//! Delimited text (csv, tsv): rows grouped like a sheet's, each unit locating its
//! physical lines; the delimiter sniffed from the first lines.

use std::collections::BTreeMap;

use super::{clean_cell, RowGrouper, MAX_ROWS};
use crate::text::decode_text;
use crate::{Conversion, ConvertError, FileMeta, Input};

/// One parsed record with the physical lines it spans (1-based, inclusive).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Record {
    pub(super) line_start: u64,
    pub(super) line_end: u64,
    pub(super) fields: Vec<String>,
}

/// Converts csv / tsv text into row groups. The delimiter of a .csv is sniffed among
/// `,` `;` tab and `|`; a .tsv uses tabs. Quotes follow RFC 4180 (doubled quotes inside a
/// quoted field, embedded delimiters and newlines), leniently.
pub(crate) fn convert_delimited(input: &Input) -> Result<Conversion, ConvertError> {
    let format = input.file_type.as_str();
    if input.bytes.is_empty() {
        return Err(ConvertError::Empty);
    }
    let mut text = decode_text(input.bytes);
    if looks_binary(&text) {
        return Err(ConvertError::corrupt(
            format,
            "binary data, not delimited text",
        ));
    }
    if text.contains('\0') {
        text.retain(|c| c != '\0');
    }
    let delimiter = if input.file_type == crate::FileType::Tsv {
        '\t'
    } else {
        sniff_delimiter(&text)
    };
    let mut grouper = RowGrouper::new(None, None);
    let mut truncated = false;
    for (index, record) in Records::new(&text, delimiter).enumerate() {
        if index >= MAX_ROWS {
            truncated = true;
            break;
        }
        let cells: Vec<String> = record.fields.iter().map(|f| clean_cell(f)).collect();
        grouper.push_span(record.line_start, record.line_end, &cells);
    }
    let units = grouper.finish();
    let mut meta = FileMeta::default();
    meta.extra
        .insert("delimiter".into(), delimiter_name(delimiter).into());
    if truncated {
        meta.extra
            .insert("truncated".into(), format!("first {MAX_ROWS} rows kept"));
    }
    Ok(Conversion {
        units,
        meta,
        children: Vec::new(),
    })
}

/// More than 1% NUL or other control characters (tab, CR, LF and form feed aside) in the
/// first 8192 characters.
pub(super) fn looks_binary(text: &str) -> bool {
    let (mut total, mut control) = (0usize, 0usize);
    for c in text.chars().take(8192) {
        total += 1;
        if c.is_control() && !matches!(c, '\t' | '\r' | '\n' | '\x0c') {
            control += 1;
        }
    }
    control * 100 > total
}

pub(super) fn delimiter_name(delimiter: char) -> &'static str {
    match delimiter {
        ',' => "comma",
        ';' => "semicolon",
        '\t' => "tab",
        '|' => "pipe",
        _ => "other",
    }
}

/// Picks the candidate delimiter that splits the first records into the most consistent
/// number (≥ 2) of fields; ties go to the larger field count, then to the comma.
pub(super) fn sniff_delimiter(text: &str) -> char {
    let sample = match text.char_indices().nth(64 * 1024) {
        Some((i, _)) => &text[..i],
        None => text,
    };
    let mut best = (',', 0.0f64, 0usize);
    for candidate in [',', ';', '\t', '|'] {
        let counts: Vec<usize> = Records::new(sample, candidate)
            .filter(|r| r.fields.iter().any(|f| !f.trim().is_empty()))
            .take(30)
            .map(|r| r.fields.len())
            .collect();
        if counts.is_empty() {
            continue;
        }
        let mut freq: BTreeMap<usize, usize> = BTreeMap::new();
        for c in &counts {
            *freq.entry(*c).or_default() += 1;
        }
        let Some((&mode, &hits)) = freq.iter().max_by_key(|(count, hits)| (**hits, **count)) else {
            continue;
        };
        if mode < 2 {
            continue;
        }
        let consistency = hits as f64 / counts.len() as f64;
        let better =
            consistency > best.1 + 1e-9 || ((consistency - best.1).abs() <= 1e-9 && mode > best.2);
        if better {
            best = (candidate, consistency, mode);
        }
    }
    best.0
}

/// An iterator over the records of delimited text, tracking physical line numbers.
pub(super) struct Records<'t> {
    chars: std::iter::Peekable<std::str::Chars<'t>>,
    delimiter: char,
    line: u64,
    done: bool,
}

impl<'t> Records<'t> {
    pub(super) fn new(text: &'t str, delimiter: char) -> Records<'t> {
        Records {
            chars: text.chars().peekable(),
            delimiter,
            line: 1,
            done: false,
        }
    }

    /// Consumes a line break starting with `c` ("\r\n", "\n" or "\r"); true if it was one.
    fn eat_newline(&mut self, c: char) -> bool {
        match c {
            '\n' => {
                self.line += 1;
                true
            }
            '\r' => {
                if self.chars.peek() == Some(&'\n') {
                    self.chars.next();
                }
                self.line += 1;
                true
            }
            _ => false,
        }
    }
}

impl Iterator for Records<'_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        if self.done {
            return None;
        }
        self.chars.peek()?;
        let line_start = self.line;
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut in_quotes = false;
        let mut field_started = false;
        loop {
            let Some(c) = self.chars.next() else {
                self.done = true;
                fields.push(field);
                return Some(Record {
                    line_start,
                    line_end: self.line,
                    fields,
                });
            };
            if in_quotes {
                if c == '"' {
                    if self.chars.peek() == Some(&'"') {
                        self.chars.next();
                        field.push('"');
                    } else {
                        in_quotes = false;
                    }
                } else {
                    if c == '\r' || c == '\n' {
                        self.eat_newline(c);
                        field.push('\n');
                    } else {
                        field.push(c);
                    }
                }
                continue;
            }
            if c == '"' && !field_started {
                in_quotes = true;
                field_started = true;
            } else if c == self.delimiter {
                fields.push(std::mem::take(&mut field));
                field_started = false;
            } else if c == '\r' || c == '\n' {
                let line_end = self.line;
                self.eat_newline(c);
                fields.push(field);
                return Some(Record {
                    line_start,
                    line_end,
                    fields,
                });
            } else {
                field.push(c);
                if !c.is_whitespace() {
                    field_started = true;
                }
            }
        }
    }
}
