//! Gold locators (page, slide, sheet rows, lines, events, time ranges) as written in the
//! annotations, and whether a returned unit satisfies one.

use serde_json::Value;

use crate::questions::RawLocator;
use crate::reply::{as_u64, UnitLoc};

/// Slack around a gold time range when matching media units, in milliseconds.
pub const TIME_SLACK_MS: u64 = 2_000;

/// A gold locator, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum GoldLocator {
    /// The whole file (empty locator list, e.g. an image).
    WholeFile,
    Page(u64),
    Slide(u64),
    /// Spreadsheet rows (1-based sheet rows; cells reduced to their rows).
    SheetRows {
        sheet: String,
        rows: Vec<u64>,
    },
    /// A CSV physical line (header = line 1).
    CsvLine(u64),
    /// A SQLite row: table and rowid.
    SqliteRow {
        table: String,
        rowid: u64,
    },
    /// A 1-based inclusive line range of the raw file.
    Lines {
        start: u64,
        end: u64,
    },
    /// A calendar event.
    Event {
        uid: String,
        summary: String,
    },
    /// One message of a mailbox, by its subject (a unit of the message carries it as
    /// its title; the message id is kept for the report).
    Message {
        message_id: String,
        subject: String,
    },
    /// A media time range in milliseconds.
    Time {
        start_ms: u64,
        end_ms: u64,
    },
    /// A unit this evaluator does not know, or a known unit whose position could not be
    /// read; the string is the key it is reported under.
    Unknown(String),
}

