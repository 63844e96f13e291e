//! What an indexing run is asked to do, and how it reports progress.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::media::AsrModel;

/// Options of an indexing run.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    pub profile: PathBuf,
    pub index_dir: PathBuf,
    /// Conversion threads (default: available parallelism).
    pub threads: usize,
    /// Files per conversion batch.
    pub batch_files: usize,
    /// Commit at least this often (files are visible to a running daemon after a commit).
    pub commit_interval: Duration,
    /// Give up on one file's conversion after this long.
    pub file_timeout: Duration,
    /// Memory budget of the tantivy writer.
    pub writer_memory: usize,
    /// The models folder filled by `scripts/fetch-models`.
    pub models_dir: PathBuf,
    /// Compute dense embeddings (off: lexical only).
    pub embed: bool,
    /// Windows of one long text at most, each its own vector (see [`crate::windows`]);
    /// 1 embeds only a long text's first window. A change re-embeds the long texts.
    pub text_windows: usize,
    /// The form of the text model (`None`: [`crate::embed::TextModel::for_texts`]). A
    /// change embeds every text again on the next run.
    pub text_model: Option<crate::embed::TextModel>,
    /// HippoCamp Gold folder: matched files are indexed from their Gold JSON
    /// instead of being converted (see [`crate::gold`]).
    pub gold_dir: Option<PathBuf>,
    /// OCR of images (PP-OCRv5) with the models of `models_dir`; skipped with a note if
    /// they are missing.
    pub ocr: bool,
    /// Speech recognition of audio and video, and on-screen text of video frames (see
    /// [`crate::media`]); skipped with a note if ffmpeg or the models are missing.
    pub media: bool,
    /// Give up on decoding one audio/video file after this long.
    pub media_timeout: Duration,
    /// The speech recogniser.
    pub asr: AsrModel,
    /// Whisper is prompted with the names of the profile's people and its frequent
    /// proper nouns (see [`crate::media::vocabulary`]).
    pub speech_prompt: bool,
    /// A user-supplied CLIP-style model folder (see [`crate::clip`]): images get an
    /// image–text embedding.
    pub clip_dir: Option<PathBuf>,
    /// The run is a pass of watch mode (its activity events say `watch`).
    pub watching: bool,
    /// When set, the run stops at its next batch boundary (committing what is done and
    /// leaving the rest, and the vector phases, to the next run).
    pub stop: Option<Arc<AtomicBool>>,
}

impl IndexOptions {
    pub fn new(profile: impl Into<PathBuf>, index_dir: impl Into<PathBuf>) -> IndexOptions {
        IndexOptions {
            profile: profile.into(),
            index_dir: index_dir.into(),
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            batch_files: 32,
            commit_interval: Duration::from_secs(10),
            file_timeout: Duration::from_secs(120),
            writer_memory: 100_000_000,
            models_dir: crate::embed::default_models_dir(),
            embed: true,
            text_windows: index::vector::DEFAULT_TEXT_WINDOWS,
            text_model: None,
            gold_dir: None,
            ocr: true,
            media: true,
            media_timeout: Duration::from_secs(600),
            asr: AsrModel::default(),
            speech_prompt: false,
            clip_dir: None,
            watching: false,
            stop: None,
        }
    }

    /// Lexical only, one thread: no models, no OCR, no media analysis (for tests).
    #[cfg(test)]
    pub(crate) fn lexical_only(profile: &std::path::Path, index: &std::path::Path) -> IndexOptions {
        IndexOptions {
            threads: 1,
            embed: false,
            ocr: false,
            media: false,
            models_dir: index.join("no-models"),
            ..IndexOptions::new(profile, index)
        }
    }

    /// The form of the text model this run embeds with.
    pub fn text_model(&self) -> crate::embed::TextModel {
        self.text_model
            .unwrap_or_else(|| crate::embed::TextModel::for_texts(&self.models_dir))
    }

    /// The profile folder's canonical path; an error when it is missing or not a folder.
    pub fn canonical_profile(&self) -> Result<PathBuf, crate::error::IndexError> {
        let error = |source| crate::error::IndexError::Profile {
            path: self.profile.clone(),
            source,
        };
        let profile = self.profile.canonicalize().map_err(error)?;
        if !profile.is_dir() {
            return Err(error(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a folder",
            )));
        }
        Ok(profile)
    }

    /// Whether the run was asked to stop.
    pub fn stop_requested(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Receives progress events (the CLI draws a progress bar from them).
pub trait Progress: Sync {
    /// The walk is done: `to_convert` files need conversion.
    fn planned(&self, _walked: usize, _to_convert: usize) {}
    /// One file was converted (or failed).
    fn file_done(&self, _path: &str) {}
    /// The documents are committed; `files` recordings (audio and video, `bytes` in
    /// all) are converted next.
    fn recordings(&self, _files: usize, _bytes: u64) {}
    /// A recording's speech was heard ahead of its conversion (`Stages::prepare`):
    /// `audio_seconds` of sound, from a file of `bytes`.
    fn heard(&self, _path: &str, _audio_seconds: f64, _bytes: u64) {}
    /// A batch was committed and is now searchable.
    fn committed(&self, _files_so_far: usize) {}
    /// The embedding phase starts: `files` files need vectors.
    fn embedding(&self, _files: usize) {}
    /// One file's vectors were written.
    fn file_embedded(&self, _path: &str) {}
}

/// A progress sink that ignores everything.
pub struct NoProgress;
impl Progress for NoProgress {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_reads_its_text_model_from_the_options() {
        use crate::embed::TextModel;
        let mut options = IndexOptions::new("p", "i");
        options.models_dir = std::path::PathBuf::from("/nonexistent");
        assert_eq!(options.text_model(), TextModel::PACKAGED);
        options.text_model = Some(TextModel::FAST);
        assert_eq!(options.text_model(), TextModel::FAST);
    }
}
