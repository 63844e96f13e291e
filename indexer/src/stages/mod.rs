//! Content enrichment after conversion, one [`Stage`] per kind of work: place names of
//! photos' GPS positions (offline GeoNames gazetteer), text in images (OCR and visual
//! tags), text of image-only PDF pages, and the speech and on-screen text of audio and
//! video. The text and CLIP vectors are [`phases::VectorPhase`]s after
//! the lexical commit, with the same idea of staleness: a file is redone when the
//! content or the models its vectors were made from are not the run's.
//!
//! Staleness has one test, [`Stages::owed`]: an indexed file that is not Gold-imported
//! (Gold text replaces conversion, and so every stage) is converted again when any
//! stage says it owes the file work. Adding a stage: a module implementing [`Stage`]
//! and one line in [`Stages::new`].

mod image_ocr;
mod media;
mod page_ocr;
pub mod phases;
mod places;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use converters::FileType;
use index::CommittedUnits;

use crate::converted::Converted;
use crate::manifest::{FileRecord, FileStatus};
use crate::media::{MediaStage, MediaSummary};
use crate::models::{OcrSummary, SharedModels};
use crate::options::IndexOptions;
use crate::walk::WalkedFile;
use crate::StoredUnit;

pub use image_ocr::{OCR_KEY, TAGS_KEY};
pub use page_ocr::OCR_PENDING_KEY;

/// A freshly converted file, as a stage sees it.
pub struct StageInput<'a> {
    pub path: &'a str,
    /// The file on disk; `None` for attachments (their bytes only exist in memory).
    pub on_disk: Option<&'a Path>,
    pub file_type: FileType,
    /// The file's bytes, for the stages that read them (images).
    pub bytes: Option<&'a [u8]>,
    /// The same bytes as indexed before, when they were (see [`Earlier`]).
    pub earlier: Option<&'a Earlier<'a>>,
}

/// The same bytes at the same path, converted and indexed before: an unchanged file
/// converted again because its converter has a newer version (or an attachment of it
/// does, or another stage owes it work). A stage whose work the earlier record holds, as
/// this run's models would do it ([`Stage::holds`]), takes it over from the earlier
/// units ([`Stage::carry`]) instead of doing it again: a converter upgrade does not
/// re-run speech recognition over every recording.
pub struct Earlier<'a> {
    pub record: &'a FileRecord,
    units: &'a CommittedUnits,
    read: OnceLock<Option<Vec<StoredUnit>>>,
}

impl<'a> Earlier<'a> {
    /// The earlier state of a file whose content hash is `hash`, when `record` is an
    /// indexed conversion (not a Gold import) of the same bytes and type. The hash of
    /// an audio or video file covers its head only: its size and modification time
    /// must be the same too.
    pub fn of(
        record: Option<&'a FileRecord>,
        (hash, size, mtime_ns): (Option<&str>, u64, i64),
        file_type: FileType,
        units: &'a CommittedUnits,
    ) -> Option<Earlier<'a>> {
        let record = record.filter(|r| {
            r.status == FileStatus::Indexed
                && hash.is_some()
                && r.hash.as_deref() == hash
                && r.file_type == Some(file_type)
                && (file_type.needs_full_content() || (r.size, r.mtime_ns) == (size, mtime_ns))
                && !crate::gold::is_gold(r)
        })?;
        Some(Earlier {
            record,
            units,
            read: OnceLock::new(),
        })
    }

    /// The earlier units, read once; `None` when they cannot be read (the stages then
    /// do their work).
    pub fn units(&self) -> Option<&[StoredUnit]> {
        self.read
            .get_or_init(|| match self.units.units_of_file(&self.record.file_id) {
                Ok(units) if !units.is_empty() => Some(units),
                Ok(_) => None,
                Err(error) => {
                    tracing::warn!(path = %self.record.path, error = %error, "earlier units not read; stages run again");
                    None
                }
            })
            .as_deref()
    }
}

