//! "Bring your own" CLIP-style image–text embeddings. No CLIP weights are on any
//! registry this project can reach, so none ship; a user who has a model points
//! `dentate-index --clip DIR` and `dentate-searchd --clip DIR` at a folder laid out as:
//!
//! ```text
//! DIR/vision.onnx               input  pixel_values f32 [N, 3, H, W]
//!                               output (the first) image embeddings f32 [N, D]
//! DIR/text.onnx                 input  input_ids i64 [N, T] (+ attention_mask i64 [N, T]
//!                               when the graph has it); output (the first) f32 [N, D]
//! DIR/tokenizer.json            a Hugging Face `tokenizers` file
//! DIR/preprocessor_config.json  {"size": …, "crop_size": …, "image_mean": [3],
//!                                "image_std": [3], "rescale_factor": 1/255}
//! ```
//!
//! (the layout of Hugging Face / optimum CLIP exports, with the two towers split).
//! Images are resized so the shorter side is `size`, centre-cropped to `crop_size`,
//! rescaled and normalised; both embeddings are L2-normalised, so a dot product is the
//! cosine. The indexer stores one vector per image unit (`image_vectors` in the
//! manifest); the daemon embeds the query with the text tower and adds the image hits as
//! a third list to the hybrid fusion.

use std::path::{Path, PathBuf};

use image::imageops::FilterType;
use image::DynamicImage;
use ort::session::Session;
use ort::value::Tensor;

/// Errors of a CLIP model folder (the models' shared error type).
pub type ClipError = crate::onnx::ModelError;

/// Image preprocessing read from `preprocessor_config.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Preprocess {
    /// Shorter side after resizing.
    pub size: u32,
    /// Side of the centre crop (the model's input).
    pub crop: u32,
    pub mean: [f32; 3],
    pub std: [f32; 3],
    pub rescale: f32,
}

impl Preprocess {
    pub fn parse(json: &serde_json::Value) -> Result<Preprocess, String> {
        let side = |value: &serde_json::Value| -> Option<u32> {
            value
                .as_u64()
                .or_else(|| value["shortest_edge"].as_u64())
                .or_else(|| value["height"].as_u64())
                .map(|v| v as u32)
        };
        let triple = |key: &str, default: [f32; 3]| -> Result<[f32; 3], String> {
            match json[key].as_array() {
                None => Ok(default),
                Some(values) if values.len() == 3 => {
                    let mut out = [0f32; 3];
                    for (o, v) in out.iter_mut().zip(values) {
                        *o = v.as_f64().ok_or(format!("{key} holds a non-number"))? as f32;
                    }
                    Ok(out)
                }
                Some(_) => Err(format!("{key} must hold 3 numbers")),
            }
        };
        let size = side(&json["size"]).ok_or("no \"size\"")?;
        let crop = side(&json["crop_size"]).unwrap_or(size);
        if size == 0 || crop == 0 || size > 4096 || crop > 4096 {
            return Err(format!("unusable size {size} / crop_size {crop}"));
        }
        let std = triple("image_std", [1.0; 3])?;
        if std.contains(&0.0) {
            return Err("image_std holds a zero".into());
        }
        Ok(Preprocess {
            size,
            crop,
            mean: triple("image_mean", [0.0; 3])?,
            std,
            rescale: json["rescale_factor"].as_f64().unwrap_or(1.0 / 255.0) as f32,
        })
    }

    /// `[3, crop, crop]` planar pixels of the image.
    pub fn pixels(&self, image: &DynamicImage) -> Vec<f32> {
        let (w, h) = (image.width().max(1), image.height().max(1));
        let scale = self.size as f32 / w.min(h) as f32;
        let (nw, nh) = (
            ((w as f32 * scale).round() as u32).max(self.crop),
            ((h as f32 * scale).round() as u32).max(self.crop),
        );
        let resized = image.resize_exact(nw, nh, FilterType::Triangle).to_rgb8();
        let (x0, y0) = ((nw - self.crop) / 2, (nh - self.crop) / 2);
        let plane = (self.crop * self.crop) as usize;
        let mut out = vec![0f32; 3 * plane];
        for y in 0..self.crop {
            for x in 0..self.crop {
                let pixel = resized.get_pixel(x0 + x, y0 + y);
                let i = (y * self.crop + x) as usize;
                for c in 0..3 {
                    out[c * plane + i] =
                        (pixel[c] as f32 * self.rescale - self.mean[c]) / self.std[c];
                }
            }
        }
        out
    }
}

/// The loaded model (the text tower only when asked for).
pub struct Clip {
    name: String,
    preprocess: Preprocess,
    vision: Option<Session>,
    text: Option<(Session, tokenizers::Tokenizer, bool)>,
}

fn layout(dir: &Path, detail: impl Into<String>) -> ClipError {
    ClipError::Layout {
        what: "CLIP",
        dir: dir.to_path_buf(),
        detail: detail.into(),
    }
}

