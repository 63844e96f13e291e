//! The limits as `dentate-searchd` flags.

use std::time::Duration;

use super::{ClassLimits, Limits};

/// Limits on what clients may ask (each refusal is a clear 4xx/503/504 or gRPC status).
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Largest request body (HTTP) or message (gRPC), bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_body_bytes)]
    pub max_body_bytes: usize,
    /// Longest HTTP request target (path and query string), bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_uri_bytes)]
    pub max_uri_bytes: usize,
    /// Longest query (and timeline `when`), characters (at most 4096).
    #[arg(long, value_name = "CHARS", default_value_t = Limits::default().max_query_chars)]
    pub max_query_chars: usize,
    /// Longest other text field (paths, prefixes, patterns), characters.
    #[arg(long, value_name = "CHARS", default_value_t = Limits::default().max_field_chars)]
    pub max_field_chars: usize,
    /// Most items in a list field.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_list_items)]
    pub max_list_items: usize,
    /// Largest top_k (at most 1000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_top_k)]
    pub max_top_k: usize,
    /// Hybrid and dense queries worked on at once (default: the number of cores, at
    /// least 2).
    #[arg(long, value_name = "N")]
    pub max_concurrent_search: Option<usize>,
    /// Lexical queries, timelines and routines worked on at once (default: twice the cores, at
    /// least 4).
    #[arg(long, value_name = "N")]
    pub max_concurrent_lexical: Option<usize>,
    /// File tools, listings and stats worked on at once (default: twice the cores, at
    /// least 4).
    #[arg(long, value_name = "N")]
    pub max_concurrent_files: Option<usize>,
    /// Renders (PDF pages, video frames) worked on at once.
    #[arg(long, value_name = "N", default_value_t = Limits::default().concurrency.render)]
    pub max_concurrent_render: usize,
    /// Requests of one class waiting for a slot; beyond it 503 + Retry-After
    /// (RESOURCE_EXHAUSTED over gRPC).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_queue)]
    pub max_queue: usize,
    /// Deadline of a request, queueing included, seconds (503 while queued, 504 /
    /// DEADLINE_EXCEEDED once running).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().request_timeout.as_secs_f64())]
    pub request_timeout: f64,
    /// Time a client has to send its headers (or first bytes) and its body, and to
    /// read on when a reply is blocked, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().client_timeout.as_secs_f64())]
    pub client_timeout: f64,
    /// Open connections per listener (HTTP and gRPC each).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,
}

fn seconds(flag: &str, value: f64) -> Result<Duration, String> {
    if value.is_finite() && value > 0.0 && value < 1e9 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(format!("{flag} must be a positive number of seconds"))
    }
}

impl LimitArgs {
    pub fn limits(&self) -> Result<Limits, String> {
        let defaults = Limits::default();
        Limits {
            max_body_bytes: self.max_body_bytes,
            max_uri_bytes: self.max_uri_bytes,
            max_query_chars: self.max_query_chars,
            max_field_chars: self.max_field_chars,
            max_list_items: self.max_list_items,
            max_top_k: self.max_top_k,
            concurrency: ClassLimits {
                search: self
                    .max_concurrent_search
                    .unwrap_or(defaults.concurrency.search),
                lexical: self
                    .max_concurrent_lexical
                    .unwrap_or(defaults.concurrency.lexical),
                files: self
                    .max_concurrent_files
                    .unwrap_or(defaults.concurrency.files),
                render: self.max_concurrent_render,
            },
            max_queue: self.max_queue,
            request_timeout: seconds("--request-timeout", self.request_timeout)?,
            client_timeout: seconds("--client-timeout", self.client_timeout)?,
            max_connections: self.max_connections,
        }
        .validated()
    }
}
