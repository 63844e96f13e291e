//! Folders and naming habits: where files and activity gather, and how files are named
//! (date prefixes, word separators, case, version suffixes, extensions per folder).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::evidence::{Evidence, EvidenceList};
use super::input::{EventSample, FileSample};

/// A folder and how much it holds (files) or saw (activity events).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FolderCount {
    pub folder: String,
    pub count: u64,
    /// Files: the commonest extensions; activity: events per kind.
    pub breakdown: Vec<NameCount>,
    pub evidence: EvidenceList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NameCount {
    pub name: String,
    pub count: u64,
}

/// One naming habit: a kind of pattern and one of its values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamingHabit {
    /// `date_prefix`, `separator`, `case`, `version`, `extension`.
    pub habit: &'static str,
    /// The value (`YYYY-MM-DD_`, `_`, `lower`, `_vN`, `pdf`, …).
    pub value: String,
    pub count: u64,
    /// Of the files looked at, 0–1.
    pub share: f64,
    pub evidence: EvidenceList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Habits {
    /// Files looked at (attachments excluded).
    pub files: u64,
    pub folders_by_files: Vec<FolderCount>,
    pub folders_by_activity: Vec<FolderCount>,
    /// Per habit, the most common values first.
    pub naming: Vec<NamingHabit>,
}

/// The naming traits of one file name: `(habit, value)` pairs.
pub fn name_traits(name: &str) -> Vec<(&'static str, String)> {
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.contains(' ') => (stem, ext),
        _ => (name, ""),
    };
    let mut traits = Vec::new();
    if !ext.is_empty() {
        traits.push(("extension", ext.to_lowercase()));
    }
    let (date, rest) = date_prefix(stem);
    if let Some(date) = date {
        traits.push(("date_prefix", date));
    }
    let (version, rest) = version_suffix(rest);
    if let Some(version) = version {
        traits.push(("version", version));
    }
    if let Some(separator) = separator(rest) {
        traits.push(("separator", separator.to_string()));
    }
    if let Some(case) = case_style(rest) {
        traits.push(("case", case.to_string()));
    }
    traits
}

/// A leading date (`2025-10-03`, `20251003`, `2025_10_03`, `2025.10.03`, `2025-10`)
/// as its shape plus the separator after it, and the rest of the stem.
fn date_prefix(stem: &str) -> (Option<String>, &str) {
    let bytes = stem.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    let plausible = |year: usize, month: usize| {
        stem.get(year..year + 2)
            .is_some_and(|y| y == "19" || y == "20")
            && stem
                .get(month..month + 2)
                .and_then(|m| m.parse::<u32>().ok())
                .is_some_and(|m| (1..=12).contains(&m))
    };
    let mut shape = None;
    if digits(0..4) && plausible(0, 5) {
        if let Some(&sep) = bytes.get(4).filter(|b| b"-_.".contains(b)) {
            let sep = sep as char;
            if digits(5..7) && bytes.get(7) == Some(&(sep as u8)) && digits(8..10) {
                shape = Some((format!("YYYY{sep}MM{sep}DD"), 10));
            } else if digits(5..7) && !digits(7..8) {
                shape = Some((format!("YYYY{sep}MM"), 7));
            }
        }
    }
    if shape.is_none() && digits(0..8) && !digits(8..9) && plausible(0, 4) {
        shape = Some(("YYYYMMDD".to_string(), 8));
    }
    let Some((shape, end)) = shape else {
        return (None, stem);
    };
    let rest = &stem[end..];
    let after = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '_' | '-' | ' ' | '.'));
    let rest = after.map_or(rest, |c| &rest[c.len_utf8()..]);
    (
        Some(format!(
            "{shape}{}",
            after.map(String::from).unwrap_or_default()
        )),
        rest,
    )
}

/// A trailing version marker (`_v2`, `-v3`, ` v1.2`, `final`, `draft`, `copy`, `(1)`)
/// as its shape, and the stem without it.
fn version_suffix(stem: &str) -> (Option<String>, &str) {
    let lower = stem.to_lowercase();
    for word in ["final", "draft", "copy", "old", "new", "backup"] {
        if lower.ends_with(word) && lower.len() > word.len() {
            let cut = stem.len() - word.len();
            let before = stem[..cut].chars().last();
            if let Some(sep @ ('_' | '-' | ' ')) = before {
                return (Some(format!("{sep}{word}")), &stem[..cut - 1]);
            }
        }
    }
    let trimmed = stem.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if trimmed.len() < stem.len() {
        if let Some(without) = trimmed.strip_suffix(['v', 'V']) {
            if let Some(sep @ ('_' | '-' | ' ')) = without.chars().last() {
                return (Some(format!("{sep}vN")), &without[..without.len() - 1]);
            }
        }
    }
    if let Some(without) = stem.strip_suffix(')') {
        if let Some(open) = without.rfind('(') {
            let inside = &without[open + 1..];
            if !inside.is_empty() && inside.chars().all(|c| c.is_ascii_digit()) {
                return (Some("(N)".to_string()), without[..open].trim_end());
            }
        }
    }
    (None, stem)
}

