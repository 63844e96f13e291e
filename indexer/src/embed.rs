//! Dense text embeddings, offline: all-MiniLM-L6-v2 (int8, 384-d, mean pooling) run by
//! ONNX Runtime through fastembed, with the model files and the runtime library that
//! `scripts/fetch-models` extracts from PyPI wheels.
//!
//! ONNX Runtime is loaded explicitly, once per process ([`runtime`]), so a missing or
//! wrong library is one clear error instead of a panic on first use.

use std::path::{Path, PathBuf};

use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};

pub use index::vector::{embedding_text, from_bytes, normalize, text_hash, to_bytes, TEXT_DIM};
/// Tokens per text the model sees (longer texts are truncated).
pub const MAX_TOKENS: usize = 256;
/// Texts per model call: batches of similar length (see [`TextEncoder::embed`]).
pub const ENCODER_BATCH: usize = 16;
/// Name of the text embedding model, recorded with the vectors.
pub const TEXT_MODEL: &str = "all-MiniLM-L6-v2-int8";

/// Errors of the text encoder (the models' shared error type).
pub type EmbedError = crate::onnx::ModelError;

/// The models folder: `$DENTATE_MODELS`, else `models/` in the current folder, else
/// `models/` next to the workspace the binary was built in (`target/<profile>/../../`).
pub fn default_models_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("DENTATE_MODELS") {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("models");
    if local.is_dir() {
        return local;
    }
    if let Ok(exe) = std::env::current_exe() {
        for ancestor in exe.ancestors().skip(1).take(4) {
            let candidate = ancestor.join("models");
            if candidate.join("onnxruntime").is_dir() {
                return candidate;
            }
        }
    }
    local
}

/// Loads ONNX Runtime (see [`crate::onnx::runtime`]).
pub use crate::onnx::runtime;

/// A text encoder: texts in, L2-normalised vectors out.
pub struct TextEncoder {
    model: TextEmbedding,
}

impl TextEncoder {
    /// Loads MiniLM from `<models>/minilm/` with `threads` intra-op threads (no spinning).
    pub fn load(models_dir: &Path, threads: usize) -> Result<TextEncoder, EmbedError> {
        let environment = runtime(models_dir)?;
        let dir = models_dir.join("minilm");
        let read = |name: &str| -> Result<Vec<u8>, EmbedError> {
            crate::onnx::read(&crate::onnx::require("text embedding", dir.join(name))?)
        };
        let tokenizer_files = TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let model = UserDefinedEmbeddingModel::new(read("model.onnx")?, tokenizer_files)
            .with_pooling(Pooling::Mean);
        let options = InitOptionsUserDefined::new()
            .with_environment(environment)
            .with_max_length(MAX_TOKENS)
            .with_intra_threads(threads.max(1))
            .with_session_config("session.intra_op.allow_spinning", "0")
            .with_session_config("session.inter_op.allow_spinning", "0")
            .with_execution_providers(vec![crate::onnx::cpu_without_arena()]);
        let model = TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|e| EmbedError::Model(e.to_string()))?;
        Ok(TextEncoder { model })
    }

    /// Embeds texts in batches; every vector has [`TEXT_DIM`] components and unit length,
    /// in the order of `texts`.
    ///
    /// Texts are batched by length (shortest first), so a batch pads to about its own
    /// length rather than to the longest text among them all: less padding computed, and
    /// small batches keep the runtime's peak memory (attention tensors grow with batch ×
    /// length²) low.
    pub fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with(texts, ENCODER_BATCH, true)
    }

    /// [`TextEncoder::embed`] with a batch size, sorted by length or not.
    pub fn embed_with(
        &mut self,
        texts: &[String],
        batch_size: usize,
        by_length: bool,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut order: Vec<usize> = (0..texts.len()).collect();
        if by_length {
            order.sort_by_key(|&i| texts[i].len());
        }
        let mut slots: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for chunk in order.chunks(batch_size.max(1)) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
            let vectors = self
                .model
                .embed(batch, Some(batch_size.max(1)))
                .map_err(|e| EmbedError::Model(e.to_string()))?;
            if vectors.len() != chunk.len() {
                return Err(EmbedError::Model(format!(
                    "model returned {} vectors for {} texts",
                    vectors.len(),
                    chunk.len()
                )));
            }
            for (&i, vector) in chunk.iter().zip(vectors) {
                slots[i] = Some(vector);
            }
        }
        let mut vectors: Vec<Vec<f32>> = slots.into_iter().flatten().collect();
        for vector in &mut vectors {
            if vector.len() != TEXT_DIM {
                return Err(EmbedError::Model(format!(
                    "model returned {} dimensions, expected {TEXT_DIM}",
                    vector.len()
                )));
            }
            normalize(vector);
        }
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_models_give_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = TextEncoder::load(dir.path(), 1).err().unwrap();
        assert!(
            error.to_string().contains("scripts/fetch-models"),
            "{error}"
        );
    }

    /// Real model: semantically close texts are closer than unrelated ones.
    #[test]
    fn minilm_embeds_meaning() {
        let models = default_models_dir();
        let models = if models.join("minilm").is_dir() {
            models
        } else {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")
        };
        let mut encoder = TextEncoder::load(&models, 1).expect("models: run scripts/fetch-models");
        let texts: Vec<String> = [
            "The dog chased the ball across the park.",
            "A puppy ran after a toy in the garden.",
            "Quarterly revenue grew by four percent.",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let vectors = encoder.embed(&texts).unwrap();
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        assert_eq!(vectors[0].len(), TEXT_DIM);
        assert!((dot(&vectors[0], &vectors[0]) - 1.0).abs() < 1e-4);
        assert!(dot(&vectors[0], &vectors[1]) > dot(&vectors[0], &vectors[2]) + 0.2);
    }
}
