//! HTTP plumbing shared by Dentate's routes (`crate::http`) and HippoCamp's
//! (`crate::http::hippocamp`): the error reply, running engine work on a blocking thread, and
//! streaming a file.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::engine::Engine;
use crate::error::SearchError;

/// An error reply: status plus `{"error": message}`.
#[derive(Debug)]
pub struct HttpError(pub(crate) StatusCode, pub(crate) String);

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

impl HttpError {
    pub fn message(&self) -> &str {
        &self.1
    }
}

impl From<SearchError> for HttpError {
    fn from(error: SearchError) -> HttpError {
        match error {
            SearchError::InvalidArgument(m) => HttpError(StatusCode::BAD_REQUEST, m),
            SearchError::NotFound(m) => HttpError(StatusCode::NOT_FOUND, m),
            SearchError::Unavailable(m) => HttpError(StatusCode::SERVICE_UNAVAILABLE, m),
            other => HttpError(StatusCode::INTERNAL_SERVER_ERROR, other.to_string()),
        }
    }
}

impl From<SearchError> for Box<HttpError> {
    fn from(error: SearchError) -> Self {
        Box::new(error.into())
    }
}

pub async fn run_blocking<T: Send + 'static>(
    engine: &Arc<Engine>,
    work: impl FnOnce(&Engine) -> Result<T, SearchError> + Send + 'static,
) -> Result<T, HttpError> {
    let engine = engine.clone();
    tokio::task::spawn_blocking(move || work(&engine))
        .await
        .map_err(|e| {
            HttpError(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("worker failed: {e}"),
            )
        })?
        .map_err(HttpError::from)
}

/// Streams a file (or a part of one) in 64 KiB chunks without loading it whole.
pub fn file_stream(
    file: impl tokio::io::AsyncRead + Unpin + Send + 'static,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    futures_util::stream::unfold(file, |mut file| async move {
        use tokio::io::AsyncReadExt;
        let mut buffer = vec![0u8; 64 * 1024];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(Bytes::from(buffer)), file))
            }
            Err(error) => Some((Err(error), file)),
        }
    })
}

/// The path prefix a profile's routes were reached under (`""` unprefixed), for replies
/// that name another route (`return_img`'s `serve_url`).
#[derive(Debug, Clone, Default)]
pub struct UrlPrefix(pub String);
