//! Dense text embeddings, offline: all-MiniLM-L6-v2 (384-d, mean pooling) run by ONNX
//! Runtime through fastembed, with the model files and the runtime library that
//! `scripts/fetch-models` extracts from PyPI wheels, and the int8 graph it makes from
//! them ([`TextModel`]).
//!
//! ONNX Runtime is loaded explicitly, once per process ([`runtime`]), so a missing or
//! wrong library is one clear error instead of a panic on first use.

use std::path::{Path, PathBuf};

use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};

pub use crate::windows::MAX_TOKENS;
pub use index::vector::{
    embedding_text, from_bytes, normalize, text_hash, to_bytes, unit_embedding_text, TEXT_DIM,
};
/// Texts per call into the runtime (see [`TextEncoder::embed`]); each [`TextModel`]
/// says how many of them make one model batch.
pub const ENCODER_BATCH: usize = 16;
/// MiniLM's packaged graph in `<models>/minilm/` (int8-stored, float32-computed).
pub const PACKAGED_GRAPH: &str = "model.onnx";
/// The int8 graph `scripts/make-minilm-q8` makes from the packaged weights: text
/// vectors and questions both come from it when it exists.
pub const FAST_GRAPH: &str = "model-q8.onnx";
/// The name recorded with vectors of [`FAST_GRAPH`].
pub const FAST_TEXT_MODEL: &str = "all-MiniLM-L6-v2-q8";
/// Its sibling for questions (every MatMul int8: faster on short inputs).
pub const QUERY_GRAPH: &str = "model-query-q8.onnx";

/// Errors of the text encoder (the models' shared error type).
pub type EmbedError = crate::onnx::ModelError;

/// A form of the text model: its graph file, the name its vectors are recorded under
/// (a different name re-embeds an index, see [`index::vector::embedded_marker`]) and
/// how many texts it embeds per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextModel {
    pub graph: &'static str,
    pub name: &'static str,
    pub batch: usize,
}

impl TextModel {
    /// The packaged graph: float32 compute, padded batches of 16 similar lengths.
    pub const PACKAGED: TextModel = TextModel {
        graph: PACKAGED_GRAPH,
        name: index::vector::LEGACY_TEXT_MODEL,
        batch: ENCODER_BATCH,
    };
    /// The fused int8 graph, one text per run: its activations are quantised with one
    /// range per run, so alone each vector depends on its own text only (and is the
    /// closest to the packaged graph's: mean cosine 0.998 on SciFact abstracts); it is
    /// also no slower than batches at this size.
    pub const FAST: TextModel = TextModel {
        graph: FAST_GRAPH,
        name: FAST_TEXT_MODEL,
        batch: 1,
    };

    /// The question graph: [`TextModel::FAST`] with its feed-forward output projections
    /// quantised too, about a third faster on a short question; its questions rank the
    /// fast graph's documents as the fast graph's own do (SciFact nDCG@10 0.6490 vs
    /// 0.6489). Never used for stored vectors (the daemon's rerank stage embeds candidate
    /// sentences with it at query time, in runs of several: there a vector depends a
    /// little on its run's other texts, cosine > 0.995 to its own).
    pub const QUESTIONS: TextModel = TextModel {
        graph: QUERY_GRAPH,
        name: "all-MiniLM-L6-v2-q8-questions",
        batch: 1,
    };

    /// The forms a run may be asked for by name (`dentate-index --text-model`).
    pub const CHOICES: [(&'static str, TextModel); 2] = [
        ("minilm-q8", TextModel::FAST),
        ("minilm", TextModel::PACKAGED),
    ];

    /// The form named `name` (one of [`TextModel::CHOICES`]).
    pub fn parse(name: &str) -> Option<TextModel> {
        Self::CHOICES
            .iter()
            .find(|(choice, _)| *choice == name)
            .map(|(_, form)| *form)
    }

    /// The model texts are embedded with in `models_dir`: [`TextModel::FAST`] when
    /// `scripts/fetch-models` made its graph, unless `DENTATE_TEXT_GRAPH=packaged`.
    pub fn for_texts(models_dir: &Path) -> TextModel {
        Self::choose(
            models_dir,
            TextModel::FAST,
            packaged_by("DENTATE_TEXT_GRAPH"),
        )
    }

    /// The model questions are embedded with: [`TextModel::QUESTIONS`] when it was made,
    /// unless `DENTATE_TEXT_GRAPH=packaged` (both sides) or `DENTATE_QUERY_GRAPH=packaged`
    /// (questions alone).
    pub fn for_questions(models_dir: &Path) -> TextModel {
        Self::choose(
            models_dir,
            TextModel::QUESTIONS,
            packaged_by("DENTATE_TEXT_GRAPH") || packaged_by("DENTATE_QUERY_GRAPH"),
        )
    }

    /// Where this form's graph lies in `models_dir` (made by `scripts/fetch-models`).
    pub fn graph_path(&self, models_dir: &Path) -> PathBuf {
        models_dir.join("minilm").join(self.graph)
    }

    /// `fast` when its graph exists and the packaged graph is not forced.
    fn choose(models_dir: &Path, fast: TextModel, packaged: bool) -> TextModel {
        if !packaged && fast.graph_path(models_dir).is_file() {
            fast
        } else {
            TextModel::PACKAGED
        }
    }
}

fn packaged_by(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|v| v == "packaged")
}

