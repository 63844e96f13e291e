//! Text in images and what they show: PP-OCRv5 lines and EfficientNet-Lite0 tags
//! (with WordNet broader terms) appended to the image unit. Runs on images on disk and
//! on image attachments: every distinct frame of an animated GIF, every page of a TIFF
//! and HEIC/HEIF photos (see [`crate::pictures`]); tags describe the first picture.

use std::sync::Arc;
use std::time::Instant;

use converters::unit::UnitKind;
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

/// Kinds of picture that may hold several images (animated GIFs, multi-page TIFFs) or
/// that were not decoded before (HEIF): their marker has this suffix, so that such
/// files indexed by a version that read one picture (or none) are read again, while
/// other images keep theirs.
const FRAMES_SUFFIX: &str = "+frames";
const FRAMES_EXTENSIONS: &[&str] = &["gif", "tif", "tiff", "heic", "heif", "avif"];

pub struct ImageOcr {
    models: Arc<SharedModels>,
}

impl ImageOcr {
    pub fn new(models: Arc<SharedModels>) -> ImageOcr {
        ImageOcr { models }
    }

    /// The marker of a picture with this extension read by this run.
    fn marker_for(&self, ext: &str) -> String {
        let marker = self.models.image_marker();
        if FRAMES_EXTENSIONS.contains(&ext) {
            format!("{marker}{FRAMES_SUFFIX}")
        } else {
            marker.to_string()
        }
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
            && record.stages.ocr.as_deref() != Some(self.marker_for(&record.ext).as_str())
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
            record.stages.ocr = Some(self.marker_for(&record.ext));
            return;
        }
        let Some(engine) = models.engine() else {
            return;
        };
        let started = Instant::now();
        record.stages.ocr = Some(self.marker_for(&record.ext));
        let mut frames: Vec<(u32, Vec<String>)> = Vec::new();
        let (mut tags, mut tagged_first) = (None, false);
        let mut tag_seconds = 0.0;
        let read = read_frames(
            input.bytes.unwrap_or_default(),
            FrameCaps::default(),
            |number, image| {
                match crate::ocr::OcrEngine::recognize_shared(engine, image) {
                    Ok(lines) => frames.push((number, lines.into_iter().map(|l| l.text).collect())),
                    Err(error) => {
                        tracing::warn!(path, frame = number, error = %error, "OCR failed")
                    }
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
            },
        );
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
        let lines = frames
            .iter()
            .map(|(_, lines)| lines.len() as u64)
            .sum::<u64>();
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
        let tags = crate::tags::tags_text(&tags.unwrap_or_default());
        attach(units, tags, frames_text(&frames, mark_pages));
    }

    /// Read before by these models: no frame is decoded again.
    fn holds(&self, earlier: &FileRecord) -> bool {
        self.models.ocr_available()
            && earlier.stages.ocr.as_deref() == Some(self.marker_for(&earlier.ext).as_str())
    }

    fn carry(
        &self,
        _: &FileRecord,
        earlier: &[crate::StoredUnit],
        converted: &mut Converted,
    ) -> bool {
        let Some(unit) = earlier.iter().find(|u| u.kind == UnitKind::Image) else {
            return false;
        };
        let (record, units) = (&mut converted.record, &mut converted.units);
        record.stages.ocr = Some(self.marker_for(&record.ext));
        let field = |key: &str| unit.fields.get(key).cloned().unwrap_or_default();
        attach(units, field(TAGS_KEY), field(OCR_KEY));
        self.models
            .stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .carried += 1;
        true
    }
}

/// Appends a picture's tags and text to its image unit (the first unit when none is an
/// image), as the text and as fields.
fn attach(units: &mut [converters::Unit], tags: String, text: String) {
    let at = units
        .iter()
        .position(|u| u.kind() == UnitKind::Image)
        .unwrap_or(0);
    let Some(unit) = units.get_mut(at) else {
        return;
    };
    if !tags.is_empty() {
        unit.text.push_str("\nShows: ");
        unit.text.push_str(&tags);
        unit.fields.insert(TAGS_KEY.to_string(), tags);
    }
    if text.is_empty() {
        return;
    }
    unit.text.push_str("\nText in image:\n");
    unit.text.push_str(&text);
    unit.fields.insert(OCR_KEY.to_string(), text);
}

