//! Per-file conversion errors. Each variant names a reason a user can act on; the
//! indexer records `reason()` in the manifest and groups failures by it.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ConvertError {
    #[error("empty file")]
    Empty,
    #[error("encrypted {format}: {detail}")]
    Encrypted {
        format: &'static str,
        detail: String,
    },
    #[error("corrupt {format}: {detail}")]
    Corrupt {
        format: &'static str,
        detail: String,
    },
    #[error("unsupported {format}: {detail}")]
    Unsupported {
        format: &'static str,
        detail: String,
    },
    #[error("file too large: {size} bytes (limit {limit})")]
    TooLarge { size: u64, limit: u64 },
    /// A converter panicked: always a bug of ours (bad input must give one of the other
    /// variants). `detail` holds the panic message and where it was raised.
    #[error("converter bug: the {format} converter panicked: {detail} (please report it)")]
    Panic {
        format: &'static str,
        detail: String,
    },
    #[error("conversion of {format} timed out after {seconds} s")]
    Timeout { format: &'static str, seconds: u64 },
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
}

impl ConvertError {
    /// Shorthand for the most common error: the bytes are not a valid `format` file.
    pub(crate) fn corrupt(format: &'static str, detail: impl std::fmt::Display) -> ConvertError {
        ConvertError::Corrupt {
            format,
            detail: detail.to_string(),
        }
    }

    pub(crate) fn unsupported(
        format: &'static str,
        detail: impl std::fmt::Display,
    ) -> ConvertError {
        ConvertError::Unsupported {
            format,
            detail: detail.to_string(),
        }
    }

    pub(crate) fn encrypted(format: &'static str, detail: impl std::fmt::Display) -> ConvertError {
        ConvertError::Encrypted {
            format,
            detail: detail.to_string(),
        }
    }

    /// A stable, short category for grouping failures in summaries.
    pub fn reason(&self) -> &'static str {
        match self {
            ConvertError::Empty => "empty",
            ConvertError::Encrypted { .. } => "encrypted",
            ConvertError::Corrupt { .. } => "corrupt",
            ConvertError::Unsupported { .. } => "unsupported",
            ConvertError::TooLarge { .. } => "too_large",
            ConvertError::Panic { .. } => "converter_bug",
            ConvertError::Timeout { .. } => "timeout",
            ConvertError::Io(_) => "io",
        }
    }
}
