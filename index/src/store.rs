//! The on-disk layout of an index folder and the read side used by the daemon.
//!
//! ```text
//! <index>/dentate.json      format marker: schema version, profile root
//! <index>/manifest.sqlite   per-file manifest (see `manifest`)
//! <index>/lexical/          tantivy index, one document per unit
//! ```

use std::path::{Path, PathBuf};

use converters::{FileType, Locator, Modality, UnitKind};
use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use crate::error::IndexError;
use crate::manifest::Manifest;
use crate::schema::{register_analyzers, Fields, SCHEMA_VERSION};

/// Contents of `dentate.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IndexInfo {
    pub format: String,
    pub schema_version: u32,
    /// Absolute, canonical path of the indexed profile.
    pub profile_root: String,
    /// RFC 3339 creation time of the index.
    pub created: String,
}

pub const FORMAT_NAME: &str = "dentate-index";

/// Paths inside an index folder.
#[derive(Debug, Clone)]
pub struct IndexLayout {
    pub root: PathBuf,
}

impl IndexLayout {
    pub fn new(root: impl Into<PathBuf>) -> IndexLayout {
        IndexLayout { root: root.into() }
    }

    pub fn info_path(&self) -> PathBuf {
        self.root.join("dentate.json")
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.root.join("manifest.sqlite")
    }

    pub fn lexical_dir(&self) -> PathBuf {
        self.root.join("lexical")
    }

    pub fn read_info(&self) -> Result<IndexInfo, IndexError> {
        let path = self.info_path();
        let text = std::fs::read_to_string(&path).map_err(|e| IndexError::NotAnIndex {
            path: self.root.clone(),
            detail: format!("cannot read {}: {e}", path.display()),
        })?;
        let info: IndexInfo = serde_json::from_str(&text).map_err(|e| IndexError::NotAnIndex {
            path: self.root.clone(),
            detail: format!("invalid dentate.json: {e}"),
        })?;
        if info.format != FORMAT_NAME {
            return Err(IndexError::NotAnIndex {
                path: self.root.clone(),
                detail: format!("unknown format {:?}", info.format),
            });
        }
        Ok(info)
    }
}

/// A unit as stored in the index.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredUnit {
    pub unit_id: String,
    pub file_id: String,
    pub path: String,
    pub kind: UnitKind,
    pub modality: Modality,
    pub ext: String,
    pub file_type: FileType,
    pub ordinal: u64,
    pub title: String,
    pub text: String,
    pub locator: Locator,
    pub fields: std::collections::BTreeMap<String, String>,
    /// Unix seconds.
    pub content_time: i64,
    /// RFC 3339 with the unit's own offset.
    pub content_time_text: String,
}

impl StoredUnit {
    /// Decodes a stored tantivy document.
    pub fn from_doc(fields: &Fields, doc: &TantivyDocument) -> StoredUnit {
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        };
        let int = |field| doc.get_first(field).and_then(|v| v.as_i64()).unwrap_or(0);
        let uint = |field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0);
        StoredUnit {
            unit_id: text(fields.unit_id),
            file_id: text(fields.file_id),
            path: text(fields.path),
            // The index only holds names this build writes; the fallbacks are never hit.
            kind: UnitKind::parse(&text(fields.kind)).unwrap_or(UnitKind::Metadata),
            modality: Modality::parse(&text(fields.modality)).unwrap_or(Modality::Binary),
            ext: text(fields.ext),
            file_type: FileType::parse(&text(fields.file_type)).unwrap_or(FileType::Binary),
            ordinal: uint(fields.ordinal),
            title: text(fields.title),
            text: text(fields.text),
            locator: serde_json::from_str(&text(fields.locator)).unwrap_or_default(),
            fields: serde_json::from_str(&text(fields.fields_json)).unwrap_or_default(),
            content_time: int(fields.content_time),
            content_time_text: text(fields.content_time_text),
        }
    }
}

/// An index opened for searching. Cheap to share behind an `Arc`; the reader follows
/// the indexer's commits by itself (tantivy polls every 500 ms), and
/// [`IndexHandle::searcher`] sooner.
pub struct IndexHandle {
    pub layout: IndexLayout,
    pub info: IndexInfo,
    pub index: Index,
    pub reader: IndexReader,
    pub fields: Fields,
    /// When commits were last looked for, and the commit file's time then.
    commits_seen: Mutex<(Instant, Option<SystemTime>)>,
}

/// [`IndexHandle::searcher`] looks for a new commit at most this often.
const COMMIT_CHECK: Duration = Duration::from_millis(20);

impl IndexHandle {
    /// Opens an index folder written by `dentate-index`. Nothing is written to the
    /// lexical index; the reader reloads within about a second of each commit.
    pub fn open(root: &Path) -> Result<IndexHandle, IndexError> {
        let layout = IndexLayout::new(root);
        let info = layout.read_info()?;
        if info.schema_version != SCHEMA_VERSION {
            return Err(IndexError::NotAnIndex {
                path: root.to_path_buf(),
                detail: format!(
                    "schema version {} but this build reads {}; re-run dentate-index",
                    info.schema_version, SCHEMA_VERSION
                ),
            });
        }
        let index = Index::open_in_dir(layout.lexical_dir())?;
        register_analyzers(&index);
        let fields = Fields::from_schema(&index.schema())?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        Ok(IndexHandle {
            layout,
            info,
            index,
            reader,
            fields,
            commits_seen: Mutex::new((Instant::now(), None)),
        })
    }

    /// A searcher of the latest commit: at most every 20 ms, a changed commit file
    /// (`meta.json`, one `stat`) reloads the reader at once instead of at tantivy's next
    /// poll, so a file saved in watch mode is searchable sooner. Under contention the
    /// check is skipped, never waited for.
    pub fn searcher(&self) -> tantivy::Searcher {
        if let Ok(mut seen) = self.commits_seen.try_lock() {
            if seen.0.elapsed() >= COMMIT_CHECK {
                seen.0 = Instant::now();
                let committed = std::fs::metadata(self.layout.lexical_dir().join("meta.json"))
                    .and_then(|m| m.modified())
                    .ok();
                if committed != seen.1 {
                    seen.1 = committed;
                    // On failure tantivy's own poll tries again.
                    let _ = self.reader.reload();
                }
            }
        }
        self.reader.searcher()
    }

    /// Opens the manifest (one connection per caller; SQLite connections are not `Sync`).
    pub fn manifest(&self) -> Result<Manifest, IndexError> {
        Manifest::open_existing(&self.layout.manifest_path())
    }

    /// All units of one file in order.
    pub fn units_of_file(&self, file_id: &str) -> Result<Vec<StoredUnit>, IndexError> {
        units_of_file(&self.searcher(), &self.fields, file_id)
    }
}

/// All units of one file in order, from a searcher snapshot.
pub fn units_of_file(
    searcher: &tantivy::Searcher,
    fields: &Fields,
    file_id: &str,
) -> Result<Vec<StoredUnit>, IndexError> {
    let query = TermQuery::new(
        Term::from_field_text(fields.file_id, file_id),
        IndexRecordOption::Basic,
    );
    let count = searcher.search(&query, &tantivy::collector::Count)?;
    if count == 0 {
        return Ok(Vec::new());
    }
    let hits = searcher.search(&query, &TopDocs::with_limit(count).order_by_score())?;
    let mut units = Vec::with_capacity(hits.len());
    for (_, address) in hits {
        let doc: TantivyDocument = searcher.doc(address)?;
        units.push(StoredUnit::from_doc(fields, &doc));
    }
    units.sort_by_key(|u| u.ordinal);
    Ok(units)
}
