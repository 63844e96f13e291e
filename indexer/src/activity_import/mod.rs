//! Imports evidence of past activity into the index's activity log (see
//! `index::activity`), after an indexing run, so the manifest knows the profile's files:
//! FileGram behavioural traces given with `--import-trace` ([`trace`]) and the profile's
//! own freedesktop `recently-used.xbel` ([`xbel`]), read on every run. Foreign paths are
//! placed in the profile by [`paths::PathMapper`]. Every event carries a dedup key, so a
//! second import of the same source adds nothing.
//!
//! A source that cannot be read is reported in its [`SourceReport`] and the others are
//! still imported; only a manifest that cannot be opened or written fails the import.

pub mod paths;
pub mod trace;
pub mod xbel;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use index::{activity::now_ms, ActivityEvent, IndexError, IndexLayout, Manifest};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use paths::PathMapper;

/// Error messages kept per source in the report (the count is exact).
pub const ERRORS_SHOWN: usize = 20;

/// Largest source file read (a trace of a long session is a few MB).
const MAX_SOURCE_BYTES: u64 = 512 * 1024 * 1024;

/// Why an import could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read the index at {path}: {source}")]
    Index {
        path: PathBuf,
        #[source]
        source: IndexError,
    },
}

/// Why one source file could not be read (the import goes on with the others).
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is {size} bytes, more than the {MAX_SOURCE_BYTES} accepted")]
    TooLarge { path: PathBuf, size: u64 },
    #[error("{path} is not JSON: {source}")]
    NotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path} is not a FileGram trace: expected a JSON array of events, found {found}")]
    NotAnArray { path: PathBuf, found: &'static str },
    #[error("{path} is not a readable xbel file: {detail}")]
    Xbel { path: PathBuf, detail: String },
}

/// What the import did with one source.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SourceReport {
    /// `trace` or `xbel`.
    pub format: String,
    /// The file, as given (xbel: relative to the profile).
    pub source: String,
    /// Events (trace) or bookmarks (xbel) in the file.
    pub read: u64,
    /// Events new to the log.
    pub added: u64,
    /// Events already in the log (imported before).
    pub duplicates: u64,
    /// Trace events of a type the importer does not know, by type (they are imported).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unknown_types: BTreeMap<String, u64>,
    /// Imported events with a path that could not be placed in the profile (kept as
    /// written, detail `unmapped: true`).
    pub unmapped: u64,
    /// xbel bookmarks outside the profile (not imported).
    pub outside: u64,
    /// Malformed events or bookmarks (not imported).
    pub errors: u64,
    /// The first [`ERRORS_SHOWN`] error messages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_messages: Vec<String>,
    /// Set when the whole file could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

impl SourceReport {
    fn new(format: &str, source: String) -> SourceReport {
        SourceReport {
            format: format.to_string(),
            source,
            ..SourceReport::default()
        }
    }

    fn note_errors(&mut self, messages: impl IntoIterator<Item = String>) {
        for message in messages {
            self.errors += 1;
            if self.error_messages.len() < ERRORS_SHOWN {
                self.error_messages.push(message);
            }
        }
    }

    /// Human-readable lines for the run's text summary.
    pub fn lines(&self) -> Vec<String> {
        let head = format!("import {} {}", self.format, self.source);
        if let Some(failed) = &self.failed {
            return vec![format!("{head} failed: {failed}")];
        }
        let unit = if self.format == "xbel" {
            "bookmarks"
        } else {
            "events"
        };
        let mut line = format!(
            "{head}: {} {unit} read, {} events added, {} already imported",
            self.read, self.added, self.duplicates
        );
        if !self.unknown_types.is_empty() {
            let types: Vec<String> = self
                .unknown_types
                .iter()
                .map(|(name, count)| format!("{name} {count}"))
                .collect();
            line.push_str(&format!(", unknown types kept: {}", types.join(", ")));
        }
        for (count, what) in [
            (self.unmapped, "with unmapped paths (kept as written)"),
            (self.outside, "outside the profile (skipped)"),
            (self.errors, "malformed (skipped)"),
        ] {
            if count > 0 {
                line.push_str(&format!(", {count} {what}"));
            }
        }
        let mut lines = vec![line];
        lines.extend(self.error_messages.iter().map(|m| format!("  error: {m}")));
        if self.errors > self.error_messages.len() as u64 {
            lines.push(format!(
                "  … and {} more errors",
                self.errors - self.error_messages.len() as u64
            ));
        }
        lines
    }
}

