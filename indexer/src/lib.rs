//! The Dentate indexer: walks a profile, converts files into atomic units with the
//! `converters` crate, and maintains the index folder (tantivy lexical index +
//! SQLite manifest). The read side ([`store::IndexHandle`]) is what `searchd` opens.

pub mod clip;
pub mod embed;
pub mod gold;
pub mod media;
pub mod ocr;
pub mod onnx;
pub mod pipeline;
pub mod tags;
pub mod walk;

// The index format lives in the `index` crate; these paths stay for the indexer's own
// modules.
pub use index::{error, manifest, schema, store};
pub use index::{FileRecord, FileStatus, IndexError, Manifest};
pub use index::{IndexHandle, IndexLayout, StoredUnit};
pub use pipeline::{
    run, EmbeddingSummary, Failure, IndexOptions, NoProgress, Progress, RunSummary,
};
