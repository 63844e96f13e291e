//! The Dentate indexer: walks a profile ([`walk`]), converts files into atomic units
//! with the `converters` crate ([`convert`]), enriches them ([`stages`]: OCR, page OCR,
//! speech and screen text, with the shared models of [`models`]), writes them through
//! the `index` crate's writer ([`pipeline`]), then computes text and CLIP vectors
//! ([`vectors`], [`clip`]). After a run, [`activity_import`] adds past activity (FileGram
//! traces, `recently-used.xbel`) to the index's activity log.

pub mod activity_import;
pub mod changes;
pub mod clip;
pub mod convert;
pub mod converted;
pub mod disk;
pub mod gold;
pub mod hearing;
pub mod media;
pub mod memory;
pub mod models;
pub mod ocr;
pub mod options;
pub mod pictures;
pub mod pipeline;
pub mod stage_status;
pub mod stages;
pub mod summary;
pub mod tags;
pub mod vectors;
pub mod walk;
pub mod watch;

// The index format lives in the `index` crate; these paths stay for the indexer's own
// modules.
// The models shared with the daemon, at their old paths (`crate::embed`, …).
pub use ::models::{embed, onnx, process, windows};
pub use hearing::Hearing;
pub use index::{error, manifest, schema, store};
pub use index::{FileRecord, FileStatus, IndexError, Manifest};
pub use index::{IndexHandle, IndexLayout, StoredUnit};
pub use options::{IndexOptions, NoProgress, Progress};
pub use pipeline::run;
pub use summary::{EmbeddingSummary, Failure, RunSummary, StageStatus};
