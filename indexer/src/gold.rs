//! HippoCamp "Gold" parsed-text import.
//!
//! The official HippoCamp release ships, next to each profile, one JSON per source file:
//! `{ "file_info": {...}, "summary": "...", "segments": [...] }`. `file_info.file_path`
//! (or `file_name`) names the profile file; each segment holds `content` and a locator:
//! `page` / `page_number` (1-based) for documents, `start` / `end` (seconds as numbers,
//! or `"HH:MM:SS"` strings) for audio and video, or neither (plain text).
//!
//! With `dentate-index --gold DIR`, a matched file's Gold segments replace the
//! converter's units (see [`gold_units`]). Parsing is lenient: unknown fields are
//! ignored, and a file that cannot be used is reported, never fatal.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use converters::{Locator, Unit, UnitKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::walk::WalkedFile;

/// Whether a file's units come from a Gold file (which replaces conversion and every
/// enrichment stage).
pub fn is_gold(record: &crate::manifest::FileRecord) -> bool {
    record.stages.gold_hash.is_some()
}

/// How many unmatched files / warnings the run summary lists.
const LISTED: usize = 20;

/// The `file_info` of a Gold file (only the fields Dentate uses).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoldFileInfo {
    /// Path relative to the profile root (possibly prefixed with the profile folder).
    pub file_path: Option<String>,
    pub file_name: Option<String>,
    pub file_type: Option<String>,
    pub modality: Option<String>,
}

/// One parsed text segment with its locator.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoldSegment {
    pub content: String,
    /// 1-based page.
    pub page: Option<u32>,
    pub t_start_ms: Option<u64>,
    pub t_end_ms: Option<u64>,
}

/// One Gold JSON file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoldFile {
    pub file_info: GoldFileInfo,
    pub summary: Option<String>,
    pub segments: Vec<GoldSegment>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GoldError {
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("not a JSON object")]
    NotAnObject,
    #[error("file_info has neither file_path nor file_name")]
    NoFilePath,
    #[error("no segment content and no summary")]
    Empty,
}

/// Parses a Gold JSON file.
pub fn parse_gold(bytes: &[u8]) -> Result<GoldFile, GoldError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| GoldError::Json(e.to_string()))?;
    let object = value.as_object().ok_or(GoldError::NotAnObject)?;
    let info = object.get("file_info").and_then(Value::as_object);
    let field = |key: &str| {
        info.and_then(|i| i.get(key))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let file_info = GoldFileInfo {
        file_path: field("file_path"),
        file_name: field("file_name"),
        file_type: field("file_type"),
        modality: field("modality"),
    };
    if file_info.file_path.is_none() && file_info.file_name.is_none() {
        return Err(GoldError::NoFilePath);
    }
    let summary = object
        .get("summary")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let segments: Vec<GoldSegment> = object
        .get("segments")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(parse_segment).collect())
        .unwrap_or_default();
    if segments.is_empty() && summary.is_none() {
        return Err(GoldError::Empty);
    }
    Ok(GoldFile {
        file_info,
        summary,
        segments,
    })
}

fn parse_segment(value: &Value) -> Option<GoldSegment> {
    let object = value.as_object()?;
    let content = object
        .get("content")
        .or_else(|| object.get("text"))
        .and_then(Value::as_str)?
        .trim();
    if content.is_empty() {
        return None;
    }
    let page = object
        .get("page")
        .or_else(|| object.get("page_number"))
        .and_then(as_u64)
        .filter(|&p| p >= 1)
        .and_then(|p| u32::try_from(p).ok());
    Some(GoldSegment {
        content: content.to_string(),
        page,
        t_start_ms: object.get("start").and_then(parse_time_ms),
        t_end_ms: object.get("end").and_then(parse_time_ms),
    })
}

fn as_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A time as milliseconds: a number of seconds, or a string of seconds, `MM:SS`,
/// `HH:MM:SS`, with optional fractional seconds (`.5` or SRT-style `,500`).
pub fn parse_time_ms(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => seconds_to_ms(n.as_f64()?),
        Value::String(s) => parse_time_str(s),
        _ => None,
    }
}

