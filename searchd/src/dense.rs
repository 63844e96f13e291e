//! Dense retrieval's query side: the text encoder for questions and a cache of their
//! embeddings. The vectors themselves are searched through the storage boundary
//! (`index::api::VectorSearch`; the embedded exact-scan store is
//! `index::embedded::EmbeddedVectors`).

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use indexer::embed::TextEncoder;

use crate::error::SearchError;

/// Query embeddings kept for repeated queries.
const QUERY_CACHE: usize = 512;
/// Query text → embedding, with insertion order for eviction.
type QueryCache = (HashMap<String, Arc<Vec<f32>>>, VecDeque<String>);

/// The query side of dense retrieval: a pool of encoders and their cache (the vectors
/// are the storage backend's, searched through `index::api::VectorSearch`).
///
/// One single-threaded encoder session per core: concurrent questions are embedded in
/// parallel instead of queueing behind one session (a question is short; one thread per
/// session is the fastest setting for it).
pub struct Dense {
    /// Shared by every profile of the daemon ([`Dense::share`]); the cache is not.
    encoders: Arc<[Mutex<TextEncoder>]>,
    next: AtomicUsize,
    cache: Mutex<QueryCache>,
}

/// Encoder sessions at most (each holds the model once).
const MAX_ENCODERS: usize = 4;

impl Dense {
    /// Loads the query encoders (one per core, at most [`MAX_ENCODERS`]).
    pub fn open(models_dir: &Path) -> Result<Dense, SearchError> {
        let count = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, MAX_ENCODERS);
        let encoders = (0..count)
            .map(|_| {
                TextEncoder::load(models_dir, 1)
                    .map(Mutex::new)
                    .map_err(|e| SearchError::Unavailable(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Dense {
            encoders: encoders.into(),
            next: AtomicUsize::new(0),
            cache: Mutex::new((HashMap::new(), VecDeque::new())),
        })
    }

    /// The same encoders with a cache of its own (another profile's queries are
    /// neither seen nor timed through it).
    pub fn share(&self) -> Dense {
        Dense {
            encoders: self.encoders.clone(),
            next: AtomicUsize::new(0),
            cache: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// A free encoder if there is one, else the next in turn (waiting for it).
    fn encoder(&self) -> std::sync::MutexGuard<'_, TextEncoder> {
        for encoder in self.encoders.iter() {
            if let Ok(guard) = encoder.try_lock() {
                return guard;
            }
        }
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.encoders.len();
        self.encoders[turn]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
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
            let mut encoder = self.encoder();
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