fn as_str(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The row of a cell reference ("B7" → 7, "$B$7" → 7).
pub fn cell_row(cell: &str) -> Option<u64> {
    let cell = cell.trim().replace('$', "");
    let digits = cell.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if digits.len() == cell.len() || digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

/// Rows named by a `rows` or `cells` entry: a number, "7", "2-5", "B7" or "B7:C9".
fn rows_of(entry: &Value, cells: bool) -> Vec<u64> {
    if let Some(n) = entry.as_u64() {
        return vec![n];
    }
    let Some(s) = entry.as_str() else {
        return Vec::new();
    };
    let one = |p: &str| {
        if cells {
            cell_row(p).or_else(|| p.trim().parse().ok())
        } else {
            p.trim().parse().ok().or_else(|| cell_row(p))
        }
    };
    let parts: Vec<&str> = s.split([':', '-', '–']).collect();
    match parts.as_slice() {
        [a] => one(a).into_iter().collect(),
        [a, b] => match (one(a), one(b)) {
            (Some(a), Some(b)) if a <= b && b - a <= 100_000 => (a..=b).collect(),
            (Some(a), Some(b)) => vec![a, b],
            (a, b) => a.into_iter().chain(b).collect(),
        },
        _ => Vec::new(),
    }
}

/// Seconds of "HH:MM:SS", "MM:SS" or "SS" (fractions allowed).
fn clock_ms(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.trim().split(':').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut total = 0.0f64;
    for p in &parts {
        let v: f64 = p.trim().parse().ok()?;
        if v.is_nan() || v < 0.0 {
            return None;
        }
        total = total * 60.0 + v;
    }
    Some((total * 1000.0).round() as u64)
}

/// Parses "HH:MM:SS–HH:MM:SS" (en dash, em dash or hyphen, spaces allowed) into
/// milliseconds; a single time is a zero-length range.
pub fn parse_time_range(s: &str) -> Option<(u64, u64)> {
    let s = s.trim();
    let (a, b) = match s.split_once(['–', '—', '-']) {
        Some((a, b)) => (clock_ms(a)?, clock_ms(b)?),
        None => {
            let t = clock_ms(s)?;
            (t, t)
        }
    };
    Some((a.min(b), a.max(b)))
}

/// Parses one annotation locator.
pub fn parse_locator(raw: &RawLocator) -> GoldLocator {
    let unit = raw.unit.trim().to_ascii_lowercase();
    let p = &raw.position;
    let bad = || GoldLocator::Unknown(format!("{unit} (unreadable position)"));
    match unit.as_str() {
        "page" => p
            .get("system_page")
            .or_else(|| p.get("page"))
            .and_then(as_u64)
            .or_else(|| as_u64(p))
            .map(GoldLocator::Page)
            .unwrap_or_else(bad),
        "slide" => p
            .get("slide")
            .and_then(as_u64)
            .or_else(|| as_u64(p))
            .map(GoldLocator::Slide)
            .unwrap_or_else(bad),
        "sheet" => {
            let sheet = p.get("sheet").and_then(as_str).unwrap_or_default();
            let mut rows = Vec::new();
            for (key, cells) in [("rows", false), ("cells", true), ("row", false)] {
                match p.get(key) {
                    Some(Value::Array(items)) => {
                        items.iter().for_each(|e| rows.extend(rows_of(e, cells)))
                    }
                    Some(v) => rows.extend(rows_of(v, cells)),
                    None => {}
                }
            }
            if rows.is_empty() {
                bad()
            } else {
                GoldLocator::SheetRows { sheet, rows }
            }
        }
        "row" => {
            if let Some(line) = p.get("line").and_then(as_u64) {
                GoldLocator::CsvLine(line)
            } else if let (Some(table), Some(rowid)) = (
                p.get("table").and_then(as_str),
                p.get("rowid").and_then(as_u64),
            ) {
                GoldLocator::SqliteRow { table, rowid }
            } else {
                bad()
            }
        }
        "line" => {
            let start = p.get("start").and_then(as_u64).or_else(|| as_u64(p));
            let end = p.get("end").and_then(as_u64);
            match start {
                Some(start) => {
                    let end = end.unwrap_or(start);
                    GoldLocator::Lines {
                        start: start.min(end),
                        end: start.max(end),
                    }
                }
                None => bad(),
            }
        }
        "event" => {
            let uid = p.get("uid").and_then(as_str).unwrap_or_default();
            let summary = p.get("summary").and_then(as_str).unwrap_or_default();
            if uid.is_empty() && summary.is_empty() {
                bad()
            } else {
                GoldLocator::Event { uid, summary }
            }
        }
        "message" => {
            let message_id = p.get("message_id").and_then(as_str).unwrap_or_default();
            let subject = p.get("subject").and_then(as_str).unwrap_or_default();
            if subject.is_empty() {
                bad()
            } else {
                GoldLocator::Message {
                    message_id,
                    subject,
                }
            }
        }
        "timestamp" => {
            let range = match p {
                Value::String(s) => parse_time_range(s),
                Value::Object(_) => {
                    let get = |k: &str| p.get(k).and_then(Value::as_str).and_then(clock_ms);
                    match (get("start"), get("end")) {
                        (Some(a), Some(b)) => Some((a.min(b), a.max(b))),
                        (Some(a), None) => Some((a, a)),
                        _ => None,
                    }
                }
                _ => None,
            };
            range
                .map(|(start_ms, end_ms)| GoldLocator::Time { start_ms, end_ms })
                .unwrap_or_else(bad)
        }
        "" => GoldLocator::Unknown("(missing unit)".into()),
        other => GoldLocator::Unknown(other.to_string()),
    }
}

fn rows_contain(unit: &UnitLoc, row: u64) -> bool {
    match (unit.row_start, unit.row_end) {
        (Some(a), Some(b)) => a <= row && row <= b,
        (Some(a), None) => a == row,
        _ => false,
    }
}

fn same_name(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

/// Whether a returned unit satisfies a gold locator.
pub fn locator_matches(gold: &GoldLocator, unit: &UnitLoc) -> bool {
    match gold {
        GoldLocator::WholeFile => true,
        GoldLocator::Page(n) => unit.page == Some(*n),
        GoldLocator::Slide(n) => unit.slide == Some(*n),
        GoldLocator::SheetRows { sheet, rows } => {
            let sheet_ok =
                sheet.is_empty() || unit.sheet.as_deref().is_some_and(|s| same_name(s, sheet));
            sheet_ok && rows.iter().any(|r| rows_contain(unit, *r))
        }
        GoldLocator::CsvLine(n) => rows_contain(unit, *n),
        GoldLocator::SqliteRow { table, rowid } => {
            unit.sheet.as_deref().is_some_and(|s| same_name(s, table)) && rows_contain(unit, *rowid)
        }
        GoldLocator::Lines { start, end } if !unit.lines.is_empty() => {
            unit.lines.iter().any(|line| (*start..=*end).contains(line))
        }
        GoldLocator::Lines { start, end } => match (unit.line_start, unit.line_end) {
            (Some(a), b) => {
                let b = b.unwrap_or(a);
                a <= *end && *start <= b
            }
            _ => false,
        },
        GoldLocator::Event { uid, summary } => {
            let uid_ok = !uid.is_empty() && unit.event_uid.as_deref() == Some(uid.as_str());
            let title_ok =
                !summary.is_empty() && unit.title.as_deref().is_some_and(|t| same_name(t, summary));
            uid_ok || title_ok
        }
        GoldLocator::Message { subject, .. } => {
            unit.title.as_deref().is_some_and(|t| same_name(t, subject))
        }
        GoldLocator::Time { start_ms, end_ms } => match (unit.t_start_ms, unit.t_end_ms) {
            (Some(a), b) => {
                let b = b.unwrap_or(a);
                let lo = start_ms.saturating_sub(TIME_SLACK_MS);
                let hi = end_ms.saturating_add(TIME_SLACK_MS);
                a <= hi && lo <= b
            }
            _ => false,
        },
        GoldLocator::Unknown(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_util::raw;

    #[test]
    fn a_mailbox_message_is_found_by_its_subject() {
        let gold = parse_locator(&raw(
            "message",
            json!({"message_id": "<m1@x>", "subject": "Quote for the March shoot"}),
        ));
        let unit = |title: &str| UnitLoc {
            title: Some(title.to_string()),
            line_start: Some(40),
            ..UnitLoc::default()
        };
        assert!(locator_matches(&gold, &unit("quote for the march shoot ")));
        assert!(!locator_matches(&gold, &unit("Invoice")));
    }

    #[test]
    fn timestamp_parsing() {
        assert_eq!(
            parse_time_range("00:00:11–00:00:20"),
            Some((11_000, 20_000))
        );
        assert_eq!(
            parse_time_range("00:01:05 - 00:01:10"),
            Some((65_000, 70_000))
        );
        assert_eq!(
            parse_time_range("01:02:03—01:02:04.5"),
            Some((3_723_000, 3_724_500))
        );
        assert_eq!(parse_time_range("1:30–2:00"), Some((90_000, 120_000)));
        assert_eq!(parse_time_range("00:00:07"), Some((7_000, 7_000)));
        assert_eq!(parse_time_range("soon–later"), None);
        assert_eq!(parse_time_range(""), None);
    }

    #[test]
    fn locator_parsing() {
        assert_eq!(
            parse_locator(&raw("page", json!({"system_page": 7}))),
            GoldLocator::Page(7)
        );
        assert_eq!(
            parse_locator(&raw("slide", json!({"slide": 7, "part": "notes"}))),
            GoldLocator::Slide(7)
        );
        assert_eq!(
            parse_locator(&raw("sheet", json!({"sheet": "Mileage", "rows": [2, 3]}))),
            GoldLocator::SheetRows {
                sheet: "Mileage".into(),
                rows: vec![2, 3]
            }
        );
        assert_eq!(
            parse_locator(&raw(
                "sheet",
                json!({"sheet": "S", "cells": ["B7", "C9:C10"]})
            )),
            GoldLocator::SheetRows {
                sheet: "S".into(),
                rows: vec![7, 9, 10]
            }
        );
        assert_eq!(
            parse_locator(&raw("row", json!({"line": 17}))),
            GoldLocator::CsvLine(17)
        );
        assert_eq!(
            parse_locator(&raw("row", json!({"table": "books", "rowid": 7}))),
            GoldLocator::SqliteRow {
                table: "books".into(),
                rowid: 7
            }
        );
        assert_eq!(
            parse_locator(&raw("line", json!({"start": 19, "end": 21}))),
            GoldLocator::Lines { start: 19, end: 21 }
        );
        assert_eq!(
            parse_locator(&raw("event", json!({"uid": "u@x", "summary": "S"}))),
            GoldLocator::Event {
                uid: "u@x".into(),
                summary: "S".into()
            }
        );
        assert_eq!(
            parse_locator(&raw("timestamp", json!("00:00:11–00:00:20"))),
            GoldLocator::Time {
                start_ms: 11_000,
                end_ms: 20_000
            }
        );
        assert_eq!(
            parse_locator(&raw("bbox", json!([1, 2, 3, 4]))),
            GoldLocator::Unknown("bbox".into())
        );
        assert_eq!(
            parse_locator(&raw("page", json!({"nope": 1}))),
            GoldLocator::Unknown("page (unreadable position)".into())
        );
        assert_eq!(cell_row("$AB$12"), Some(12));
        assert_eq!(cell_row("AB"), None);
    }

    #[test]
    fn locator_matching_every_unit() {
        let page = UnitLoc {
            page: Some(7),
            ..Default::default()
        };
        assert!(locator_matches(&GoldLocator::Page(7), &page));
        assert!(!locator_matches(&GoldLocator::Page(6), &page));
        assert!(locator_matches(&GoldLocator::WholeFile, &page));

        let slide = UnitLoc {
            slide: Some(3),
            ..Default::default()
        };
        assert!(locator_matches(&GoldLocator::Slide(3), &slide));
        assert!(!locator_matches(&GoldLocator::Slide(4), &slide));
        assert!(!locator_matches(&GoldLocator::Page(3), &slide));

        let rows = UnitLoc {
            sheet: Some("Mileage".into()),
            row_start: Some(1),
            row_end: Some(2),
            ..Default::default()
        };
        let sheet = |name: &str, rows: Vec<u64>| GoldLocator::SheetRows {
            sheet: name.into(),
            rows,
        };
        assert!(locator_matches(&sheet("mileage", vec![2, 3]), &rows));
        assert!(!locator_matches(&sheet("mileage", vec![3]), &rows));
        assert!(!locator_matches(&sheet("Hotel", vec![2]), &rows));

        let csv = UnitLoc {
            row_start: Some(10),
            row_end: Some(20),
            ..Default::default()
        };
        assert!(locator_matches(&GoldLocator::CsvLine(17), &csv));
        assert!(!locator_matches(&GoldLocator::CsvLine(21), &csv));

        let sqlite = UnitLoc {
            sheet: Some("books".into()),
            row_start: Some(1),
            row_end: Some(8),
            ..Default::default()
        };
        let row = |table: &str, rowid| GoldLocator::SqliteRow {
            table: table.into(),
            rowid,
        };
        assert!(locator_matches(&row("Books", 7), &sqlite));
        assert!(!locator_matches(&row("books", 9), &sqlite));
        assert!(!locator_matches(&row("authors", 7), &sqlite));

        let lines = UnitLoc {
            line_start: Some(10),
            line_end: Some(19),
            ..Default::default()
        };
        let range = |start, end| GoldLocator::Lines { start, end };
        assert!(locator_matches(&range(19, 25), &lines));
        assert!(locator_matches(&range(1, 10), &lines));
        assert!(!locator_matches(&range(20, 25), &lines));
        assert!(!locator_matches(&range(1, 1), &UnitLoc::default()));
        // Gathered lines (a log's records of one kind) match only themselves, not the
        // lines between the first and the last.
        let gathered = UnitLoc {
            line_start: Some(26),
            line_end: Some(76),
            lines: vec![26, 51, 76],
            ..Default::default()
        };
        assert!(locator_matches(&range(51, 51), &gathered));
        assert!(locator_matches(&range(70, 80), &gathered));
        assert!(!locator_matches(&range(27, 50), &gathered));

        let event = UnitLoc {
            event_uid: Some("u@x".into()),
            title: Some("Clay Loft – Wheel Throwing II".into()),
            ..Default::default()
        };
        let ev = |uid: &str, summary: &str| GoldLocator::Event {
            uid: uid.into(),
            summary: summary.into(),
        };
        assert!(locator_matches(&ev("u@x", "other"), &event));
        assert!(locator_matches(
            &ev("v@x", "Clay Loft – Wheel Throwing II"),
            &event
        ));
        assert!(!locator_matches(&ev("v@x", "other"), &event));

        let media = UnitLoc {
            t_start_ms: Some(21_000),
            t_end_ms: Some(30_000),
            ..Default::default()
        };
        let t = |start_ms, end_ms| GoldLocator::Time { start_ms, end_ms };
        assert!(locator_matches(&t(11_000, 20_000), &media)); // within the 2 s slack
        assert!(!locator_matches(&t(11_000, 18_000), &media));
        assert!(locator_matches(&t(31_500, 40_000), &media));
        assert!(!locator_matches(&t(11_000, 20_000), &UnitLoc::default()));

        assert!(!locator_matches(
            &GoldLocator::Unknown("bbox".into()),
            &page
        ));
    }
}