/// The commonest word separator in a stem: `_`, `-`, ` ` (a space), `.`, or `none`
/// for one word; `None` for an empty stem.
fn separator(stem: &str) -> Option<&'static str> {
    if stem.trim().is_empty() {
        return None;
    }
    let counts = [
        ("_", stem.matches('_').count()),
        ("-", stem.matches('-').count()),
        (" ", stem.matches(' ').count()),
        (".", stem.matches('.').count()),
    ];
    let best = counts.iter().max_by_key(|(_, n)| *n)?;
    Some(if best.1 == 0 { "none" } else { best.0 })
}

/// `lower`, `upper`, `title` (each word capitalised), `sentence` (the first word
/// capitalised, the rest lower case), `camel` (inner capitals, no separators), `mixed`;
/// `None` without letters.
fn case_style(stem: &str) -> Option<&'static str> {
    let letters: Vec<char> = stem.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() {
        return None;
    }
    if letters.iter().all(|c| !c.is_uppercase()) {
        return Some("lower");
    }
    if letters.len() > 1 && letters.iter().all(|c| !c.is_lowercase()) {
        return Some("upper");
    }
    let words: Vec<&str> = stem
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let capitalised = |w: &&str| {
        let mut chars = w.chars().filter(|c| c.is_alphabetic());
        chars.next().is_some_and(char::is_uppercase) && chars.all(|c| !c.is_uppercase())
    };
    if words.iter().all(capitalised) {
        return Some("title");
    }
    let lower = |w: &&str| w.chars().all(|c| !c.is_uppercase());
    if words.len() > 1 && capitalised(&words[0]) && words[1..].iter().all(lower) {
        return Some("sentence");
    }
    if words.len() == 1 && words[0].chars().skip(1).any(char::is_uppercase) {
        return Some("camel");
    }
    Some("mixed")
}

fn top_counts(counts: HashMap<String, u64>, top: usize) -> Vec<NameCount> {
    let mut list: Vec<NameCount> = counts
        .into_iter()
        .map(|(name, count)| NameCount { name, count })
        .collect();
    list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    list.truncate(top);
    list
}

#[derive(Default)]
struct FolderTally {
    count: u64,
    breakdown: HashMap<String, u64>,
    evidence: EvidenceList,
}

fn top_folders(tallies: HashMap<String, FolderTally>, top: usize) -> Vec<FolderCount> {
    let mut list: Vec<FolderCount> = tallies
        .into_iter()
        .map(|(folder, t)| FolderCount {
            folder,
            count: t.count,
            breakdown: top_counts(t.breakdown, 5),
            evidence: t.evidence,
        })
        .collect();
    list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.folder.cmp(&b.folder)));
    list.truncate(top);
    list
}

