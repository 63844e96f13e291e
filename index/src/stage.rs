//! Per-stage state of a file: what the indexer's enrichment stages and the Gold import
//! recorded about it. The manifest keeps one `extra` column; these keys are merged into
//! it on write ([`StageState::write_into`]) and taken out of it on read
//! ([`StageState::take_from`]), so the column text and the wire JSON are unchanged.

use std::collections::BTreeMap;

/// `extra` key of files that went through OCR; its value names the models, so files
/// are read again when better models arrive.
pub const OCR_KEY: &str = "ocr";
/// `extra` key of PDFs with image-only pages that OCR has not read yet (their count).
pub const OCR_PENDING_KEY: &str = "ocr_pending_pages";
/// `extra` key of audio/video files whose content was analysed; the value names the
/// speech model.
pub const MEDIA_KEY: &str = "media";
/// `extra` key of photos whose GPS position the gazetteer placed; the value names the
/// gazetteer, so photos are placed again when it changes or first arrives.
pub const PLACES_KEY: &str = "places";
/// `extra` key: the Gold JSON a file's units came from.
pub const GOLD_KEY: &str = "gold";
/// `extra` key: BLAKE3 of that Gold JSON (change detection).
pub const GOLD_HASH_KEY: &str = "gold_hash";

/// What the stages recorded about one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageState {
    /// Marker of the OCR models that read the file ([`OCR_KEY`]).
    pub ocr: Option<String>,
    /// Image-only PDF pages OCR has not read yet ([`OCR_PENDING_KEY`]).
    pub ocr_pending_pages: Option<u32>,
    /// Marker of the speech model that analysed the file ([`MEDIA_KEY`]).
    pub media: Option<String>,
    /// Marker of the gazetteer that placed the photo ([`PLACES_KEY`]).
    pub places: Option<String>,
    /// The Gold JSON the file's units came from ([`GOLD_KEY`]).
    pub gold: Option<String>,
    /// BLAKE3 of that Gold JSON ([`GOLD_HASH_KEY`]).
    pub gold_hash: Option<String>,
}

impl StageState {
    /// Takes the stage keys out of an `extra` map. A value that does not read as its
    /// type (a non-numeric `ocr_pending_pages`) stays in the map.
    pub fn take_from(extra: &mut BTreeMap<String, String>) -> StageState {
        let ocr_pending_pages = match extra.get(OCR_PENDING_KEY).map(|v| v.parse::<u32>()) {
            Some(Ok(pages)) if extra[OCR_PENDING_KEY] == pages.to_string() => {
                extra.remove(OCR_PENDING_KEY);
                Some(pages)
            }
            _ => None,
        };
        StageState {
            ocr: extra.remove(OCR_KEY),
            ocr_pending_pages,
            media: extra.remove(MEDIA_KEY),
            places: extra.remove(PLACES_KEY),
            gold: extra.remove(GOLD_KEY),
            gold_hash: extra.remove(GOLD_HASH_KEY),
        }
    }

    /// Writes the stage keys into an `extra` map (over any value of the same key).
    pub fn write_into(&self, extra: &mut BTreeMap<String, String>) {
        let mut put = |key: &str, value: Option<String>| {
            if let Some(value) = value {
                extra.insert(key.to_string(), value);
            }
        };
        put(OCR_KEY, self.ocr.clone());
        put(
            OCR_PENDING_KEY,
            self.ocr_pending_pages.map(|pages| pages.to_string()),
        );
        put(MEDIA_KEY, self.media.clone());
        put(PLACES_KEY, self.places.clone());
        put(GOLD_KEY, self.gold.clone());
        put(GOLD_HASH_KEY, self.gold_hash.clone());
    }

    /// Whether no stage recorded anything.
    pub fn is_empty(&self) -> bool {
        *self == StageState::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_then_write_restores_the_map() {
        let original: BTreeMap<String, String> = [
            (OCR_KEY, "ppocrv5"),
            (OCR_PENDING_KEY, "3"),
            (MEDIA_KEY, "whisper-base"),
            (PLACES_KEY, "geonames-155210"),
            (GOLD_KEY, "Bei/a.json"),
            (GOLD_HASH_KEY, "abc"),
            ("page_count", "7"),
            ("gps", "1.5,2.5"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut extra = original.clone();
        let stages = StageState::take_from(&mut extra);
        assert_eq!(stages.ocr.as_deref(), Some("ppocrv5"));
        assert_eq!(stages.ocr_pending_pages, Some(3));
        assert_eq!(stages.media.as_deref(), Some("whisper-base"));
        assert_eq!(stages.places.as_deref(), Some("geonames-155210"));
        assert_eq!(stages.gold.as_deref(), Some("Bei/a.json"));
        assert_eq!(stages.gold_hash.as_deref(), Some("abc"));
        assert_eq!(extra.len(), 2);
        stages.write_into(&mut extra);
        assert_eq!(extra, original);
    }

    #[test]
    fn an_unreadable_pending_count_stays_a_converter_fact() {
        for odd in ["many", "007", "-1"] {
            let mut extra = BTreeMap::from([(OCR_PENDING_KEY.to_string(), odd.to_string())]);
            let stages = StageState::take_from(&mut extra);
            assert!(stages.is_empty());
            assert_eq!(extra[OCR_PENDING_KEY], odd);
        }
    }
}
