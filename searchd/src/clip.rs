//! Text-to-image search with a user-supplied CLIP-style model (`--clip DIR`, see
//! `indexer::clip` for the folder layout): the query goes through the text tower and is
//! compared with the image vectors the indexer stored (through the storage boundary's
//! `VectorSpace::Image`). The hits join the hybrid fusion as a third list.

use std::path::Path;
use std::sync::{Arc, Mutex};

use models::clip::Clip;

use crate::error::SearchError;

/// The daemon's CLIP side: the text tower (the image vectors are the storage
/// backend's, searched in `VectorSpace::Image`). Clones share the loaded model (one per
/// daemon, whatever the number of profiles).
#[derive(Clone)]
pub struct ClipSearch {
    model: Arc<Mutex<Clip>>,
    name: String,
}

impl ClipSearch {
    /// Loads the text tower.
    pub fn open(dir: &Path, models_dir: &Path) -> Result<ClipSearch, SearchError> {
        let model = Clip::load(dir, models_dir, false, true)
            .map_err(|e| SearchError::Unavailable(e.to_string()))?;
        let name = model.name().to_string();
        Ok(ClipSearch {
            model: Arc::new(Mutex::new(model)),
            name,
        })
    }

    /// The model's name (the image vectors are stored under it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The text tower's embedding of a query.
    pub fn embed_text(&self, query: &str) -> Result<Vec<f32>, SearchError> {
        self.model
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .embed_text(query)
            .map_err(|e| SearchError::Unavailable(e.to_string()))
    }
}
