//! Errors of the index format (and of the indexer that writes it).

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum IndexError {
    #[error("profile folder {path} cannot be read: {source}")]
    Profile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a Dentate index: {detail}")]
    NotAnIndex { path: PathBuf, detail: String },
    #[error("index at {path} was built for profile {indexed_root}, not {requested_root}; use another --index folder")]
    ProfileMismatch {
        path: PathBuf,
        indexed_root: String,
        requested_root: String,
    },
    #[error("index at {path} is locked by another dentate-index process")]
    Locked { path: PathBuf },
    #[error("manifest {path}: {source}")]
    ManifestOpen {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("manifest: {0}")]
    Manifest(#[from] rusqlite::Error),
    #[error("lexical index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl IndexError {
    pub(crate) fn manifest(path: &std::path::Path, source: rusqlite::Error) -> IndexError {
        IndexError::ManifestOpen {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn sql(source: rusqlite::Error) -> IndexError {
        IndexError::Manifest(source)
    }

    pub fn io(path: &std::path::Path, source: std::io::Error) -> IndexError {
        IndexError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
