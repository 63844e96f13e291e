//! The ranked files as terminal text: rank, path, the best unit's locator and date,
//! and its snippet with the matched words highlighted (bold yellow in colour, `*word*`
//! plain).

use std::time::Duration;

use serde_json::Value;

const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const CYAN: &str = "\x1b[36m";
const MATCH: &str = "\x1b[1;33m";
const RESET: &str = "\x1b[0m";

/// Where a unit is in its file, from the reply's flat metadata ("p. 3", "rows 4-9 of
/// Sheet1", "lines 10-14", "01:05-01:09").
pub fn locator(meta: &Value) -> String {
    let n = |key: &str| meta[key].as_u64();
    let mut parts = Vec::new();
    if let Some(page) = n("page") {
        match meta["page_label"].as_str() {
            Some(label) if label != page.to_string() => parts.push(format!("p. {page} ({label})")),
            _ => parts.push(format!("p. {page}")),
        }
    }
    if let Some(slide) = n("slide") {
        parts.push(format!("slide {slide}"));
    }
    if let (Some(a), Some(b)) = (n("row_start"), n("row_end")) {
        let sheet = meta["sheet"]
            .as_str()
            .map(|s| format!(" of {s}"))
            .unwrap_or_default();
        parts.push(if a == b {
            format!("row {a}{sheet}")
        } else {
            format!("rows {a}-{b}{sheet}")
        });
    }
    if let (Some(a), Some(b)) = (n("line_start"), n("line_end")) {
        parts.push(if a == b {
            format!("line {a}")
        } else {
            format!("lines {a}-{b}")
        });
    }
    if let (Some(a), Some(b)) = (meta["start"].as_f64(), meta["end"].as_f64()) {
        parts.push(format!("{}-{}", clock(a), clock(b)));
    }
    parts.join(", ")
}

fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// A snippet (`<b>` marks, HTML-escaped) on one line, marks as colour or `*`.
pub fn snippet(html: &str, colour: bool) -> String {
    let (on, off) = if colour { (MATCH, RESET) } else { ("*", "*") };
    let text = html
        .replace("<b>", on)
        .replace("</b>", off)
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts `text` to `width` visible characters (colour codes do not count).
fn fit(text: &str, width: usize) -> String {
    let mut out = String::new();
    let (mut visible, mut escape) = (0usize, false);
    for c in text.chars() {
        if c == '\x1b' {
            escape = true;
        }
        if escape {
            out.push(c);
            escape = c != 'm';
            continue;
        }
        if visible + 1 >= width {
            out.push('…');
            break;
        }
        out.push(c);
        visible += 1;
    }
    if out.contains('\x1b') {
        out.push_str(RESET);
    }
    out
}

/// The reply of `/api/search` as text.
pub fn files(reply: &Value, colour: bool, width: usize, elapsed: Duration) -> String {
    let paint = |code: &str, text: &str| {
        if colour {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    };
    let files = reply["files"].as_array().cloned().unwrap_or_default();
    let mut out = String::new();
    if files.is_empty() {
        out.push_str("No file matches.\n");
    }
    let width = width.max(40);
    for (i, file) in files.iter().enumerate() {
        let path = file["file"]["path"].as_str().unwrap_or("?");
        let best = file["units"]
            .as_array()
            .and_then(|units| {
                units
                    .iter()
                    .find(|u| u["metadata"]["context"] != Value::Bool(true))
            })
            .cloned()
            .unwrap_or(Value::Null);
        let meta = &best["metadata"];
        let mut line = format!("{:>2}. {}", i + 1, paint(BOLD, path));
        let at = locator(meta);
        if !at.is_empty() {
            line.push_str(&format!("  {}", paint(CYAN, &at)));
        }
        if let Some(date) = meta["content_time"].as_str().and_then(|t| t.get(..10)) {
            if !date.starts_with("1970") {
                line.push_str(&format!("  {}", paint(DIM, date)));
            }
        }
        out.push_str(&line);
        out.push('\n');
        let text = match meta["snippet"].as_str().filter(|s| !s.is_empty()) {
            Some(html) => snippet(html, colour),
            None => best["text"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        };
        if !text.is_empty() {
            out.push_str(&format!("    {}\n", fit(&text, width - 4)));
        }
    }
    let took = reply["took_ms"].as_f64().unwrap_or(0.0);
    let summary = format!(
        "{} files · search {:.0} ms · answered in {:.0} ms",
        files.len(),
        took,
        elapsed.as_secs_f64() * 1000.0
    );
    out.push_str(&paint(DIM, &summary));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reply() -> Value {
        json!({"took_ms": 4.2, "files": [
            {"file": {"path": "Documents/Pets/invoice.pdf"}, "score": 1.0, "units": [
                {"text": "whole text", "metadata": {"page": 2, "content_time": "2025-10-03T00:00:00+00:00",
                 "snippet": "the <b>vet</b> &amp; <b>invoice</b>"}}]},
            {"file": {"path": "Voice/memo.m4a"}, "score": 0.5, "units": [
                {"text": "call the  vet\nback", "metadata": {"start": 65.0, "end": 69.5,
                 "content_time": "1970-01-01T00:00:00+00:00"}}]}
        ]})
    }

    #[test]
    fn plain_output_reads_without_colour() {
        let text = files(&reply(), false, 100, Duration::from_millis(7));
        assert_eq!(
            text,
            " 1. Documents/Pets/invoice.pdf  p. 2  2025-10-03\n    the *vet* & *invoice*\n \
             2. Voice/memo.m4a  1:05-1:09\n    call the vet back\n\
             2 files · search 4 ms · answered in 7 ms\n"
        );
    }

    #[test]
    fn colour_marks_paths_locators_and_matches() {
        let text = files(&reply(), true, 100, Duration::from_millis(7));
        assert!(text.contains(&format!("{BOLD}Documents/Pets/invoice.pdf{RESET}")));
        assert!(text.contains(&format!("{MATCH}vet{RESET}")));
        assert!(text.contains(&format!("{CYAN}p. 2{RESET}")));
    }

    #[test]
    fn locators_of_every_kind() {
        assert_eq!(
            locator(&json!({"row_start": 4, "row_end": 9, "sheet": "Budget"})),
            "rows 4-9 of Budget"
        );
        assert_eq!(locator(&json!({"line_start": 3, "line_end": 3})), "line 3");
        assert_eq!(
            locator(&json!({"page": 4, "page_label": "iv"})),
            "p. 4 (iv)"
        );
        assert_eq!(
            locator(&json!({"start": 3725.0, "end": 3730.0})),
            "1:02:05-1:02:10"
        );
        assert_eq!(locator(&json!({})), "");
    }

    #[test]
    fn long_snippets_are_cut_to_the_width_not_counting_colour() {
        let long = format!("{MATCH}word{RESET} {}", "x".repeat(200));
        let cut = fit(&long, 20);
        assert!(cut.ends_with(&format!("…{RESET}")));
        assert_eq!(
            cut.replace(MATCH, "").replace(RESET, "").chars().count(),
            20
        );
        assert_eq!(
            files(&json!({"files": []}), false, 80, Duration::ZERO)
                .lines()
                .next(),
            Some("No file matches.")
        );
    }
}
