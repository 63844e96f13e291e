//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods via calamine) and delimited text (csv, tsv).
//!
//! Every sheet becomes row groups: one [`UnitKind::Rows`] unit per ~300 approximate tokens
//! or 50 rows, whichever comes first. The header row (the first non-empty row) is repeated
//! at the top of every unit, so each unit can be read on its own:
//!
//! ```text
//! Sheet: Budget
//! Item | Amount | Date
//! Rent | 1200 | 2025-10-01
//! ```
//!
//! Locators hold the sheet name (None for csv/tsv) and the 1-based row range as in the
//! source: the sheet row for workbooks, the physical line for csv (a quoted field with
//! embedded newlines spans several lines). The first unit of a sheet starts at the header
//! row; later units start at their first data row.
//!
//! The row grouping ([`RowGrouper`]) is shared with the SQLite converter.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};

use calamine::{Data, Ods, Range, Reader, Sheets, Xls, Xlsb, Xlsx, XlsxError};

use crate::text::{approx_tokens, decode_text};
use crate::{Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};

/// A row group closes once its text reaches this many approximate tokens…
pub(crate) const GROUP_TOKENS: usize = 300;
/// …or holds this many data rows.
pub(crate) const GROUP_ROWS: usize = 50;
/// Rows read per sheet / table / csv file; the rest is dropped and noted in the metadata.
pub(crate) const MAX_ROWS: usize = 200_000;
/// Columns kept per row (a damaged sheet may claim a cell in column XFD).
const MAX_COLUMNS: u32 = 512;
/// A single cell's rendered text is cut at this many characters.
const MAX_CELL_CHARS: usize = 10_000;

const OLE2_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

// ---------------------------------------------------------------------------------------
// Row grouping (shared with sqlite.rs)
// ---------------------------------------------------------------------------------------

/// Collects rendered rows of one sheet/table/file and cuts them into row-group units with
/// the header repeated at the top of each.
pub(crate) struct RowGrouper {
    /// First line of every unit ("Sheet: Budget", "Table: users"), or none (csv).
    label: Option<String>,
    /// Locator sheet/table name.
    sheet: Option<String>,
    header: Option<String>,
    rows: Vec<String>,
    row_start: u64,
    row_end: u64,
    tokens: usize,
    units: Vec<Unit>,
}

impl RowGrouper {
    /// A grouper whose units start with `label` and carry `sheet` in their locator (and
    /// as their title).
    pub(crate) fn new(label: Option<String>, sheet: Option<String>) -> RowGrouper {
        RowGrouper {
            label,
            sheet,
            header: None,
            rows: Vec::new(),
            row_start: 0,
            row_end: 0,
            tokens: 0,
            units: Vec::new(),
        }
    }

    /// Adds one row (1-based source row number, cell texts). Empty rows are skipped; the
    /// first non-empty row becomes the header.
    pub(crate) fn push(&mut self, row_number: u64, cells: &[String]) {
        self.push_span(row_number, row_number, cells);
    }

    /// Adds one row that spans source rows `first..=last` (a csv record with embedded
    /// newlines).
    pub(crate) fn push_span(&mut self, first: u64, last: u64, cells: &[String]) {
        let Some(line) = render_row(cells) else {
            return;
        };
        match &self.header {
            None => {
                self.tokens = self.base_tokens() + approx_tokens(&line);
                self.header = Some(line);
                self.row_start = first;
                self.row_end = last;
            }
            Some(_) => {
                if self.rows.is_empty() && !self.units.is_empty() {
                    self.row_start = first;
                }
                self.tokens += approx_tokens(&line);
                self.rows.push(line);
                self.row_end = last;
                if self.rows.len() >= GROUP_ROWS || self.tokens >= GROUP_TOKENS {
                    self.flush();
                }
            }
        }
    }

    /// Closes the last group and returns all units.
    pub(crate) fn finish(mut self) -> Vec<Unit> {
        if !self.rows.is_empty() || (self.units.is_empty() && self.header.is_some()) {
            self.flush();
        }
        self.units
    }

    fn base_tokens(&self) -> usize {
        self.label.as_deref().map(approx_tokens).unwrap_or(0)
    }

