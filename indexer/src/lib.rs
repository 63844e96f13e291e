//! The Dentate indexer: walks a profile, converts files into atomic units with the
//! `converters` crate, and maintains the index folder (tantivy lexical index +
//! SQLite manifest). The read side ([`store::IndexHandle`]) is what `searchd` opens.

pub mod clip;
pub mod embed;
pub mod error;
pub mod gold;
pub mod manifest;
pub mod media;
pub mod ocr;
pub mod onnx;
pub mod pipeline;
pub mod schema;
pub mod store;
pub mod tags;
pub mod walk;

pub use error::IndexError;
pub use manifest::{FileRecord, FileStatus, Manifest};
pub use pipeline::{
    run, EmbeddingSummary, Failure, IndexOptions, NoProgress, Progress, RunSummary,
};
pub use store::{IndexHandle, IndexLayout, StoredUnit};
