//! OCR for images: PP-OCRv5 mobile (text detection + recognition) run by ONNX Runtime,
//! with our own pre- and post-processing (no OCR crate: they pin other `ort` versions).
//!
//! Detection (DB): the image is resized so that its longer side is at most
//! [`DET_MAX_SIDE`] and both sides are multiples of 32, normalised with the ImageNet
//! mean/std, and the model returns a text probability map. The map is thresholded,
//! split into connected components (iterative flood fill), each component becomes an
//! axis-aligned box that is expanded ("unclipped") and mapped back to the image.
//!
//! Recognition (SVTR, CTC): every box is cropped, resized to height 48, batched with
//! crops of similar width and decoded greedily with the keys file (index 0 is the CTC
//! blank; the model's output is already a softmax). Boxes on the same baseline are joined
//! into one line; lines come in reading order (top to bottom, then left to right).
//!
//! The models come from `scripts/fetch-models` (`<models>/ocr/`); the text-orientation
//! classifier that is shipped alongside is not used.

use std::path::{Path, PathBuf};

use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};
use ort::session::Session;
use ort::value::Tensor;

/// Longer side of the detection input (pixels).
pub const DET_MAX_SIDE: u32 = 960;
/// Images larger than this (per side) are scaled down before anything else.
pub const MAX_IMAGE_SIDE: u32 = 4096;
/// At most this many text boxes are recognised per image.
pub const MAX_BOXES: usize = 500;
/// Height of the recognition input.
const REC_HEIGHT: u32 = 48;
/// Widest recognition crop (a very long line is squeezed to this).
const REC_MAX_WIDTH: u32 = 320 * 8;
/// Crops per recognition call.
const REC_BATCH: usize = 8;
/// Probability threshold of the detection map.
const DET_THRESHOLD: f32 = 0.3;
/// Minimum mean probability of a detected box.
const BOX_THRESHOLD: f32 = 0.6;
/// Expansion of a detected box: area * ratio / perimeter on each side.
const UNCLIP_RATIO: f32 = 1.5;
/// Recognised text below this confidence is dropped.
const MIN_CONFIDENCE: f32 = 0.5;

const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

/// Errors of the OCR models (the models' shared error type).
pub type OcrError = crate::onnx::ModelError;

