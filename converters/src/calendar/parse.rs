//! Tolerant iCalendar reading: pre-cleaning plus a component tree built line by line.
//!
//! The `icalendar` parser fails a whole document on one defect (a BOM, trailing spaces,
//! two calendars concatenated, lower-case names, an unfolded multi-line DESCRIPTION).
//! So the text is cleaned first, then BEGIN/END lines are matched here and every other
//! line is parsed on its own with `icalendar::parser::Property` (which handles quoted
//! parameters and TEXT unescaping). A line that still fails is dropped and counted; it
//! never costs the rest of its event, nor other events.

/// One property: upper-case name, upper-case parameter keys, value as parsed (TEXT
/// values unescaped).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Prop {
    pub(crate) name: String,
    pub(crate) params: Vec<(String, String)>,
    pub(crate) value: String,
}

impl Prop {
    /// The first value of a parameter (key compared case-insensitively).
    pub(crate) fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.trim().is_empty())
    }
}

/// A component (`VCALENDAR`, `VEVENT`, `VTIMEZONE`, `STANDARD`, …) with its properties
/// and sub-components.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Component {
    pub(crate) name: String,
    pub(crate) props: Vec<Prop>,
    pub(crate) children: Vec<Component>,
    /// Lines inside this component that could not be parsed and were dropped.
    pub(crate) dropped_lines: usize,
    /// Dropped lines whose property name is still recognisable (`DTSTART;;…`), by
    /// upper-cased name, with the raw line.
    pub(crate) malformed: Vec<(String, String)>,
}

impl Component {
    fn new(name: &str) -> Component {
        Component {
            name: name.to_string(),
            ..Component::default()
        }
    }

    /// The first property with this name.
    pub(crate) fn prop(&self, name: &str) -> Option<&Prop> {
        self.props.iter().find(|p| p.name == name)
    }

    /// The trimmed value of the first property with this name, when not blank.
    pub(crate) fn value(&self, name: &str) -> Option<&str> {
        self.prop(name)
            .map(|p| p.value.trim())
            .filter(|v| !v.is_empty())
    }

    /// All properties with this name.
    pub(crate) fn props_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Prop> + 'a {
        self.props.iter().filter(move |p| p.name == name)
    }

    /// Every descendant component (depth first) with this name, not looking inside a
    /// match.
    pub(crate) fn find_all<'a>(&'a self, name: &str, out: &mut Vec<&'a Component>) {
        for child in &self.children {
            if child.name == name {
                out.push(child);
            } else {
                child.find_all(name, out);
            }
        }
    }
}

/// Property names that may start a content line (RFC 5545, 7986, 9073, 6638) besides
/// `X-` names. A line that does not start with one of these (or an all-upper-case
/// name) is taken as the unfolded continuation of the line before it, which rescues
/// multi-line DESCRIPTIONs written without folding.
const KNOWN_NAMES: &[&str] = &[
    "ACKNOWLEDGED",
    "ACTION",
    "ATTACH",
    "ATTENDEE",
    "BEGIN",
    "CALENDAR-ADDRESS",
    "CALSCALE",
    "CATEGORIES",
    "CLASS",
    "COLOR",
    "COMMENT",
    "COMPLETED",
    "CONFERENCE",
    "CONTACT",
    "CREATED",
    "DESCRIPTION",
    "DTEND",
    "DTSTAMP",
    "DTSTART",
    "DUE",
    "DURATION",
    "END",
    "EXDATE",
    "EXRULE",
    "FREEBUSY",
    "GEO",
    "IMAGE",
    "LAST-MODIFIED",
    "LOCATION",
    "LOCATION-TYPE",
    "METHOD",
    "NAME",
    "ORGANIZER",
    "PARTICIPANT-TYPE",
    "PERCENT-COMPLETE",
    "PRIORITY",
    "PRODID",
    "RDATE",
    "RECURRENCE-ID",
    "REFRESH-INTERVAL",
    "RELATED-TO",
    "REPEAT",
    "REQUEST-STATUS",
    "RESOURCES",
    "RRULE",
    "SEQUENCE",
    "SOURCE",
    "STATUS",
    "STRUCTURED-DATA",
    "STYLED-DESCRIPTION",
    "SUMMARY",
    "TRANSP",
    "TRIGGER",
    "TZID",
    "TZID-ALIAS-OF",
    "TZNAME",
    "TZOFFSETFROM",
    "TZOFFSETTO",
    "TZUNTIL",
    "TZURL",
    "UID",
    "URL",
    "VERSION",
];

