//! Text-to-image search with a user-supplied CLIP-style model (`--clip DIR`, see
//! `indexer::clip` for the folder layout): the query goes through the text tower and is
//! compared with the image vectors the indexer stored (exact scan, reloaded when the
//! manifest's vector generation changes). The hits join the hybrid fusion as a third list.

use std::path::Path;
use std::sync::{Arc, Mutex};

use index::vector::from_bytes;
use index::Manifest;
use indexer::clip::Clip;

use crate::dense::{dot, Reloading, VectorFilter};
use crate::error::SearchError;

/// Image vectors in memory.
#[derive(Default)]
struct ImageStore {
    unit_ids: Vec<String>,
    dim: usize,
    matrix: Vec<f32>,
}

impl ImageStore {
    fn load(manifest: &Manifest, model: &str) -> Result<ImageStore, SearchError> {
        let mut store = ImageStore::default();
        for (unit_id, _file_id, bytes) in manifest.image_vectors(model)? {
            let Some(vector) = from_bytes(&bytes) else {
                continue;
            };
            if store.dim == 0 {
                store.dim = vector.len();
            }
            if vector.len() != store.dim || vector.is_empty() {
                continue;
            }
            store.unit_ids.push(unit_id);
            store.matrix.extend_from_slice(&vector);
        }
        Ok(store)
    }
}

/// The daemon's CLIP side.
pub struct ClipSearch {
    model: Mutex<Clip>,
    store: Reloading<ImageStore>,
}

impl ClipSearch {
    /// Loads the text tower and the stored image vectors.
    pub fn open(
        dir: &Path,
        models_dir: &Path,
        manifest: &Manifest,
    ) -> Result<ClipSearch, SearchError> {
        let model = Clip::load(dir, models_dir, false, true)
            .map_err(|e| SearchError::Unavailable(e.to_string()))?;
        let name = model.name().to_string();
        let store = Reloading::open(manifest, move |m| Ok(Arc::new(ImageStore::load(m, &name)?)))?;
        Ok(ClipSearch {
            model: Mutex::new(model),
            store,
        })
    }

    /// Image vectors held.
    pub fn len(&self) -> usize {
        self.store.peek().unit_ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `k` image units closest to the query: `(unit_id, cosine)`, best first.
    pub fn search(
        &self,
        manifest: &Manifest,
        query: &str,
        k: usize,
        filter: &VectorFilter,
    ) -> Result<Vec<(String, f32)>, SearchError> {
        let store = self.store.get(manifest)?;
        if store.unit_ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let query = self
            .model
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .embed_text(query)
            .map_err(|e| SearchError::Unavailable(e.to_string()))?;
        if query.len() != store.dim {
            return Err(SearchError::Unavailable(format!(
                "CLIP text embedding has {} dimensions, the image vectors {}",
                query.len(),
                store.dim
            )));
        }
        let mut scored: Vec<(f32, usize)> = store
            .matrix
            .chunks_exact(store.dim)
            .enumerate()
            .filter(|(row, _)| {
                filter
                    .unit_ids
                    .as_ref()
                    .is_none_or(|allowed| allowed.contains(&store.unit_ids[*row]))
            })
            .map(|(row, vector)| (dot(vector, &query), row))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(k);
        Ok(scored
            .into_iter()
            .map(|(score, row)| (store.unit_ids[row].clone(), score))
            .collect())
    }
}
