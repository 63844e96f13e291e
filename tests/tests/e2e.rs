//! End-to-end tests: run the real `dentate-index` and `dentate-searchd` binaries on
//! fixture profiles, and query the daemon over real gRPC (tonic) and HTTP on ephemeral
//! loopback ports.
//!
//! The binaries must be built first (`cargo build --bins`; `scripts/test` does it).

mod harness;

mod activity_import;
mod activity_ranking;
mod agents;
mod broken;
mod browser;
mod clip;
mod dense;
mod disk;
mod gold;
mod hippocamp;
mod incremental;
mod limits;
mod load;
mod mailbox;
mod media;
mod ocr;
mod planner;
mod profiles;
mod qdrant;
mod query_activity;
mod realworld;
mod routine;
mod safety;
mod sample;
mod watch;
