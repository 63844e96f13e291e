//! A log's records of one kind, gathered into one unit.
//!
//! A machine-written log repeats a few kinds of record: the bulk (a reading every hour,
//! a request line) and rarer kinds that summarise or stand out (a daily total, a
//! restart, an error). The line-aligned spans cut the file into runs of consecutive
//! lines, so the thirty daily totals of a month's log sit in thirty spans, among the
//! hourly readings. For each recurring kind that is not the bulk (at least 1 % and at
//! most a third of the log's lines, the eight most frequent), one more unit holds
//! all its lines (as far as one unit's budget goes) and lists their line numbers in
//! [`Locator::lines`]: one hit then shows every daily total, each with its line.
//!
//! A record's kind is its line with every word holding a digit (a time, a date, an
//! amount, an id) read as one placeholder: `… INFO gauge: DAILY date=2025-10-01
//! total_in=0.42` and the next day's line are one kind.
//!
//! A log's warnings and errors (`WARN`, `ERROR`, `[error]`, `level=fatal`…) get one
//! more unit, however few they are, unless they are its bulk or all among the kinds
//! gathered already. A line's level is the first level word among its first words, so
//! `INFO … ERROR` is no alert. The two lines where an inverter dropped off the grid sit among
//! 1,700 readings, in a span that reads like every other, and "when did the inverter
//! drop off the grid?" finds them in the unit of the month's faults.

use crate::{Locator, Unit, UnitKind};
use std::collections::HashMap;

/// Logs shorter than this many non-blank lines keep their spans only.
const MIN_LINES: usize = 20;
/// A kind recurs from this many lines on…
const MIN_RECORDS: usize = 3;
/// …and at least this share of the non-blank lines: in a large log of varied lines (a
/// web server's, where one browser's requests for one path recur a dozen times in ten
/// thousand lines) such kinds are noise, and a rare line is found by its own span.
const MIN_SHARE: f64 = 0.01;
/// …and is the bulk of the log above this share of its non-blank lines (the spans
/// show it already).
const MAX_SHARE: f64 = 1.0 / 3.0;
/// Units of gathered records per log at most (the most frequent kinds first), besides
/// the one of its warnings and errors.
const MAX_KINDS: usize = 8;
/// Gathered units a log holds at most: its kinds and the unit of its warnings and
/// errors. They are the log's last units (after its spans).
pub const MAX_GATHERED_UNITS: usize = MAX_KINDS + 1;
/// Level names of a warning or worse (any case; see [`is_alert`]).
const ALERT_LEVELS: [&str; 12] = [
    "warn",
    "warning",
    "error",
    "err",
    "fatal",
    "crit",
    "critical",
    "alert",
    "emerg",
    "severe",
    "panic",
    "emergency",
];
/// Level names below a warning (any case): a line at one of these is no alert, whatever
/// its message says.
const OTHER_LEVELS: [&str; 6] = ["info", "debug", "trace", "notice", "verbose", "fine"];
/// A line's level is looked for among its first words (a timestamp, a host, a process
/// and its id come first in syslog).
const LEVEL_WORDS: usize = 8;

/// The units of `text`'s recurring, non-bulk record kinds, each at most `max_tokens`
/// approximate tokens (its first lines, when they are more), in the order of the
/// kinds' first lines.
pub(crate) fn record_units(text: &str, max_tokens: usize) -> Vec<Unit> {
    let lines: Vec<(u64, &str)> = text
        .split('\n')
        .enumerate()
        .map(|(i, line)| (i as u64 + 1, line.trim_end()))
        .filter(|(_, line)| !line.trim().is_empty())
        .collect();
    if lines.len() < MIN_LINES {
        return Vec::new();
    }
    let mut kinds: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, (_, line)) in lines.iter().enumerate() {
        if let Some(kind) = kind_of(line) {
            kinds.entry(kind).or_default().push(index);
        }
    }
    let least = MIN_RECORDS.max((lines.len() as f64 * MIN_SHARE).ceil() as usize);
    let most = (lines.len() as f64 * MAX_SHARE).floor() as usize;
    let mut chosen: Vec<Vec<usize>> = kinds
        .into_values()
        .filter(|records| (least..=most).contains(&records.len()))
        .collect();
    // The most frequent kinds; among equals, the earlier.
    chosen.sort_by_key(|records| (std::cmp::Reverse(records.len()), records[0]));
    chosen.truncate(MAX_KINDS);
    chosen.sort_by_key(|records| records[0]);
    let mut units: Vec<Unit> = chosen
        .iter()
        .filter_map(|records| gathered(&lines, records, MIN_RECORDS, max_tokens))
        .collect();
    // The warnings and errors, unless they are the bulk or all in kinds gathered already.
    let alerts: Vec<usize> = (0..lines.len())
        .filter(|&index| is_alert(lines[index].1))
        .collect();
    let in_kinds: std::collections::HashSet<usize> = chosen.iter().flatten().copied().collect();
    if alerts.len() <= most && !alerts.iter().all(|index| in_kinds.contains(index)) {
        units.extend(gathered(&lines, &alerts, 1, max_tokens));
    }
    units
}

