//! PDF: one [`UnitKind::Page`] unit per physical page.
//!
//! lopdf loads (and, with the empty password, decrypts) the file; our own extractor
//! ([`extract`]) interprets each page's content stream with glyph positions, and
//! [`layout`] orders the positioned runs into lines. Pages without text (scans) still
//! get a unit with empty text so they stay addressable; the indexer renders them and
//! adds their text by OCR. Printed page labels come from the catalog's `/PageLabels`
//! number tree.

mod extract;
mod font;
mod labels;
mod layout;
mod obj;

use chrono::{DateTime, FixedOffset, NaiveDate, Offset, TimeZone, Utc};
use lopdf::{Document, Object};
use unicode_normalization::UnicodeNormalization;

use crate::{Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};

const FORMAT: &str = "pdf";
/// `%PDF-` must start within this many bytes.
const HEADER_WINDOW: usize = 1024;

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 2;

/// Converts a PDF into one unit per page.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    let doc = load(input.bytes)?;
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(ConvertError::corrupt(FORMAT, "no pages found"));
    }
    let page_labels = labels::page_labels(&doc, pages.len());
    let mut fonts = extract::FontCache::default();
    let mut units = Vec::with_capacity(pages.len());
    for (index, (number, page_id)) in pages.iter().enumerate() {
        let runs = extract::page_runs(&doc, *page_id, &mut fonts);
        let text = join_hyphenated(&clean_text(&layout::layout(&runs)));
        let locator = Locator {
            page: Some(*number),
            page_label: page_labels.as_ref().and_then(|l| l.get(index).cloned()),
            ..Locator::default()
        };
        units.push(Unit::new(UnitKind::Page, locator, text));
    }
    let meta = file_meta(&doc, units.len());
    Ok(Conversion {
        units,
        meta,
        children: Vec::new(),
    })
}

/// Loads the document, decrypting it with the empty password when it is encrypted.
fn load(bytes: &[u8]) -> Result<Document, ConvertError> {
    let window = &bytes[..bytes.len().min(HEADER_WINDOW)];
    if !window.windows(5).any(|w| w == b"%PDF-") {
        return Err(ConvertError::corrupt(FORMAT, "no %PDF header"));
    }
    let mut doc = Document::load_mem(bytes)
        .map_err(|e| ConvertError::corrupt(FORMAT, lower_first(&e.to_string())))?;
    if doc.is_encrypted() && doc.decrypt("").is_err() {
        return Err(ConvertError::encrypted(FORMAT, "password required"));
    }
    Ok(doc)
}

fn lower_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "unreadable file".to_string(),
    }
}

/// NFKC, no soft hyphens or control characters, single spaces, no blank lines.
fn clean_text(raw: &str) -> String {
    let normalized: String = raw
        .nfkc()
        .filter(|c| *c != '\u{00AD}')
        .map(|c| {
            if c.is_whitespace() && c != '\n' {
                ' '
            } else {
                c
            }
        })
        .filter(|c| !c.is_control() || *c == '\n')
        .collect();
    let mut out = String::with_capacity(normalized.len());
    for line in normalized.lines() {
        let line = line
            .split(' ')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&line);
    }
    out
}

/// Rejoins words hyphenated across a line break ("compu-" + "tation" → "computation"
/// at the end of the first line), as pdftotext does.
fn join_hyphenated(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for i in 1..lines.len() {
        let (head, tail) = lines.split_at_mut(i);
        let (Some(prev), Some(next)) = (head.last_mut(), tail.first_mut()) else {
            continue;
        };
        let mut ending = prev.chars().rev();
        let hyphenated = matches!(ending.next(), Some('-' | '\u{2010}'))
            && ending.next().is_some_and(char::is_lowercase);
        if !hyphenated || !next.chars().next().is_some_and(char::is_lowercase) {
            continue;
        }
        let word_end = next.find(' ').unwrap_or(next.len());
        prev.pop();
        prev.push_str(&next[..word_end]);
        *next = next[word_end..].trim_start().to_string();
    }
    lines.retain(|l| !l.is_empty());
    lines.join("\n")
}

fn file_meta(doc: &Document, page_count: usize) -> FileMeta {
    let info = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|o| obj::dict_of(doc, o));
    let text = |key: &[u8]| -> Option<String> {
        let value = info?.get(key).ok().and_then(|o| obj::deref(doc, o))?;
        let decoded = lopdf::decode_text_string(value).ok()?;
        let cleaned = clean_text(&decoded).replace('\n', " ");
        (!cleaned.is_empty()).then_some(cleaned)
    };
    let created = info
        .and_then(|i| i.get(b"CreationDate").ok())
        .and_then(|o| obj::deref(doc, o))
        .and_then(|o| match o {
            Object::String(bytes, _) => parse_pdf_date(&String::from_utf8_lossy(bytes)),
            _ => None,
        });
    let mut meta = FileMeta {
        title: text(b"Title"),
        author: text(b"Author"),
        created,
        page_count: u32::try_from(page_count).ok(),
        ..FileMeta::default()
    };
    if doc.xref_recovery == Some(lopdf::xref::XrefRecovery::Reconstructed) {
        // Recovered content is indexed, but the damage is reported (see `FileMeta`).
        meta.extra.insert(
            crate::unit::DAMAGE_KEY.to_string(),
            format!("damaged pdf: cross-reference table unreadable, rebuilt by scanning; {page_count} pages recovered"),
        );
    }
    meta
}

/// Parses `D:YYYYMMDDHHmmSSOHH'mm'` (every part after the year optional). A date without
/// a zone keeps its wall-clock time at +00:00.
fn parse_pdf_date(raw: &str) -> Option<DateTime<FixedOffset>> {
    let s = raw.trim().trim_start_matches("D:");
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() < 4 {
        return None;
    }
    let field = |from: usize, len: usize, default: u32| -> u32 {
        digits
            .get(from..from + len)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let year = digits.get(0..4)?.parse::<i32>().ok()?;
    let date = NaiveDate::from_ymd_opt(year, field(4, 2, 1).max(1), field(6, 2, 1).max(1))?;
    let time = date.and_hms_opt(field(8, 2, 0), field(10, 2, 0), field(12, 2, 0).min(59))?;
    let zone = parse_zone(s.get(digits.len()..).unwrap_or(""));
    zone.from_local_datetime(&time).single()
}

fn parse_zone(rest: &str) -> FixedOffset {
    let utc = Utc.fix();
    let sign = match rest.chars().next() {
        Some('+') => 1,
        Some('-') => -1,
        _ => return utc,
    };
    let digits: String = rest.chars().filter(char::is_ascii_digit).take(4).collect();
    let hours: i32 = digits.get(0..2).and_then(|h| h.parse().ok()).unwrap_or(0);
    let minutes: i32 = digits.get(2..4).and_then(|m| m.parse().ok()).unwrap_or(0);
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60)).unwrap_or(utc)
}

#[cfg(test)]
mod tests;
