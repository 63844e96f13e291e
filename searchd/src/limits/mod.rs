//! What one client may ask of the daemon, and how much of it at once: request size,
//! field lengths, `top_k`, concurrent work per class of request with a bounded queue,
//! a deadline per request, and timeouts for clients that send slowly. Every refusal is a
//! clear reply (HTTP 400/408/413/414/503/504 with `{"error": …}`, or a gRPC status),
//! never a crash or a hang.
//!
//! Fairness: requests are sorted into [`Class`]es, each with its own bounded
//! [`Admission`] gate (a fair semaphore plus a bounded queue), so a flood of one kind
//! (hybrid queries waiting for the query encoder, renders waiting for `pdftoppm`) fills
//! its own queue and is refused with 503 + `Retry-After` / `RESOURCE_EXHAUSTED`, while
//! lexical queries and file tools keep their own slots.
//!
//! - [`fields`]: the checks on decoded requests (every string and list of a JSON body or
//!   a gRPC message) and the classification;
//! - [`http`]: the axum middleware and the HTTP accept loop (connection bound,
//!   header-read timeout);
//! - [`grpc`]: the same middleware as a tower layer for tonic, and the connection
//!   bound and first-byte timeout for its listener.

pub mod cli;
pub mod conn;
pub mod fields;
pub mod grpc;
pub mod http;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The daemon's limits (each one a `dentate-searchd` flag; see `Limits::default` for
/// the defaults).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest request body (HTTP JSON or gRPC message), bytes: 413 / RESOURCE_EXHAUSTED.
    pub max_body_bytes: usize,
    /// Longest request target (path and query string), bytes: 414.
    pub max_uri_bytes: usize,
    /// Longest `query` (each of `queries`) and `when`, characters: 400 / INVALID_ARGUMENT.
    /// At most [`crate::query::MAX_QUERY_CHARS`].
    pub max_query_chars: usize,
    /// Longest other string field (paths, prefixes, patterns, names), characters.
    pub max_field_chars: usize,
    /// Most items in a list field (`path_prefixes`, `extensions`, …).
    pub max_list_items: usize,
    /// Largest `top_k`; at most [`crate::query::MAX_TOP_K`].
    pub max_top_k: usize,
    /// Requests of each class worked on at once.
    pub concurrency: ClassLimits,
    /// Requests of each class waiting for a slot; beyond it, 503 + `Retry-After`.
    pub max_queue: usize,
    /// Deadline of a request from its arrival (queueing included): 503 while queued,
    /// 504 / DEADLINE_EXCEEDED once running.
    pub request_timeout: Duration,
    /// Time a client has to send a request's headers (HTTP), its first bytes (gRPC) and
    /// its body (both): 408 / the connection closed.
    pub client_timeout: Duration,
    /// Open connections per listener; beyond it new connections wait in the backlog.
    pub max_connections: usize,
}

/// Concurrent requests per [`Class`].
#[derive(Debug, Clone, Copy)]
pub struct ClassLimits {
    pub search: usize,
    pub lexical: usize,
    pub files: usize,
    pub render: usize,
}

impl Default for Limits {
    fn default() -> Self {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        Limits {
            max_body_bytes: 1 << 20,
            max_uri_bytes: 8 * 1024,
            max_query_chars: crate::query::MAX_QUERY_CHARS,
            max_field_chars: 4096,
            max_list_items: 256,
            max_top_k: crate::query::MAX_TOP_K,
            concurrency: ClassLimits {
                search: cores.max(2),
                lexical: (2 * cores).max(4),
                files: (2 * cores).max(4),
                render: 2,
            },
            max_queue: 256,
            request_timeout: Duration::from_secs(60),
            client_timeout: Duration::from_secs(15),
            max_connections: 1024,
        }
    }
}

impl Limits {
    /// Checks the values are usable and within the engine's own ceilings.
    pub fn validated(self) -> Result<Limits, String> {
        let positive = [
            ("--max-body-bytes", self.max_body_bytes),
            ("--max-uri-bytes", self.max_uri_bytes),
            ("--max-query-chars", self.max_query_chars),
            ("--max-field-chars", self.max_field_chars),
            ("--max-list-items", self.max_list_items),
            ("--max-top-k", self.max_top_k),
            ("--max-concurrent-search", self.concurrency.search),
            ("--max-concurrent-lexical", self.concurrency.lexical),
            ("--max-concurrent-files", self.concurrency.files),
            ("--max-concurrent-render", self.concurrency.render),
            ("--max-connections", self.max_connections),
        ];
        if let Some((flag, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(format!("{flag} must be at least 1"));
        }
        if self.max_top_k > crate::query::MAX_TOP_K {
            return Err(format!(
                "--max-top-k must be at most {} (the engine's ceiling)",
                crate::query::MAX_TOP_K
            ));
        }
        if self.max_query_chars > crate::query::MAX_QUERY_CHARS {
            return Err(format!(
                "--max-query-chars must be at most {}",
                crate::query::MAX_QUERY_CHARS
            ));
        }
        if self.request_timeout.is_zero() || self.client_timeout.is_zero() {
            return Err("--request-timeout and --client-timeout must be positive".into());
        }
        Ok(self)
    }
}

/// Kinds of request that wait in separate queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Hybrid and dense queries (the query encoder).
    Search,
    /// Lexical queries, timelines and routines.
    Lexical,
    /// File tools, listings, metadata, text, stats.
    Files,
    /// Page and frame rendering (`pdftoppm`, `ffmpeg`).
    Render,
    /// Health checks and reflection: never queued.
    Exempt,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Search => "search",
            Class::Lexical => "lexical",
            Class::Files => "files",
            Class::Render => "render",
            Class::Exempt => "exempt",
        }
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// A field or value is wrong (400 / INVALID_ARGUMENT).
    Invalid(String),
    /// The body is larger than allowed (413 / RESOURCE_EXHAUSTED).
    TooLarge(String),
    /// The request target is longer than allowed (414 / INVALID_ARGUMENT).
    UriTooLong(String),
    /// The client did not send its request in time (408 / DEADLINE_EXCEEDED).
    SlowClient(String),
    /// The class's queue is full (503 + Retry-After / RESOURCE_EXHAUSTED).
    Busy(String),
    /// The deadline passed while the request waited for a slot (503 + Retry-After /
    /// UNAVAILABLE).
    QueueTimeout(String),
    /// The deadline passed while the request ran (504 / DEADLINE_EXCEEDED).
    Deadline(String),
    /// The handler failed (500 / INTERNAL): a bug.
    Failed(String),
}

