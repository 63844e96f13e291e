//! The atomic unit (AU) data model shared by every converter.
//!
//! A converter turns one file into a [`Conversion`]: a list of [`Unit`]s (the smallest
//! independently verifiable pieces of evidence: a PDF page, a slide, a row group, an
//! e-mail, a calendar event, a text span, …), file-level [`FileMeta`], and, for
//! containers such as e-mail, [`ChildFile`]s that the indexer converts in turn.

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// What an atomic unit is. Stored as its lower-case name (`page`, `slide`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    /// A PDF page, or a page-equivalent of a word-processor document.
    Page,
    /// A presentation slide (text and speaker notes).
    Slide,
    /// A group of spreadsheet / CSV / SQLite rows, header repeated.
    Rows,
    /// An e-mail message (headers and body).
    Message,
    /// A calendar event.
    Event,
    /// A span of a plain-text-like file.
    Span,
    /// A whole image (its metadata; the indexer appends OCR text and visual tags).
    Image,
    /// An audio or video file, or a window of one.
    Media,
    /// A metadata-only unit for opaque files.
    Metadata,
}

impl UnitKind {
    pub const ALL: [UnitKind; 9] = [
        UnitKind::Page,
        UnitKind::Slide,
        UnitKind::Rows,
        UnitKind::Message,
        UnitKind::Event,
        UnitKind::Span,
        UnitKind::Image,
        UnitKind::Media,
        UnitKind::Metadata,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Page => "page",
            UnitKind::Slide => "slide",
            UnitKind::Rows => "rows",
            UnitKind::Message => "message",
            UnitKind::Event => "event",
            UnitKind::Span => "span",
            UnitKind::Image => "image",
            UnitKind::Media => "media",
            UnitKind::Metadata => "metadata",
        }
    }

    pub fn parse(name: &str) -> Option<UnitKind> {
        UnitKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// The coarse modality of a file, following HippoCamp's labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Modality {
    /// Paged office documents: pdf, docx, odt, pptx, xlsx.
    Document,
    /// Text-like files: txt, md, code, csv, eml, ics, json, sqlite.
    Text,
    Image,
    Audio,
    Video,
    /// Opaque binaries (archives, arrays, model weights).
    Binary,
}

impl Modality {
    pub const ALL: [Modality; 6] = [
        Modality::Document,
        Modality::Text,
        Modality::Image,
        Modality::Audio,
        Modality::Video,
        Modality::Binary,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Modality::Document => "document",
            Modality::Text => "text",
            Modality::Image => "image",
            Modality::Audio => "audio",
            Modality::Video => "video",
            Modality::Binary => "binary",
        }
    }

    pub fn parse(name: &str) -> Option<Modality> {
        Modality::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// Where a unit sits inside its file. Every field is optional; a converter fills the
/// ones that make sense for its format (see the table in DESIGN.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locator {
    /// 1-based physical page (pdf) or page-equivalent (docx, odt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Printed page label (PDF PageLabels), e.g. "iv" or "A-3".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    /// 1-based slide number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slide: Option<u32>,
    /// Sheet name (xlsx) or table name (sqlite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
    /// 1-based first and last row of a row group, counted as in the source: for csv the
    /// physical line (header = 1), for xlsx the sheet row, for sqlite the rowid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_end: Option<u64>,
    /// 1-based first and last line of a text span (inclusive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_end: Option<u64>,
    /// The 1-based lines a unit gathers from across its file, when they are not one
    /// run (a log's records of one kind, `log_records`); `line_start..line_end` is then
    /// the first and last of them, not a run of lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u64>,
    /// Character offsets (0-based, end exclusive) of a text span in the decoded file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub char_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub char_end: Option<u64>,
    /// Time window of an audio/video unit in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_start_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_end_ms: Option<u64>,
    /// Part of a multi-part unit: "body", "notes", "headers", a MIME part, a notebook cell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// Calendar event UID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_uid: Option<String>,
}

impl Locator {
    pub fn page(page: u32) -> Locator {
        Locator {
            page: Some(page),
            ..Locator::default()
        }
    }

    pub fn slide(slide: u32) -> Locator {
        Locator {
            slide: Some(slide),
            ..Locator::default()
        }
    }

    pub fn rows(sheet: impl Into<String>, row_start: u64, row_end: u64) -> Locator {
        Locator {
            sheet: Some(sheet.into()),
            row_start: Some(row_start),
            row_end: Some(row_end),
            ..Locator::default()
        }
    }

