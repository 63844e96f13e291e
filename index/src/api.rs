//! The storage boundary: what the indexer writes through and what the daemon searches
//! through, designed for two implementations — the embedded one (tantivy + exact-scan
//! vectors in the manifest, [`crate::embedded`] and [`crate::writer`]) and a remote
//! engine such as Qdrant.
//!
//! Everything that crosses it is plain data: files ([`FileRecord`]), units, vectors,
//! and filters expressed as predicates on unit payload ([`UnitFilter`]: path prefixes,
//! modality, extension, unit kind, content-time range), never as sets of ids, so a
//! remote engine can evaluate them itself. The methods block and may fail; async code
//! calls them on a blocking thread (`spawn_blocking`), as the daemon does, and a remote
//! implementation drives its own client from there.

use chrono::{DateTime, FixedOffset};
use converters::Unit;
use thiserror::Error;

use crate::error::IndexError;
use crate::manifest::FileRecord;
use crate::path::UnitPath;
use crate::store::StoredUnit;

/// Which units a search may return: every listed condition must hold (AND); inside one
/// condition any value will do (OR). The default lets everything through.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitFilter {
    /// The unit's file lies in one of these folders, or is one of these paths
    /// (leading and trailing `/` ignored).
    pub path_prefixes: Vec<String>,
    /// `document`, `text`, `image`, `audio`, `video`, `binary`.
    pub modalities: Vec<String>,
    /// Lower-case extensions without the dot.
    pub extensions: Vec<String>,
    /// Unit kinds (`page`, `span`, `media`, …).
    pub kinds: Vec<String>,
    /// Content time (Unix seconds) at or after this…
    pub time_start: Option<i64>,
    /// …and before this.
    pub time_end: Option<i64>,
}

/// What a filter looks at in one unit.
#[derive(Debug, Clone, Copy)]
pub struct UnitPayload<'a> {
    /// The file's path relative to the profile (`parent#attachment/name` for
    /// attachments).
    pub path: &'a str,
    pub modality: &'a str,
    pub ext: &'a str,
    pub kind: &'a str,
    pub content_time: i64,
}

impl<'a> UnitPayload<'a> {
    pub fn of(unit: &'a StoredUnit) -> UnitPayload<'a> {
        UnitPayload {
            path: &unit.path,
            modality: unit.modality.as_str(),
            ext: &unit.ext,
            kind: unit.kind.as_str(),
            content_time: unit.content_time,
        }
    }
}

impl UnitFilter {
    pub fn is_empty(&self) -> bool {
        *self == UnitFilter::default()
    }

    /// The filter's meaning, evaluated on one unit: the reference every implementation
    /// follows (the embedded store translates it into a tantivy query; a test checks
    /// that both agree).
    pub fn matches(&self, unit: &UnitPayload) -> bool {
        let any =
            |values: &[String], value: &str| values.is_empty() || values.iter().any(|v| v == value);
        let in_prefix = self.path_prefixes.is_empty()
            || self.path_prefixes.iter().any(|prefix| {
                let clean = prefix.trim_matches('/');
                // Attachments are filed under their containing file.
                let components: Vec<&str> = clean.split('/').filter(|p| !p.is_empty()).collect();
                let folder_parts: Vec<&str> = UnitPath::parse(unit.path).filed_under().collect();
                unit.path == clean || folder_parts.starts_with(&components)
            });
        in_prefix
            && any(&self.modalities, unit.modality)
            && any(&self.extensions, unit.ext)
            && any(&self.kinds, unit.kind)
            && self.time_start.is_none_or(|t| unit.content_time >= t)
            && self.time_end.is_none_or(|t| unit.content_time < t)
    }
}

/// Which vectors a search compares with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VectorSpace<'a> {
    /// Text embeddings of units.
    Text,
    /// Image embeddings of one image–text model.
    Image { model: &'a str },
}

/// A unit found by vector search.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    pub unit_id: String,
    pub file_id: String,
    /// Cosine similarity.
    pub score: f32,
}

/// Errors of a storage backend.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("{what} has {query} dimensions, the stored vectors {stored}")]
    Dimension {
        what: &'static str,
        query: usize,
        stored: usize,
    },
    #[error("storage backend: {0}")]
    Backend(String),
}

