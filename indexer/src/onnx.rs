//! ONNX Runtime sessions as every model of the indexer wants them: explicit intra-op
//! threads, one inter-op thread, no spinning (measured: less CPU and faster wall time on
//! 2 cores); and the lazy, shared loading of a model by the conversion workers.

use std::path::Path;

use ort::session::Session;

/// Loads `path` into a session on `environment` with `threads` intra-op threads. The
/// error names the file.
pub fn session(
    environment: &ort::environment::Environment,
    path: &Path,
    threads: usize,
) -> Result<Session, String> {
    let failed = |e: ort::Error| format!("{}: {e}", path.display());
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
        .commit_from_file(path)
        .map_err(failed)
}

/// A model shared by the workers, loaded by the first one that needs it; a load error
/// is logged once and leaves the stage off for the run.
pub(crate) fn load_once<'a, T, E: std::fmt::Display>(
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