    pub fn lines(line_start: u64, line_end: u64) -> Locator {
        Locator {
            line_start: Some(line_start),
            line_end: Some(line_end),
            ..Locator::default()
        }
    }

    /// A short human-readable form: `p. 3 (iv)`, `slide 2`, `Sheet1 rows 2-40`, `lines 10-42`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(page) = self.page {
            match &self.page_label {
                Some(label) if label != &page.to_string() => {
                    parts.push(format!("p. {page} ({label})"))
                }
                _ => parts.push(format!("p. {page}")),
            }
        }
        if let Some(slide) = self.slide {
            parts.push(format!("slide {slide}"));
        }
        if let Some(sheet) = &self.sheet {
            parts.push(sheet.clone());
        }
        if let (Some(a), Some(b)) = (self.row_start, self.row_end) {
            parts.push(format!("rows {a}-{b}"));
        }
        if let (Some(a), Some(b)) = (self.line_start, self.line_end) {
            parts.push(format!("lines {a}-{b}"));
        }
        if let (Some(a), Some(b)) = (self.t_start_ms, self.t_end_ms) {
            parts.push(format!("{}-{}", format_ms(a), format_ms(b)));
        }
        if let Some(part) = &self.part {
            parts.push(part.clone());
        }
        if let Some(uid) = &self.event_uid {
            parts.push(format!("event {uid}"));
        }
        parts.join(", ")
    }
}

fn format_ms(ms: u64) -> String {
    let secs = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

/// One atomic unit of evidence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub kind: Option<UnitKind>,
    pub locator: Locator,
    /// A short heading: e-mail subject, event summary, slide title, sheet name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What lexical search sees (and snippets are cut from).
    pub text: String,
    /// The best absolute time of this unit (e-mail Date, event start, EXIF time).
    /// `None` means "use the file's modification time" (the indexer fills it in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_time: Option<DateTime<FixedOffset>>,
    /// Format-specific structured fields (from, to, attendees, rrule, weekday, gps, …),
    /// indexed as searchable text and returned as metadata.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub fields: BTreeMap<String, String>,
}

impl Unit {
    pub fn new(kind: UnitKind, locator: Locator, text: impl Into<String>) -> Unit {
        Unit {
            kind: Some(kind),
            locator,
            text: text.into(),
            ..Unit::default()
        }
    }

    pub fn with_title(mut self, title: impl Into<String>) -> Unit {
        let title = title.into();
        if !title.trim().is_empty() {
            self.title = Some(title);
        }
        self
    }

    pub fn with_time(mut self, time: Option<DateTime<FixedOffset>>) -> Unit {
        self.content_time = time;
        self
    }

    pub fn with_field(mut self, key: &str, value: impl Into<String>) -> Unit {
        let value = value.into();
        if !value.trim().is_empty() {
            self.fields.insert(key.to_string(), value);
        }
        self
    }

    pub fn kind(&self) -> UnitKind {
        self.kind.unwrap_or(UnitKind::Metadata)
    }

    /// Dates the unit's records are about (dated rows, journal or log entries): the
    /// earliest becomes `content_time` (wall clock, +00:00) unless one is set, and the
    /// span and the weekdays are recorded in `fields` (`date_start`, `date_end`,
    /// `weekdays`) for time-aware ranking.
    pub(crate) fn with_record_dates(mut self, dates: &[chrono::NaiveDate]) -> Unit {
        let (Some(first), Some(last)) = (dates.iter().min(), dates.iter().max()) else {
            return self;
        };
        if self.content_time.is_none() {
            self.content_time = first
                .and_hms_opt(0, 0, 0)
                .map(|t| t.and_utc().fixed_offset());
        }
        self.fields.insert("date_start".into(), first.to_string());
        self.fields.insert("date_end".into(), last.to_string());
        if !self.fields.contains_key("weekdays") {
            let mut days: Vec<chrono::Weekday> =
                dates.iter().map(chrono::Datelike::weekday).collect();
            days.sort_by_key(|d| d.num_days_from_monday());
            days.dedup();
            let names: Vec<String> = days.iter().map(|d| format!("{d:?}")).collect();
            self.fields.insert("weekdays".into(), names.join(","));
        }
        self
    }
}