/// One kind of enrichment.
pub trait Stage: Send + Sync {
    /// Short name, for logs.
    fn name(&self) -> &'static str;
    /// The marker recorded on the files this run's models processed (`None`: the stage
    /// cannot run in this run, so it owes nothing).
    fn marker(&self) -> Option<String>;
    /// Whether an indexed, converted (not Gold-imported) file still owes this stage
    /// work: converted while the stage was off, or with other models.
    fn owes(&self, record: &FileRecord) -> bool;
    /// Whether the stage works on such a file.
    fn applies(&self, input: &StageInput<'_>) -> bool;
    /// Enriches the file's units and records its marker.
    fn apply(&self, input: &StageInput<'_>, converted: &mut Converted);
    /// Whether an earlier conversion of the same bytes holds this stage's work as this
    /// run would do it (same models, complete).
    fn holds(&self, earlier: &FileRecord) -> bool {
        let _ = earlier;
        false
    }
    /// Takes this stage's work over from the earlier record and units of the same bytes
    /// (one that [`Stage::holds`]) and records its marker, as [`Stage::apply`] would;
    /// returns false, having changed nothing, when those units do not hold all of it
    /// (then the stage runs).
    fn carry(&self, earlier: &FileRecord, units: &[StoredUnit], converted: &mut Converted) -> bool {
        let _ = (earlier, units, converted);
        false
    }
}

/// The stages of a run, in the order they apply.
pub struct Stages {
    stages: Vec<Box<dyn Stage>>,
    models: Option<Arc<SharedModels>>,
    media: Option<Arc<MediaStage>>,
}

impl Stages {
    pub fn new(options: &IndexOptions) -> Stages {
        let models = SharedModels::new(options).map(Arc::new);
        let media = options.media.then(|| {
            Arc::new(MediaStage::new(
                &options.models_dir,
                options.asr,
                options.threads,
                options.media_timeout,
                options.speech_prompt,
            ))
        });
        let mut stages: Vec<Box<dyn Stage>> = Vec::new();
        // First, so that the place follows the photo's EXIF sentence.
        if let Some(places) = places::Places::load(&options.models_dir) {
            stages.push(Box::new(places));
        }
        if let Some(models) = &models {
            stages.push(Box::new(image_ocr::ImageOcr::new(models.clone())));
        }
        stages.push(Box::new(page_ocr::PageOcr::new(models.clone())));
        if let Some(media) = &media {
            stages.push(Box::new(media::Media::new(media.clone(), models.clone())));
        }
        Stages {
            stages,
            models,
            media,
        }
    }

    /// Work done ahead for a chunk of recordings (audio and video files, as the pipeline
    /// sorted them) about to be converted, where that is cheaper across files than one
    /// by one: their speech, heard together (see [`MediaStage::prepare`]). `files` are
    /// the walked files with their records before this run; a file whose earlier
    /// analysis this run carries over is left out.
    pub fn prepare(
        &self,
        files: &[(&WalkedFile, Option<&FileRecord>)],
        progress: &dyn crate::options::Progress,
    ) {
        let Some(media) = self.media.as_ref().filter(|m| m.available()) else {
            return;
        };
        let stage = media::Media::new(media.clone(), self.models.clone());
        let recordings: Vec<&WalkedFile> = files
            .iter()
            .filter(|(_, earlier)| !earlier.is_some_and(|r| stage.holds(r)))
            .map(|(file, _)| *file)
            .collect();
        let paths: Vec<&Path> = recordings.iter().map(|f| f.abs_path.as_path()).collect();
        media.prepare(&paths, &|on_disk, seconds| {
            if let Some(file) = recordings.iter().find(|f| f.abs_path == on_disk) {
                progress.heard(&file.rel_path, seconds, file.size);
            }
        });
    }

    /// The single staleness test: an indexed, converted file that some stage owes work.
    pub fn owed(&self, record: &FileRecord) -> bool {
        record.status == FileStatus::Indexed
            && !crate::gold::is_gold(record)
            && self.stages.iter().any(|stage| stage.owes(record))
    }

    /// Runs every stage that applies to a converted file, or carries its work over
    /// from the earlier conversion of the same bytes.
    pub fn apply(&self, input: &StageInput<'_>, converted: &mut Converted) {
        for stage in &self.stages {
            if !stage.applies(input) {
                continue;
            }
            let carried = input
                .earlier
                .filter(|earlier| stage.holds(earlier.record))
                .and_then(|earlier| Some((earlier.record, earlier.units()?)))
                .is_some_and(|(record, units)| stage.carry(record, units, converted));
            if carried {
                tracing::trace!(
                    stage = stage.name(),
                    path = input.path,
                    "stage carried over"
                );
            } else {
                tracing::trace!(stage = stage.name(), path = input.path, "stage");
                stage.apply(input, converted);
            }
        }
    }

    /// The walked files, for the speech stage's names prompt.
    pub fn name_sources(&self, files: &[crate::walk::WalkedFile]) {
        if let Some(media) = &self.media {
            media.name_sources(
                files
                    .iter()
                    .map(|f| (f.rel_path.as_str(), f.abs_path.as_path(), f.size)),
            );
        }
    }

    /// Whether the stages read the bytes of a file of `file_type` (images; audio and
    /// video only when they are attachments, whose bytes exist nowhere else).
    pub fn wants_bytes(&self, file_type: FileType, attachment: bool) -> bool {
        (self.models.is_some() && file_type == FileType::Image)
            || (attachment
                && self.media.is_some()
                && matches!(file_type, FileType::Audio | FileType::Video))
    }

    pub fn ocr_summary(&self) -> OcrSummary {
        SharedModels::summary(self.models.as_deref())
    }

    pub fn media_summary(&self) -> MediaSummary {
        MediaStage::summary(self.media.as_deref())
    }
}