/// Cleans the decoded text into logical content lines: BOMs removed, folded lines
/// joined, trailing whitespace trimmed, stray continuation lines appended (as an
/// escaped `\n`) to the line before, blank lines dropped. Lines with empty parameters
/// (`DTSTART;;VALUE=…`) are kept as written: they are malformed, and an event whose start
/// line is malformed is rejected by the converter.
pub(crate) fn clean_lines(text: &str) -> Vec<String> {
    let text = text.replace('\u{feff}', "");
    let mut lines: Vec<String> = Vec::new();
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(rest) = raw.strip_prefix([' ', '\t']) {
            if let Some(last) = lines.last_mut() {
                last.push_str(rest);
                continue;
            }
        }
        let line = raw;
        if line.trim().is_empty() {
            continue;
        }
        if starts_content_line(line) {
            lines.push(line.trim_start().to_string());
        } else if let Some(last) = lines.last_mut() {
            last.push_str("\\n");
            last.push_str(line.trim());
        }
    }
    for line in &mut lines {
        let trimmed = line.trim_end().len();
        line.truncate(trimmed);
    }
    lines
}

/// The name part of a content line (up to the first `;` or `:`), when it looks like one.
fn line_name(line: &str) -> Option<&str> {
    let end = line.find([';', ':'])?;
    let name = line.get(..end)?.trim_start();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then_some(name)
}

fn starts_content_line(line: &str) -> bool {
    let Some(name) = line_name(line) else {
        return false;
    };
    let upper = name.to_ascii_uppercase();
    upper.starts_with("X-")
        || KNOWN_NAMES.contains(&upper.as_str())
        || (name == upper && name.chars().any(|c| c.is_ascii_alphabetic()) && name.len() > 2)
}

/// Byte index of the `:` that separates name/parameters from the value (quotes honoured).
fn value_separator(line: &str) -> Option<usize> {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ':' if !quoted => return Some(i),
            _ => {}
        }
    }
    None
}

/// Deepest component nesting kept (real files use 3: VCALENDAR > VEVENT > VALARM).
const MAX_DEPTH: usize = 16;

/// Builds the component forest from cleaned lines. Lines outside any component are
/// ignored; components left open at the end (a truncated file) are closed.
pub(crate) fn build_tree(lines: &[String]) -> Vec<Component> {
    let mut roots = Vec::new();
    let mut stack: Vec<Component> = Vec::new();
    // BEGINs beyond MAX_DEPTH are ignored (with their ENDs) so that later recursion
    // over the tree stays shallow.
    let mut ignored_depth = 0usize;
    for line in lines {
        if let Some(name) = structural(line, "BEGIN") {
            if stack.len() >= MAX_DEPTH {
                ignored_depth += 1;
            } else {
                stack.push(Component::new(&name));
            }
        } else if ignored_depth > 0 && structural(line, "END").is_some() {
            ignored_depth -= 1;
        } else if let Some(name) = structural(line, "END") {
            // Close up to the matching BEGIN; an END without one is ignored.
            if stack.iter().any(|c| c.name == name) {
                while let Some(done) = stack.pop() {
                    let matched = done.name == name;
                    attach(done, &mut stack, &mut roots);
                    if matched {
                        break;
                    }
                }
            }
        } else if let Some(current) = stack.last_mut() {
            match parse_property(line) {
                Some(prop) => current.props.push(prop),
                None => {
                    current.dropped_lines += 1;
                    if let Some(name) = line_name(line) {
                        current
                            .malformed
                            .push((name.to_ascii_uppercase(), line.clone()));
                    }
                }
            }
        }
    }
    while let Some(done) = stack.pop() {
        attach(done, &mut stack, &mut roots);
    }
    roots
}

fn attach(done: Component, stack: &mut [Component], roots: &mut Vec<Component>) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(done),
        None => roots.push(done),
    }
}

/// `BEGIN:VEVENT` → `VEVENT` (any case, spaces tolerated).
fn structural(line: &str, keyword: &str) -> Option<String> {
    let (name, value) = line.split_once(':')?;
    if !name.trim().eq_ignore_ascii_case(keyword) {
        return None;
    }
    let value = value.trim().to_ascii_uppercase();
    (!value.is_empty()).then_some(value)
}