/// English month names, January first.
pub const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month (1–12) a word names: a full English month name, its three-letter
/// abbreviation or "sept", in any case, a trailing full stop ignored.
pub fn month_number(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    if word.len() < 3 || word.len() > 9 {
        return None;
    }
    // No lower-cased copy: this runs over every word of units read at query time.
    MONTH_NAMES
        .iter()
        .position(|m| {
            m.eq_ignore_ascii_case(word) || (word.len() == 3 && m[..3].eq_ignore_ascii_case(word))
        })
        .or_else(|| word.eq_ignore_ascii_case("sept").then_some(8))
        .map(|i| i as u32 + 1)
}

/// English weekday names, Monday first.
pub const WEEKDAY_NAMES: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// The usual abbreviations of weekday names (lower case) and their days (0 = Monday).
const WEEKDAY_ABBREVIATIONS: [(&str, u32); 10] = [
    ("mon", 0),
    ("tue", 1),
    ("tues", 1),
    ("wed", 2),
    ("thu", 3),
    ("thur", 3),
    ("thurs", 3),
    ("fri", 4),
    ("sat", 5),
    ("sun", 6),
];

/// The day (0 = Monday) a word names: a full English weekday name or one of its usual
/// abbreviations ("Tue", "Tues", "Thurs"), in any case, a trailing full stop ignored.
/// The one weekday reader of documents, query parsing and name detection; a reader
/// of questions leaves out "sat" and "sun", which are English words first.
pub fn weekday_number(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    WEEKDAY_NAMES
        .iter()
        .position(|name| name.eq_ignore_ascii_case(word))
        .map(|i| i as u32)
        .or_else(|| {
            WEEKDAY_ABBREVIATIONS
                .iter()
                .find(|(short, _)| short.eq_ignore_ascii_case(word))
                .map(|(_, day)| *day)
        })
}

/// Weekday indexes (0 = Monday) of a `fields["weekdays"]` list: comma-separated names,
/// full or abbreviated to three letters, any case.
pub fn parse_weekday_list(list: &str) -> Vec<u32> {
    let mut days: Vec<u32> = list
        .split(',')
        .filter_map(|name| {
            let name = name.trim().to_ascii_lowercase();
            WEEKDAY_NAMES
                .iter()
                .position(|d| name.len() >= 3 && name.starts_with(&d[..3]))
                .map(|i| i as u32)
        })
        .collect();
    days.sort_unstable();
    days.dedup();
    days
}

/// `FileMeta.extra` key of a damage report: the file was damaged but partly recovered.
/// Its units are indexed, and the indexer also lists it among the run's failures (with
/// category `damaged`) so the damage is not silent.
pub const DAMAGE_KEY: &str = "damage";

/// `FileMeta.extra` key of a truncation note: the converter stopped at one of its limits
/// (rows of a sheet, attachments of a message, …) and says what it kept. The file's
/// units are indexed; the indexer lists it in the run summary's `truncated` list and
/// keeps the note in the manifest, so no content is dropped without a word. Every such
/// limit is listed in `docs/robustness.md`.
pub const TRUNCATED_KEY: &str = "truncated";

/// File-level facts a converter learned (document title, author, EXIF, duration, …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileMeta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Creation time stated inside the file (PDF CreationDate, docx dcterms:created,
    /// EXIF DateTimeOriginal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<DateTime<FixedOffset>>,
    /// Number of pages / slides / sheets / events, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_count: Option<u32>,
    /// Everything else, as strings (e.g. `gps`, `camera`, `duration_s`, `shape`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub extra: BTreeMap<String, String>,
}

/// A file found inside another one (an e-mail attachment). The indexer converts it as a
/// file of its own at the virtual path `<parent>#attachment/<name>`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The result of converting one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversion {
    pub units: Vec<Unit>,
    pub meta: FileMeta,
    pub children: Vec<ChildFile>,
}