/// Folders and naming habits of `files` (sorted by path for stable evidence) and the
/// folders of `events`.
pub fn habits(files: &[FileSample], events: &[EventSample], top: usize, cap: usize) -> Habits {
    let mut by_files: HashMap<String, FolderTally> = HashMap::new();
    let mut naming: BTreeMap<(&'static str, String), (u64, EvidenceList)> = BTreeMap::new();
    for file in files {
        let (folder, name) = file.path.rsplit_once('/').unwrap_or((".", &file.path));
        let tally = by_files.entry(folder.to_string()).or_default();
        tally.count += 1;
        let ext = if file.ext.is_empty() {
            "(none)"
        } else {
            &file.ext
        };
        *tally.breakdown.entry(ext.to_string()).or_default() += 1;
        tally.evidence.push(Evidence::file(&file.path), cap);
        for (habit, value) in name_traits(name) {
            let entry = naming.entry((habit, value)).or_default();
            entry.0 += 1;
            entry.1.push(Evidence::file(&file.path), cap);
        }
    }
    let mut by_activity: HashMap<String, FolderTally> = HashMap::new();
    for event in events {
        let Some(path) = &event.path else { continue };
        let folder = crate::planner::folder_of(path);
        let folder = if folder.is_empty() { "." } else { folder };
        let tally = by_activity.entry(folder.to_string()).or_default();
        tally.count += 1;
        *tally.breakdown.entry(event.kind.clone()).or_default() += 1;
        tally
            .evidence
            .push(Evidence::event(Some(path), event.seq, event.local), cap);
    }
    let total = files.len() as u64;
    let mut habits: Vec<NamingHabit> = naming
        .into_iter()
        .map(|((habit, value), (count, evidence))| NamingHabit {
            habit,
            value,
            count,
            share: if total == 0 {
                0.0
            } else {
                count as f64 / total as f64
            },
            evidence,
        })
        .collect();
    let order = |h: &str| {
        ["date_prefix", "separator", "case", "version", "extension"]
            .iter()
            .position(|x| *x == h)
            .unwrap_or(9)
    };
    habits.sort_by(|a, b| {
        (order(a.habit), b.count, &a.value).cmp(&(order(b.habit), a.count, &b.value))
    });
    // The `top` commonest values of each habit.
    let mut kept: HashMap<&'static str, usize> = HashMap::new();
    habits.retain(|h| {
        let seen = kept.entry(h.habit).or_default();
        *seen += 1;
        *seen <= top
    });
    Habits {
        files: total,
        folders_by_files: top_folders(by_files, top),
        folders_by_activity: top_folders(by_activity, top),
        naming: habits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traits(name: &str) -> Vec<(&'static str, String)> {
        let mut t = name_traits(name);
        t.sort();
        t
    }

    #[test]
    fn file_names_are_read_for_dates_separators_case_and_versions() {
        let t = |pairs: &[(&'static str, &str)]| {
            let mut v: Vec<(&'static str, String)> =
                pairs.iter().map(|(h, v)| (*h, v.to_string())).collect();
            v.sort();
            v
        };
        assert_eq!(
            traits("2025-10-03_budget_review_v2.xlsx"),
            t(&[
                ("date_prefix", "YYYY-MM-DD_"),
                ("version", "_vN"),
                ("separator", "_"),
                ("case", "lower"),
                ("extension", "xlsx")
            ])
        );
        assert_eq!(
            traits("20240304 Trip Plan final.docx"),
            t(&[
                ("date_prefix", "YYYYMMDD "),
                ("version", " final"),
                ("separator", " "),
                ("case", "title"),
                ("extension", "docx")
            ])
        );
        assert_eq!(
            traits("Books to read.md"),
            t(&[
                ("separator", " "),
                ("case", "sentence"),
                ("extension", "md")
            ])
        );
        assert_eq!(
            traits("README.md"),
            t(&[
                ("separator", "none"),
                ("case", "upper"),
                ("extension", "md")
            ])
        );
        assert_eq!(
            traits("meetingNotes (2).txt"),
            t(&[
                ("version", "(N)"),
                ("separator", "none"),
                ("case", "camel"),
                ("extension", "txt")
            ])
        );
        assert_eq!(
            traits("2025-10 report-Draft.pdf"),
            t(&[
                ("date_prefix", "YYYY-MM "),
                ("version", "-draft"),
                ("separator", "none"),
                ("case", "lower"),
                ("extension", "pdf")
            ])
        );
        // Not dates: a year-like number without a month, a phone-like number.
        assert!(!traits("2025 plans.txt")
            .iter()
            .any(|(h, _)| *h == "date_prefix"));
        assert!(!traits("55512345.txt")
            .iter()
            .any(|(h, _)| *h == "date_prefix"));
    }

    #[test]
    fn folders_and_habits_are_counted_with_evidence() {
        let file = |path: &str| FileSample {
            path: path.to_string(),
            ext: path
                .rsplit_once('.')
                .map(|(_, e)| e.to_string())
                .unwrap_or_default(),
        };
        let files = [
            file("Notes/2025-10-01_standup.md"),
            file("Notes/2025-10-08_standup.md"),
            file("Notes/2025-10-15_standup.md"),
            file("Notes/ideas.txt"),
            file("Mail/a.eml"),
        ];
        let local = crate::timeline::local_time("2025-10-01T10:00:00+00:00", 0);
        let events = [EventSample {
            seq: 4,
            path: Some("Notes/ideas.txt".into()),
            kind: "modified".into(),
            source: "trace".into(),
            local,
        }];
        let h = habits(&files, &events, 2, 2);
        assert_eq!(h.files, 5);
        let notes = &h.folders_by_files[0];
        assert_eq!((notes.folder.as_str(), notes.count), ("Notes", 4));
        assert_eq!(
            notes.breakdown[0],
            NameCount {
                name: "md".into(),
                count: 3
            }
        );
        assert_eq!(notes.evidence.items().len(), 2);
        let active = &h.folders_by_activity[0];
        assert_eq!((active.folder.as_str(), active.count), ("Notes", 1));
        assert_eq!(active.evidence.items()[0].seq, Some(4));
        let date = h.naming.iter().find(|n| n.habit == "date_prefix").unwrap();
        assert_eq!(
            (date.value.as_str(), date.count, date.share),
            ("YYYY-MM-DD_", 3, 0.6)
        );
        assert_eq!(date.evidence.items()[0].path, "Notes/2025-10-01_standup.md");
        // At most `top` values per habit, commonest first.
        let exts: Vec<_> = h
            .naming
            .iter()
            .filter(|n| n.habit == "extension")
            .map(|n| n.value.as_str())
            .collect();
        assert_eq!(exts, vec!["md", "eml"]);
    }
}