    fn flush(&mut self) {
        let Some(header) = &self.header else {
            return;
        };
        let mut text = String::new();
        if let Some(label) = &self.label {
            text.push_str(label);
            text.push('\n');
        }
        text.push_str(header);
        for row in &self.rows {
            text.push('\n');
            text.push_str(row);
        }
        let locator = Locator {
            sheet: self.sheet.clone(),
            row_start: Some(self.row_start),
            row_end: Some(self.row_end),
            ..Locator::default()
        };
        let dates: Vec<chrono::NaiveDate> = self
            .rows
            .iter()
            .flat_map(|r| crate::unit::dates_in(r))
            .collect();
        let mut unit = Unit::new(UnitKind::Rows, locator, text).with_record_dates(&dates);
        if let Some(sheet) = &self.sheet {
            unit = unit.with_title(sheet.clone());
        }
        self.units.push(unit);
        self.rows.clear();
        self.tokens = self.base_tokens() + approx_tokens(header);
    }
}

/// Joins cells with " | ", trailing empty cells trimmed; None for an all-empty row.
fn render_row(cells: &[String]) -> Option<String> {
    let last = cells.iter().rposition(|c| !c.trim().is_empty())?;
    let parts: Vec<&str> = cells[..=last].iter().map(|c| c.trim()).collect();
    Some(parts.join(" | "))
}

/// Collapses whitespace (newlines included) to single spaces and caps the length.
pub(crate) fn clean_cell(value: &str) -> String {
    let mut out = String::with_capacity(value.len().min(MAX_CELL_CHARS));
    let mut chars = 0;
    for word in value.split_whitespace() {
        if chars >= MAX_CELL_CHARS {
            out.push('…');
            break;
        }
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        out.push_str(word);
        chars += word.chars().count();
    }
    out
}

