//! Text of image-only PDF pages (scans): pages with (almost) no text layer are rendered
//! by poppler's `pdftoppm` and read by PP-OCRv5. A PDF converted while OCR was off is
//! marked with the number of pages still to read, and is redone by a run with OCR.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use converters::FileType;

use super::image_ocr::OCR_KEY;
use super::{Stage, StageInput};
use crate::converted::Converted;
use crate::manifest::{FileRecord, FileStatus};
use crate::models::{SharedModels, OCR_MARKER};

/// Pages with less text than this are treated as images (scans) and read by OCR.
const IMAGE_ONLY_PAGE_CHARS: usize = 16;
/// At most this many image-only pages of one PDF are read by OCR.
const MAX_OCR_PAGES: usize = 200;
/// Resolution of pages rendered for OCR.
const OCR_PAGE_DPI: &str = "200";
/// PDFs with image-only pages that OCR has not read yet count them in
/// `FileRecord.stages.ocr_pending_pages`.
pub use index::stage::OCR_PENDING_KEY;

pub struct PageOcr {
    /// `None`: OCR is off in this run (pages are only counted as pending).
    models: Option<Arc<SharedModels>>,
}

impl PageOcr {
    pub fn new(models: Option<Arc<SharedModels>>) -> PageOcr {
        PageOcr { models }
    }
}

impl Stage for PageOcr {
    fn name(&self) -> &'static str {
        "page_ocr"
    }

    fn marker(&self) -> Option<String> {
        self.models
            .as_ref()
            .filter(|m| m.ocr_available())
            .map(|_| OCR_MARKER.to_string())
    }

    fn owes(&self, record: &FileRecord) -> bool {
        self.marker().is_some() && record.stages.ocr_pending_pages.is_some()
    }

    fn applies(&self, input: &StageInput<'_>) -> bool {
        input.file_type == FileType::Pdf && input.on_disk.is_some()
    }

    fn apply(&self, input: &StageInput<'_>, converted: &mut Converted) {
        let Some(pdf) = input.on_disk else { return };
        if converted.record.status == FileStatus::Indexed {
            read_image_only_pages(self.models.as_deref(), pdf, converted);
        }
    }
}

/// Renders the PDF's image-only pages (poppler's `pdftoppm`) and appends their OCR text.
fn read_image_only_pages(models: Option<&SharedModels>, pdf: &Path, converted: &mut Converted) {
    let pages: Vec<usize> = converted
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| {
            u.kind() == converters::unit::UnitKind::Page
                && u.text.trim().chars().count() < IMAGE_ONLY_PAGE_CHARS
        })
        .map(|(i, _)| i)
        .take(MAX_OCR_PAGES)
        .collect();
    if pages.is_empty() {
        return;
    }
    let record = &mut converted.record;
    let Some((models, engine)) = models.and_then(|m| Some((m, m.engine()?))) else {
        record.stages.ocr_pending_pages = Some(u32::try_from(pages.len()).unwrap_or(u32::MAX));
        return;
    };
    record.stages.ocr_pending_pages = None;
    record.stages.ocr = Some(OCR_MARKER.to_string());
    let started = Instant::now();
    let mut read = 0u64;
    let mut lines_total = 0u64;
    let mut problems = Vec::new();
    for index in pages {
        let unit = &mut converted.units[index];
        let Some(page) = unit.locator.page else {
            continue;
        };
        let image = match crate::media::decode::render_pdf_page(pdf, page, OCR_PAGE_DPI) {
            Ok(image) => image::DynamicImage::ImageRgb8(image),
            Err(error) => {
                // One page that cannot be rendered: the others will not do better.
                problems.push(format!("page {page}: {error}"));
                break;
            }
        };
        read += 1;
        match crate::ocr::OcrEngine::recognize_shared(engine, &image) {
            Ok(lines) if !lines.is_empty() => {
                lines_total += lines.len() as u64;
                let text = crate::ocr::lines_text(&lines);
                if !unit.text.trim().is_empty() {
                    unit.text.push('\n');
                }
                unit.text.push_str(&text);
                unit.fields.insert(OCR_KEY.to_string(), text);
            }
            Ok(_) => {}
            Err(error) => problems.push(format!("page {page}: OCR failed: {error}")),
        }
    }
    if !problems.is_empty() {
        tracing::warn!(path = %record.path, problems = %problems.join("; "), "page OCR incomplete");
    }
    let mut stats = models.stats.lock().unwrap_or_else(|e| e.into_inner());
    stats.pages += read;
    stats.lines += lines_total;
    stats.seconds += started.elapsed().as_secs_f64();
}