/// Imports the profile's `recently-used.xbel` (when it has one) and each trace into the
/// activity log of the index at `index_dir` (written by a completed run).
pub fn import_activity(
    index_dir: &Path,
    traces: &[PathBuf],
) -> Result<Vec<SourceReport>, ImportError> {
    let index_error = |source| ImportError::Index {
        path: index_dir.to_path_buf(),
        source,
    };
    let layout = IndexLayout::new(index_dir);
    let info = layout.read_info().map_err(index_error)?;
    let mut manifest = Manifest::open(&layout.manifest_path()).map_err(index_error)?;
    let records = manifest.all().map_err(index_error)?;
    let known = records
        .iter()
        .filter(|record| record.parent_path.is_none())
        .map(|record| record.path.as_str());
    let mut mapper = PathMapper::new(&info.profile_root, known);
    let observed_ms = now_ms();

    let mut reports = Vec::new();
    let xbel_file = Path::new(&info.profile_root).join(xbel::XBEL_PATH);
    if xbel_file.is_file() {
        let mut report = SourceReport::new("xbel", xbel::XBEL_PATH.to_string());
        let events = read_source(&xbel_file).and_then(|text| {
            xbel::read_xbel(&text, &mut mapper, observed_ms).map_err(|detail| SourceError::Xbel {
                path: xbel_file.clone(),
                detail,
            })
        });
        match events {
            Ok(read) => {
                report.read = read.bookmarks;
                report.outside = read.outside;
                report.note_errors(read.errors);
                append(&mut manifest, &read.events, &mut report).map_err(index_error)?;
            }
            Err(error) => report.failed = Some(error.to_string()),
        }
        reports.push(report);
    }
    for trace_file in traces {
        let mut report = SourceReport::new("trace", trace_file.display().to_string());
        match read_source(trace_file).and_then(|text| trace_array(trace_file, &text)) {
            Ok(array) => {
                let read = trace::read_trace(array, &mut mapper, observed_ms);
                report.read = read.read;
                report.unknown_types = read.unknown_types;
                report.unmapped = read.unmapped;
                report.note_errors(read.errors.iter().map(ToString::to_string));
                append(&mut manifest, &read.events, &mut report).map_err(index_error)?;
            }
            Err(error) => report.failed = Some(error.to_string()),
        }
        reports.push(report);
    }
    Ok(reports)
}

fn append(
    manifest: &mut Manifest,
    events: &[ActivityEvent],
    report: &mut SourceReport,
) -> Result<(), IndexError> {
    let added = manifest.append_activity(events)? as u64;
    report.added = added;
    report.duplicates = events.len() as u64 - added;
    Ok(())
}

fn read_source(path: &Path) -> Result<String, SourceError> {
    let read_error = |source| SourceError::Read {
        path: path.to_path_buf(),
        source,
    };
    let size = std::fs::metadata(path).map_err(read_error)?.len();
    if size > MAX_SOURCE_BYTES {
        return Err(SourceError::TooLarge {
            path: path.to_path_buf(),
            size,
        });
    }
    std::fs::read_to_string(path).map_err(read_error)
}

fn trace_array(path: &Path, text: &str) -> Result<Vec<Value>, SourceError> {
    let value: Value = serde_json::from_str(text).map_err(|source| SourceError::NotJson {
        path: path.to_path_buf(),
        source,
    })?;
    match value {
        Value::Array(array) => Ok(array),
        Value::Object(_) => Err(SourceError::NotAnArray {
            path: path.to_path_buf(),
            found: "an object",
        }),
        _ => Err(SourceError::NotAnArray {
            path: path.to_path_buf(),
            found: "a single value",
        }),
    }
}

