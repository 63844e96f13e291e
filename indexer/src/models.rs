//! The models the conversion stages share, loaded once per run by the first worker
//! that needs them (`onnx::load_once`): PP-OCRv5 (text in images, image-only PDF pages
//! and video frames) and EfficientNet-Lite0 (visual tags), with their run statistics;
//! and image decoding for models, with size and memory limits.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use crate::ocr::OcrEngine;
use crate::options::IndexOptions;
use crate::tags::Tagger;

/// Marker of files read by OCR (OCR only).
pub const OCR_MARKER: &str = "ppocrv5-mobile";
/// Marker of images read by OCR and tagged.
pub const OCR_TAGS_MARKER: &str = "ppocrv5-mobile+efficientnet-lite0";
/// Images larger than this (per side, pixels) are not decoded for OCR.
pub const OCR_MAX_IMAGE_SIDE: u32 = 20_000;
/// Memory the image decoder may allocate for OCR (per image, frame or page).
pub const OCR_MAX_DECODE_BYTES: u64 = 512 * 1024 * 1024;

/// What OCR did in a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct OcrSummary {
    /// `done`, `unused` (no image to read), `disabled`, `skipped` (models missing) or
    /// `failed` (the models did not load).
    pub status: crate::stage_status::StageStatus,
    /// Why OCR was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Images run through OCR in this run.
    pub images: u64,
    /// Text lines recognised.
    pub lines: u64,
    /// Time spent decoding and recognising images (summed over workers).
    pub seconds: f64,
    /// Image-only PDF pages rendered and read.
    #[serde(default)]
    pub pages: u64,
    /// Images (not frames) given visual tags, and the classifier's share of `seconds`.
    #[serde(default)]
    pub tagged: u64,
    #[serde(default)]
    pub tag_seconds: f64,
    /// Images and PDFs converted again with unchanged bytes whose OCR text (and tags)
    /// were taken over from their earlier reading (see `crate::stages::Earlier`); they
    /// are not counted in `images` or `pages`.
    #[serde(default)]
    pub carried: u64,
}

/// The run's OCR engine and tagger: loaded on first use, shared by the workers.
pub struct SharedModels {
    models_dir: PathBuf,
    threads: usize,
    /// The OCR model files are present (images without the marker are redone).
    available: bool,
    engine: OnceLock<Result<Mutex<OcrEngine>, String>>,
    /// The tag model files are present.
    tags_available: bool,
    tagger: OnceLock<Result<Mutex<Tagger>, String>>,
    /// What OCR and tagging did in this run.
    pub stats: Mutex<OcrSummary>,
}

impl SharedModels {
    /// `None` when OCR is switched off (`--no-ocr`).
    pub fn new(options: &IndexOptions) -> Option<SharedModels> {
        if !options.ocr {
            return None;
        }
        let models_dir = options.models_dir.clone();
        let available = models_dir.join("ocr").join("ppocrv5_det.onnx").exists()
            && models_dir.join("ocr").join("ppocrv5_rec.onnx").exists();
        Some(SharedModels {
            models_dir: models_dir.clone(),
            threads: options.threads.max(1),
            available,
            engine: OnceLock::new(),
            tags_available: crate::tags::model_files(&models_dir)
                .iter()
                .all(|p| p.exists()),
            tagger: OnceLock::new(),
            stats: Mutex::new(OcrSummary::default()),
        })
    }

    /// The OCR model files are present.
    pub fn ocr_available(&self) -> bool {
        self.available
    }

    /// What an image read by this run is marked with (the models it went through).
    pub fn image_marker(&self) -> &'static str {
        if self.tags_available {
            OCR_TAGS_MARKER
        } else {
            OCR_MARKER
        }
    }

    /// The tagger, loaded on first use; `None` if its models are missing or broken.
    pub fn tagger(&self) -> Option<&Mutex<Tagger>> {
        crate::onnx::load_once(&self.tagger, self.tags_available, "visual tags", || {
            Tagger::load(&self.models_dir, self.threads)
        })
    }

    /// The OCR engine, loaded on first use; `None` if the models are missing or broken.
    pub fn engine(&self) -> Option<&Mutex<OcrEngine>> {
        crate::onnx::load_once(&self.engine, self.available, "OCR", || {
            OcrEngine::load(&self.models_dir, self.threads)
        })
    }

    /// The run's OCR block of the summary.
    pub fn summary(models: Option<&SharedModels>) -> OcrSummary {
        let Some(models) = models else {
            return OcrSummary {
                status: crate::stage_status::StageStatus::Disabled,
                ..OcrSummary::default()
            };
        };
        let mut summary = models
            .stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match models.engine.get() {
            _ if !models.available => {
                summary.status = crate::stage_status::StageStatus::Skipped;
                summary.message = Some(format!(
                    "OCR models missing in {}; run scripts/fetch-models",
                    models.models_dir.join("ocr").display()
                ));
            }
            None if summary.carried == 0 => {
                summary.status = crate::stage_status::StageStatus::Unused
            }
            None => summary.status = crate::stage_status::StageStatus::Done,
            Some(Ok(_)) => summary.status = crate::stage_status::StageStatus::Done,
            Some(Err(error)) => {
                summary.status = crate::stage_status::StageStatus::Failed;
                summary.message = Some(error.clone());
            }
        }
        summary
    }
}

/// Decodes an image (for OCR, tags, CLIP) with size and memory limits; `None` if it
/// cannot be decoded.
pub fn decode_image(bytes: &[u8]) -> Option<image::DynamicImage> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    reader.limits(decode_limits());
    reader.decode().ok()
}

/// The size and memory limits of [`decode_image`], for the other image decoders.
pub fn decode_limits() -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(OCR_MAX_IMAGE_SIDE);
    limits.max_image_height = Some(OCR_MAX_IMAGE_SIDE);
    limits.max_alloc = Some(OCR_MAX_DECODE_BYTES);
    limits
}
