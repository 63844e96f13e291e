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

/// One file's text vectors: `(unit_id, text_hash, vector)`; a vector holds one
/// [`crate::vector::TEXT_DIM`]-long vector per window of the unit's text, end to end.
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
    /// Replaces one file's text vectors, all made by the text model `model` with at most
    /// `windows` windows per text (`dentate-index --text-windows`), marking them computed
    /// for `content_hash` by that model and windows (durable on return): a run with
    /// another model or number of windows embeds the file again.
    fn put_text_vectors(
        &mut self,
        path: &str,
        file_id: &str,
        content_hash: &str,
        model: &str,
        windows: usize,
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
    /// The content hashes of some files, by file id; files unknown or never read are left
    /// out. Backends answer in one request.
    fn content_hashes(
        &self,
        file_ids: &[&str],
    ) -> Result<std::collections::HashMap<String, String>, StoreError> {
        let mut hashes = std::collections::HashMap::new();
        for &file_id in file_ids {
            if let Some(hash) = self.file_by_id(file_id)?.and_then(|r| r.hash) {
                hashes.insert(file_id.to_string(), hash);
            }
        }
        Ok(hashes)
    }
}

/// A field group a lexical signal searches (each scored by BM25 on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LexicalField {
    /// The unit's text (stemmed English).
    Text,
    /// The unit's or file's title (stemmed English).
    Title,
    /// Structured fields: participants, attendees, sheet headers (stemmed English).
    Meta,
    /// The file name's tokens (not stemmed).
    Name,
    /// The folder names' tokens (not stemmed).
    Folders,
}

impl LexicalField {
    pub const ALL: [LexicalField; 5] = [
        LexicalField::Text,
        LexicalField::Title,
        LexicalField::Meta,
        LexicalField::Name,
        LexicalField::Folders,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LexicalField::Text => "text",
            LexicalField::Title => "title",
            LexicalField::Meta => "meta",
            LexicalField::Name => "name",
            LexicalField::Folders => "folders",
        }
    }
}

/// One part of a lexical query: analysed terms looked up in one field group, any of
/// them matching (OR), the BM25 score multiplied by `boost`.
#[derive(Debug, Clone, PartialEq)]
pub struct LexicalSignal {
    /// Shown by `explain` (`bm25.text`, `people.meta`, …).
    pub name: &'static str,
    pub field: LexicalField,
    /// Terms as the field's analyzer produces them (see [`crate::schema`]).
    pub terms: Vec<String>,
    pub boost: f32,
}

/// A lexical query as plain data: the sum of its signals' scores ranks; a unit matches
/// when any signal does. Each backend evaluates it its own way (tantivy's BM25 per
/// field; Qdrant's sparse vectors with IDF).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LexicalRequest {
    pub signals: Vec<LexicalSignal>,
}

impl LexicalRequest {
    /// Every distinct term, in order of appearance.
    pub fn terms(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for term in self.signals.iter().flat_map(|s| &s.terms) {
            if !out.contains(term) {
                out.push(term.clone());
            }
        }
        out
    }

    /// The terms searched in unit text (what snippets highlight).
    pub fn text_terms(&self) -> impl Iterator<Item = &str> {
        self.signals
            .iter()
            .filter(|s| s.field == LexicalField::Text)
            .flat_map(|s| s.terms.iter().map(String::as_str))
    }
}

/// A unit found in one [`SearchSnapshot`]. What the number means is the backend's own
/// affair (a tantivy document address; a slot among the units a query fetched); it is
/// valid only in the snapshot that returned it. Keys order like the backend breaks ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitKey(pub u64);

/// Found units, best first, with their scores, and how many units matched in all.
#[derive(Debug, Clone, Default)]
pub struct Matches {
    pub hits: Vec<(UnitKey, f32)>,
    pub total: u64,
}

/// Order of [`SearchSnapshot::by_time`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeOrder {
    NewestFirst,
    OldestFirst,
}