/// The models folder of the crate's tests: [`default_models_dir`] when it holds
/// `part` (a model's subfolder), else the checkout's `models/`.
#[doc(hidden)]
pub fn test_models_dir(part: &str) -> PathBuf {
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

/// Loads ONNX Runtime (see [`crate::onnx::runtime`]).
pub use crate::onnx::runtime;

/// A text encoder: texts in, L2-normalised vectors out.
pub struct TextEncoder {
    /// One session with all the threads, or (a form that runs one text at a time, with
    /// several threads) one single-threaded session per thread, each taking its share of
    /// the texts: at one text per run a session's intra-op threads idle much of the time.
    models: Vec<TextEmbedding>,
    form: TextModel,
    /// Windows of one long text at most (see [`crate::windows`]).
    max_windows: usize,
}

impl TextEncoder {
    /// Loads the text model of [`TextModel::for_texts`] with `threads` intra-op threads
    /// (no spinning).
    pub fn load(models_dir: &Path, threads: usize) -> Result<TextEncoder, EmbedError> {
        Self::load_model(models_dir, TextModel::for_texts(models_dir), threads)
    }

    /// The question encoder ([`TextModel::for_questions`]); returns it and its graph's
    /// file name.
    pub fn load_query(
        models_dir: &Path,
        threads: usize,
    ) -> Result<(TextEncoder, &'static str), EmbedError> {
        let form = TextModel::for_questions(models_dir);
        Ok((Self::load_model(models_dir, form, threads)?, form.graph))
    }

    /// Loads one form of the model.
    pub fn load_model(
        models_dir: &Path,
        form: TextModel,
        threads: usize,
    ) -> Result<TextEncoder, EmbedError> {
        let threads = threads.max(1);
        let models = if form.batch == 1 {
            (0..threads)
                .map(|_| Self::load_graph(models_dir, 1, form.graph))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            vec![Self::load_graph(models_dir, threads, form.graph)?]
        };
        Ok(TextEncoder {
            models,
            form,
            max_windows: crate::windows::MAX_WINDOWS,
        })
    }

    /// The form of the model this encoder runs.
    pub fn form(&self) -> TextModel {
        self.form
    }

    /// Splits texts into this model's windows (see [`crate::windows`]).
    pub fn windower(&self) -> crate::windows::Windower {
        crate::windows::Windower::new(&self.models[0].tokenizer).with_max_windows(self.max_windows)
    }

    /// Embeds at most `max_windows` windows of one long text (at least one).
    pub fn with_max_windows(mut self, max_windows: usize) -> TextEncoder {
        self.max_windows = max_windows.max(1);
        self
    }

    /// Windows of one long text at most.
    pub fn max_windows(&self) -> usize {
        self.max_windows
    }

    fn load_graph(
        models_dir: &Path,
        threads: usize,
        graph: &str,
    ) -> Result<TextEmbedding, EmbedError> {
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
        TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|e| EmbedError::Model(e.to_string()))
    }

    /// Embeds texts; every vector has [`TEXT_DIM`] components and unit length, in the
    /// order of `texts`.
    ///
    /// Texts go to the runtime shortest first, [`ENCODER_BATCH`] per call, in model
    /// batches of the form's size: a batch pads to about its own length rather than to
    /// the longest text among them all (less padding computed), and small batches keep
    /// the runtime's peak memory (attention tensors grow with batch × length²) low.
    pub fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with(texts, self.form.batch, true)
    }

    /// [`TextEncoder::embed`] with a model batch size, sorted by length or not.
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
        let batch_size = batch_size.max(1);
        // Every session takes every n-th text of the sorted order, so each gets texts of
        // all lengths.
        let sessions = self.models.len().min(texts.len()).max(1);
        let shares: Vec<Vec<usize>> = (0..sessions)
            .map(|k| order.iter().skip(k).step_by(sessions).copied().collect())
            .collect();
        let embedded: Vec<Result<Share, EmbedError>> = if sessions == 1 {
            vec![embed_share(
                &mut self.models[0],
                texts,
                &shares[0],
                batch_size,
            )]
        } else {
            std::thread::scope(|scope| {
                let workers: Vec<_> = self
                    .models
                    .iter_mut()
                    .zip(&shares)
                    .map(|(model, share)| {
                        scope.spawn(move || embed_share(model, texts, share, batch_size))
                    })
                    .collect();
                workers
                    .into_iter()
                    .map(|worker| {
                        worker.join().unwrap_or_else(|_| {
                            Err(EmbedError::Model("an encoder thread panicked".into()))
                        })
                    })
                    .collect()
            })
        };
        let mut slots: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for share in embedded {
            for (i, vector) in share? {
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

/// `(index in the texts, vector)` of one session's share.
type Share = Vec<(usize, Vec<f32>)>;

/// Embeds `texts[i]` for every `i` of `share`, [`ENCODER_BATCH`] texts per call in model
/// batches of `batch_size`.
fn embed_share(
    model: &mut TextEmbedding,
    texts: &[String],
    share: &[usize],
    batch_size: usize,
) -> Result<Share, EmbedError> {
    let mut out = Vec::with_capacity(share.len());
    for chunk in share.chunks(batch_size.max(ENCODER_BATCH)) {
        let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
        let vectors = model
            .embed(batch, Some(batch_size))
            .map_err(|e| EmbedError::Model(e.to_string()))?;
        if vectors.len() != chunk.len() {
            return Err(EmbedError::Model(format!(
                "model returned {} vectors for {} texts",
                vectors.len(),
                chunk.len()
            )));
        }
        out.extend(chunk.iter().copied().zip(vectors));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_names_its_text_model() {
        assert_eq!(TextModel::parse("minilm-q8"), Some(TextModel::FAST));
        assert_eq!(TextModel::parse("minilm"), Some(TextModel::PACKAGED));
        assert_eq!(TextModel::parse("MiniLM"), None);
        assert_eq!(TextModel::parse("bge-small"), None);
        let forms: Vec<&str> = TextModel::CHOICES.iter().map(|(_, f)| f.name).collect();
        assert!(!forms[0].is_empty() && forms[0] != forms[1], "{forms:?}");
    }

    #[test]
    fn texts_and_questions_use_the_fast_graph_when_it_was_made() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("minilm")).unwrap();
        let fast = TextModel::FAST;
        assert_eq!(
            TextModel::choose(dir.path(), fast, false),
            TextModel::PACKAGED
        );
        std::fs::write(dir.path().join("minilm").join(FAST_GRAPH), b"x").unwrap();
        assert_eq!(TextModel::choose(dir.path(), fast, false), fast);
        assert_eq!(
            TextModel::choose(dir.path(), fast, true),
            TextModel::PACKAGED
        );
        let questions = TextModel::QUESTIONS;
        assert_eq!(
            TextModel::choose(dir.path(), questions, false),
            TextModel::PACKAGED
        );
        std::fs::write(dir.path().join("minilm").join(QUERY_GRAPH), b"x").unwrap();
        assert_eq!(TextModel::choose(dir.path(), questions, false), questions);
        assert_ne!(TextModel::FAST.name, TextModel::PACKAGED.name);

        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        if !models.join("minilm").join(FAST_GRAPH).is_file() {
            eprintln!("skipped: no fast graph (run scripts/fetch-models)");
            return;
        }
        // Its vectors stay close to the packaged graph's, for questions and documents,
        // and its questions rank documents of either graph the same way (an index made
        // with the packaged graph is searched until it is embedded again).
        let mut fast = TextEncoder::load_model(&models, TextModel::FAST, 1).unwrap();
        let mut packaged = TextEncoder::load_model(&models, TextModel::PACKAGED, 1).unwrap();
        let (mut asker, graph) = TextEncoder::load_query(&models, 1).unwrap();
        assert_eq!(fast.form(), TextModel::FAST);
        assert_eq!(graph, QUERY_GRAPH);
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
        let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let packaged_docs = packaged.embed(&documents).unwrap();
        let fast_docs = fast.embed(&documents).unwrap();
        for (a, b) in fast_docs.iter().zip(&packaged_docs) {
            assert!(cosine(a, b) > 0.99, "document cosine {}", cosine(a, b));
        }
        // One text at a time: a text's vector does not depend on the others embedded
        // with it, nor on which of several single-threaded sessions embedded it.
        assert_eq!(fast.embed(&documents[1..2]).unwrap()[0], fast_docs[1]);
        let mut two = TextEncoder::load_model(&models, TextModel::FAST, 2).unwrap();
        assert_eq!(two.models.len(), 2);
        assert_eq!(two.embed(&documents).unwrap(), fast_docs);
        for (i, question) in questions.iter().enumerate() {
            let a = &asker.embed(std::slice::from_ref(question)).unwrap()[0];
            let b = &packaged.embed(std::slice::from_ref(question)).unwrap()[0];
            let c = &fast.embed(std::slice::from_ref(question)).unwrap()[0];
            assert!(cosine(c, b) > 0.995, "{question}: cosine {}", cosine(c, b));
            assert!(cosine(a, b) > 0.99, "{question}: cosine {}", cosine(a, b));
            let best = |q: &[f32], docs: &[Vec<f32>]| {
                (0..docs.len())
                    .max_by(|&x, &y| cosine(q, &docs[x]).total_cmp(&cosine(q, &docs[y])))
                    .unwrap()
            };
            assert_eq!(best(a, &fast_docs), i, "{question}");
            assert_eq!(best(a, &packaged_docs), i, "{question}");
            assert_eq!(best(b, &packaged_docs), i, "{question}");
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