/// One unit of the `records` (indexes into `lines`), as many as fit in `max_tokens`
/// (the first ones), listing their line numbers; `None` when fewer than `least` fit.
fn gathered(
    lines: &[(u64, &str)],
    records: &[usize],
    least: usize,
    max_tokens: usize,
) -> Option<Unit> {
    let mut numbers = Vec::new();
    let mut text = String::new();
    let mut tokens = 0;
    for &index in records {
        let (number, line) = lines[index];
        let cost = crate::tokens::approx_tokens(line);
        if !numbers.is_empty() && tokens + cost > max_tokens {
            break;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
        tokens += cost;
        numbers.push(number);
    }
    (numbers.len() >= least.max(1)).then(|| {
        let locator = Locator {
            line_start: numbers.first().copied(),
            line_end: numbers.last().copied(),
            lines: numbers,
            ..Locator::default()
        };
        let dates = crate::record_dates::entry_dates(&text);
        Unit::new(UnitKind::Span, locator, text).with_record_dates(&dates)
    })
}

/// Whether a log line is a warning or worse: among its first [`LEVEL_WORDS`] words, the
/// first that names a level ([`ALERT_LEVELS`], [`OTHER_LEVELS`]) in capitals (`WARN`,
/// `ERROR:`, Python's `WARNING:root:`), or in any case when it is bracketed (`[error]`,
/// Apache's) or a `level=`/`lvl=`/`severity=` value (logfmt), is a warning or worse. A
/// message that merely mentions an error (`INFO … retrying after ERROR`,
/// `ERROR_COUNT=0`) is not one.
fn is_alert(line: &str) -> bool {
    for word in line.split_whitespace().take(LEVEL_WORDS) {
        let (key, value) = word.split_once('=').unwrap_or(("", word));
        let keyed = ["level", "lvl", "severity"]
            .iter()
            .any(|k| key.eq_ignore_ascii_case(k));
        if !key.is_empty() && !keyed {
            continue;
        }
        let bracketed = value.starts_with('[') && value.trim_end_matches(':').ends_with(']');
        let name = value
            .trim_start_matches(['[', '<', '(', '"'])
            .split(':')
            .next()
            .unwrap_or("")
            .trim_end_matches([']', '>', ')', ',', '"']);
        // A whole word of letters: `ERROR_COUNT` and `WARN_LIMIT` name no level.
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphabetic()) {
            continue;
        }
        if !(keyed || bracketed || name.chars().all(|c| c.is_ascii_uppercase())) {
            continue;
        }
        let name = name.to_ascii_lowercase();
        if ALERT_LEVELS.contains(&name.as_str()) {
            return true;
        }
        // The line's level is a lower one: what follows is its message.
        if OTHER_LEVELS.contains(&name.as_str()) {
            return false;
        }
    }
    false
}

