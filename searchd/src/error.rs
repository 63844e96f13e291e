//! Errors of the search service, mapped to gRPC statuses and HTTP codes by the
//! transport layers.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum SearchError {
    /// The request is wrong (HTTP 400, gRPC INVALID_ARGUMENT).
    #[error("{0}")]
    InvalidArgument(String),
    /// The file or unit does not exist (HTTP 404, gRPC NOT_FOUND).
    #[error("{0}")]
    NotFound(String),
    /// A capability is missing, e.g. dense retrieval without models (HTTP 503, gRPC
    /// FAILED_PRECONDITION).
    #[error("{0}")]
    Unavailable(String),
    /// The index could not be read (HTTP 500, gRPC INTERNAL).
    #[error("index error: {0}")]
    Index(#[from] index::IndexError),
    #[error("search error: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
}

impl From<index::api::StoreError> for SearchError {
    fn from(error: index::api::StoreError) -> SearchError {
        match error {
            index::api::StoreError::Index(error) => SearchError::Index(error),
            other => SearchError::Unavailable(other.to_string()),
        }
    }
}

impl SearchError {
    pub fn invalid(message: impl Into<String>) -> SearchError {
        SearchError::InvalidArgument(message.into())
    }
}
