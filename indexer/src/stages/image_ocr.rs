//! Text in images and what they show: PP-OCRv5 lines and EfficientNet-Lite0 tags
//! (with WordNet broader terms) appended to the image unit. Runs on images on disk and
//! on image attachments: every distinct frame of an animated GIF, every page of a TIFF
//! and HEIC/HEIF photos (see [`crate::pictures`]); tags describe the first picture.

use std::sync::Arc;
use std::time::Instant;

use converters::FileType;

use super::{Stage, StageInput};
use crate::converted::Converted;
use crate::manifest::FileRecord;
use crate::models::SharedModels;
use crate::pictures::{frames_text, read_frames, FrameCaps, FramesError, FramesReport};

/// Files that went through OCR record the models in `FileRecord.stages.ocr`, so files
/// indexed without OCR (or with other models) are redone by an OCR-enabled run. The
/// OCR text of a unit is in its fields under the same key.
pub use index::stage::OCR_KEY;
/// Key of the tags in an image unit's fields.
pub const TAGS_KEY: &str = "tags";

pub struct ImageOcr {
    models: Arc<SharedModels>,
}

impl ImageOcr {
    pub fn new(models: Arc<SharedModels>) -> ImageOcr {
        ImageOcr { models }
    }
}

impl Stage for ImageOcr {
    fn name(&self) -> &'static str {
        "image_ocr"
    }

    fn marker(&self) -> Option<String> {
        self.models
            .ocr_available()
            .then(|| self.models.image_marker().to_string())
    }

    fn owes(&self, record: &FileRecord) -> bool {
        self.models.ocr_available()
            && record.file_type == Some(FileType::Image)
            && record.stages.ocr.as_deref() != Some(self.models.image_marker())
    }

    fn applies(&self, input: &StageInput<'_>) -> bool {
        input.file_type == FileType::Image && input.bytes.is_some()
    }

    /// Reads the text of an image and appends it to the image's unit.
    fn apply(&self, input: &StageInput<'_>, converted: &mut Converted) {
        let models = &self.models;
        let (path, record, units) = (input.path, &mut converted.record, &mut converted.units);
        if !models.ocr_available() {
            return;
        }
        if units.is_empty() {
            // Nothing to attach text to; do not come back for it.
            record.stages.ocr = Some(models.image_marker().to_string());
            return;
        }
        let Some(engine) = models.engine() else {
            return;
        };
        let started = Instant::now();
        record.stages.ocr = Some(models.image_marker().to_string());
        let mut frames: Vec<(u32, Vec<String>)> = Vec::new();
        let (mut tags, mut tagged_first) = (None, false);
        let mut tag_seconds = 0.0;
        let read = read_frames(input.bytes.unwrap_or_default(), FrameCaps::default(), |number, image| {
            match crate::ocr::OcrEngine::recognize_shared(engine, image) {
                Ok(lines) => frames.push((number, lines.into_iter().map(|l| l.text).collect())),
                Err(error) => tracing::warn!(path, frame = number, error = %error, "OCR failed"),
            }
            // Tags describe the first picture.
            let tagger = (!tagged_first).then(|| models.tagger()).flatten();
            tagged_first = true;
            if let Some(tagger) = tagger {
                let tag_started = Instant::now();
                tags = crate::tags::Tagger::tag_shared(tagger, image)
                    .map_err(|error| tracing::warn!(path, error = %error, "tagging failed"))
                    .ok();
                tag_seconds += tag_started.elapsed().as_secs_f64();
            }
        });
        let mark_pages = match &read {
            Ok(report) => {
                log_report(path, report);
                report.paged && report.decoded > 1
            }
            Err(FramesError::Heif(error)) => {
                crate::pictures::warn_heif(path, error);
                false
            }
            Err(error) => {
                tracing::debug!(path, error = %error, "image not decoded for OCR");
                false
            }
        };
        let lines = frames.iter().map(|(_, lines)| lines.len() as u64).sum::<u64>();
        {
            let mut stats = models.stats.lock().unwrap_or_else(|e| e.into_inner());
            stats.images += 1;
            stats.lines += lines;
            stats.seconds += started.elapsed().as_secs_f64();
            if tags.is_some() {
                stats.tagged += 1;
                stats.tag_seconds += tag_seconds;
            }
        }
        let at = units
            .iter()
            .position(|u| u.kind() == converters::unit::UnitKind::Image)
            .unwrap_or(0);
        let unit = &mut units[at];
        let tags = crate::tags::tags_text(&tags.unwrap_or_default());
        if !tags.is_empty() {
            unit.text.push_str("\nShows: ");
            unit.text.push_str(&tags);
            unit.fields.insert(TAGS_KEY.to_string(), tags);
        }
        let text = frames_text(&frames, mark_pages);
        if text.is_empty() {
            return;
        }
        unit.text.push_str("\nText in image:\n");
        unit.text.push_str(&text);
        unit.fields.insert(OCR_KEY.to_string(), text);
    }
}

/// Says what was unusual about a picture's frames.
fn log_report(path: &str, report: &FramesReport) {
    if let Some(damage) = &report.damage {
        tracing::warn!(path, frames = report.kept, error = %damage, "picture damaged: its first readable frames were read");
    }
    if let Some(cap) = &report.stopped {
        tracing::info!(path, %cap, "picture has more frames than are read");
    }
    if report.duplicates > 0 || report.kept > 1 {
        tracing::debug!(path, kept = report.kept, duplicates = report.duplicates, "frames read");
    }
}
