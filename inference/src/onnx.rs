//! Everything the indexer's models share: the one error type ([`ModelError`]), finding
//! a model file ([`require`]), loading ONNX Runtime once per process from the models
//! folder ([`runtime`]), sessions as every model wants them (explicit intra-op threads,
//! one inter-op thread, no spinning: measured less CPU and faster wall time on 2 cores),
//! and the lazy, shared loading of a model by the conversion workers ([`load_once`]).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ort::session::Session;
use thiserror::Error;

/// Why a model could not be loaded or run.
#[derive(Debug, Error)]
pub enum ModelError {
    #[error("{what} model file {path} is missing; run scripts/fetch-models (or point DENTATE_MODELS / --models at the folder it fills)")]
    MissingModel { what: &'static str, path: PathBuf },
    #[error("cannot load ONNX Runtime: {0}")]
    Runtime(String),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A model folder of the user's is not laid out as documented (CLIP).
    #[error("{what} model folder {dir}: {detail}")]
    Layout {
        what: &'static str,
        dir: PathBuf,
        detail: String,
    },
    #[error("model error: {0}")]
    Model(String),
}

impl From<ort::Error> for ModelError {
    fn from(error: ort::Error) -> ModelError {
        ModelError::Model(error.to_string())
    }
}

/// `path` when it exists, else the error that tells the user to fetch the models.
pub fn require(what: &'static str, path: PathBuf) -> Result<PathBuf, ModelError> {
    if path.exists() {
        Ok(path)
    } else {
        Err(ModelError::MissingModel { what, path })
    }
}

/// Reads a model's companion file (tokenizer, class list, config).
pub fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    })
}

static RUNTIME: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();

/// Loads ONNX Runtime from `<models>/onnxruntime/libonnxruntime.so` (once per process).
pub fn runtime(models_dir: &Path) -> Result<ort::environment::Environment, ModelError> {
    let library = require(
        "ONNX Runtime",
        models_dir.join("onnxruntime").join("libonnxruntime.so"),
    )?;
    let loaded = RUNTIME.get_or_init(|| {
        let builder = ort::init_from(&library).map_err(|e| e.to_string())?;
        builder
            .with_name("dentate")
            .build()
            .map_err(|e| e.to_string())
    });
    loaded
        .clone()
        .map_err(|detail| ModelError::Runtime(format!("{}: {detail}", library.display())))
}

/// Loads `path` into a session on `environment` with `threads` intra-op threads. The
/// error names the file.
pub fn session(
    environment: &ort::environment::Environment,
    path: &Path,
    threads: usize,
) -> Result<Session, ModelError> {
    let failed = |e: ort::Error| ModelError::Model(format!("{}: {e}", path.display()));
    Session::builder(environment)
        .map_err(failed)?
        .with_intra_threads(threads.max(1))
        .map_err(|e| failed(e.into()))?
        .with_inter_threads(1)
        .map_err(|e| failed(e.into()))?
        .with_config_entry("session.intra_op.allow_spinning", "0")
        .map_err(|e| failed(e.into()))?
        .with_config_entry("session.inter_op.allow_spinning", "0")
        .map_err(|e| failed(e.into()))?
        // No arena: an arena keeps the peak of every input size it has seen (a large
        // image, a long window) for the life of the session.
        .with_execution_providers([cpu_without_arena()])
        .map_err(|e| failed(e.into()))?
        .with_memory_pattern(false)
        .map_err(|e| failed(e.into()))?
        .commit_from_file(path)
        .map_err(failed)
}

/// ONNX Runtime's CPU provider without its memory arena: tensors are freed when a run
/// ends instead of being kept for the next one, so a model's memory follows its current
/// input, not the largest it ever saw.
pub fn cpu_without_arena() -> ort::ep::ExecutionProviderDispatch {
    ort::ep::CPU::default().with_arena_allocator(false).build()
}

/// A model shared by the workers, loaded by the first one that needs it; a load error
/// is logged once and leaves the stage off for the run.
pub fn load_once<'a, T, E: std::fmt::Display>(
    cell: &'a std::sync::OnceLock<Result<std::sync::Mutex<T>, String>>,
    available: bool,
    what: &str,
    load: impl FnOnce() -> Result<T, E>,
) -> Option<&'a std::sync::Mutex<T>> {
    if !available {
        return None;
    }
    cell.get_or_init(|| {
        load().map(std::sync::Mutex::new).map_err(|error| {
            tracing::warn!(error = %error, "{what} disabled for this run");
            error.to_string()
        })
    })
    .as_ref()
    .ok()
}