/// One file's text vectors: `(unit_id, text_hash, vector)`.
pub type UnitVectors = [(String, String, Vec<f32>)];

/// Writing files into a backend. Nothing written is visible (or recorded as done)
/// before [`StoreWriter::commit`] returns.
pub trait StoreWriter: Send {
    /// Adds a file's units; its previous units must have been deleted first.
    fn add_file(
        &mut self,
        record: FileRecord,
        units: &[Unit],
        file_mtime: DateTime<FixedOffset>,
    ) -> Result<(), StoreError>;
    /// Records a file whose units do not change (touched, skipped, failed).
    fn put_record(&mut self, record: FileRecord) -> Result<(), StoreError>;
    /// Deletes a file's units; with `forget`, also its record (by path).
    fn delete_file(&mut self, file_id: &str, forget: Option<String>) -> Result<(), StoreError>;
    /// Makes everything since the last commit durable and visible, units first.
    fn commit(&mut self) -> Result<(), StoreError>;
    /// Replaces one file's text vectors, marking them computed for `content_hash`
    /// (durable on return).
    fn put_text_vectors(
        &mut self,
        path: &str,
        file_id: &str,
        content_hash: &str,
        vectors: &UnitVectors,
    ) -> Result<(), StoreError>;
}

/// Nearest-neighbour search over stored vectors.
pub trait VectorSearch: Send + Sync {
    /// The `k` units closest to a unit-length `query` among those `filter` lets
    /// through, best first. Vectors of units that left the index, or whose text
    /// changed since they were computed, are never returned (so fewer than `k` may come
    /// back).
    fn vector_search(
        &self,
        space: VectorSpace<'_>,
        query: &[f32],
        k: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<VectorHit>, StoreError>;
    /// Vectors held in a space.
    fn vector_count(&self, space: VectorSpace<'_>) -> Result<usize, StoreError>;
}

/// Reading files and units back.
pub trait UnitSource: Send + Sync {
    fn file(&self, path: &str) -> Result<Option<FileRecord>, StoreError>;
    fn file_by_id(&self, file_id: &str) -> Result<Option<FileRecord>, StoreError>;
    /// Every file, ordered by path.
    fn files(&self) -> Result<Vec<FileRecord>, StoreError>;
    /// A file's units in order.
    fn units_of_file(&self, file_id: &str) -> Result<Vec<StoredUnit>, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit<'a>(path: &'a str, modality: &'a str, ext: &'a str, time: i64) -> UnitPayload<'a> {
        UnitPayload {
            path,
            modality,
            ext,
            kind: "page",
            content_time: time,
        }
    }

    #[test]
    fn filters_are_and_of_ors() {
        let a = unit("Documents/Finance/r.pdf", "document", "pdf", 100);
        let b = unit("Mail/Inbox/x.eml#attachment/q.pdf", "document", "pdf", 200);
        let c = unit("notes.txt", "text", "txt", 300);
        assert!(UnitFilter::default().matches(&a));
        let docs = UnitFilter {
            path_prefixes: vec!["/Documents/".into()],
            ..UnitFilter::default()
        };
        assert!(docs.matches(&a) && !docs.matches(&b) && !docs.matches(&c));
        let partial = UnitFilter {
            path_prefixes: vec!["Docu".into()],
            ..UnitFilter::default()
        };
        assert!(!partial.matches(&a), "prefixes are whole folders");
        let mail = UnitFilter {
            path_prefixes: vec!["Mail".into(), "notes.txt".into()],
            ..UnitFilter::default()
        };
        assert!(!mail.matches(&a) && mail.matches(&b) && mail.matches(&c));
        let message = UnitFilter {
            path_prefixes: vec!["Mail/Inbox/x.eml".into()],
            ..UnitFilter::default()
        };
        assert!(
            message.matches(&b),
            "a message's attachments are filed under it"
        );
        let time = UnitFilter {
            time_start: Some(200),
            time_end: Some(300),
            extensions: vec!["pdf".into(), "txt".into()],
            ..UnitFilter::default()
        };
        assert!(!time.matches(&a) && time.matches(&b) && !time.matches(&c));
        let kinds = UnitFilter {
            kinds: vec!["span".into()],
            ..UnitFilter::default()
        };
        assert!(!kinds.matches(&a));
        assert!(!kinds.is_empty() && UnitFilter::default().is_empty());
    }
}
