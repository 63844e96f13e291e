//! Dense retrieval's query side: the text encoder for questions and a cache of their
//! embeddings. The vectors themselves are searched through the storage boundary
//! (`index::api::VectorSearch`; the embedded exact-scan store is
//! `index::embedded::EmbeddedVectors`).

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

use indexer::embed::TextEncoder;

use crate::error::SearchError;

/// Query embeddings kept for repeated queries.
const QUERY_CACHE: usize = 512;
/// Query text → embedding, with insertion order for eviction.
type QueryCache = (HashMap<String, Arc<Vec<f32>>>, VecDeque<String>);

/// The query side of dense retrieval: the encoder and its cache (the vectors are the
/// storage backend's, searched through `index::api::VectorSearch`).
pub struct Dense {
    encoder: Mutex<TextEncoder>,
    cache: Mutex<QueryCache>,
}

impl Dense {
    /// Loads the query encoder.
    pub fn open(models_dir: &Path) -> Result<Dense, SearchError> {
        let encoder = TextEncoder::load(models_dir, 1)
            .map_err(|e| SearchError::Unavailable(e.to_string()))?;
        Ok(Dense {
            encoder: Mutex::new(encoder),
            cache: Mutex::new((HashMap::new(), VecDeque::new())),
        })
    }

    /// The query's embedding (cached).
    pub fn embed_query(&self, query: &str) -> Result<Arc<Vec<f32>>, SearchError> {
        {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(vector) = cache.0.get(query) {
                return Ok(vector.clone());
            }
        }
        let vector = {
            let mut encoder = self.encoder.lock().unwrap_or_else(|p| p.into_inner());
            encoder
                .embed(&[query.to_string()])
                .map_err(|e| SearchError::Unavailable(e.to_string()))?
                .pop()
                .ok_or_else(|| SearchError::Unavailable("encoder returned nothing".into()))?
        };
        let vector = Arc::new(vector);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.0.len() >= QUERY_CACHE {
            if let Some(oldest) = cache.1.pop_front() {
                cache.0.remove(&oldest);
            }
        }
        cache.0.insert(query.to_string(), vector.clone());
        cache.1.push_back(query.to_string());
        Ok(vector)
    }
}
