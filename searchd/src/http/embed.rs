//! Texts to vectors with the profile's text model (`POST /api/embed`), for clients that
//! search by their own vectors (`"vector"` in `/retrieve`): HyDE's averaged
//! hypothetical documents, HippoCamp's strategies over `dentate.hippocamp`.

use serde::Serialize;

use crate::engine::Engine;
use crate::error::SearchError;

/// Texts in one request at most.
pub const MAX_TEXTS: usize = 256;
/// Characters per text at most (the model reads its first 256 tokens anyway).
pub const MAX_TEXT_CHARS: usize = 20_000;

/// The vectors of a request's texts, in their order.
#[derive(Debug, Serialize)]
pub struct Embedded {
    pub model: &'static str,
    pub dimension: usize,
    /// Every vector has unit length: a dot product is a cosine.
    pub normalized: bool,
    pub vectors: Vec<Vec<f32>>,
}

/// Checks the texts' count and lengths.
pub fn check(texts: &[String]) -> Result<(), SearchError> {
    if texts.is_empty() || texts.len() > MAX_TEXTS {
        return Err(SearchError::invalid(format!(
            "\"texts\" must hold 1 to {MAX_TEXTS} strings (got {})",
            texts.len()
        )));
    }
    if let Some(i) = texts
        .iter()
        .position(|t| t.chars().count() > MAX_TEXT_CHARS)
    {
        return Err(SearchError::invalid(format!(
            "text {i} is longer than {MAX_TEXT_CHARS} characters"
        )));
    }
    Ok(())
}

/// Embeds `texts` with the engine's query encoders.
pub fn embed(engine: &Engine, texts: &[String]) -> Result<Embedded, SearchError> {
    check(texts)?;
    let dense = engine.dense()?;
    let vectors = dense
        .embed_many(texts)?
        .into_iter()
        .map(|v| v.as_ref().clone())
        .collect();
    Ok(Embedded {
        model: dense.model_name(),
        dimension: dense.dimension(),
        normalized: true,
        vectors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_lengths_are_checked() {
        assert!(check(&[]).is_err());
        assert!(check(&vec!["a".to_string(); MAX_TEXTS + 1]).is_err());
        assert!(check(&["x".repeat(MAX_TEXT_CHARS + 1)]).is_err());
        assert!(check(&["a question".to_string()]).is_ok());
    }
}
