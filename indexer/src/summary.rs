//! What an indexing run reports: files by status, failures and skipped paths, units,
//! and one block per stage (embeddings, OCR, media, CLIP, Gold).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::media::MediaSummary;
use crate::models::OcrSummary;

pub use crate::stage_status::StageStatus;

/// One failed file of the summary.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Failure {
    pub path: String,
    /// Short category: corrupt, encrypted, empty, unsupported, too_large,
    /// converter_bug (a converter panicked: a bug of ours, with the panic message and
    /// location), timeout, io; or `damaged` for a file that is damaged but whose recovered units
    /// are indexed, or `changed_while_read` for one whose size or time moved while it was
    /// read (both count as indexed in `FileCounts`; the latter is read again next run).
    pub category: String,
    /// The full message.
    pub reason: String,
}

/// File counts by status over the whole index after the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FileCounts {
    pub indexed: u64,
    pub skipped: u64,
    pub failed: u64,
}

/// What a run did and what the index holds afterwards.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RunSummary {
    pub files: FileCounts,
    pub failures: Vec<Failure>,
    /// Paths recorded but not indexed on purpose (junk, links leaving the profile or
    /// to folders, FIFOs and other special files), with the reason.
    #[serde(default)]
    pub skipped: Vec<Failure>,
    /// Files indexed in part: a converter stopped at one of its limits and says what it
    /// kept (category `truncated`; see `docs/robustness.md` for every limit).
    #[serde(default)]
    pub truncated: Vec<Failure>,
    pub units_by_kind: BTreeMap<String, u64>,
    pub units: u64,
    /// Files (incl. attachments) converted in this run.
    pub converted: u64,
    /// Files whose size and modification time were unchanged (no work).
    pub unchanged: u64,
    /// Files whose mtime changed but whose content hash did not.
    pub touched: u64,
    /// Files removed from the index because they left the profile.
    pub removed: u64,
    /// Files renamed or moved with their content unchanged (moved in the index, not
    /// converted again).
    #[serde(default)]
    pub moved: u64,
    /// The run was stopped before it was complete (the next run goes on).
    #[serde(default)]
    pub interrupted: bool,
    /// Activity events recorded in this run, by kind.
    #[serde(default)]
    pub activity: BTreeMap<String, u64>,
    pub seconds: f64,
    /// Seconds from the start of the run until every converted file that is not a
    /// recording was committed (searchable by words); recordings are converted after.
    /// Absent when the run converted no recording.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents_searchable_seconds: Option<f64>,
    pub embedding: EmbeddingSummary,
    /// Gold import (`--gold`): matched / unmatched / invalid Gold files.
    #[serde(default)]
    pub gold: crate::gold::GoldSummary,
    /// OCR of images in this run.
    #[serde(default)]
    pub ocr: OcrSummary,
    /// Speech and on-screen text of audio and video in this run.
    #[serde(default)]
    pub media: MediaSummary,
    /// CLIP image embeddings (`--clip`).
    #[serde(default)]
    pub clip: crate::clip::ClipSummary,
}

/// What the embedding phase did.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EmbeddingSummary {
    /// `done`, `skipped` (no models: lexical only) or `failed`.
    pub status: StageStatus,
    /// Why it was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub model: String,
    /// Files whose vectors were (re)computed in this run.
    pub files: u64,
    /// Units run through the model in this run.
    pub units_embedded: u64,
    /// Model windows those units made (a unit longer than the model's window makes
    /// several; see `windows`).
    #[serde(default)]
    pub windows_embedded: u64,
    /// Units whose vector was reused because their text was unchanged.
    pub units_reused: u64,
    /// Files embedded again only because another text model made their vectors (the
    /// first run after a model change re-embeds the whole index).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub files_of_another_model: u64,
    /// Units with a vector / units in the index, after the run.
    pub coverage: f64,
    pub seconds: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
