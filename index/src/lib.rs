//! The Dentate index format, shared by the indexer (which writes it) and the search
//! daemon (which reads it): the tantivy schema and analyzers ([`schema`]), the SQLite
//! manifest of files and vectors ([`manifest`]), the index folder and its read side
//! ([`store`]), the vector codec ([`vector`]) and the write side ([`writer`]).

pub mod activity;
pub mod address;
pub mod api;
mod columns;
pub mod embedded;
pub mod embedded_search;
pub mod error;
pub mod exact;
mod fresh;
pub mod highlight;
pub mod manifest;
mod manifest_activity;
mod manifest_vectors;
pub mod path;
mod scan;
pub mod schema;
mod signs;
pub mod stage;
pub mod store;
mod unit_cache;
pub mod vector;
pub mod writer;

pub use activity::{ActivityEvent, ActivityKind, ActivityQuery, ActivitySource};
pub use error::IndexError;
pub use manifest::{Change, FileRecord, FileStatus, Manifest};
pub use path::UnitPath;
pub use stage::StageState;
pub use store::{IndexHandle, IndexLayout, StoredUnit};
pub use writer::{file_id_for, CommittedUnits, IndexWriter};
