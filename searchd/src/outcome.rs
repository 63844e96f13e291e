//! What a search answers, transport-free: ranked units and files with their scores,
//! snippets and signals, and the replies of search, retrieve, listing and stats.

use std::collections::BTreeMap;

use index::manifest::ManifestTotals;
use index::{FileRecord, StoredUnit};
use serde::Serialize;

use crate::activity::plan::ActivitySummary;

/// One ranked unit.
#[derive(Debug, Clone, Serialize)]
pub struct UnitHit {
    pub unit: StoredUnit,
    pub score: f32,
    /// Excerpt with matched terms in `<b></b>` (HTML-escaped); `None` when the request
    /// asked for none (`"snippets": false`).
    pub snippet: Option<String>,
    /// Per-signal scores (only with `explain`).
    pub signals: BTreeMap<String, f64>,
    /// Shown for its file, not a match itself: a neighbour of a hit (`context`), or a
    /// log's records of one kind shown with its tied spans (`crate::record_kinds`).
    pub is_context: bool,
}

/// One ranked file with its best units.
#[derive(Debug, Clone, Serialize)]
pub struct FileHit {
    pub file: FileRecord,
    pub score: f32,
    pub units: Vec<UnitHit>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchOutcome {
    pub files: Vec<FileHit>,
    pub total_units: u64,
    pub took_ms: f64,
    pub notes: Vec<String>,
    /// The activity log's part (an explicit filter, or a question about doing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<ActivitySummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RetrieveOutcome {
    pub units: Vec<UnitHit>,
    /// Whether the request's `rerank` re-scored the units (`crate::rerank`).
    pub reranked: bool,
    pub took_ms: f64,
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<ActivitySummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListOutcome {
    pub files: Vec<FileRecord>,
    pub truncated: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatsOutcome {
    pub totals: ManifestTotals,
    pub profile_root: String,
    /// Where the index lives: a folder (embedded) or a URL and collection (qdrant).
    pub index_dir: String,
    /// `embedded` or `qdrant`.
    pub backend: String,
    pub last_commit: Option<String>,
    /// Units with a vector / units in the index.
    pub embedding_coverage: f64,
    /// `None` when dense retrieval works.
    pub dense_status: Option<String>,
}
