//! The CLIP phase of a run: every indexed image whose vector is missing or stale gets
//! one from the image tower of a bring-your-own CLIP model ([`::models::clip`]).

use std::path::Path;

pub use ::models::clip::{Clip, ClipError, Preprocess};

/// What the CLIP phase of a run did.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct ClipSummary {
    /// `done`, `disabled` (no `--clip`), or `failed` (the model did not load).
    pub status: crate::stage_status::StageStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `clip:<folder name>`.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub model: String,
    /// Images embedded in this run.
    pub images: u64,
    pub seconds: f64,
}

/// Embeds every indexed image whose vector is missing or stale (one transaction per
/// file); an image that cannot be decoded is skipped with a warning.
pub(crate) fn clip_phase(
    dir: &Path,
    options: &crate::options::IndexOptions,
    index: &tantivy::Index,
    fields: &crate::schema::Fields,
    manifest: &mut crate::Manifest,
) -> Result<ClipSummary, crate::IndexError> {
    let started = std::time::Instant::now();
    let mut clip = match Clip::load(dir, &options.models_dir, true, false) {
        Ok(clip) => clip,
        Err(error) => {
            tracing::warn!(%error, "CLIP embeddings skipped");
            return Ok(ClipSummary {
                status: crate::stage_status::StageStatus::Failed,
                message: Some(error.to_string()),
                ..ClipSummary::default()
            });
        }
    };
    let mut summary = ClipSummary {
        status: crate::stage_status::StageStatus::Done,
        model: clip.name().to_string(),
        ..ClipSummary::default()
    };
    let done = manifest.image_vector_hashes(clip.name())?;
    let todo: Vec<crate::FileRecord> = manifest
        .all()?
        .into_iter()
        .filter(|r| {
            r.status == crate::FileStatus::Indexed
                && r.parent_path.is_none()
                && r.file_type == Some(converters::FileType::Image)
                && r.hash.is_some()
                && done.get(&r.file_id) != r.hash.as_ref()
        })
        .collect();
    if todo.is_empty() {
        summary.seconds = started.elapsed().as_secs_f64();
        return Ok(summary);
    }
    let reader = index.reader()?;
    let searcher = reader.searcher();
    for record in todo {
        let path = options.profile.join(&record.path);
        let Some(image) = std::fs::read(&path)
            .ok()
            .and_then(|bytes| crate::pictures::first_picture(&record.path, &bytes))
        else {
            tracing::warn!(path = %record.path, "CLIP: cannot decode the image");
            continue;
        };
        let vector = match clip.embed_image(&image) {
            Ok(vector) => crate::embed::to_bytes(&vector),
            Err(error) => {
                tracing::warn!(path = %record.path, %error, "CLIP embedding failed");
                continue;
            }
        };
        let units = crate::store::units_of_file(&searcher, fields, &record.file_id)?;
        let rows: Vec<(String, Vec<u8>)> = units
            .into_iter()
            .filter(|u| u.kind == converters::unit::UnitKind::Image)
            .map(|u| (u.unit_id, vector.clone()))
            .collect();
        let hash = record.hash.clone().unwrap_or_default();
        manifest.replace_image_vectors(&record.file_id, &hash, clip.name(), &rows)?;
        summary.images += 1;
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}
