//! Text of image-only PDF pages (scans): pages with (almost) no text layer are rendered
//! by poppler's `pdftoppm` and read by PP-OCRv5. A PDF converted while OCR was off is
//! marked with the number of pages still to read, and is redone by a run with OCR.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use converters::unit::{Unit, UnitKind};
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

    /// Every image-only page read by OCR before (none left pending).
    fn holds(&self, earlier: &FileRecord) -> bool {
        self.marker().is_some()
            && earlier.stages.ocr.as_deref() == Some(OCR_MARKER)
            && earlier.stages.ocr_pending_pages.is_none()
    }

    /// Only when every image-only page has its earlier OCR text: a page that now has
    /// no text layer but had one before, or whose reading found nothing, is read.
    fn carry(
        &self,
        _: &FileRecord,
        earlier: &[crate::StoredUnit],
        converted: &mut Converted,
    ) -> bool {
        let pages = image_only_pages(&converted.units);
        if pages.is_empty() || converted.record.status != FileStatus::Indexed {
            return false;
        }
        let mut texts = Vec::with_capacity(pages.len());
        for &index in &pages {
            let page = converted.units[index].locator.page;
            let read = earlier
                .iter()
                .find(|u| u.kind == UnitKind::Page && page.is_some() && u.locator.page == page)
                .and_then(|u| u.fields.get(OCR_KEY));
            match read {
                Some(text) => texts.push(text.clone()),
                None => return false,
            }
        }
        for (index, text) in pages.into_iter().zip(texts) {
            append_page_text(&mut converted.units[index], text);
        }
        let record = &mut converted.record;
        record.stages.ocr_pending_pages = None;
        record.stages.ocr = Some(OCR_MARKER.to_string());
        if let Some(models) = &self.models {
            models
                .stats
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .carried += 1;
        }
        true
    }

    fn apply(&self, input: &StageInput<'_>, converted: &mut Converted) {
        let Some(pdf) = input.on_disk else { return };
        if converted.record.status == FileStatus::Indexed {
            read_image_only_pages(self.models.as_deref(), pdf, converted);
        }
    }
}

/// The positions of the pages with (almost) no text layer, at most [`MAX_OCR_PAGES`].
fn image_only_pages(units: &[Unit]) -> Vec<usize> {
    units
        .iter()
        .enumerate()
        .filter(|(_, u)| {
            u.kind() == UnitKind::Page && u.text.trim().chars().count() < IMAGE_ONLY_PAGE_CHARS
        })
        .map(|(i, _)| i)
        .take(MAX_OCR_PAGES)
        .collect()
}

/// Appends a page's OCR text to its unit, as the text and as a field.
fn append_page_text(unit: &mut Unit, text: String) {
    if !unit.text.trim().is_empty() {
        unit.text.push('\n');
    }
    unit.text.push_str(&text);
    unit.fields.insert(OCR_KEY.to_string(), text);
}

/// Renders the PDF's image-only pages (poppler's `pdftoppm`) and appends their OCR text.
fn read_image_only_pages(models: Option<&SharedModels>, pdf: &Path, converted: &mut Converted) {
    let pages = image_only_pages(&converted.units);
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
                append_page_text(unit, crate::ocr::lines_text(&lines));
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

#[cfg(test)]
mod tests {
    use converters::{Locator, Modality};

    use super::*;
    use crate::StoredUnit;

    fn page(number: u32) -> Locator {
        Locator {
            page: Some(number),
            ..Locator::default()
        }
    }

    /// A page of `scan.pdf` as indexed before, with its OCR text when it had one.
    fn earlier_page(number: u32, text: &str, ocr: Option<&str>) -> StoredUnit {
        StoredUnit {
            unit_id: format!("f:{number}"),
            file_id: "f".into(),
            path: "scan.pdf".into(),
            kind: UnitKind::Page,
            modality: Modality::Document,
            ext: "pdf".into(),
            file_type: FileType::Pdf,
            ordinal: u64::from(number),
            title: String::new(),
            text: text.into(),
            locator: page(number),
            fields: ocr
                .map(|text| (OCR_KEY.to_string(), text.to_string()))
                .into_iter()
                .collect(),
            content_time: 0,
            content_time_text: String::new(),
        }
    }

    /// Page 1 has a text layer, pages 2 and 3 are scans.
    fn converted() -> Converted {
        let units = vec![
            Unit::new(UnitKind::Page, page(1), "Quarterly report, typed page"),
            Unit::new(UnitKind::Page, page(2), ""),
            Unit::new(UnitKind::Page, page(3), " 3 "),
        ];
        Converted {
            record: crate::convert::base_record("scan.pdf", None, 10, 0, FileType::Pdf, None),
            units,
            mtime: crate::convert::mtime_of(0),
            children: Vec::new(),
        }
    }

    #[test]
    fn scanned_pages_take_their_earlier_text_or_are_read_again() {
        let stage = PageOcr::new(None);
        let typed = earlier_page(1, "Quarterly report, typed page", None);
        let read = [
            typed.clone(),
            earlier_page(2, "Invoice 2291 total due", Some("Invoice 2291 total due")),
            earlier_page(3, "3\nSigned by the tenant", Some("Signed by the tenant")),
        ];
        let mut file = converted();
        let earlier = file.record.clone();
        assert!(stage.carry(&earlier, &read, &mut file));
        let texts: Vec<&str> = file.units.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Quarterly report, typed page",
                "Invoice 2291 total due",
                " 3 \nSigned by the tenant"
            ]
        );
        assert_eq!(file.units[2].fields[OCR_KEY], "Signed by the tenant");
        assert_eq!(file.record.stages.ocr.as_deref(), Some(OCR_MARKER));

        // Page 3 was not read before (or its reading found nothing): nothing is taken
        // over, so that the stage reads every scanned page itself.
        let unread = [typed, read[1].clone(), earlier_page(3, " 3 ", None)];
        let mut file = converted();
        assert!(!stage.carry(&earlier, &unread, &mut file));
        assert_eq!(file.units, converted().units);
        assert_eq!(file.record.stages.ocr, None);
        // Without scanned pages there is nothing to carry.
        let mut typed_only = converted();
        typed_only.units.truncate(1);
        assert!(!stage.carry(&earlier, &read, &mut typed_only));
    }
}