impl Conversion {
    pub fn from_units(units: Vec<Unit>) -> Conversion {
        Conversion {
            units,
            ..Conversion::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn month_names_full_short_and_sept() {
        assert_eq!(month_number("August"), Some(8));
        assert_eq!(month_number("aug."), Some(8));
        assert_eq!(month_number("SEPT"), Some(9));
        assert_eq!(month_number("may"), Some(5));
        for word in ["ma", "augustus", "mayday", "sep.t", "", "."] {
            assert_eq!(month_number(word), None, "{word}");
        }
    }

    #[test]
    fn weekday_names_and_their_usual_abbreviations() {
        for (word, day) in [
            ("Monday", 0),
            ("TUE", 1),
            ("Tues.", 1),
            ("wed", 2),
            ("Thurs", 3),
            ("thu", 3),
            ("fri", 4),
            ("Sat", 5),
            ("sunday", 6),
        ] {
            assert_eq!(weekday_number(word), Some(day), "{word}");
        }
        // Longer prefixes, plurals and other words are not weekday names.
        for word in ["satur", "wedne", "mondays", "mo", "month", "sunny", ""] {
            assert_eq!(weekday_number(word), None, "{word}");
        }
    }

    #[test]
    fn weekday_lists_parse_full_and_short_names() {
        assert_eq!(parse_weekday_list("Wed,Sat"), vec![2, 5]);
        assert_eq!(parse_weekday_list("Tuesday, thursday, tue"), vec![1, 3]);
        assert!(parse_weekday_list("mo, x,").is_empty());
    }

    #[test]
    fn locators_describe_themselves() {
        let locator = Locator {
            page: Some(5),
            page_label: Some("2".into()),
            ..Locator::default()
        };
        assert_eq!(locator.describe(), "p. 5 (2)");
        assert_eq!(
            Locator::rows("Sheet1", 2, 40).describe(),
            "Sheet1, rows 2-40"
        );
    }

    #[test]
    fn dates_and_weekday_lists_from_random_text() {
        use crate::record_dates::{dates_in, entry_dates};
        use crate::testutil::{self, Rng};
        const DATES: &[(&str, (i32, u32, u32))] = &[
            ("2025-08-16", (2025, 8, 16)),
            ("2025/8/6", (2025, 8, 6)),
            ("8/16/2025", (2025, 8, 16)),
            ("16/8/2025", (2025, 8, 16)),
            ("1970-01-01", (1970, 1, 1)),
            ("2100-12-31", (2100, 12, 31)),
            ("2024-02-29", (2024, 2, 29)),
        ];
        let mut pieces: Vec<&str> = testutil::TEXT_PIECES.to_vec();
        pieces.extend(testutil::EDGE_NUMBERS);
        pieces.extend([
            "2025-02-30",
            "0000-00-00",
            "13/13/2025",
            "-",
            "/",
            "1969-12-31",
        ]);
        pieces.extend(DATES.iter().map(|(d, _)| *d));
        let mut rng = Rng(0xDA7E_5000_0000_0001);
        for _ in 0..3000 {
            let noise = testutil::random_text(&mut rng, &pieces, 60);
            let (written, (y, m, d)) = *rng.pick(DATES);
            let expected = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
            let text = format!("{noise} {written} {noise}");
            let found = dates_in(&text);
            assert!(found.len() <= 400);
            assert!(found.contains(&expected), "{written} not found in {text:?}");
            for date in &found {
                assert!(
                    (1970..=2100).contains(&chrono::Datelike::year(date)),
                    "{date}"
                );
            }
            let entries = entry_dates(&text);
            assert!(entries.len() <= 400);
            assert!(entries
                .iter()
                .all(|d| (1970..=2100).contains(&chrono::Datelike::year(d))));
            let line_start = format!("# {written} (Sat) {noise}");
            assert_eq!(
                entry_dates(&line_start).first(),
                Some(&expected),
                "{line_start:?}"
            );

            let mut names = Vec::new();
            let mut days = Vec::new();
            for _ in 0..rng.below(6) {
                let day = rng.below(7);
                let full = WEEKDAY_NAMES[day];
                let name = if rng.one_in(2) { &full[..3] } else { full };
                names.push(if rng.one_in(2) {
                    name.to_uppercase()
                } else {
                    name.to_string()
                });
                days.push(day as u32);
            }
            names.push(testutil::random_text(&mut rng, testutil::TEXT_PIECES, 4));
            days.sort_unstable();
            days.dedup();
            let list = names.join(if rng.one_in(2) { "," } else { ", " });
            let parsed = parse_weekday_list(&list);
            assert!(parsed.windows(2).all(|w| w[0] < w[1]) && parsed.iter().all(|d| *d < 7));
            assert!(
                days.iter().all(|d| parsed.contains(d)),
                "{list:?} → {parsed:?}"
            );
        }
    }
}
