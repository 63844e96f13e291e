//! The Dentate search daemon: hybrid retrieval (BM25, dense text vectors, optional CLIP
//! image vectors) with the planner's priors over an index built by `indexer`, served over
//! gRPC (`dentate.v1`, with health and reflection) and an HTTP JSON gateway compatible with
//! HippoCamp's retriever server, its WebUI file API and Search-R1, plus a web page for
//! people at `/` ([`page`]).

pub mod activity;
pub mod asks;
pub mod auth;
pub mod clip;
pub(crate) mod copies;
pub mod cutoff;
pub mod days;
pub mod dense;
pub mod diversify;
pub mod engine;
pub mod error;
pub mod files;
pub mod fusion;
pub mod fuzz;
pub mod grouping;
pub mod grpc;
pub mod guard;
pub mod hits;
pub mod http;
pub mod limits;
pub mod mcp;
pub mod mode;
pub mod outcome;
pub mod plan;
pub mod planner;
mod planning;
pub mod priors;
pub mod profiles;
pub mod query;
pub mod question;
pub mod record_kinds;
pub mod render;
pub mod rerank;
mod retrievers;
pub mod routine;
pub mod server;
mod shown;
pub mod snippets;
pub mod time;
pub mod timeline;
pub mod timeparse;
pub mod weights;

pub use engine::Engine;
pub use error::SearchError;
pub use query::{Mode, SearchParams};
