//! A video's on-screen text and visual tags, second by second: each new picture whose
//! perceptual hash is more than [`frames::DUPLICATE_DISTANCE`] bits from the last one
//! read is read by OCR (and tagged); the others, and the seconds of a still stretch
//! (keyframes first, see [`super::keyframes`]), carry its text.

use std::sync::Mutex;
use std::time::Instant;

use image::RgbImage;

use super::decode::{Picture, SecondSink};
use super::frames;
use crate::ocr::OcrEngine;
use crate::tags::Tagger;

/// Reads the seconds of one video.
pub struct ScreenReader<'a> {
    ocr: &'a Mutex<OcrEngine>,
    tagger: Option<&'a Mutex<Tagger>>,
    /// Each second's text ("On screen: …", "Shows: …"), empty when it has none.
    pub texts: Vec<String>,
    last_read: Option<(u64, String)>,
    /// The first OCR failure: the video's reading stops there.
    pub failure: Option<String>,
    pub ocr_seconds: f64,
    pub tag_seconds: f64,
    pub frames_ocr: u64,
}

impl<'a> ScreenReader<'a> {
    pub fn new(ocr: &'a Mutex<OcrEngine>, tagger: Option<&'a Mutex<Tagger>>) -> Self {
        ScreenReader {
            ocr,
            tagger,
            texts: Vec::new(),
            last_read: None,
            failure: None,
            ocr_seconds: 0.0,
            tag_seconds: 0.0,
            frames_ocr: 0,
        }
    }

    /// The text of a new picture: the last one's when they look the same, else read.
    fn read(&mut self, frame: RgbImage) -> Option<String> {
        let hash = frames::phash(&frame);
        if let Some((h, text)) = &self.last_read {
            if frames::distance(*h, hash) <= frames::DUPLICATE_DISTANCE {
                return Some(text.clone());
            }
        }
        let read = Instant::now();
        let image = image::DynamicImage::ImageRgb8(frame);
        let lines = OcrEngine::recognize_shared(self.ocr, &image);
        self.ocr_seconds += read.elapsed().as_secs_f64();
        self.frames_ocr += 1;
        let tagged = Instant::now();
        let tags = self
            .tagger
            .and_then(|tagger| Tagger::tag_shared(tagger, &image).ok())
            .map(|tags| crate::tags::tags_text(&tags))
            .unwrap_or_default();
        self.tag_seconds += tagged.elapsed().as_secs_f64();
        let lines = match lines {
            Ok(lines) => lines,
            Err(error) => {
                self.failure = Some(error.to_string());
                return None;
            }
        };
        let text = lines
            .iter()
            .map(|l| l.text.trim())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        let mut parts = Vec::new();
        if !text.is_empty() {
            parts.push(format!("On screen: {text}"));
        }
        if !tags.is_empty() {
            parts.push(format!("Shows: {tags}"));
        }
        let text = parts.join("\n");
        self.last_read = Some((hash, text.clone()));
        Some(text)
    }
}

impl SecondSink for ScreenReader<'_> {
    fn second(&mut self, _second: u32, picture: Picture) -> bool {
        let text = match picture {
            Picture::New(frame) => match self.read(frame) {
                Some(text) => text,
                None => return false,
            },
            Picture::Same => self.texts.last().cloned().unwrap_or_default(),
        };
        self.texts.push(text);
        true
    }

    fn restart(&mut self) {
        self.texts.clear();
        self.last_read = None;
    }
}
