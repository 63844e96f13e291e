//! HEIC/HEIF photos (and AVIF), which the image crate does not decode: libheif's
//! `heif-convert` (Debian package `libheif-examples`) writes each top-level image of a
//! temporary copy of the file as PNG, bounded in time by [`crate::process::run_limited`].
//! Without the tool such photos keep their metadata unit, without text or tags, and
//! the indexer says so once per run.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use thiserror::Error;

use crate::process::{run_limited, ToolError};

/// The program that decodes HEIF files.
pub const HEIF_TOOL: &str = "heif-convert";
const HEIF_PACKAGE: &str = "libheif-examples";
/// One photo's time limit.
const HEIF_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Error)]
pub enum HeifError {
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("heif-convert cannot decode it: {0}")]
    Failed(String),
    #[error("temporary files for heif-convert: {0}")]
    Io(#[from] std::io::Error),
}

impl HeifError {
    /// The tool is not installed (the same for every HEIF file of the run).
    pub fn tool_missing(&self) -> bool {
        matches!(self, HeifError::Tool(ToolError::NotInstalled { .. }))
    }
}

/// A HEIF container of images (HEIC, HEIF or AVIF).
pub(super) fn is_heif(bytes: &[u8]) -> bool {
    converters::detect::heif_brand(bytes).is_some()
}

/// The PNGs made of a HEIF file, in image order; removed with this value.
pub(super) struct HeifImages {
    _dir: tempfile::TempDir,
    pub paths: Vec<PathBuf>,
}

/// Runs `heif-convert` on a temporary copy of `bytes`.
pub(super) fn convert(bytes: &[u8]) -> Result<HeifImages, HeifError> {
    let dir = tempfile::Builder::new().prefix("dentate-heif").tempdir()?;
    let input = dir.path().join("photo.heic");
    std::fs::write(&input, bytes)?;
    let output = dir.path().join("image.png");
    let args = [
        std::ffi::OsStr::new("--quiet"),
        input.as_os_str(),
        output.as_os_str(),
    ];
    let run = run_limited(HEIF_TOOL, HEIF_PACKAGE, &args, HEIF_TIMEOUT)?;
    if !run.status.success() {
        let complaint = if run.first_error.is_empty() {
            crate::process::first_line(run.stdout.as_slice())
        } else {
            run.first_error
        };
        return Err(HeifError::Failed(if complaint.is_empty() {
            run.status.to_string()
        } else {
            complaint
        }));
    }
    // One image: image.png; several: image-1.png, image-2.png, ...
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir.path())?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.extension().is_some_and(|e| e == "png")
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("image"))
        })
        .collect();
    paths.sort_by_key(|path| (path.as_os_str().len(), path.clone()));
    if paths.is_empty() {
        return Err(HeifError::Failed("no image written".into()));
    }
    Ok(HeifImages { _dir: dir, paths })
}

static MISSING_TOOL_TOLD: AtomicBool = AtomicBool::new(false);

/// Logs a HEIF decoding failure: a missing tool once per process, others per file.
pub fn warn_heif(path: &str, error: &HeifError) {
    if error.tool_missing() {
        if !MISSING_TOOL_TOLD.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                error = %error,
                "HEIC/HEIF photos are indexed without their text and tags; install {HEIF_PACKAGE}"
            );
        }
    } else {
        tracing::warn!(path, error = %error, "HEIF photo not decoded");
    }
}
