//! Enrichment after the lexical commit: the text vectors and the CLIP image vectors.
//! Unlike a [`super::Stage`], which enriches one freshly converted file, a phase works
//! over the whole index in batches across files (a model call is cheapest on many
//! inputs at once) and owes work by the same idea: a file whose vectors are missing or
//! were made for other content or another model. Each phase loads its model only when
//! something is owed, writes one transaction per file (an interrupted phase resumes), and
//! reports its own block of the run summary. Adding one: a type implementing
//! [`VectorPhase`] and one line in [`VectorPhases::new`].

use std::path::PathBuf;
use std::time::Instant;

use crate::error::IndexError;
use crate::manifest::Manifest;
use crate::options::{IndexOptions, Progress};
use crate::schema::Fields;
use crate::summary::{EmbeddingSummary, RunSummary, StageStatus};

/// What a phase reads and writes.
pub struct PhaseContext<'a> {
    pub index: &'a tantivy::Index,
    pub fields: &'a Fields,
    pub manifest: &'a mut Manifest,
    pub progress: &'a dyn Progress,
}

/// One kind of work after the lexical commit.
pub trait VectorPhase {
    /// Short name, for logs.
    fn name(&self) -> &'static str;
    /// Does the owed work and writes its block of the summary (also when disabled).
    fn run(
        &self,
        context: &mut PhaseContext<'_>,
        summary: &mut RunSummary,
    ) -> Result<(), IndexError>;
}

/// The phases of a run, in order.
pub struct VectorPhases(Vec<Box<dyn VectorPhase>>);

impl VectorPhases {
    pub fn new(options: &IndexOptions) -> VectorPhases {
        VectorPhases(vec![
            Box::new(TextVectors {
                options: options.clone(),
            }),
            Box::new(ClipVectors {
                dir: options.clip_dir.clone(),
                options: options.clone(),
            }),
        ])
    }

    pub fn run(
        &self,
        context: &mut PhaseContext<'_>,
        summary: &mut RunSummary,
    ) -> Result<(), IndexError> {
        for phase in &self.0 {
            tracing::debug!(phase = phase.name(), "vector phase");
            phase.run(context, summary)?;
        }
        Ok(())
    }
}

/// Text vectors of every unit (`title + text` through MiniLM), see `crate::vectors`.
struct TextVectors {
    /// Its models (`embed` off: `--no-embed`), threads and stop flag.
    options: IndexOptions,
}

impl VectorPhase for TextVectors {
    fn name(&self) -> &'static str {
        "text vectors"
    }

    fn run(
        &self,
        context: &mut PhaseContext<'_>,
        summary: &mut RunSummary,
    ) -> Result<(), IndexError> {
        let manifest = &mut *context.manifest;
        let models_dir = self.options.embed.then_some(&self.options.models_dir);
        let form = self.options.text_model();
        summary.embedding = match models_dir {
            None => EmbeddingSummary {
                status: StageStatus::Skipped,
                message: Some("disabled (--no-embed)".to_string()),
                ..EmbeddingSummary::default()
            },
            Some(models_dir) => {
                let started = Instant::now();
                manifest.delete_orphan_vectors()?;
                let windows = self.options.text_windows;
                let needed = manifest.files_needing_embedding(form.name, windows)?;
                let of_another_model = manifest.files_embedded_by_other_models(form.name)?;
                let mut embedding = if needed.is_empty() {
                    // Nothing to embed: do not even load the model.
                    EmbeddingSummary {
                        status: StageStatus::Done,
                        ..EmbeddingSummary::default()
                    }
                } else {
                    let threads = self.options.threads;
                    match crate::embed::TextEncoder::load_model(models_dir, form, threads) {
                        Ok(encoder) => crate::vectors::embed_phase(
                            context.index,
                            context.fields,
                            manifest,
                            &mut encoder.with_max_windows(windows),
                            needed,
                            context.progress,
                            &|| self.options.stop_requested(),
                        )?,
                        Err(error) => EmbeddingSummary {
                            status: StageStatus::Skipped,
                            message: Some(error.to_string()),
                            ..EmbeddingSummary::default()
                        },
                    }
                };
                embedding.files_of_another_model = of_another_model
                    .saturating_sub(manifest.files_embedded_by_other_models(form.name)?);
                embedding.seconds = started.elapsed().as_secs_f64();
                embedding
            }
        };
        summary.embedding.model = form.name.to_string();
        let (with_vectors, units_total) = manifest.embedding_coverage()?;
        summary.embedding.coverage = if units_total == 0 {
            1.0
        } else {
            with_vectors as f64 / units_total as f64
        };
        Ok(())
    }
}

/// Image vectors of a CLIP-style model of the user's (`--clip DIR`), see `crate::clip`.
struct ClipVectors {
    dir: Option<PathBuf>,
    options: IndexOptions,
}

impl VectorPhase for ClipVectors {
    fn name(&self) -> &'static str {
        "clip vectors"
    }

    fn run(
        &self,
        context: &mut PhaseContext<'_>,
        summary: &mut RunSummary,
    ) -> Result<(), IndexError> {
        summary.clip = match &self.dir {
            Some(dir) => crate::clip::clip_phase(
                dir,
                &self.options,
                context.index,
                context.fields,
                context.manifest,
            )?,
            None => crate::clip::ClipSummary {
                status: StageStatus::Disabled,
                ..crate::clip::ClipSummary::default()
            },
        };
        Ok(())
    }
}
