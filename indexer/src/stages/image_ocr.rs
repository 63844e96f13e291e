//! Text in images and what they show: PP-OCRv5 lines and EfficientNet-Lite0 tags
//! (with WordNet broader terms) appended to the image unit. Runs on images on disk and
//! on image attachments.

use std::sync::Arc;
use std::time::Instant;

use converters::FileType;

use super::{Stage, StageInput};
use crate::converted::Converted;
use crate::manifest::FileRecord;
use crate::models::{decode_image, SharedModels};

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
        let image = input.bytes.and_then(decode_image);
        let lines = match &image {
            Some(image) => {
                crate::ocr::OcrEngine::recognize_shared(engine, image).unwrap_or_else(|error| {
                    tracing::warn!(path, error = %error, "OCR failed");
                    Vec::new()
                })
            }
            None => Vec::new(),
        };
        let tag_started = Instant::now();
        let tags = match (&image, models.tagger()) {
            (Some(image), Some(tagger)) => crate::tags::Tagger::tag_shared(tagger, image)
                .map_err(|error| tracing::warn!(path, error = %error, "tagging failed"))
                .ok(),
            _ => None,
        };
        {
            let mut stats = models.stats.lock().unwrap_or_else(|e| e.into_inner());
            stats.images += 1;
            stats.lines += lines.len() as u64;
            stats.seconds += started.elapsed().as_secs_f64();
            if tags.is_some() {
                stats.tagged += 1;
                stats.tag_seconds += tag_started.elapsed().as_secs_f64();
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
        if lines.is_empty() {
            return;
        }
        let text = crate::ocr::lines_text(&lines);
        unit.text.push_str("\nText in image:\n");
        unit.text.push_str(&text);
        unit.fields.insert(OCR_KEY.to_string(), text);
    }
}