/// A number without a spurious ".0" (1200.0 → "1200", 0.25 → "0.25").
pub(crate) fn format_number(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

// ---------------------------------------------------------------------------------------
// Workbooks
// ---------------------------------------------------------------------------------------

/// The non-empty rendered cells of one sheet: absolute 0-based row → (column, text).
type SheetCells = BTreeMap<u32, Vec<(u32, String)>>;

struct SheetRead {
    cells: SheetCells,
    truncated: bool,
}

/// Converts an xlsx / xlsm / xlsb / xls / ods workbook into row groups per sheet.
pub(crate) fn convert_workbook(input: &Input) -> Result<Conversion, ConvertError> {
    let format = input.file_type.as_str();
    if input.bytes.is_empty() {
        return Err(ConvertError::Empty);
    }
    let mut workbook = open_workbook(input, format)?;
    let names = workbook.sheet_names();
    let mut meta = workbook_meta(&mut workbook);
    meta.page_count = Some(names.len() as u32);

    let mut units = Vec::new();
    let mut errors = Vec::new();
    let mut truncated = Vec::new();
    for name in &names {
        let read = catch_unwind(AssertUnwindSafe(|| read_sheet(&mut workbook, name)));
        match read {
            Ok(Ok(Some(sheet))) => {
                if sheet.truncated {
                    truncated.push(name.clone());
                }
                units.extend(sheet_units(name, &sheet.cells));
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => errors.push(format!("{name}: {e}")),
            Err(_) => errors.push(format!("{name}: reader crashed")),
        }
    }
    if units.is_empty() && !errors.is_empty() && errors.len() == names.len() {
        return Err(ConvertError::corrupt(
            format,
            lower_first(&errors.join("; ")),
        ));
    }
    if !errors.is_empty() {
        meta.extra.insert("errors".into(), errors.join("; "));
    }
    if !truncated.is_empty() {
        meta.extra.insert(
            "truncated".into(),
            format!("first {MAX_ROWS} rows kept of: {}", truncated.join(", ")),
        );
    }
    Ok(Conversion {
        units,
        meta,
        children: Vec::new(),
    })
}

type Book<'a> = Sheets<Cursor<&'a [u8]>>;

/// Opens the workbook with the reader its magic bytes and extension call for.
fn open_workbook<'a>(input: &Input<'a>, format: &'static str) -> Result<Book<'a>, ConvertError> {
    let bytes = input.bytes;
    let ext = crate::extension_of(input.name);
    let opened = catch_unwind(|| {
        if bytes.starts_with(OLE2_MAGIC) {
            if is_encrypted_ooxml(bytes) {
                return Err(ConvertError::encrypted(format, "password required"));
            }
            return Xls::new(Cursor::new(bytes))
                .map(Sheets::Xls)
                .map_err(|e| book_error(format, calamine::Error::Xls(e)));
        }
        if !bytes.starts_with(b"PK") {
            return Err(ConvertError::corrupt(
                format,
                "not a spreadsheet (no zip or ole2 header)",
            ));
        }
        let first = if ext == "ods" || format == "ods" {
            Ods::new(Cursor::new(bytes))
                .map(Sheets::Ods)
                .map_err(calamine::Error::Ods)
        } else if ext == "xlsb" {
            Xlsb::new(Cursor::new(bytes))
                .map(Sheets::Xlsb)
                .map_err(calamine::Error::Xlsb)
        } else {
            Xlsx::new(Cursor::new(bytes))
                .map(Sheets::Xlsx)
                .map_err(calamine::Error::Xlsx)
        };
        match first {
            Ok(book) => Ok(book),
            Err(first_error) => calamine::open_workbook_auto_from_rs(Cursor::new(bytes))
                .map_err(|_| book_error(format, first_error)),
        }
    });
    match opened {
        Ok(result) => result,
        Err(_) => Err(ConvertError::corrupt(
            format,
            "reader crashed while opening",
        )),
    }
}

/// An encrypted OOXML file is an OLE2 container holding `EncryptionInfo` and
/// `EncryptedPackage` streams (names stored in UTF-16LE).
pub(crate) fn is_encrypted_ooxml(bytes: &[u8]) -> bool {
    let needle: Vec<u8> = "EncryptedPackage"
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    bytes.starts_with(OLE2_MAGIC) && bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

fn book_error(format: &'static str, error: calamine::Error) -> ConvertError {
    let password = matches!(
        &error,
        calamine::Error::Xlsx(XlsxError::Password)
            | calamine::Error::Xls(calamine::XlsError::Password)
            | calamine::Error::Xlsb(calamine::XlsbError::Password)
            | calamine::Error::Ods(calamine::OdsError::Password)
    );
    if password {
        ConvertError::encrypted(format, "password required")
    } else {
        ConvertError::corrupt(format, lower_first(&error.to_string()))
    }
}

fn lower_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Title, author and creation time from the workbook's document properties.
fn workbook_meta(book: &mut Book) -> FileMeta {
    let mut meta = FileMeta::default();
    let props = catch_unwind(AssertUnwindSafe(|| book.workbook_properties()));
    if let Ok(Ok(props)) = props {
        meta.title = props.title.filter(|t| !t.trim().is_empty());
        meta.author = props.creator.filter(|t| !t.trim().is_empty());
        meta.created = props
            .created
            .and_then(|c| chrono::DateTime::parse_from_rfc3339(c.trim()).ok());
    }
    meta
}

/// Reads one sheet's non-empty cells; None for sheets that hold no cells (chart sheets).
fn read_sheet(book: &mut Book, name: &str) -> Result<Option<SheetRead>, String> {
    match book {
        Sheets::Xlsx(xlsx) => read_xlsx_sheet(xlsx, name),
        other => {
            let range = other
                .worksheet_range(name)
                .map_err(|e| lower_first(&e.to_string()))?;
            Ok(Some(read_range(&range)))
        }
    }
}

/// Streams an xlsx sheet's cells (a dense range would allocate rows × columns, which a
/// damaged file can make enormous).
fn read_xlsx_sheet(
    xlsx: &mut Xlsx<Cursor<&[u8]>>,
    name: &str,
) -> Result<Option<SheetRead>, String> {
    let mut reader = match xlsx.worksheet_cells_reader(name) {
        Ok(reader) => reader,
        Err(XlsxError::NotAWorksheet(_)) => return Ok(None),
        Err(e) => return Err(lower_first(&e.to_string())),
    };
    let mut cells = SheetCells::new();
    let mut truncated = false;
    loop {
        let cell = match reader.next_cell() {
            Ok(Some(cell)) => cell,
            Ok(None) => break,
            Err(e) if cells.is_empty() => return Err(lower_first(&e.to_string())),
            Err(_) => break,
        };
        let (row, col) = cell.get_position();
        let text = render_cell(&Data::from(cell.get_value().clone()));
        if text.is_empty() {
            continue;
        }
        if !cells.contains_key(&row) && cells.len() >= MAX_ROWS {
            truncated = true;
            continue;
        }
        cells.entry(row).or_default().push((col, text));
    }
    Ok(Some(SheetRead { cells, truncated }))
}

fn read_range(range: &Range<Data>) -> SheetRead {
    let mut cells = SheetCells::new();
    let mut truncated = false;
    let Some((row0, col0)) = range.start() else {
        return SheetRead { cells, truncated };
    };
    for (i, row) in range.rows().enumerate() {
        if cells.len() >= MAX_ROWS {
            truncated = true;
            break;
        }
        let abs_row = row0.saturating_add(i as u32);
        let rendered: Vec<(u32, String)> = row
            .iter()
            .enumerate()
            .take(MAX_COLUMNS as usize)
            .filter_map(|(j, v)| {
                let text = render_cell(v);
                (!text.is_empty()).then(|| (col0.saturating_add(j as u32), text))
            })
            .collect();
        if !rendered.is_empty() {
            cells.insert(abs_row, rendered);
        }
    }
    SheetRead { cells, truncated }
}

/// Row groups of one sheet; columns aligned on the sheet's leftmost used column.
fn sheet_units(name: &str, cells: &SheetCells) -> Vec<Unit> {
    let min_col = cells
        .values()
        .flat_map(|row| row.iter().map(|(c, _)| *c))
        .min()
        .unwrap_or(0);
    let mut grouper = RowGrouper::new(Some(format!("Sheet: {name}")), Some(name.to_string()));
    for (row, row_cells) in cells {
        let mut line: Vec<String> = Vec::new();
        for (col, text) in row_cells {
            let index = col.saturating_sub(min_col);
            if index >= MAX_COLUMNS {
                continue;
            }
            let index = index as usize;
            if line.len() <= index {
                line.resize(index + 1, String::new());
            }
            if let Some(slot) = line.get_mut(index) {
                *slot = text.clone();
            }
        }
        grouper.push(u64::from(*row) + 1, &line);
    }
    grouper.finish()
}

/// Renders one cell: numbers without ".0", dates as ISO dates, errors as Excel shows them.
fn render_cell(value: &Data) -> String {
    match value {
        Data::Empty => String::new(),
        Data::String(s) => clean_cell(s),
        Data::Int(i) => i.to_string(),
        Data::Float(f) => format_number(*f),
        Data::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        Data::DateTime(dt) => render_excel_datetime(dt),
        Data::DateTimeIso(s) => render_iso_datetime(s),
        Data::DurationIso(s) => clean_cell(s),
        Data::Error(e) => e.to_string(),
    }
}

fn render_excel_datetime(dt: &calamine::ExcelDateTime) -> String {
    let serial = dt.as_f64();
    if dt.is_duration() {
        let total = (serial * 86_400.0).round() as i64;
        let sign = if total < 0 { "-" } else { "" };
        // unsigned_abs: i64::MIN (a huge negative serial) has no positive i64.
        let total = total.unsigned_abs();
        return format!(
            "{sign}{}:{:02}:{:02}",
            total / 3600,
            (total / 60) % 60,
            total % 60
        );
    }
    if (0.0..1.0).contains(&serial) {
        let secs = (serial * 86_400.0).round() as i64;
        return format_clock(secs / 3600, (secs / 60) % 60, secs % 60);
    }
    // calamine's conversion panics (chrono `Duration::milliseconds`) on serials of about
    // -1e11 days and below; no serial this far from 1900 is a date chrono can hold anyway.
    if serial.abs() >= 1e8 {
        return format_number(serial);
    }
    match dt.as_datetime() {
        Some(naive) => format_naive(naive),
        None => format_number(serial),
    }
}

fn format_clock(h: i64, m: i64, s: i64) -> String {
    if s == 0 {
        format!("{h:02}:{m:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

/// "2025-10-04", or "2025-10-04 13:22" / "2025-10-04 13:22:05" when the time is not zero.
pub(crate) fn format_naive(naive: chrono::NaiveDateTime) -> String {
    use chrono::Timelike;
    let date = naive.date().format("%Y-%m-%d").to_string();
    let (h, m, s) = (naive.hour(), naive.minute(), naive.second());
    if h == 0 && m == 0 && s == 0 {
        date
    } else {
        format!("{date} {}", format_clock(h.into(), m.into(), s.into()))
    }
}

/// ISO dates as stored by ods / xlsx `t="d"` cells: "2025-10-04T00:00:00" → "2025-10-04".
fn render_iso_datetime(value: &str) -> String {
    let value = value.trim();
    let formats = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
    ];
    for f in formats {
        if let Ok(naive) = chrono::NaiveDateTime::parse_from_str(value, f) {
            return format_naive(naive);
        }
    }
    clean_cell(value)
}

// ---------------------------------------------------------------------------------------
// Delimited text
// ---------------------------------------------------------------------------------------

/// One parsed record with the physical lines it spans (1-based, inclusive).
#[derive(Debug, Clone, PartialEq)]
struct Record {
    line_start: u64,
    line_end: u64,
    fields: Vec<String>,
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
fn looks_binary(text: &str) -> bool {
    let (mut total, mut control) = (0usize, 0usize);
    for c in text.chars().take(8192) {
        total += 1;
        if c.is_control() && !matches!(c, '\t' | '\r' | '\n' | '\x0c') {
            control += 1;
        }
    }
    control * 100 > total
}

fn delimiter_name(delimiter: char) -> &'static str {
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
fn sniff_delimiter(text: &str) -> char {
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
struct Records<'t> {
    chars: std::iter::Peekable<std::str::Chars<'t>>,
    delimiter: char,
    line: u64,
    done: bool,
}

impl<'t> Records<'t> {
    fn new(text: &'t str, delimiter: char) -> Records<'t> {
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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::testutil::{self, Rng};
    use crate::FileType;

    fn input<'a>(name: &'a str, bytes: &'a [u8], file_type: FileType) -> Input<'a> {
        Input {
            name,
            bytes,
            size: bytes.len() as u64,
            file_type,
        }
    }

    fn csv(name: &str, text: &str) -> Result<Conversion, ConvertError> {
        convert_delimited(&input(name, text.as_bytes(), FileType::Csv))
    }

    #[test]
    fn csv_semicolon_quotes_and_embedded_newline() {
        let text = "Name;Note;Amount\r\n\"Smith; John\";\"line one\nline two\";1,50\r\nDoe;\"say \"\"hi\"\"\";2\r\n";
        let c = csv("bank.csv", text).unwrap();
        assert_eq!(c.meta.extra["delimiter"], "semicolon");
        assert_eq!(c.units.len(), 1);
        let u = &c.units[0];
        assert_eq!(u.kind(), UnitKind::Rows);
        assert_eq!(
            u.text,
            "Name | Note | Amount\nSmith; John | line one line two | 1,50\nDoe | say \"hi\" | 2"
        );
        // The quoted field spans lines 2-3, so the last record is on line 4.
        assert_eq!(u.locator.row_start, Some(1));
        assert_eq!(u.locator.row_end, Some(4));
        assert_eq!(u.locator.sheet, None);
    }

    #[test]
    fn csv_bom_comma_and_trailing_empty_cells() {
        let text = "\u{feff}a,b,c\n\n1,,\n2,x,\n";
        let c = csv("t.csv", text).unwrap();
        assert_eq!(c.meta.extra["delimiter"], "comma");
        assert_eq!(c.units[0].text, "a | b | c\n1\n2 | x");
        assert_eq!(c.units[0].locator.row_end, Some(4));
    }

    #[test]
    fn tsv_uses_tabs_and_pipes_sniffed() {
        let tsv = "x\ty\n1\t2\n";
        let c = convert_delimited(&input("t.tsv", tsv.as_bytes(), FileType::Tsv)).unwrap();
        assert_eq!(c.units[0].text, "x | y\n1 | 2");
        let c = csv("p.csv", "k|v\na|1\nb|2\n").unwrap();
        assert_eq!(c.meta.extra["delimiter"], "pipe");
        assert_eq!(c.units[0].text, "k | v\na | 1\nb | 2");
    }

    #[test]
    fn rows_are_grouped_with_header_repeated() {
        let mut text = String::from("id,word\n");
        for i in 1..=120 {
            text.push_str(&format!("{i},w{i}\n"));
        }
        let c = csv("g.csv", &text).unwrap();
        assert_eq!(c.units.len(), 3);
        let ranges: Vec<(u64, u64)> = c
            .units
            .iter()
            .map(|u| (u.locator.row_start.unwrap(), u.locator.row_end.unwrap()))
            .collect();
        assert_eq!(ranges, vec![(1, 51), (52, 101), (102, 121)]);
        for u in &c.units {
            assert!(u.text.starts_with("id | word\n"));
        }
        assert!(c.units[1].text.contains("\n51 | w51\n"));
    }

    #[test]
    fn long_rows_close_groups_by_tokens() {
        let mut text = String::from("id,text\n");
        let long = "lorem ipsum dolor sit amet ".repeat(10);
        for i in 1..=20 {
            text.push_str(&format!("{i},{long}\n"));
        }
        let c = csv("long.csv", &text).unwrap();
        assert!(c.units.len() > 3, "{} units", c.units.len());
        for u in &c.units {
            assert!(approx_tokens(&u.text) < GROUP_TOKENS + 80);
        }
    }

    #[test]
    fn csv_malformed_inputs() {
        assert!(matches!(csv("e.csv", ""), Err(ConvertError::Empty)));
        let binary = [0u8, 1, 2, 0, 255, 0, 7];
        let err = convert_delimited(&input("b.csv", &binary, FileType::Csv)).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
        // An unterminated quote does not panic; the rest of the file becomes one field.
        let c = csv("q.csv", "a,b\n\"open,1\n2,3\n").unwrap();
        assert_eq!(c.units.len(), 1);
        // A file of only blank lines gives no units.
        assert!(csv("blank.csv", "\n\n,,\n").unwrap().units.is_empty());
    }

    #[test]
    fn number_and_date_rendering() {
        assert_eq!(format_number(1200.0), "1200");
        assert_eq!(format_number(0.25), "0.25");
        assert_eq!(format_number(-3.0), "-3");
        assert_eq!(format_number(1e20), "100000000000000000000");
        assert_eq!(render_iso_datetime("2025-10-04T00:00:00"), "2025-10-04");
        assert_eq!(
            render_iso_datetime("2025-10-04T13:22:00"),
            "2025-10-04 13:22"
        );
        let dt =
            calamine::ExcelDateTime::new(45943.5, calamine::ExcelDateTimeType::DateTime, false);
        assert_eq!(render_excel_datetime(&dt), "2025-10-13 12:00");
        let dt =
            calamine::ExcelDateTime::new(45943.0, calamine::ExcelDateTimeType::DateTime, false);
        assert_eq!(render_excel_datetime(&dt), "2025-10-13");
        let t = calamine::ExcelDateTime::new(0.5, calamine::ExcelDateTimeType::DateTime, false);
        assert_eq!(render_excel_datetime(&t), "12:00");
        let d = calamine::ExcelDateTime::new(1.5, calamine::ExcelDateTimeType::TimeDelta, false);
        assert_eq!(render_excel_datetime(&d), "36:00:00");
    }

    /// A minimal xlsx: sheet "Budget" with data from B3 (a title-less header at row 3),
    /// a date cell styled with built-in format 14, and a second sheet.
    fn tiny_xlsx_files() -> [(&'static str, String); 7] {
        [
            (
                "[Content_Types].xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>"#.into(),
            ),
            (
                "_rels/.rels",
                r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.into(),
            ),
            (
                "xl/workbook.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Budget" sheetId="1" r:id="rId1"/><sheet name="Notes" sheetId="2" r:id="rId2"/></sheets></workbook>"#.into(),
            ),
            (
                "xl/_rels/workbook.xml.rels",
                r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>"#.into(),
            ),
            (
                "xl/styles.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>"#.into(),
            ),
            (
                "xl/worksheets/sheet1.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>
<row r="3"><c r="B3" t="inlineStr"><is><t>Item</t></is></c><c r="C3" t="inlineStr"><is><t>Amount</t></is></c><c r="D3" t="inlineStr"><is><t>Date</t></is></c></row>
<row r="4"><c r="B4" t="inlineStr"><is><t>Rent</t></is></c><c r="C4"><v>1200</v></c><c r="D4" s="1"><v>45931</v></c></row>
<row r="6"><c r="B6" t="inlineStr"><is><t>Coffee</t></is></c><c r="C6"><v>3.5</v></c></row>
</sheetData></worksheet>"#.into(),
            ),
            (
                "xl/worksheets/sheet2.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Remember the milk</t></is></c></row></sheetData></worksheet>"#.into(),
            ),
        ]
    }

    fn xlsx_of(files: &[(&str, String)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, body) in files {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(body.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn tiny_xlsx() -> Vec<u8> {
        xlsx_of(&tiny_xlsx_files())
    }

    #[test]
    fn xlsx_sheets_rows_and_dates() {
        let bytes = tiny_xlsx();
        let c = convert_workbook(&input("budget.xlsx", &bytes, FileType::Xlsx)).unwrap();
        assert_eq!(c.meta.page_count, Some(2));
        assert_eq!(c.units.len(), 2);
        let budget = &c.units[0];
        assert_eq!(
            budget.text,
            "Sheet: Budget\nItem | Amount | Date\nRent | 1200 | 2025-10-01\nCoffee | 3.5"
        );
        assert_eq!(budget.locator, Locator::rows("Budget", 3, 6));
        assert_eq!(budget.title.as_deref(), Some("Budget"));
        let notes = &c.units[1];
        assert_eq!(notes.text, "Sheet: Notes\nRemember the milk");
        assert_eq!(notes.locator, Locator::rows("Notes", 1, 1));
    }

    #[test]
    fn workbook_malformed_inputs() {
        let bytes = tiny_xlsx();
        let xlsx = |b: &[u8]| convert_workbook(&input("x.xlsx", b, FileType::Xlsx));
        assert!(matches!(xlsx(b""), Err(ConvertError::Empty)));
        assert_eq!(
            xlsx(&bytes[..bytes.len() / 2]).unwrap_err().reason(),
            "corrupt"
        );
        assert_eq!(
            xlsx(b"just some text, not a workbook")
                .unwrap_err()
                .reason(),
            "corrupt"
        );
        let noise: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        assert_eq!(xlsx(&noise).unwrap_err().reason(), "corrupt");
        let mut zip_noise = b"PK\x03\x04".to_vec();
        zip_noise.extend_from_slice(&noise);
        assert_eq!(xlsx(&zip_noise).unwrap_err().reason(), "corrupt");
        // An OLE2 container holding EncryptedPackage is a password-protected OOXML file.
        let mut ole = OLE2_MAGIC.to_vec();
        ole.extend_from_slice(&[0u8; 504]);
        ole.extend(
            "EncryptedPackage"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        );
        assert_eq!(xlsx(&ole).unwrap_err().reason(), "encrypted");
        // A cut OLE2 container named .xls.
        let xls = convert_workbook(&input("x.xls", &ole[..512], FileType::Xls));
        assert_eq!(xls.unwrap_err().reason(), "corrupt");
    }

    #[test]
    fn broken_corpus_workbook_is_an_error() {
        let path = "../../shared/corpus/realworld/Broken/invalid.xlsx";
        let Ok(bytes) = std::fs::read(path) else {
            println!("note: {path} not present, skipped");
            return;
        };
        let err = convert_workbook(&input("invalid.xlsx", &bytes, FileType::Xlsx)).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
    }

    #[test]
    fn excel_datetimes_render_for_every_serial() {
        use calamine::{ExcelDateTime, ExcelDateTimeType};
        let mut rng = Rng(0xE8CE_1DA7_E000_0001);
        let mut serials: Vec<f64> = testutil::EDGE_F64.to_vec();
        serials.extend((0..2000).map(|_| match rng.below(3) {
            0 => f64::from_bits(rng.next()),
            1 => (rng.next() as i64) as f64 / 1e6,
            _ => rng.below(200_000) as f64 / 3.0 - 20_000.0,
        }));
        let clock = |s: &str| {
            let parts: Vec<&str> = s.trim_start_matches('-').split(':').collect();
            (2..=3).contains(&parts.len())
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        for serial in serials {
            for is_1904 in [false, true] {
                let duration = ExcelDateTime::new(serial, ExcelDateTimeType::TimeDelta, is_1904);
                let text = render_excel_datetime(&duration);
                assert!(
                    clock(&text) && text.matches(':').count() == 2,
                    "{serial}: {text}"
                );
                let moment = ExcelDateTime::new(serial, ExcelDateTimeType::DateTime, is_1904);
                let text = render_excel_datetime(&moment);
                assert!(!text.is_empty(), "{serial}");
                if (0.0..1.0).contains(&serial) {
                    assert!(clock(&text), "{serial}: {text}");
                }
                let _ = render_cell(&Data::DateTime(moment));
                let _ = render_cell(&Data::Float(serial));
            }
        }
        for _ in 0..500 {
            let iso = testutil::random_text(
                &mut rng,
                &["2025-10-04", "T", "13:22:05", ".5", "Z", "é", " ", "-", ":"],
                8,
            );
            let _ = render_iso_datetime(&iso);
            let _ = render_cell(&Data::DurationIso(iso));
        }
    }

    /// Physical lines of a text without quotes: what `Records` must split it into.
    fn physical_lines(text: &str) -> Vec<String> {
        let mut lines = vec![String::new()];
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\r' || c == '\n' {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines.push(String::new());
            } else if let Some(line) = lines.last_mut() {
                line.push(c);
            }
        }
        if text.ends_with(['\r', '\n']) {
            lines.pop();
        }
        if text.is_empty() {
            lines.clear();
        }
        lines
    }

    #[test]
    fn records_split_random_text_and_track_lines() {
        let mut rng = Rng(0xC5F0_0000_0000_0001);
        for _ in 0..2000 {
            let text = testutil::random_text(&mut rng, testutil::TEXT_PIECES, 80);
            let delimiter = *rng.pick(&[',', ';', '\t', '|', '€']);
            let records: Vec<Record> = Records::new(&text, delimiter).collect();
            if let Some(first) = records.first() {
                assert_eq!(first.line_start, 1);
            }
            for pair in records.windows(2) {
                assert_eq!(pair[1].line_start, pair[0].line_end + 1, "{text:?}");
            }
            for record in &records {
                assert!(record.line_start <= record.line_end && !record.fields.is_empty());
            }
            if !text.contains('"') {
                let lines = physical_lines(&text);
                let joined: Vec<String> = records
                    .iter()
                    .map(|r| r.fields.join(&delimiter.to_string()))
                    .collect();
                assert_eq!(joined, lines, "{text:?}");
            }
            assert!([',', ';', '\t', '|'].contains(&sniff_delimiter(&text)));
            let cell = clean_cell(&text);
            assert_eq!(cell, text.split_whitespace().collect::<Vec<_>>().join(" "));
        }
        // The delimiter is sniffed from the first 64 Ki characters: cut at a char boundary.
        for piece in ["é", "𝄞", "漢字", "a;b", "\"x\n"] {
            let text = piece.repeat(70_000 / piece.chars().count());
            assert!([',', ';', '\t', '|'].contains(&sniff_delimiter(&text)));
        }
        let huge = "é".repeat(MAX_CELL_CHARS * 2) + " x";
        let cell = clean_cell(&huge);
        assert!(
            cell.ends_with('…') && !cell.contains('x'),
            "cut after the cap"
        );
    }

    #[test]
    fn damaged_csv_and_workbooks_do_not_panic() {
        let csv_text = "Name;Note;Amount\r\n\"Smith; John\";\"line one\nline two\";1,50\r\nDoe;\"say \"\"hi\"\"\";2\r\n";
        let mut rng = Rng(0x5EE7_0000_0000_0001);
        for _ in 0..300 {
            let bytes = if rng.one_in(2) {
                testutil::mutate(&mut rng, csv_text.as_bytes())
            } else {
                testutil::mutate_text(&mut rng, csv_text, testutil::TEXT_PIECES).into_bytes()
            };
            for file_type in [FileType::Csv, FileType::Tsv] {
                let Ok(c) = convert_delimited(&input("d.csv", &bytes, file_type)) else {
                    continue;
                };
                testutil::check_conversion(&c, "csv");
                for pair in c.units.windows(2) {
                    assert!(
                        pair[0].locator.row_end <= pair[1].locator.row_start,
                        "{c:?}"
                    );
                }
            }
        }
        let files = tiny_xlsx_files();
        for i in 0..120 {
            let bytes = if i % 2 == 0 {
                testutil::mutate(&mut rng, &tiny_xlsx())
            } else {
                let mut files = files.clone();
                let k = rng.below(files.len());
                files[k].1 = testutil::mutate_text(&mut rng, &files[k].1, testutil::TEXT_PIECES);
                xlsx_of(&files)
            };
            let result = testutil::convert_without_panic(
                &input("budget.xlsx", &bytes, FileType::Xlsx),
                "damaged xlsx",
            );
            if let Ok(c) = result {
                testutil::check_conversion(&c, "xlsx");
            }
        }
    }

    #[test]
    fn workbook_cells_with_extreme_numbers_render() {
        // Date- and duration-styled cells holding every edge value: the sheet must be
        // read (no "reader crashed"), whatever the number.
        let mut files = tiny_xlsx_files();
        files[4].1 = files[4].1.replace(
            "<cellXfs count=\"2\"><xf numFmtId=\"0\"/><xf numFmtId=\"14\" applyNumberFormat=\"1\"/>",
            "<cellXfs count=\"3\"><xf numFmtId=\"0\"/><xf numFmtId=\"14\" applyNumberFormat=\"1\"/>\
             <xf numFmtId=\"46\" applyNumberFormat=\"1\"/>",
        );
        let values = testutil::EDGE_NUMBERS
            .iter()
            .map(|n| n.to_string())
            .chain(testutil::EDGE_F64.iter().map(|f| format!("{f:e}")))
            .chain(["-1e300".to_string(), "-inf".to_string(), "NaN".to_string()]);
        for value in values {
            for style in ["1", "2"] {
                let mut files = files.clone();
                files[5].1 = files[5].1.replace(
                    "<c r=\"D4\" s=\"1\"><v>45931</v></c>",
                    &format!("<c r=\"D4\" s=\"{style}\"><v>{value}</v></c>"),
                );
                let bytes = xlsx_of(&files);
                let c = testutil::convert_without_panic(
                    &input("budget.xlsx", &bytes, FileType::Xlsx),
                    &value,
                )
                .unwrap();
                assert!(
                    !c.meta.extra.contains_key("errors"),
                    "{value} s={style}: {:?}",
                    c.meta
                );
                assert_eq!(c.units.len(), 2, "{value}");
            }
        }
    }
}
