//! Retrieval-quality evaluation on HippoCamp annotation JSON (used by `dentate-eval`),
//! and the small HTTP client that binary and the end-to-end tests share.
//!
//! The metrics are pure: questions and the daemon's grouped results go in, metrics come
//! out. The binary does the I/O (reading the file, querying gRPC or HTTP).
//!
//! Per question, as in HippoCamp: the retrieved set R is the distinct files of the
//! top-k grouped results (an attachment `x.eml#attachment/a.pdf` counts as its
//! containing file `x.eml`, since annotations name real files), the gold set G is
//! `file_path`. precision = |R∩G|/|R| (0 if R is empty), recall = |R∩G|/|G|, F1,
//! hit@k = [R∩G non-empty], MRR = 1/rank of the first gold file. Evidence
//! localisation counts gold evidence items (each evidence entry × each locator; an
//! entry without locators is one whole-file item) matched by a returned unit of the
//! same file. Metrics are averaged per question; localisation is the share over all
//! items of a group.
//!
//! - [`questions`]: the annotation records;
//! - [`locator`]: gold locators and whether a returned unit satisfies one;
//! - [`reply`]: the daemon's results (HTTP JSON or gRPC) as [`RetrievedFile`]s;
//! - [`metrics`]: per-question scores and their aggregation into a [`Report`];
//! - [`report`]: the report and the misses as JSON and markdown;
//! - [`http`]: the HTTP client.

pub mod error;
pub mod http;
pub mod locator;
pub mod metrics;
pub mod questions;
pub mod reply;
pub mod report;

#[cfg(test)]
mod test_util;

pub use error::Error;
pub use http::{HttpClient, HttpReply};
pub use locator::{
    cell_row, locator_matches, parse_locator, parse_time_range, GoldLocator, TIME_SLACK_MS,
};
pub use metrics::{
    aggregate, build_report, percentile, question_modalities, score_question, EvidenceOutcome,
    GroupMetrics, QuestionResult, Report,
};
pub use questions::{parse_questions, select_part, Evidence, Question, RawLocator};
pub use reply::{
    containing_file, files_from_grpc, files_from_http_reply, files_from_retrieve_reply,
    normalize_path, retrieved_from_retrieve_reply, RetrievedFile, UnitLoc,
};
pub use report::{is_miss, misses_json, misses_table, scores_json};
