//! Visual tags for photos and video frames: an EfficientNet-Lite0 ImageNet-1k classifier
//! (converted to ONNX by `scripts/convert-efficientnet`) names what a picture shows, and
//! WordNet hypernyms (precomputed into `imagenet_classes.tsv` from Debian's
//! `wordnet-base`) add the broader words people search with ("dog" for a golden
//! retriever, "coffee" for an espresso).
//!
//! The picture is resized to 224×224 and normalised as `(x - 127) / 128`; classes with a
//! softmax probability of at least [`MIN_PROBABILITY`] (at most [`MAX_TAGS`]) become
//! tags. ImageNet classes are objects, animals and scenes, so a document scan or a
//! screenshot rarely gets a confident tag; that is intended.

use std::path::{Path, PathBuf};

use image::imageops::FilterType;
use image::DynamicImage;
use ort::session::Session;
use ort::value::Tensor;

/// Side of the classifier input.
const SIDE: u32 = 224;
/// Weakest class kept as a tag.
pub const MIN_PROBABILITY: f32 = 0.15;
/// Most tags per picture.
pub const MAX_TAGS: usize = 3;

/// Errors of the tag model (the models' shared error type).
pub type TagError = crate::onnx::ModelError;

/// One ImageNet class.
#[derive(Debug, Clone, PartialEq)]
struct Class {
    /// The first lemma ("golden retriever").
    label: String,
    /// Broader WordNet terms, nearest first.
    broader: Vec<String>,
}

/// A tag of a picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    pub label: String,
    pub probability: f32,
    pub broader: Vec<String>,
}

/// The model files under `<models>/tags/`.
pub fn model_files(models_dir: &Path) -> [PathBuf; 2] {
    let dir = models_dir.join("tags");
    [
        dir.join("efficientnet_lite0.onnx"),
        dir.join("imagenet_classes.tsv"),
    ]
}

/// The loaded classifier.
pub struct Tagger {
    session: Session,
    classes: Vec<Class>,
}

impl Tagger {
    pub fn load(models_dir: &Path, threads: usize) -> Result<Tagger, TagError> {
        let [model, table] = model_files(models_dir);
        for path in [&model, &table] {
            if !path.exists() {
                return Err(TagError::MissingModel {
                    what: "tag",
                    path: path.clone(),
                });
            }
        }
        let text = std::fs::read_to_string(&table).map_err(|source| TagError::Io {
            path: table.clone(),
            source,
        })?;
        let classes = parse_classes(&text)
            .ok_or_else(|| TagError::Model(format!("{}: not 1000 classes", table.display())))?;
        let environment = crate::onnx::runtime(models_dir)?;
        let session = crate::onnx::session(&environment, &model, threads)?;
        Ok(Tagger { session, classes })
    }

    /// [`Tagger::tag`] on a tagger shared by workers: locks it and turns a panic into an
    /// error.
    pub fn tag_shared(
        tagger: &std::sync::Mutex<Tagger>,
        image: &DynamicImage,
    ) -> Result<Vec<Tag>, TagError> {
        let mut tagger = tagger.lock().unwrap_or_else(|e| e.into_inner());
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tagger.tag(image)))
            .unwrap_or_else(|_| Err(TagError::Model("tagging panicked".to_string())))
    }

    /// The tags of a picture, likeliest first.
    pub fn tag(&mut self, image: &DynamicImage) -> Result<Vec<Tag>, TagError> {
        if image.width() < 8 || image.height() < 8 {
            return Ok(Vec::new());
        }
        let rgb = image
            .resize_exact(SIDE, SIDE, FilterType::Triangle)
            .to_rgb8();
        let plane = (SIDE * SIDE) as usize;
        let mut input = vec![0f32; 3 * plane];
        for (i, pixel) in rgb.pixels().enumerate() {
            for c in 0..3 {
                input[c * plane + i] = (pixel[c] as f32 - 127.0) / 128.0;
            }
        }
        let tensor = Tensor::from_array(([1usize, 3, SIDE as usize, SIDE as usize], input))?;
        let outputs = self.session.run(ort::inputs!["image" => tensor])?;
        let (_, logits) = outputs["logits"].try_extract_tensor::<f32>()?;
        Ok(top_tags(logits, &self.classes))
    }
}

fn parse_classes(text: &str) -> Option<Vec<Class>> {
    let classes: Vec<Class> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut columns = line.split('\t');
            let _index = columns.next();
            let _wnid = columns.next();
            let label = columns
                .next()
                .unwrap_or_default()
                .split(',')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            let broader = columns
                .next()
                .unwrap_or_default()
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            Class { label, broader }
        })
        .collect();
    (classes.len() == 1000).then_some(classes)
}

fn top_tags(logits: &[f32], classes: &[Class]) -> Vec<Tag> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let total: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    let mut ranked: Vec<(usize, f32)> = logits
        .iter()
        .enumerate()
        .map(|(i, l)| (i, (l - max).exp() / total))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked
        .into_iter()
        .take(MAX_TAGS)
        .filter(|(_, p)| *p >= MIN_PROBABILITY)
        .filter_map(|(i, probability)| {
            let class = classes.get(i)?;
            Some(Tag {
                label: class.label.clone(),
                probability,
                broader: class.broader.clone(),
            })
        })
        .collect()
}

/// Searchable text of tags: "golden retriever, tennis ball (broader: retriever, dog, …)".
pub fn tags_text(tags: &[Tag]) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let labels: Vec<&str> = tags.iter().map(|t| t.label.as_str()).collect();
    let mut broader: Vec<&str> = Vec::new();
    for term in tags.iter().flat_map(|t| t.broader.iter()) {
        if !broader.contains(&term.as_str()) && !labels.contains(&term.as_str()) {
            broader.push(term);
        }
    }
    if broader.is_empty() {
        labels.join(", ")
    } else {
        format!("{} (broader: {})", labels.join(", "), broader.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes() -> Vec<Class> {
        let mut text = String::new();
        for i in 0..1000 {
            if i == 207 {
                text.push_str("207\tn02099601\tgolden retriever\tretriever, dog, canine\n");
            } else {
                text.push_str(&format!("{i}\tn{i:08}\tclass {i}, other name\n"));
            }
        }
        parse_classes(&text).unwrap()
    }

    #[test]
    fn parses_the_table_and_keeps_confident_classes() {
        let classes = classes();
        assert_eq!(classes[5].label, "class 5");
        assert!(classes[5].broader.is_empty());
        let mut logits = vec![0f32; 1000];
        logits[207] = 9.0;
        logits[3] = 8.0;
        let tags = top_tags(&logits, &classes);
        assert_eq!(tags.len(), 2, "{tags:?}");
        assert_eq!(tags[0].label, "golden retriever");
        assert_eq!(
            tags_text(&tags),
            "golden retriever, class 3 (broader: retriever, dog, canine)"
        );
        // A flat distribution gives no tag.
        assert!(top_tags(&[0.0; 1000], &classes).is_empty());
        assert!(parse_classes("0\tn1\tone\n").is_none());
    }
}