/// See [`parse_time_ms`].
pub fn parse_time_str(text: &str) -> Option<u64> {
    let text = text.trim().replace(',', ".");
    if text.is_empty() {
        return None;
    }
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() > 3 {
        return None;
    }
    let mut seconds = 0.0f64;
    for (i, part) in parts.iter().enumerate() {
        let part = part.trim();
        let last = i + 1 == parts.len();
        let number: f64 = if last {
            part.parse().ok()?
        } else {
            // Hours and minutes are whole numbers.
            part.parse::<u64>().ok()? as f64
        };
        if parts.len() > 1 && i > 0 && number >= 60.0 {
            return None;
        }
        seconds = seconds * 60.0 + number;
    }
    seconds_to_ms(seconds)
}

fn seconds_to_ms(seconds: f64) -> Option<u64> {
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// The units of a Gold file: one per segment (`page` when a page is given, `media` when
/// a time window is, else `span`), plus the summary as a file-level `metadata` unit
/// titled "summary". Content times are left to the indexer (file mtime).
pub fn gold_units(gold: &GoldFile) -> Vec<Unit> {
    let mut units: Vec<Unit> = gold
        .segments
        .iter()
        .map(|segment| {
            let locator = Locator {
                page: segment.page,
                t_start_ms: segment.t_start_ms,
                t_end_ms: segment.t_end_ms,
                ..Locator::default()
            };
            let kind = if segment.page.is_some() {
                UnitKind::Page
            } else if segment.t_start_ms.is_some() || segment.t_end_ms.is_some() {
                UnitKind::Media
            } else {
                UnitKind::Span
            };
            Unit::new(kind, locator, segment.content.clone())
        })
        .collect();
    if let Some(summary) = &gold.summary {
        units.push(
            Unit::new(UnitKind::Metadata, Locator::default(), summary.clone())
                .with_title("summary"),
        );
    }
    units
}

/// Normalises a Gold `file_path`: `/` separators, no leading `./` or `/`, no empty or
/// `.` components.
pub fn normalise_path(path: &str) -> String {
    path.replace('\\', "/")
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The profile file a Gold file describes: its `file_path` as is, or without a leading
/// (profile folder) component, else its file name when exactly one profile file has it.
pub fn match_target(
    info: &GoldFileInfo,
    paths: &HashSet<&str>,
    by_name: &HashMap<&str, Vec<&str>>,
) -> Option<String> {
    if let Some(path) = &info.file_path {
        let path = normalise_path(path);
        if paths.contains(path.as_str()) {
            return Some(path);
        }
        if let Some((_, rest)) = path.split_once('/') {
            if paths.contains(rest) {
                return Some(rest.to_string());
            }
        }
    }
    let name = info
        .file_name
        .as_deref()
        .map(normalise_path)
        .or_else(|| info.file_path.as_deref().map(normalise_path))?;
    let name = name.rsplit('/').next().unwrap_or(&name);
    match by_name.get(name).map(Vec::as_slice) {
        Some([only]) => Some(only.to_string()),
        _ => None,
    }
}

/// The `gold` part of the run summary.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GoldSummary {
    /// Gold files matched to a profile file (their units replace the converter's).
    pub matched: u64,
    /// Gold files that match no profile file (or a file another Gold file already has).
    pub unmatched: u64,
    /// Gold files that could not be read or parsed.
    pub invalid: u64,
    /// The first unmatched Gold files (relative to the Gold folder).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmatched_files: Vec<String>,
    /// The first problems (`file: message`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A Gold file matched to a profile file.
#[derive(Debug, Clone)]
pub struct GoldEntry {
    /// The Gold JSON file.
    pub path: PathBuf,
    /// BLAKE3 of its bytes.
    pub hash: String,
    pub file: GoldFile,
}

/// The Gold folder of a run, matched against the walked profile.
#[derive(Debug, Clone, Default)]
pub struct GoldSet {
    /// Profile-relative path → its Gold file.
    pub by_path: HashMap<String, GoldEntry>,
    pub summary: GoldSummary,
}

impl GoldSet {
    /// The Gold hash recorded for a file (compare with `FileRecord.stages.gold_hash`).
    pub fn hash_of(&self, rel_path: &str) -> Option<&String> {
        self.by_path.get(rel_path).map(|entry| &entry.hash)
    }
}

/// Reads every `*.json` under `dir` (recursively) and matches it to `files`. Only an
/// unreadable `dir` is an error; bad files are counted as invalid with a warning.
pub fn load_gold(dir: &Path, files: &[WalkedFile]) -> Result<GoldSet, std::io::Error> {
    let dir = dir.canonicalize()?;
    if !dir.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "Gold folder is not a folder",
        ));
    }
    let paths: HashSet<&str> = files.iter().map(|f| f.rel_path.as_str()).collect();
    let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for file in files {
        let name = file.rel_path.rsplit('/').next().unwrap_or(&file.rel_path);
        by_name.entry(name).or_default().push(&file.rel_path);
    }
    let mut set = GoldSet::default();
    let mut claimed: BTreeMap<String, String> = BTreeMap::new();
    let warn = |summary: &mut GoldSummary, message: String| {
        tracing::warn!("gold: {message}");
        if summary.warnings.len() < LISTED {
            summary.warnings.push(message);
        }
    };
    for entry in walkdir::WalkDir::new(&dir)
        .follow_links(true)
        .sort_by_file_name()
    {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                set.summary.invalid += 1;
                warn(&mut set.summary, format!("{error}"));
                continue;
            }
        };
        let is_json = entry
            .path()
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if !entry.file_type().is_file() || !is_json {
            continue;
        }
        let path = entry.path().to_path_buf();
        let shown = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let parsed = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                parse_gold(&bytes)
                    .map(|file| (blake3::hash(&bytes).to_hex().to_string(), file))
                    .map_err(|e| e.to_string())
            });
        let (hash, file) = match parsed {
            Ok(parsed) => parsed,
            Err(error) => {
                set.summary.invalid += 1;
                warn(&mut set.summary, format!("{shown}: {error}"));
                continue;
            }
        };
        let target = match_target(&file.file_info, &paths, &by_name);
        match target {
            Some(target) if !claimed.contains_key(&target) => {
                claimed.insert(target.clone(), shown);
                set.summary.matched += 1;
                set.by_path.insert(target, GoldEntry { path, hash, file });
            }
            other => {
                if let Some(target) = other {
                    warn(
                        &mut set.summary,
                        format!("{shown}: {target} already has Gold {}", claimed[&target]),
                    );
                }
                set.summary.unmatched += 1;
                if set.summary.unmatched_files.len() < LISTED {
                    set.summary.unmatched_files.push(shown);
                }
            }
        }
    }
    Ok(set)
}