/// A line's record kind: its words (runs of letters, digits and `_`) that hold a digit
/// become `#`, runs of spaces one space. `None` for a line without a word of two
/// letters (a brace, a rule of dashes, bare numbers).
fn kind_of(line: &str) -> Option<String> {
    let mut kind = String::with_capacity(line.len());
    let mut word = String::new();
    let mut lettered = false;
    let flush = |word: &mut String, kind: &mut String, lettered: &mut bool| {
        if word.chars().any(|c| c.is_ascii_digit()) {
            kind.push('#');
        } else if !word.is_empty() {
            *lettered |= word.chars().filter(|c| c.is_alphabetic()).count() >= 2;
            kind.push_str(word);
        }
        word.clear();
    };
    for c in line.trim().chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut kind, &mut lettered);
        if !(c.is_whitespace() && kind.ends_with(' ')) {
            kind.push(if c.is_whitespace() { ' ' } else { c });
        }
    }
    flush(&mut word, &mut kind, &mut lettered);
    lettered.then_some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `days` of `hours` readings a day, each day closed by its total, with a restart
    /// every seventh day.
    fn gauge_log(days: u32, hours: u32) -> String {
        let mut log = String::from("2025-10-01 00:00:00 INFO  gauge: logger started pin=17\n");
        for day in 1..=days {
            for hour in 0..hours {
                log += &format!(
                    "2025-10-{day:02} {hour:02}:00:00 INFO  gauge: hour_end={hour:02}:00 tips={} rain_in=0.0{}\n",
                    hour % 3,
                    hour % 3
                );
            }
            if day % 7 == 0 {
                log +=
                    &format!("2025-10-{day:02} 23:30:00 WARN  gauge: restarted after power loss\n");
            }
            log += &format!("2025-10-{:02} 00:00:01 INFO  gauge: DAILY date=2025-10-{day:02} total_in=0.{day:02}\n", day + 1);
        }
        log
    }

    #[test]
    fn a_kind_is_the_line_with_its_numbers_read_as_one() {
        assert_eq!(
            kind_of("2025-10-02 00:00:01 INFO  gauge: DAILY date=2025-10-01 total_in=0.42"),
            kind_of("2025-10-31 00:00:01 INFO  gauge: DAILY date=2025-10-30 total_in=1.07")
        );
        assert_eq!(
            kind_of("12:00:01 INFO  gauge: DAILY total_in=0.42").as_deref(),
            Some("#:#:# INFO gauge: DAILY total_in=#.#")
        );
        assert_ne!(
            kind_of("10:00 INFO gauge: DAILY total_in=0.42"),
            kind_of("10:00 INFO gauge: hour_end=10:00 tips=0")
        );
        for no_words in ["}", "----", "12 34 56", "a 1"] {
            assert_eq!(kind_of(no_words), None, "{no_words}");
        }
    }

    #[test]
    fn recurring_records_that_are_not_the_bulk_are_gathered_with_their_lines() {
        let log = gauge_log(31, 4);
        let units = record_units(&log, 480);
        let texts: Vec<&str> = units.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(units.len(), 2, "{texts:#?}");
        let file_lines: Vec<&str> = log.split('\n').collect();

        // In the order of their first lines: the first daily total, then the restarts.
        let (daily, restarts) = (&units[0], &units[1]);
        assert_eq!(daily.locator.lines.len(), 31);
        assert_eq!(restarts.locator.lines.len(), 4);
        for unit in &units {
            assert_eq!(unit.text.lines().count(), unit.locator.lines.len());
            for (number, line) in unit.locator.lines.iter().zip(unit.text.lines()) {
                assert_eq!(file_lines[*number as usize - 1], line, "line {number}");
            }
            assert_eq!(unit.locator.line_start, unit.locator.lines.first().copied());
            assert_eq!(unit.locator.line_end, unit.locator.lines.last().copied());
            assert_eq!(unit.kind, Some(UnitKind::Span));
        }
        assert!(daily.text.lines().all(|l| l.contains("DAILY")));
        assert!(restarts.text.lines().all(|l| l.contains("restarted")));
        assert_eq!(daily.locator.lines[0], 6);
        assert_eq!(
            daily.fields.get("date_start").map(String::as_str),
            Some("2025-10-02")
        );
    }

    #[test]
    fn the_bulk_rare_lines_and_short_logs_are_left_to_the_spans() {
        // 20 days: the hourly readings are the bulk, the start line is one of a kind,
        // two restarts do not recur enough as a kind; the daily totals are gathered,
        // and the restarts as the log's warnings.
        let units = record_units(&gauge_log(20, 24), 480);
        assert_eq!(units.len(), 2);
        assert!(units[0].text.lines().all(|l| l.contains("DAILY")));
        assert_eq!(units[1].locator.lines.len(), 2);
        assert!(units[1].text.lines().all(|l| l.contains("WARN")));
        // A month of hourly readings: four restarts in 780 lines are under a hundredth,
        // so they are no kind, only the warnings.
        let units = record_units(&gauge_log(31, 24), 480);
        assert_eq!(units.len(), 2);
        assert_eq!(units[0].locator.lines.len(), 31);
        assert_eq!(units[1].locator.lines.len(), 4);
        // Six lines of two kinds: too short to be a log worth gathering.
        let short = "10:00 alpha ok\n10:01 beta ok\n10:02 alpha ok\n10:03 beta ok\n";
        assert!(record_units(short, 480).is_empty());
        // Notes in which no line repeats another's words: no kind recurs.
        let notes: String = (0..40u8)
            .map(|i| {
                let place = format!("{}{}", (b'a' + i % 26) as char, (b'a' + i / 26) as char);
                format!("Day {i}: walked to the {place}ville market and back\n")
            })
            .collect();
        assert!(record_units(&notes, 480).is_empty());
        // A web server's log: 200 paths asked for five times each in 1,000 lines; a
        // kind recurs, but in under a hundredth of the lines.
        let access: String = (0..1000u32)
            .map(|i| {
                let path = format!(
                    "{}{}",
                    (b'a' + (i % 200 / 26) as u8) as char,
                    (b'a' + (i % 26) as u8) as char
                );
                format!(
                    "10.0.0.{} - - [17/May/2015:10:05:{:02}] \"GET /{path} HTTP/1.1\" 200 {i}\n",
                    i % 250,
                    i % 60
                )
            })
            .collect();
        assert!(record_units(&access, 480).is_empty());
    }

    #[test]
    fn warnings_and_errors_are_gathered_however_few() {
        let mut log = String::new();
        for minute in 0..40 {
            log += &format!("2026-04-17 13:{minute:02}:00 INFO  inverter: P_ac=1.{minute:02}kW\n");
            if minute == 20 {
                log += "2026-04-17 13:20:10 ERROR grid: fault, output disconnected\n";
                log += "2026-04-17 13:20:11 INFO  inverter: retrying after error, error_count=1\n";
            }
        }
        let units = record_units(&log, 480);
        assert_eq!(units.len(), 1, "{units:#?}");
        assert_eq!(units[0].locator.lines, vec![22]);
        assert!(units[0].text.contains("output disconnected"));
        // A log of errors alone: they are its bulk, the spans show them.
        let errors: String = (0..30)
            .map(|i| format!("12:{i:02} ERROR disk {} full\n", i % 4))
            .collect();
        assert!(record_units(&errors, 480).is_empty());
    }

    #[test]
    fn a_level_is_a_capitalised_bracketed_or_keyed_word_near_the_start() {
        for alert in [
            "2026-04-17 13:52:10 ERROR grid: fault",
            "2026-04-17 13:52:11 WARN  inverter: entering standby",
            "WARNING:root:disk almost full",
            "[Sun Dec 04 04:47:44 2005] [error] mod_jk child in error state 6",
            "ts=2026-04-17T13:52:10Z level=error msg=\"fault\"",
            "Apr 17 13:52:10 host kernel: [12.3] CRITICAL: temperature above threshold",
        ] {
            assert!(is_alert(alert), "{alert}");
        }
        for other in [
            "2026-04-17 13:52:11 INFO  inverter: retrying after error",
            "2026-04-17 13:52:11 INFO  stats: ERROR_COUNT=0 warnings=0",
            "2026-04-17 13:52:11 stats: ERROR_COUNT 0, WARN_LIMIT reached",
            "2026-04-17 13:52:11 INFO  http: GET /x -> ERROR",
            "2026-04-17 13:52:11 INFO  alarm: ALERT cleared",
            "10:00 DEBUG an error-prone step was skipped",
            "Error handling was rewritten today",
            "a b c d e f g h ERROR after the first eight words",
        ] {
            assert!(!is_alert(other), "{other}");
        }
    }

    #[test]
    fn a_kind_longer_than_the_budget_keeps_its_first_lines() {
        let units = record_units(&gauge_log(31, 4), 60);
        let daily = units.iter().find(|u| u.text.contains("DAILY")).unwrap();
        assert!(daily.locator.lines.len() < 31 && daily.locator.lines.len() >= 3);
        assert_eq!(daily.text.lines().count(), daily.locator.lines.len());
        assert!(crate::tokens::approx_tokens(&daily.text) <= 60);
    }
}