/// One content line through icalendar's property parser; names and parameter keys
/// upper-cased. Lines whose name is not a valid token are rejected.
fn parse_property(line: &str) -> Option<Prop> {
    line_name(line)?;
    let head = &line[..value_separator(line).unwrap_or(line.len())];
    if head.contains(";;") || head.ends_with(';') {
        return None; // empty parameter: malformed
    }
    let parsed = icalendar::parser::Property::try_from(line).ok()?;
    let name = parsed.name.as_str().trim().to_ascii_uppercase();
    if name.is_empty() {
        return None;
    }
    let params = parsed
        .params
        .iter()
        .map(|p| {
            let value = p.val.as_ref().map(|v| v.as_str()).unwrap_or_default();
            (
                p.key.as_str().trim().to_ascii_uppercase(),
                value.to_string(),
            )
        })
        .collect();
    Some(Prop {
        name,
        params,
        value: parsed.val.as_str().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_handles_bom_folding_and_stray_lines() {
        let text = "\u{feff}BEGIN:VCALENDAR \r\nBEGIN:VEVENT\r\nsummary:Long \r\n  title\r\n\
DESCRIPTION:Line one\r\nLine two: with colon\r\n\r\nhttps://example.com/x\r\n\
DTSTART;;VALUE=DATE-TIME:20140409T093000\r\nEND:VEVENT\r\nEND:VCALENDAR";
        let lines = clean_lines(text);
        assert_eq!(
            lines,
            vec![
                "BEGIN:VCALENDAR",
                "BEGIN:VEVENT",
                "summary:Long  title",
                "DESCRIPTION:Line one\\nLine two: with colon\\nhttps://example.com/x",
                "DTSTART;;VALUE=DATE-TIME:20140409T093000",
                "END:VEVENT",
                "END:VCALENDAR",
            ]
        );
        let tree = build_tree(&lines);
        assert_eq!(tree.len(), 1);
        let event = &tree[0].children[0];
        assert_eq!(event.value("SUMMARY"), Some("Long  title"));
        assert_eq!(
            event.value("DESCRIPTION"),
            Some("Line one\nLine two: with colon\nhttps://example.com/x")
        );
        assert!(event.prop("DTSTART").is_none());
        assert_eq!(event.malformed.len(), 1);
        assert_eq!(event.malformed[0].0, "DTSTART");
    }

    #[test]
    fn tree_survives_truncation_and_stray_ends() {
        let lines = clean_lines("END:VEVENT\nBEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:x\n");
        let tree = build_tree(&lines);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0].children[0].value("SUMMARY"), Some("x"));
    }

    #[test]
    fn quoted_parameters_keep_colons() {
        let prop = parse_property(
            "DTSTART;TZID=\"(UTC-05:00) Eastern Time (US & Canada)\":20160409T090000",
        )
        .unwrap();
        assert_eq!(
            prop.param("TZID"),
            Some("(UTC-05:00) Eastern Time (US & Canada)")
        );
        assert_eq!(prop.value, "20160409T090000");
    }

    fn depth(component: &Component) -> usize {
        1 + component.children.iter().map(depth).max().unwrap_or(0)
    }

    #[test]
    fn random_lines_are_cleaned_nested_and_parsed_safely() {
        use crate::testutil::{self, Rng};
        let mut pieces: Vec<&str> = testutil::TEXT_PIECES.to_vec();
        pieces.extend([
            "BEGIN:",
            "END:",
            "begin:",
            "VEVENT",
            "VCALENDAR",
            "VALARM",
            "DTSTART",
            "SUMMARY",
            "X-A",
            "TZID=",
            ";",
            ":",
            "\"",
            "\r\n ",
            "\n\t",
            "\r\n",
            "=",
            ",",
            "\\n",
            "\\",
        ]);
        let mut rng = Rng(0x1C5A_0000_0000_0001);
        for _ in 0..2000 {
            let text = testutil::random_text(&mut rng, &pieces, 80);
            let lines = clean_lines(&text);
            for line in &lines {
                assert!(
                    !line.trim().is_empty() && line == line.trim_end(),
                    "{line:?}"
                );
                assert!(!line.contains(['\n', '\u{feff}']), "{line:?}");
                assert!(starts_content_line(line), "{line:?} from {text:?}");
                if let Some(i) = value_separator(line) {
                    assert!(line.get(i..).is_some_and(|rest| rest.starts_with(':')));
                }
                if let Some(prop) = parse_property(line) {
                    assert!(!prop.name.is_empty() && prop.name == prop.name.to_ascii_uppercase());
                }
            }
            let deep = format!("{}{text}", "BEGIN:X\n".repeat(rng.below(40)));
            for root in build_tree(&clean_lines(&deep)) {
                assert!(depth(&root) <= MAX_DEPTH, "{deep:?}");
            }
        }
    }
}