impl Clip {
    /// Loads the towers asked for from `dir` (see the module docs for the layout).
    pub fn load(
        dir: &Path,
        models_dir: &Path,
        vision: bool,
        text: bool,
    ) -> Result<Clip, ClipError> {
        let file = |name: &str| -> Result<PathBuf, ClipError> {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(layout(dir, format!("{name} is missing")))
            }
        };
        let config_path = file("preprocessor_config.json")?;
        let config: serde_json::Value = std::fs::read(&config_path)
            .map_err(|e| layout(dir, format!("preprocessor_config.json: {e}")))
            .and_then(|bytes| {
                serde_json::from_slice(&bytes)
                    .map_err(|e| layout(dir, format!("preprocessor_config.json: {e}")))
            })?;
        let preprocess = Preprocess::parse(&config)
            .map_err(|e| layout(dir, format!("preprocessor_config.json: {e}")))?;
        let environment = crate::onnx::runtime(models_dir)?;
        let session = |path: &Path| -> Result<Session, ClipError> {
            crate::onnx::session(&environment, path, 2)
        };
        let vision = if vision {
            Some(session(&file("vision.onnx")?)?)
        } else {
            None
        };
        let text = if text {
            let model = session(&file("text.onnx")?)?;
            let tokenizer = tokenizers::Tokenizer::from_file(file("tokenizer.json")?)
                .map_err(|e| layout(dir, format!("tokenizer.json: {e}")))?;
            let wants_mask = model.inputs().iter().any(|i| i.name() == "attention_mask");
            Some((model, tokenizer, wants_mask))
        } else {
            None
        };
        let name = format!(
            "clip:{}",
            dir.file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default()
        );
        Ok(Clip {
            name,
            preprocess,
            vision,
            text,
        })
    }

    /// Recorded with the vectors: `clip:<folder name>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The L2-normalised embedding of a picture.
    pub fn embed_image(&mut self, image: &DynamicImage) -> Result<Vec<f32>, ClipError> {
        let crop = self.preprocess.crop as usize;
        let pixels = self.preprocess.pixels(image);
        let vision = self
            .vision
            .as_mut()
            .ok_or_else(|| ClipError::Model("the vision tower is not loaded".into()))?;
        let outputs = vision.run(ort::inputs![
            "pixel_values" => Tensor::from_array(([1usize, 3, crop, crop], pixels))?
        ])?;
        let (_, values) = outputs[0].try_extract_tensor::<f32>()?;
        Ok(normalized(values.to_vec()))
    }

    /// The L2-normalised embedding of a text.
    pub fn embed_text(&mut self, text: &str) -> Result<Vec<f32>, ClipError> {
        let (model, tokenizer, wants_mask) = self
            .text
            .as_mut()
            .ok_or_else(|| ClipError::Model("the text tower is not loaded".into()))?;
        let encoding = tokenizer
            .encode(text, true)
            .map_err(|e| ClipError::Model(format!("tokenizer: {e}")))?;
        let mut ids: Vec<i64> = encoding.get_ids().iter().map(|&i| i as i64).collect();
        ids.truncate(77);
        if ids.is_empty() {
            ids.push(0);
        }
        let len = ids.len();
        let ids_tensor = Tensor::from_array(([1usize, len], ids))?;
        let outputs = if *wants_mask {
            let mask = Tensor::from_array(([1usize, len], vec![1i64; len]))?;
            model.run(ort::inputs!["input_ids" => ids_tensor, "attention_mask" => mask])?
        } else {
            model.run(ort::inputs!["input_ids" => ids_tensor])?
        };
        let (_, values) = outputs[0].try_extract_tensor::<f32>()?;
        Ok(normalized(values.to_vec()))
    }
}

fn normalized(mut vector: Vec<f32>) -> Vec<f32> {
    crate::embed::normalize(&mut vector);
    vector
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessing_follows_the_config() {
        let config = serde_json::json!({
            "size": {"shortest_edge": 4}, "crop_size": {"height": 2, "width": 2},
            "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]
        });
        let pre = Preprocess::parse(&config).unwrap();
        assert_eq!((pre.size, pre.crop), (4, 2));
        let red =
            DynamicImage::ImageRgb8(image::RgbImage::from_pixel(8, 4, image::Rgb([255, 0, 0])));
        let pixels = pre.pixels(&red);
        assert_eq!(pixels.len(), 12);
        assert!(
            (pixels[0] - 1.0).abs() < 1e-5 && (pixels[4] + 1.0).abs() < 1e-5,
            "{pixels:?}"
        );
        assert!(Preprocess::parse(&serde_json::json!({"crop_size": 3})).is_err());
        assert!(
            Preprocess::parse(&serde_json::json!({"size": 3, "image_std": [1, 0, 1]})).is_err()
        );
    }
}