impl Rejection {
    pub fn message(&self) -> &str {
        match self {
            Rejection::Invalid(m)
            | Rejection::TooLarge(m)
            | Rejection::UriTooLong(m)
            | Rejection::SlowClient(m)
            | Rejection::Busy(m)
            | Rejection::QueueTimeout(m)
            | Rejection::Deadline(m)
            | Rejection::Failed(m) => m,
        }
    }
}

/// When a request must be answered: its arrival plus its time allowed.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    pub at: Instant,
    pub length: Duration,
}

impl Deadline {
    pub fn from_now(length: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + length,
            length,
        }
    }
}

/// Seconds a refused client is asked to wait before retrying.
pub const RETRY_AFTER_SECONDS: u64 = 1;

/// One class's gate: `concurrency` slots (a fair semaphore) and at most `max_queue`
/// requests waiting for one.
struct Gate {
    class: Class,
    slots: Arc<Semaphore>,
    capacity: usize,
    waiting: AtomicUsize,
    max_queue: usize,
}

/// Counts a request as waiting until dropped (also when its future is cancelled).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Gate {
    async fn enter(&self, deadline: Deadline) -> Result<OwnedSemaphorePermit, Rejection> {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Ok(permit);
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_queue {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(Rejection::Busy(format!(
                "too many {} requests: {} running and {} waiting; retry in {RETRY_AFTER_SECONDS} s",
                self.class.as_str(),
                self.running(),
                self.max_queue
            )));
        }
        let _waiting = Waiting(&self.waiting);
        match tokio::time::timeout_at(deadline.at, self.slots.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(Rejection::QueueTimeout(format!(
                "the request waited its whole deadline for one of the {} {} slots; retry in {RETRY_AFTER_SECONDS} s",
                self.running(),
                self.class.as_str()
            ))),
        }
    }

    fn running(&self) -> usize {
        self.capacity - self.slots.available_permits().min(self.capacity)
    }
}

/// The gates of all classes, shared by the HTTP and gRPC servers of one daemon.
pub struct Admission {
    limits: Limits,
    gates: [Gate; 4],
}

impl Admission {
    pub fn new(limits: Limits) -> Arc<Admission> {
        let gate = |class, slots| Gate {
            class,
            slots: Arc::new(Semaphore::new(slots)),
            capacity: slots,
            waiting: AtomicUsize::new(0),
            max_queue: limits.max_queue,
        };
        let c = limits.concurrency;
        Arc::new(Admission {
            gates: [
                gate(Class::Search, c.search),
                gate(Class::Lexical, c.lexical),
                gate(Class::Files, c.files),
                gate(Class::Render, c.render),
            ],
            limits,
        })
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A slot for a request of `class`, waited for until its deadline; `None` for
    /// exempt requests.
    pub async fn enter(
        &self,
        class: Class,
        deadline: Deadline,
    ) -> Result<Option<OwnedSemaphorePermit>, Rejection> {
        match self.gates.iter().find(|g| g.class == class) {
            Some(gate) => gate.enter(deadline).await.map(Some),
            None => Ok(None),
        }
    }

    /// Runs `work` (the request's handler) on its own task holding `permit`, and waits
    /// for it until the request's deadline. A handler past its deadline is answered
    /// with [`Rejection::Deadline`] but keeps its slot until it really finishes, so
    /// abandoned work never lets more work in than the limits allow.
    pub async fn run<F>(
        &self,
        permit: Option<OwnedSemaphorePermit>,
        deadline: Deadline,
        work: F,
    ) -> Result<F::Output, Rejection>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let task = tokio::spawn(async move {
            let output = work.await;
            drop(permit);
            output
        });
        match tokio::time::timeout_at(deadline.at, task).await {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(join)) => Err(Rejection::Failed(format!("request handler failed: {join}"))),
            Err(_) => Err(Rejection::Deadline(format!(
                "the request did not finish within its deadline of {:.1} s",
                deadline.length.as_secs_f64()
            ))),
        }
    }
}

#[cfg(test)]
mod tests;
