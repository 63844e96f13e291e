//! The retrieval mode of a request (a leaf: the request, the cut-off and the engine
//! read it).

use serde::{Deserialize, Serialize};

use crate::error::SearchError;

/// Retrieval mode. Hybrid (the default) fuses BM25 and dense retrieval; without models
/// it is answered lexically, with a note in `explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Lexical,
    #[default]
    Hybrid,
    Dense,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Lexical => "lexical",
            Mode::Hybrid => "hybrid",
            Mode::Dense => "dense",
        }
    }

    pub fn parse(text: &str) -> Result<Mode, SearchError> {
        match text.to_ascii_lowercase().as_str() {
            "lexical" | "bm25" => Ok(Mode::Lexical),
            "" | "hybrid" => Ok(Mode::Hybrid),
            "dense" => Ok(Mode::Dense),
            other => Err(SearchError::invalid(format!(
                "unknown mode {other:?} (expected lexical, hybrid or dense)"
            ))),
        }
    }
}
