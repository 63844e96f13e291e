//! A second storage backend for Dentate on Qdrant (issue #14).
//!
//! The embedded index (tantivy + manifest) stays the crawler's state; this crate mirrors
//! it into a Qdrant collection ([`sync()`]) and searches that collection through the
//! storage boundary of `index::api` ([`QdrantBackend`]).
//!
//! Layout (one collection, profiles as tenants, everything filtered by `profile`):
//!
//! * one point per unit (`doc_type: "unit"`), id a UUID derived from
//!   `profile/file_id:ordinal`, with a dense `text` vector (when the unit has a fresh
//!   text vector), a sparse `bm25` vector ([`sparse`]) and a payload that rebuilds the
//!   `StoredUnit` exactly ([`payload`]), and one named dense vector per image–text
//!   model for the units that have an image vector (`image-<model>-<hash>`, added to
//!   the collection when first needed, [`remote::image_vector_name`]);
//! * one point per file (`doc_type: "file"`), written after its units, holding the
//!   `FileRecord` and the file's sync key (the marker that the file is synced);
//! * one point per profile (`doc_type: "profile"`) with the profile root and the last
//!   commit time.

pub mod backend;
pub mod cli;
pub mod config;
pub mod error;
pub mod filter;
pub mod payload;
pub mod remote;
pub mod sparse;
pub mod sync;
pub mod testing;
mod units;

pub use backend::{QdrantBackend, QdrantSnapshot};
pub use config::{default_collection, profile_key, QdrantConfig};
pub use error::QdrantError;
pub use sync::{sync, wait_indexed, SyncProgress, SyncSummary};