/// The text of recognised lines, one per line.
pub fn lines_text(lines: &[OcrLine]) -> String {
    lines
        .iter()
        .map(|line| line.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One recognised line of text.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrLine {
    pub text: String,
    /// Mean character probability (0..1).
    pub confidence: f32,
    /// `[x0, y0, x1, y1]` in pixels of the input image (x1, y1 exclusive).
    pub bbox: [u32; 4],
}

/// The loaded detection and recognition models.
pub struct OcrEngine {
    det: Session,
    rec: Session,
    /// Index 0 is the CTC blank.
    keys: Vec<String>,
}

fn require(path: PathBuf) -> Result<PathBuf, OcrError> {
    crate::onnx::require("OCR", path)
}

impl OcrEngine {
    /// Loads the models from `<models>/ocr/` with `threads` intra-op threads each.
    pub fn load(models_dir: &Path, threads: usize) -> Result<OcrEngine, OcrError> {
        let dir = models_dir.join("ocr");
        let det_path = require(dir.join("ppocrv5_det.onnx"))?;
        let rec_path = require(dir.join("ppocrv5_rec.onnx"))?;
        let keys_path = require(dir.join("ppocr_keys_v5.txt"))?;
        let keys_text = std::fs::read_to_string(&keys_path).map_err(|source| OcrError::Io {
            path: keys_path.clone(),
            source,
        })?;
        let keys: Vec<String> = keys_text
            .strip_suffix('\n')
            .unwrap_or(&keys_text)
            .split('\n')
            .map(|k| k.strip_suffix('\r').unwrap_or(k).to_string())
            .collect();
        if keys.len() < 2 {
            return Err(OcrError::Model(format!(
                "{} holds no keys",
                keys_path.display()
            )));
        }
        let environment = crate::onnx::runtime(models_dir)?;
        Ok(OcrEngine {
            det: crate::onnx::session(&environment, &det_path, threads)?,
            rec: crate::onnx::session(&environment, &rec_path, threads)?,
            keys,
        })
    }

    /// [`OcrEngine::recognize`] on an engine shared by workers: locks it and turns a
    /// panic into an error.
    pub fn recognize_shared(
        engine: &std::sync::Mutex<OcrEngine>,
        image: &DynamicImage,
    ) -> Result<Vec<OcrLine>, OcrError> {
        let mut engine = engine.lock().unwrap_or_else(|e| e.into_inner());
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.recognize(image)))
            .unwrap_or_else(|_| Err(OcrError::Model("OCR panicked".to_string())))
    }

    /// Recognises the text of an image: lines in reading order.
    pub fn recognize(&mut self, image: &DynamicImage) -> Result<Vec<OcrLine>, OcrError> {
        let (width, height) = (image.width(), image.height());
        if width < 4 || height < 4 {
            return Ok(Vec::new());
        }
        // Cap the working size; boxes are mapped back to the input's pixels at the end.
        let scale = (MAX_IMAGE_SIDE as f32 / width.max(height) as f32).min(1.0);
        let rgb: RgbImage = if scale < 1.0 {
            let w = ((width as f32 * scale).round() as u32).max(1);
            let h = ((height as f32 * scale).round() as u32).max(1);
            image.resize_exact(w, h, FilterType::Triangle).to_rgb8()
        } else {
            image.to_rgb8()
        };
        let boxes = self.detect(&rgb)?;
        let mut pieces = self.recognize_boxes(&rgb, &boxes)?;
        if scale < 1.0 {
            for piece in &mut pieces {
                for (i, v) in piece.bbox.iter_mut().enumerate() {
                    let limit = if i % 2 == 0 { width } else { height };
                    *v = ((*v as f32 / scale).round() as u32).min(limit);
                }
            }
        }
        Ok(join_lines(pieces))
    }

    /// Text boxes `[x0, y0, x1, y1]` in pixels of `rgb`.
    fn detect(&mut self, rgb: &RgbImage) -> Result<Vec<[u32; 4]>, OcrError> {
        let (width, height) = rgb.dimensions();
        let ratio = (DET_MAX_SIDE as f32 / width.max(height) as f32).min(1.0);
        let round32 = |v: u32| ((((v as f32 * ratio) / 32.0).round() as u32) * 32).max(32);
        let (dw, dh) = (round32(width), round32(height));
        let resized = image::imageops::resize(rgb, dw, dh, FilterType::Triangle);
        let plane = (dw * dh) as usize;
        let mut input = vec![0f32; 3 * plane];
        for (i, pixel) in resized.pixels().enumerate() {
            for c in 0..3 {
                input[c * plane + i] = (pixel[c] as f32 / 255.0 - MEAN[c]) / STD[c];
            }
        }
        let tensor = Tensor::from_array(([1usize, 3, dh as usize, dw as usize], input))?;
        let outputs = self.det.run(ort::inputs![tensor])?;
        let (shape, prob) = outputs[0].try_extract_tensor::<f32>()?;
        let (mh, mw) = match **shape {
            [_, _, h, w] | [_, h, w] if (h * w) as usize == prob.len() => (h as usize, w as usize),
            _ => {
                return Err(OcrError::Model(format!(
                    "unexpected detection output shape {shape:?}"
                )))
            }
        };
        let sx = width as f32 / mw as f32;
        let sy = height as f32 / mh as f32;
        let mut boxes: Vec<[u32; 4]> = components(prob, mw, mh)
            .into_iter()
            .filter_map(|c| {
                let w = (c.x1 - c.x0 + 1) as f32;
                let h = (c.y1 - c.y0 + 1) as f32;
                if w.min(h) < 3.0 || c.score < BOX_THRESHOLD {
                    return None;
                }
                let d = w * h * UNCLIP_RATIO / (2.0 * (w + h));
                let x0 = ((c.x0 as f32 - d) * sx).floor().max(0.0) as u32;
                let y0 = ((c.y0 as f32 - d) * sy).floor().max(0.0) as u32;
                let x1 = (((c.x1 + 1) as f32 + d) * sx).ceil().min(width as f32) as u32;
                let y1 = (((c.y1 + 1) as f32 + d) * sy).ceil().min(height as f32) as u32;
                (x1 > x0 + 1 && y1 > y0 + 1).then_some([x0, y0, x1, y1])
            })
            .collect();
        // Keep the most prominent boxes when there are too many.
        if boxes.len() > MAX_BOXES {
            boxes.sort_by_key(|b| std::cmp::Reverse((b[2] - b[0]) * (b[3] - b[1])));
            boxes.truncate(MAX_BOXES);
        }
        Ok(boxes)
    }

    /// Recognises each box; boxes without confident text are dropped.
    fn recognize_boxes(
        &mut self,
        rgb: &RgbImage,
        boxes: &[[u32; 4]],
    ) -> Result<Vec<OcrLine>, OcrError> {
        // Crops resized to the recognition height, with their box.
        let mut crops: Vec<(RgbImage, [u32; 4])> = boxes
            .iter()
            .map(|b| {
                let mut crop =
                    image::imageops::crop_imm(rgb, b[0], b[1], b[2] - b[0], b[3] - b[1]).to_image();
                // Upright text columns: read them rotated (as PaddleOCR does).
                if crop.height() as f32 >= 1.5 * crop.width() as f32 {
                    crop = image::imageops::rotate270(&crop);
                }
                let w = ((REC_HEIGHT as f32 * crop.width() as f32 / crop.height() as f32).ceil()
                    as u32)
                    .clamp(REC_HEIGHT / 4, REC_MAX_WIDTH);
                let resized = image::imageops::resize(&crop, w, REC_HEIGHT, FilterType::Triangle);
                (resized, *b)
            })
            .collect();
        crops.sort_by_key(|(crop, _)| crop.width());
        let mut lines = Vec::new();
        for batch in crops.chunks(REC_BATCH) {
            let batch_width = batch
                .iter()
                .map(|(crop, _)| crop.width())
                .max()
                .unwrap_or(REC_HEIGHT)
                .div_ceil(8)
                * 8;
            let (bw, bh) = (batch_width as usize, REC_HEIGHT as usize);
            let plane = bw * bh;
            // Padding is 0 after normalisation, as in PaddleOCR.
            let mut input = vec![0f32; batch.len() * 3 * plane];
            for (n, (crop, _)) in batch.iter().enumerate() {
                for (x, y, pixel) in crop.enumerate_pixels() {
                    let at = y as usize * bw + x as usize;
                    for c in 0..3 {
                        input[(n * 3 + c) * plane + at] = pixel[c] as f32 / 127.5 - 1.0;
                    }
                }
            }
            let tensor = Tensor::from_array(([batch.len(), 3, bh, bw], input))?;
            let outputs = self.rec.run(ort::inputs![tensor])?;
            let (shape, probs) = outputs[0].try_extract_tensor::<f32>()?;
            let (n, t, classes) = match **shape {
                [n, t, c] if (n * t * c) as usize == probs.len() => {
                    (n as usize, t as usize, c as usize)
                }
                _ => {
                    return Err(OcrError::Model(format!(
                        "unexpected recognition output shape {shape:?}"
                    )))
                }
            };
            if n != batch.len() || classes != self.keys.len() {
                return Err(OcrError::Model(format!(
                    "recognition output has {n} rows of {classes} classes; expected {} rows \
                     and {} classes (the keys file)",
                    batch.len(),
                    self.keys.len()
                )));
            }
            for (i, (_, bbox)) in batch.iter().enumerate() {
                let rows = &probs[i * t * classes..(i + 1) * t * classes];
                let (text, confidence) = ctc_greedy(rows, classes, &self.keys);
                let text = text.trim().to_string();
                if !text.is_empty() && confidence >= MIN_CONFIDENCE {
                    lines.push(OcrLine {
                        text,
                        confidence,
                        bbox: *bbox,
                    });
                }
            }
        }
        Ok(lines)
    }
}