/// Says what was unusual about a picture's frames.
fn log_report(path: &str, report: &FramesReport) {
    if let Some(damage) = &report.damage {
        tracing::warn!(path, frames = report.kept, error = %damage, "picture damaged: its first readable frames were read");
    }
    if report.unsupported > 0 {
        tracing::warn!(
            path,
            pages = report.unsupported,
            "tiff pages skipped: pixels of a kind not read (palette, CMYK, ...)"
        );
    }
    if let Some(cap) = &report.stopped {
        tracing::info!(path, %cap, "picture has more frames than are read");
    }
    if report.duplicates > 0 || report.kept > 1 {
        tracing::debug!(
            path,
            kept = report.kept,
            duplicates = report.duplicates,
            "frames read"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::converted::Converted;
    use crate::options::IndexOptions;

    /// Converts a fixture picture and runs this stage on it: the image unit's text.
    fn read_picture(models: &Arc<SharedModels>, name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/images")
            .join(name);
        let bytes = std::fs::read(&path).unwrap();
        let input = converters::Input::detect(name, &bytes);
        assert_eq!(input.file_type, FileType::Image, "{name}");
        let conversion = converters::convert(&input).unwrap();
        let size = bytes.len() as u64;
        let mut converted = Converted {
            record: crate::convert::base_record(name, None, size, 0, FileType::Image, None),
            units: conversion.units,
            mtime: crate::convert::mtime_of(0),
            children: Vec::new(),
        };
        let stage = ImageOcr::new(models.clone());
        let stage_input = StageInput {
            path: name,
            on_disk: None,
            file_type: FileType::Image,
            bytes: Some(&bytes),
            earlier: None,
        };
        assert!(stage.applies(&stage_input));
        stage.apply(&stage_input, &mut converted);
        // Read frame by frame: not owed again; files read before are.
        let marker = converted.record.stages.ocr.clone().unwrap();
        assert_eq!(marker, format!("{}+frames", models.image_marker()));
        assert!(!stage.owes(&converted.record));
        converted.record.stages.ocr = Some(models.image_marker().to_string());
        assert!(stage.owes(&converted.record));
        let text = converted.units[0].text.clone();
        eprintln!("{name}: {text:?}");
        text
    }

    #[test]
    fn only_pictures_with_several_images_get_the_frames_marker() {
        let profile = tempfile::tempdir().unwrap();
        let options = IndexOptions {
            models_dir: profile.path().join("no-models"),
            ..IndexOptions::new(profile.path(), profile.path())
        };
        let models = Arc::new(SharedModels::new(&options).unwrap());
        let stage = ImageOcr::new(models.clone());
        assert_eq!(stage.marker_for("png"), models.image_marker());
        assert_eq!(stage.marker_for("jpg"), models.image_marker());
        for ext in ["gif", "tif", "tiff", "heic", "heif", "avif"] {
            assert!(stage.marker_for(ext).ends_with("+frames"), "{ext}");
        }
    }

    fn count(text: &str, word: &str) -> usize {
        text.matches(word).count()
    }

    #[test]
    fn every_frame_page_and_heif_image_is_read() {
        let Some(models_dir) = crate::ocr::tests::models_dir() else {
            return;
        };
        let profile = tempfile::tempdir().unwrap();
        let options = IndexOptions {
            models_dir,
            threads: 2,
            ..IndexOptions::new(profile.path(), profile.path())
        };
        let models = Arc::new(SharedModels::new(&options).unwrap());

        // Every distinct frame, in order; the repeated first frame is read once.
        let gif = read_picture(&models, "animated.gif");
        assert!(gif.starts_with("Image animated.gif, GIF"), "{gif}");
        let ocr = gif.split("Text in image:").nth(1).expect("OCR text");
        let (alpha, bravo, charlie) = (
            ocr.find("ALPHA").expect("frame 1"),
            ocr.find("BRAVO").expect("frame 3"),
            ocr.find("CHARLIE").expect("frame 4, the last"),
        );
        assert!(alpha < bravo && bravo < charlie, "{ocr}");
        assert_eq!(count(ocr, "ALPHA"), 1, "{ocr}");

        // Every page, marked.
        let tiff = read_picture(&models, "pages.tif");
        for (page, word) in [(1, "KILO"), (2, "LIMA"), (3, "MIKE"), (4, "NOVEMBER")] {
            let marker = format!("[page {page}]");
            let at = tiff
                .find(&marker)
                .unwrap_or_else(|| panic!("{marker}: {tiff}"));
            let next = tiff[at + marker.len()..]
                .find("[page")
                .map(|n| at + marker.len() + n);
            let page_text = &tiff[at..next.unwrap_or(tiff.len())];
            assert!(page_text.contains(word), "{word} on {marker}: {tiff}");
        }

        // A damaged TIFF: the readable first page (one page: no marks).
        let truncated = read_picture(&models, "truncated.tif");
        assert!(
            truncated.contains("KILO") && !truncated.contains("[page"),
            "{truncated}"
        );

        // HEIC through heif-convert (without it, the metadata unit alone).
        let heic = read_picture(&models, "photo.heic");
        assert!(heic.starts_with("Image photo.heic, HEIC"), "{heic}");
        let tool = std::process::Command::new(crate::pictures::HEIF_TOOL)
            .arg("--help")
            .output();
        if tool.is_ok() {
            assert!(heic.contains("OSCAR"), "{heic}");
        } else {
            eprintln!("heif-convert missing (apt-get install libheif-examples)");
            assert!(!heic.contains("Text in image"), "{heic}");
        }
        let stats = models.stats.lock().unwrap().clone();
        assert_eq!(stats.images, 4);
    }
}
