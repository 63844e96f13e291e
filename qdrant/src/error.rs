//! Errors of the Qdrant backend, and retrying of transient failures.

use std::future::Future;
use std::time::Duration;

use index::api::StoreError;
use index::IndexError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum QdrantError {
    #[error("cannot connect to Qdrant at {url}: {detail}")]
    Connect { url: String, detail: String },
    /// A request failed (after the retries, for transient errors).
    #[error("Qdrant request failed while {context}: {detail}{}", if *.transient { " (still failing after retries)" } else { "" })]
    Request {
        context: String,
        detail: String,
        transient: bool,
    },
    #[error("collection {collection} cannot hold a Dentate index: {detail}")]
    IncompatibleCollection { collection: String, detail: String },
    #[error("profile {profile} has not been synced into collection {collection}")]
    NotSynced { profile: String, collection: String },
    #[error("unexpected data in Qdrant: {0}")]
    Data(String),
    #[error("reading the local index: {0}")]
    Index(#[from] IndexError),
    #[error("cannot start the Qdrant client runtime: {0}")]
    Runtime(String),
}

impl From<QdrantError> for StoreError {
    fn from(error: QdrantError) -> StoreError {
        StoreError::Backend(error.to_string())
    }
}

/// Whether an error of the client may go away by itself.
pub fn is_transient(error: &qdrant_client::QdrantError) -> bool {
    match error {
        qdrant_client::QdrantError::ResponseError { status } => {
            // tonic codes: Cancelled 1, DeadlineExceeded 4, ResourceExhausted 8,
            // Aborted 10, Unavailable 14.
            let code = status.code() as i32;
            let message = status.message().to_ascii_lowercase();
            matches!(code, 1 | 4 | 8 | 10 | 14)
                || message.contains("connection refused")
                || message.contains("transport error")
                || message.contains("connection reset")
                || message.contains("broken pipe")
        }
        qdrant_client::QdrantError::ResourceExhaustedError { .. } => true,
        qdrant_client::QdrantError::Io(_) => true,
        _ => false,
    }
}

/// How transient failures are retried.
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    /// Attempts in all (at least 1).
    pub tries: u32,
    pub first_delay: Duration,
}

impl Retry {
    /// Runs `request` until it succeeds, fails with a permanent error, or has failed
    /// `tries` times with transient ones (waiting `first_delay`, doubling, in between).
    pub async fn run<T, F, Fut>(
        &self,
        context: impl Fn() -> String,
        mut request: F,
    ) -> Result<T, QdrantError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, qdrant_client::QdrantError>>,
    {
        let tries = self.tries.max(1);
        let mut delay = self.first_delay;
        for attempt in 1..=tries {
            match request().await {
                Ok(value) => return Ok(value),
                Err(error) => {
                    let transient = is_transient(&error);
                    if !transient || attempt == tries {
                        return Err(QdrantError::Request {
                            context: context(),
                            detail: error.to_string(),
                            transient,
                        });
                    }
                    tracing::debug!(attempt, %error, "transient Qdrant error; retrying");
                    tokio::time::sleep(delay).await;
                    delay = delay.saturating_mul(2);
                }
            }
        }
        unreachable!("the last attempt returns")
    }
}