/// Greedy CTC decoding of `[T, C]` probabilities: best class per step, repeats merged,
/// blanks (class 0) dropped. Confidence is the mean probability of the kept classes.
pub fn ctc_greedy(probs: &[f32], classes: usize, keys: &[String]) -> (String, f32) {
    let mut text = String::new();
    let mut sum = 0f32;
    let mut kept = 0usize;
    let mut previous = 0usize;
    for row in probs.chunks_exact(classes) {
        let (best, p) =
            row.iter().enumerate().fold(
                (0usize, f32::MIN),
                |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc },
            );
        if best != 0 && best != previous {
            if let Some(key) = keys.get(best) {
                text.push_str(key);
                sum += p;
                kept += 1;
            }
        }
        previous = best;
    }
    let confidence = if kept == 0 { 0.0 } else { sum / kept as f32 };
    (text, confidence)
}

/// A connected component of the binary detection map.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Component {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
    /// Mean probability over the component's pixels.
    score: f32,
}

/// 8-connected components of `prob > DET_THRESHOLD` (iterative flood fill).
fn components(prob: &[f32], width: usize, height: usize) -> Vec<Component> {
    let mut seen = vec![false; width * height];
    let mut stack: Vec<usize> = Vec::new();
    let mut found = Vec::new();
    for start in 0..width * height {
        if seen[start] || prob[start] <= DET_THRESHOLD {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (width, height, 0, 0);
        let (mut sum, mut count) = (0f64, 0usize);
        while let Some(at) = stack.pop() {
            let (x, y) = (at % width, at / width);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
            sum += prob[at] as f64;
            count += 1;
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= width as i64 || ny >= height as i64 {
                        continue;
                    }
                    let next = ny as usize * width + nx as usize;
                    if !seen[next] && prob[next] > DET_THRESHOLD {
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
        }
        found.push(Component {
            x0,
            y0,
            x1,
            y1,
            score: (sum / count as f64) as f32,
        });
    }
    found
}

/// Joins pieces on the same baseline into lines, in reading order.
fn join_lines(mut pieces: Vec<OcrLine>) -> Vec<OcrLine> {
    pieces.sort_by_key(|p| (p.bbox[1] + p.bbox[3], p.bbox[0]));
    let mut groups: Vec<Vec<OcrLine>> = Vec::new();
    for piece in pieces {
        let (py0, py1) = (piece.bbox[1] as i64, piece.bbox[3] as i64);
        let best = groups
            .iter()
            .enumerate()
            .filter_map(|(i, group)| {
                let y0 = group.iter().map(|p| p.bbox[1]).min()? as i64;
                let y1 = group.iter().map(|p| p.bbox[3]).max()? as i64;
                let overlap = py1.min(y1) - py0.max(y0);
                let shorter = (py1 - py0).min(y1 - y0).max(1);
                (overlap * 2 >= shorter).then_some((i, overlap))
            })
            .max_by_key(|&(_, overlap)| overlap);
        match best {
            Some((i, _)) => groups[i].push(piece),
            None => groups.push(vec![piece]),
        }
    }
    let mut lines: Vec<OcrLine> = groups
        .into_iter()
        .map(|mut group| {
            group.sort_by_key(|p| p.bbox[0]);
            let chars: usize = group.iter().map(|p| p.text.chars().count()).sum();
            let confidence = group
                .iter()
                .map(|p| p.confidence * p.text.chars().count() as f32)
                .sum::<f32>()
                / chars.max(1) as f32;
            let bbox = [
                group.iter().map(|p| p.bbox[0]).min().unwrap_or(0),
                group.iter().map(|p| p.bbox[1]).min().unwrap_or(0),
                group.iter().map(|p| p.bbox[2]).max().unwrap_or(0),
                group.iter().map(|p| p.bbox[3]).max().unwrap_or(0),
            ];
            let text = group
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            OcrLine {
                text,
                confidence,
                bbox,
            }
        })
        .collect();
    lines.sort_by_key(|l| (l.bbox[1], l.bbox[0]));
    lines
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The models folder with the OCR models, or `None` (with a note) to skip a test.
    pub(crate) fn models_dir() -> Option<PathBuf> {
        let dir = crate::embed::test_models_dir("ocr");
        if dir.join("ocr/ppocrv5_det.onnx").exists()
            && dir.join("onnxruntime/libonnxruntime.so").exists()
        {
            Some(dir)
        } else {
            eprintln!("OCR models missing: skipping (run scripts/fetch-models)");
            None
        }
    }

    fn words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    fn share_found(expected: &str, lines: &[OcrLine]) -> f32 {
        let got: std::collections::HashSet<String> =
            lines.iter().flat_map(|l| words(&l.text)).collect();
        let wanted = words(expected);
        wanted.iter().filter(|w| got.contains(*w)).count() as f32 / wanted.len() as f32
    }

    #[test]
    fn ctc_greedy_merges_repeats_and_drops_blanks() {
        let keys: Vec<String> = ["blank", "a", "b", " "].map(String::from).to_vec();
        // Steps: a a blank a b b space
        let best = [1, 1, 0, 1, 2, 2, 3];
        let mut probs = vec![0.0f32; best.len() * 4];
        for (t, &k) in best.iter().enumerate() {
            probs[t * 4 + k] = 0.9;
        }
        let (text, confidence) = ctc_greedy(&probs, 4, &keys);
        assert_eq!(text, "aab ");
        assert!((confidence - 0.9).abs() < 1e-6);
    }

    #[test]
    fn components_are_found_without_recursion() {
        let (w, h) = (2000, 1000);
        // One huge component (a recursive fill would overflow) and one small blob.
        let mut prob = vec![0.0f32; w * h];
        for v in prob.iter_mut().take(w * 900) {
            *v = 0.9;
        }
        prob[950 * w + 10] = 0.5;
        let found = components(&prob, w, h);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].x1, found[0].y1), (w - 1, 899));
        assert!((found[0].score - 0.9).abs() < 1e-4);
        assert_eq!((found[1].x0, found[1].y0), (10, 950));
    }

    #[test]
    fn pieces_on_one_baseline_become_one_line() {
        let piece = |text: &str, bbox: [u32; 4]| OcrLine {
            text: text.to_string(),
            confidence: 0.9,
            bbox,
        };
        let lines = join_lines(vec![
            piece("second", [10, 50, 80, 70]),
            piece("value", [300, 12, 400, 31]),
            piece("label", [10, 10, 80, 30]),
        ]);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["label value", "second"]);
        assert_eq!(lines[0].bbox, [10, 10, 400, 31]);
    }

    #[test]
    fn missing_models_give_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = OcrEngine::load(dir.path(), 1).err().unwrap();
        assert!(
            error.to_string().contains("scripts/fetch-models"),
            "{error}"
        );
    }

    #[test]
    fn reads_the_sample_screenshot_and_survives_odd_images() {
        let Some(models) = models_dir() else { return };
        let mut engine = OcrEngine::load(&models, 2).unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../samples/profile/Pictures/Screenshots/Screenshot 2024-03-15 at 16.42.10.png");
        let image = image::open(&path).unwrap();
        let started = std::time::Instant::now();
        let lines = engine.recognize(&image).unwrap();
        eprintln!("screenshot: {:?}", started.elapsed());
        for line in &lines {
            eprintln!("  {:.2} {:?} {}", line.confidence, line.bbox, line.text);
        }
        let share = share_found(
            "WEIRF Grants Portal Application submitted Reference WEIRF-24-0193 Applicant \
             The Lantern Bookshop Project Children's Corner Amount requested Total project cost \
             Submitted 15 March 2024 Decision expected by 12 April 2024",
            &lines,
        );
        assert!(share >= 0.8, "only {share} of the words found");
        let joined: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        let lantern = joined
            .iter()
            .position(|l| l.contains("Lantern"))
            .expect("Lantern line");
        assert!(joined[lantern].contains("Applicant"), "{joined:?}");
        assert!(lines.windows(2).all(|w| w[0].bbox[1] <= w[1].bbox[1]));

        // Malformed or empty input: no lines, no panic.
        for image in [
            DynamicImage::new_rgb8(1, 1),
            DynamicImage::new_rgb8(0, 0),
            DynamicImage::ImageRgb8(RgbImage::from_pixel(3, 200, image::Rgb([255; 3]))),
            DynamicImage::ImageRgb8(RgbImage::from_pixel(640, 480, image::Rgb([255; 3]))),
            DynamicImage::ImageRgb8(RgbImage::from_pixel(5000, 40, image::Rgb([0; 3]))),
        ] {
            let lines = engine.recognize(&image).unwrap();
            assert!(
                lines.iter().all(|l| l.text.trim().is_empty()) || image.height() == 40,
                "{lines:?}"
            );
        }
    }

    #[test]
    #[cfg_attr(
        not(dentate_shared),
        ignore = "needs ../shared/corpus beside the repository"
    )]
    fn reads_the_tesseract_test_scan() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/corpus/realworld/Pictures/Scans/phototest.tif");
        if !path.exists() {
            panic!("{} is missing", path.display());
        }
        let Some(models) = models_dir() else { return };
        let mut engine = OcrEngine::load(&models, 2).unwrap();
        let image = image::open(&path).unwrap();
        let started = std::time::Instant::now();
        let lines = engine.recognize(&image).unwrap();
        eprintln!("phototest: {:?}", started.elapsed());
        for line in &lines {
            eprintln!("  {:.2} {:?} {}", line.confidence, line.bbox, line.text);
        }
        let share = share_found(
            "This is a lot of 12 point text to test the ocr code and see if it works on all \
             types of file format. The quick brown dog jumped over the lazy fox.",
            &lines,
        );
        assert!(share >= 0.8, "only {share} of the words found");
    }

    /// Prints time and lines per image: `OCR_IMAGES="a.png b.jpg" cargo test -p indexer
    /// --lib ocr::tests::measure -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn measure() {
        let Some(models) = models_dir() else { return };
        let mut engine = OcrEngine::load(&models, 2).unwrap();
        let list = std::env::var("OCR_IMAGES").unwrap_or_default();
        for path in list.split('\n').filter(|p| !p.is_empty()) {
            let image = match image::open(path) {
                Ok(image) => image,
                Err(error) => {
                    eprintln!("{path}: cannot decode: {error}");
                    continue;
                }
            };
            let started = std::time::Instant::now();
            let lines = engine.recognize(&image).unwrap();
            eprintln!(
                "{path} ({}x{}): {} lines in {:.2} s",
                image.width(),
                image.height(),
                lines.len(),
                started.elapsed().as_secs_f64()
            );
            for line in lines.iter().take(6) {
                eprintln!("    {:.2} {}", line.confidence, line.text);
            }
        }
    }
}
