//! The text-vector phase: after the lexical commit, every indexed file whose vectors are
//! missing or were computed for other content gets them (unit `title + text` through
//! the text encoder, batched across files), reusing the vector of any unchanged text;
//! each file's vectors are written in one transaction, so an interrupted phase resumes.
//! A text longer than the model's window is embedded as overlapping windows
//! ([`crate::windows`]), whose vectors are stored one after another as the unit's
//! vector bytes.

use tantivy::Index;

use crate::error::IndexError;
use crate::manifest::Manifest;
use crate::options::Progress;
use crate::schema::Fields;
use crate::summary::EmbeddingSummary;

/// Texts gathered across files before the encoder sorts them by length and embeds them
/// (see `embed::TextEncoder::embed`); each file is written once all its texts are in.
const EMBED_BATCH: usize = 256;

struct FileVectors {
    path: String,
    file_id: String,
    hash: String,
    /// `(unit_id, text_hash, vector bytes)`; `None` bytes wait for the model.
    rows: Vec<(String, String, Option<Vec<u8>>)>,
    /// Texts to embed, with their row index: a unit's windows, in order (one window
    /// for a text the model sees whole; see [`crate::windows`]).
    todo: Vec<(usize, Vec<String>)>,
}

/// Computes the missing vectors of every indexed file whose vectors are missing or
/// stale, reusing vectors of unchanged texts, with the encoder's windows; each file is
/// written in one transaction.
pub fn embed_phase(
    index: &Index,
    fields: &Fields,
    manifest: &mut Manifest,
    encoder: &mut crate::embed::TextEncoder,
    todo: Vec<(String, String, String)>,
    progress: &dyn Progress,
    stop_requested: &dyn Fn() -> bool,
) -> Result<EmbeddingSummary, IndexError> {
    use crate::embed::{text_hash, unit_embedding_text, TEXT_DIM};
    let mut summary = EmbeddingSummary {
        status: crate::summary::StageStatus::Done,
        ..EmbeddingSummary::default()
    };
    progress.embedding(todo.len());
    if todo.is_empty() {
        return Ok(summary);
    }
    // Only vectors of the encoder's own model are reused.
    let model = encoder.form().name;
    let windower = encoder.windower();
    let reader = index.reader()?;
    let searcher = reader.searcher();
    let mut group: Vec<FileVectors> = Vec::new();
    let mut group_texts = 0usize;
    for (path, file_id, hash) in todo {
        if stop_requested() {
            // What is grouped so far is still embedded and written below; the next run
            // picks up the rest.
            break;
        }
        let units = crate::store::units_of_file(&searcher, fields, &file_id)?;
        let existing = manifest.vectors_of_file_by(&file_id, model)?;
        let mut file = FileVectors {
            path,
            file_id,
            hash,
            rows: Vec::new(),
            todo: Vec::new(),
        };
        for unit in units {
            let text = unit_embedding_text(&unit.path, &unit.title, &unit.text);
            let hash = text_hash(&text);
            let texts = windower.window_texts(&text);
            // Vectors made with other windows (or before long texts had windows) hold
            // another number of vectors: not reused.
            let length = texts.len() * TEXT_DIM * 4;
            let reused = match existing.get(&unit.unit_id) {
                Some((old_hash, bytes)) if *old_hash == hash && bytes.len() == length => {
                    Some(bytes.clone())
                }
                _ => manifest.vector_for_text(&hash, model, length)?,
            };
            if reused.is_some() {
                summary.units_reused += 1;
            } else {
                file.todo.push((file.rows.len(), texts));
            }
            file.rows.push((unit.unit_id, hash, reused));
        }
        group_texts += file.todo.iter().map(|(_, w)| w.len()).sum::<usize>();
        group.push(file);
        if group_texts >= EMBED_BATCH {
            flush_group(&mut group, encoder, manifest, progress, &mut summary)?;
            group_texts = 0;
        }
    }
    flush_group(&mut group, encoder, manifest, progress, &mut summary)?;
    Ok(summary)
}

fn flush_group(
    group: &mut Vec<FileVectors>,
    encoder: &mut crate::embed::TextEncoder,
    manifest: &mut Manifest,
    progress: &dyn Progress,
    summary: &mut EmbeddingSummary,
) -> Result<(), IndexError> {
    // Identical texts (a signature, a repeated header) are embedded once per group.
    let mut distinct: Vec<String> = Vec::new();
    let mut slot_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut slots: Vec<usize> = Vec::new();
    for text in group
        .iter()
        .flat_map(|f| f.todo.iter())
        .flat_map(|(_, windows)| windows)
    {
        let slot = *slot_of.entry(text.as_str()).or_insert_with(|| {
            distinct.push(text.clone());
            distinct.len() - 1
        });
        slots.push(slot);
    }
    let vectors = match encoder.embed(&distinct) {
        Ok(vectors) => vectors,
        Err(error) => {
            // A model failure is not a per-file problem: stop embedding, keep what is done.
            tracing::error!(%error, "embedding failed");
            summary.status = crate::summary::StageStatus::Failed;
            summary.message = Some(error.to_string());
            group.clear();
            return Ok(());
        }
    };
    let mut next = slots.into_iter();
    for mut file in group.drain(..) {
        for (row, windows) in &file.todo {
            let mut bytes = Vec::with_capacity(windows.len() * crate::embed::TEXT_DIM * 4);
            for _ in windows {
                if let Some(vector) = next.next().and_then(|slot| vectors.get(slot)) {
                    bytes.extend(crate::embed::to_bytes(vector));
                }
            }
            file.rows[*row].2 = Some(bytes);
            summary.windows_embedded += windows.len() as u64;
        }
        summary.units_embedded += file.todo.len() as u64;
        let rows: Vec<(String, String, Vec<u8>)> = file
            .rows
            .into_iter()
            .filter_map(|(unit_id, hash, bytes)| Some((unit_id, hash, bytes?)))
            .collect();
        manifest.replace_file_vectors(
            &file.path,
            &file.file_id,
            &file.hash,
            encoder.form().name,
            encoder.max_windows(),
            &rows,
        )?;
        summary.files += 1;
        progress.file_embedded(&file.path);
    }
    Ok(())
}