/// One consistent view of a backend for the length of one request: every key it hands
/// out can be read back from it.
pub trait SearchSnapshot {
    /// The best `depth` units for a lexical query among those `filter` lets through.
    fn lexical(
        &self,
        request: &LexicalRequest,
        filter: &UnitFilter,
        depth: usize,
    ) -> Result<Matches, StoreError>;
    /// Units `filter` lets through (and, when given, matching `lexical`), ordered by
    /// content time; scores are 0.
    fn by_time(
        &self,
        lexical: Option<&LexicalRequest>,
        filter: &UnitFilter,
        limit: usize,
        order: TimeOrder,
    ) -> Result<Matches, StoreError>;
    /// Nearest neighbours of a unit-length `query` (see [`VectorSearch::vector_search`]),
    /// `(key, cosine)` best first.
    fn vectors(
        &self,
        space: VectorSpace<'_>,
        query: &[f32],
        k: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<(UnitKey, f32)>, StoreError>;
    /// [`SearchSnapshot::vectors`] when only the best `exact` of the `k` need exact
    /// scores (a fusion depth of 200 for a top-10 answer): a backend that scores
    /// approximately first (int8 rows) may hand back the rest with their approximate
    /// scores, never above the exact ones, and skip rescoring them.
    fn vectors_exact_top(
        &self,
        space: VectorSpace<'_>,
        query: &[f32],
        k: usize,
        exact: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<(UnitKey, f32)>, StoreError> {
        let _ = exact;
        self.vectors(space, query, k, filter)
    }
    /// Of the units `keys`, the window of each one's text (see `indexer::windows`)
    /// whose vector scored it in this snapshot's text-vector searches, and how many
    /// windows it has, for those where that was not the first; units where the first
    /// scored, or where the backend cannot say, are left out. Asked once per reply, for
    /// the units shown without a highlighted fragment.
    fn text_windows(&self, keys: &[UnitKey]) -> std::collections::HashMap<UnitKey, (usize, usize)> {
        let _ = keys;
        std::collections::HashMap::new()
    }
    /// The unit behind a key.
    fn unit(&self, key: UnitKey) -> Result<StoredUnit, StoreError>;
    /// The unit behind a key, shared (backends that keep decoded units hand them out
    /// without copying).
    fn shared_unit(&self, key: UnitKey) -> Result<std::sync::Arc<StoredUnit>, StoreError> {
        Ok(std::sync::Arc::new(self.unit(key)?))
    }
    /// The file id of a key's unit (backends may answer without reading the unit).
    fn file_id(&self, key: UnitKey) -> Result<String, StoreError> {
        Ok(self.unit(key)?.file_id)
    }
    /// A unit by id (`file_id:ordinal`), if this snapshot holds it.
    fn unit_by_id(&self, unit_id: &str) -> Result<Option<StoredUnit>, StoreError>;
    /// Units by id, in the order asked (`None` where this snapshot holds none); a
    /// backend that pays per request (Qdrant) reads them in one.
    fn units_by_id(&self, unit_ids: &[String]) -> Result<Vec<Option<StoredUnit>>, StoreError> {
        unit_ids.iter().map(|id| self.unit_by_id(id)).collect()
    }
    /// The request's text terms with a highlighting weight (rarer terms higher).
    fn highlight_terms(
        &self,
        request: &LexicalRequest,
    ) -> Result<std::collections::BTreeMap<String, f32>, StoreError>;
    /// Each signal's score for one unit (0 where it does not match), for `explain`;
    /// empty where the backend cannot tell them apart.
    fn signal_scores(
        &self,
        request: &LexicalRequest,
        key: UnitKey,
    ) -> Result<std::collections::BTreeMap<String, f64>, StoreError>;
    /// The profile's "now" for relative dates: the newest content time that a unit's
    /// content gives itself (an e-mail's date, an event's start, a photo's EXIF: a content
    /// time other than its file's modification time), or, when no unit has one, the newest
    /// content time of any unit. A profile copied without its modification times
    /// (an archive, a clone, `cp`) has every undated unit at the copy's date, which
    /// would put "in September" in the wrong year.
    fn newest_content_time(&self) -> Result<Option<i64>, StoreError>;
    /// Lexical and text-vector candidates fused by the backend itself in one request,
    /// `(key, fused score)` best first; `None` when this backend leaves fusion to the
    /// caller (which then fuses the lists of [`SearchSnapshot::lexical`] and
    /// [`SearchSnapshot::vectors`]).
    fn fused(
        &self,
        _request: &FusedRequest<'_>,
    ) -> Result<Option<Vec<(UnitKey, f32)>>, StoreError> {
        Ok(None)
    }
}

/// A hybrid request a backend may fuse itself ([`SearchSnapshot::fused`]).
#[derive(Debug, Clone, Copy)]
pub struct FusedRequest<'a> {
    pub lexical: &'a LexicalRequest,
    /// The unit-length text vector of the question.
    pub text_vector: &'a [f32],
    pub filter: &'a UnitFilter,
    /// How deep each list is searched, and how many fused units come back.
    pub depth: usize,
    pub method: FusionMethod,
}

/// How a backend fuses ranked lists.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FusionMethod {
    /// Reciprocal rank fusion with this `k`.
    Rrf { k: f32 },
    /// Distribution-based score fusion (each list's scores normalised by its mean
    /// and three standard deviations, then summed).
    Dbsf,
}

/// How much an index holds, for `Stats`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackendStats {
    pub totals: crate::manifest::ManifestTotals,
    /// RFC 3339 time of the last commit.
    pub last_commit: Option<String>,
    /// Units with a text vector.
    pub units_with_vectors: u64,
    pub units: u64,
}

/// Everything the daemon reads: files and units ([`UnitSource`]) and per-request
/// search snapshots.
pub trait SearchBackend: UnitSource {
    /// `embedded` or `qdrant` (shown by `explain` and `Stats`).
    fn name(&self) -> &'static str;
    /// The profile folder the index was made from (absolute).
    fn profile_root(&self) -> &str;
    /// Where the index lives (a folder; a URL and collection).
    fn location(&self) -> String;
    fn snapshot(&self) -> Result<Box<dyn SearchSnapshot + '_>, StoreError>;
    /// Vectors held in a space (0 when the space is unknown).
    fn vector_count(&self, space: VectorSpace<'_>) -> Result<usize, StoreError>;
    fn stats(&self) -> Result<BackendStats, StoreError>;
    /// Whether this backend fuses hybrid requests itself ([`SearchSnapshot::fused`]).
    fn fuses(&self) -> bool {
        false
    }
    /// Events of the activity log matching `query`, oldest first (a backend without a
    /// log has none).
    fn activity(
        &self,
        _query: &crate::activity::ActivityQuery,
    ) -> Result<Vec<crate::activity::ActivityEvent>, StoreError> {
        Ok(Vec::new())
    }
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