#[cfg(test)]
mod tests {
    use index::store::IndexInfo;
    use index::{ActivityQuery, FileRecord};

    use super::*;

    /// An index folder whose manifest knows `files` of the profile at `root`.
    fn index_of(root: &Path, files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let layout = IndexLayout::new(dir.path());
        let info = IndexInfo {
            format: index::store::FORMAT_NAME.into(),
            schema_version: index::schema::SCHEMA_VERSION,
            profile_root: root.to_string_lossy().into_owned(),
            created: "2026-01-01T00:00:00Z".into(),
        };
        std::fs::write(layout.info_path(), serde_json::to_string(&info).unwrap()).unwrap();
        let records: Vec<FileRecord> = files.iter().map(|f| FileRecord::new(f)).collect();
        let mut manifest = Manifest::open(&layout.manifest_path()).unwrap();
        manifest.apply(&records, &[]).unwrap();
        dir
    }

    #[test]
    fn sources_import_once_and_broken_files_are_reported() {
        let profile = tempfile::tempdir().unwrap();
        let root = profile.path().canonicalize().unwrap();
        let share = root.join(".local/share");
        std::fs::create_dir_all(&share).unwrap();
        std::fs::write(
            share.join("recently-used.xbel"),
            format!(
                "<xbel><bookmark href=\"file://{}/a.txt\" modified=\"2024-01-01T00:00:00Z\"/></xbel>",
                root.display()
            ),
        )
        .unwrap();
        let index_dir = index_of(&root, &["a.txt"]);
        let files = tempfile::tempdir().unwrap();
        let trace = files.path().join("events.json");
        std::fs::write(
            &trace,
            r#"[{"event_id": "1", "event_type": "file_read", "timestamp": 5, "file_path": "/w/a.txt"},
                {"event_id": "2", "event_type": "zoom", "timestamp": 6},
                {"event_type": "file_read"}]"#,
        )
        .unwrap();
        let object = files.path().join("object.json");
        std::fs::write(&object, "{}").unwrap();
        let garbage = files.path().join("garbage.json");
        std::fs::write(&garbage, "[{").unwrap();
        let missing = files.path().join("missing.json");
        let traces = [trace.clone(), object, garbage, missing];

        let first = import_activity(index_dir.path(), &traces).unwrap();
        assert_eq!(first.len(), 5);
        let (xbel, trace_report) = (&first[0], &first[1]);
        assert_eq!(
            (xbel.format.as_str(), xbel.read, xbel.added),
            ("xbel", 1, 1)
        );
        assert_eq!(trace_report.read, 3);
        assert_eq!(trace_report.added, 2);
        assert_eq!(trace_report.errors, 1);
        assert_eq!(
            trace_report.unknown_types,
            BTreeMap::from([("zoom".into(), 1)])
        );
        let failures: Vec<&str> = first[2..]
            .iter()
            .map(|r| r.failed.as_deref().unwrap())
            .collect();
        assert!(failures[0].contains("expected a JSON array of events, found an object"));
        assert!(failures[1].contains("is not JSON"));
        assert!(failures[2].starts_with("cannot read"));
        assert!(trace_report.lines()[0].contains("unknown types kept: zoom 1"));

        // Idempotent: the same sources again add nothing.
        let again = import_activity(index_dir.path(), &traces).unwrap();
        assert_eq!((again[0].added, again[0].duplicates), (0, 1));
        assert_eq!((again[1].added, again[1].duplicates), (0, 2));
        let manifest = Manifest::open(&IndexLayout::new(index_dir.path()).manifest_path()).unwrap();
        let log = manifest.activity(&ActivityQuery::default()).unwrap();
        let rows: Vec<(&str, Option<&str>)> = log
            .iter()
            .map(|e| (e.kind.as_str(), e.path.as_deref()))
            .collect();
        assert_eq!(
            rows,
            [
                ("read", Some("a.txt")),
                ("zoom", None),
                ("modified", Some("a.txt"))
            ]
        );
    }
}