/// The content hash recorded for a file indexed from Gold: it changes when the Gold
/// file does (so the file's vectors are recomputed), not when only the mtime moves.
pub fn record_hash(gold_hash: &str, size: u64) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"dentate-gold\0");
    hasher.update(gold_hash.as_bytes());
    hasher.update(&size.to_le_bytes());
    hasher.finalize().to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_parse_from_numbers_and_strings() {
        assert_eq!(parse_time_ms(&json!(12)), Some(12_000));
        assert_eq!(parse_time_ms(&json!(1.25)), Some(1_250));
        assert_eq!(parse_time_ms(&json!("00:01:05")), Some(65_000));
        assert_eq!(parse_time_ms(&json!("1:02:03.5")), Some(3_723_500));
        assert_eq!(parse_time_ms(&json!("02:03")), Some(123_000));
        assert_eq!(parse_time_ms(&json!("00:00:01,250")), Some(1_250));
        assert_eq!(parse_time_ms(&json!(" 7.5 ")), Some(7_500));
        assert_eq!(parse_time_ms(&json!("00:61:00")), None);
        assert_eq!(parse_time_ms(&json!(-1)), None);
        assert_eq!(parse_time_ms(&json!("soon")), None);
        assert_eq!(parse_time_ms(&json!(null)), None);
    }

    #[test]
    fn lenient_parse_and_units() {
        let gold = parse_gold(
            json!({
                "file_info": {"file_path": "Bei/Docs/a.pdf", "file_name": "a.pdf", "size": 3, "extra": [1]},
                "summary": "An invoice.",
                "segments": [
                    {"content": "page one", "page": 1},
                    {"content": "page two", "page_number": "2", "bbox": [0, 1]},
                    {"content": "  "},
                    {"content": "said hello", "start": "00:00:05", "end": 7.5},
                    {"content": "plain"},
                    "not an object"
                ],
                "unknown": true
            })
            .to_string()
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(gold.file_info.file_path.as_deref(), Some("Bei/Docs/a.pdf"));
        assert_eq!(gold.segments.len(), 4);
        let units = gold_units(&gold);
        let kinds: Vec<&str> = units.iter().map(|u| u.kind().as_str()).collect();
        assert_eq!(kinds, ["page", "page", "media", "span", "metadata"]);
        assert_eq!(units[1].locator.page, Some(2));
        assert_eq!(units[2].locator.t_start_ms, Some(5_000));
        assert_eq!(units[2].locator.t_end_ms, Some(7_500));
        assert_eq!(units[3].locator, Locator::default());
        assert_eq!(units[4].title.as_deref(), Some("summary"));
        assert_eq!(units[4].text, "An invoice.");
        assert!(units.iter().all(|u| u.content_time.is_none()));
    }

    #[test]
    fn bad_gold_files_are_errors() {
        assert!(matches!(parse_gold(b"{not json"), Err(GoldError::Json(_))));
        assert_eq!(parse_gold(b"[1]"), Err(GoldError::NotAnObject));
        assert_eq!(
            parse_gold(br#"{"segments": [{"content": "x"}]}"#),
            Err(GoldError::NoFilePath)
        );
        assert_eq!(
            parse_gold(br#"{"file_info": {"file_path": "a.txt"}, "segments": []}"#),
            Err(GoldError::Empty)
        );
    }

    #[test]
    fn targets_match_by_path_prefix_or_unique_name() {
        let files = [
            "Docs/a.pdf",
            "Docs/b.txt",
            "Other/b.txt",
            "Voice Memos/m.wav",
        ];
        let paths: HashSet<&str> = files.iter().copied().collect();
        let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
        for f in files {
            by_name
                .entry(f.rsplit('/').next().unwrap())
                .or_default()
                .push(f);
        }
        let info = |path: Option<&str>, name: Option<&str>| GoldFileInfo {
            file_path: path.map(str::to_string),
            file_name: name.map(str::to_string),
            ..GoldFileInfo::default()
        };
        let target = |i: GoldFileInfo| match_target(&i, &paths, &by_name);
        assert_eq!(
            target(info(Some("Docs/a.pdf"), None)).as_deref(),
            Some("Docs/a.pdf")
        );
        assert_eq!(
            target(info(Some("./Docs\\a.pdf"), None)).as_deref(),
            Some("Docs/a.pdf")
        );
        assert_eq!(
            target(info(Some("Bei/Docs/a.pdf"), None)).as_deref(),
            Some("Docs/a.pdf")
        );
        assert_eq!(
            target(info(Some("/Bei/Voice Memos/m.wav"), None)).as_deref(),
            Some("Voice Memos/m.wav")
        );
        assert_eq!(
            target(info(Some("Elsewhere/x/a.pdf"), None)).as_deref(),
            Some("Docs/a.pdf")
        );
        assert_eq!(
            target(info(None, Some("m.wav"))).as_deref(),
            Some("Voice Memos/m.wav")
        );
        assert_eq!(target(info(Some("x/b.txt"), None)), None, "ambiguous name");
        assert_eq!(target(info(Some("nothing.pdf"), None)), None);
    }

    #[test]
    fn load_gold_counts_matched_unmatched_and_invalid() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "p/a.json",
            r#"{"file_info": {"file_path": "P/Docs/a.pdf"}, "segments": [{"content": "x", "page": 1}]}"#,
        );
        write(
            "p/dup.json",
            r#"{"file_info": {"file_path": "Docs/a.pdf"}, "summary": "again"}"#,
        );
        write(
            "none.json",
            r#"{"file_info": {"file_path": "Nowhere/z.pdf"}, "summary": "s"}"#,
        );
        write("bad.json", "{oops");
        write("notes.txt", "ignored");
        let files = vec![WalkedFile {
            rel_path: "Docs/a.pdf".to_string(),
            abs_path: PathBuf::from("/nonexistent/Docs/a.pdf"),
            size: 1,
            mtime_ns: 0,
        }];
        let set = load_gold(dir.path(), &files).unwrap();
        assert_eq!(set.summary.matched, 1);
        assert_eq!(set.summary.unmatched, 2);
        assert_eq!(set.summary.invalid, 1);
        assert_eq!(set.summary.unmatched_files, ["none.json", "p/dup.json"]);
        assert!(set
            .summary
            .warnings
            .iter()
            .any(|w| w.starts_with("bad.json:")));
        let entry = &set.by_path["Docs/a.pdf"];
        assert!(entry.path.ends_with("p/a.json"));
        assert_eq!(set.hash_of("Docs/a.pdf"), Some(&entry.hash));
        assert!(load_gold(&dir.path().join("missing"), &files).is_err());
    }
}
