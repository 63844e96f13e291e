//! Dense retrieval: the vector store behind a small trait, the embedded exact-scan
//! store, and the query encoder with its cache.
//!
//! The trait speaks only in Qdrant terms: a point id (`unit_id`), a payload (`file_id`,
//! `text_hash`) and a filter on point ids, so a Qdrant backend can implement it as-is.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use index::vector::{from_bytes, TEXT_DIM};
use index::Manifest;
use indexer::embed::TextEncoder;

use crate::error::SearchError;

/// A scored point.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    pub unit_id: String,
    pub file_id: String,
    /// Hash of the text the vector was computed from (to detect stale vectors).
    pub text_hash: String,
    /// Cosine similarity.
    pub score: f32,
}

/// Which points a search may return (`None`: all).
#[derive(Debug, Clone, Default)]
pub struct VectorFilter {
    pub unit_ids: Option<HashSet<String>>,
}

/// A store of unit vectors.
pub trait VectorStore: Send + Sync {
    /// The `k` most similar points to a unit-length `query`.
    fn search(&self, query: &[f32], k: usize, filter: &VectorFilter) -> Vec<VectorHit>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Exact (brute-force) search over all vectors in memory, loaded from the manifest.
#[derive(Default)]
pub struct ExactStore {
    unit_ids: Vec<String>,
    file_ids: Vec<String>,
    text_hashes: Vec<String>,
    /// Row-major, `TEXT_DIM` floats per point.
    matrix: Vec<f32>,
}

impl ExactStore {
    pub fn load(manifest: &Manifest) -> Result<ExactStore, SearchError> {
        let rows = manifest.all_vectors()?;
        let mut store = ExactStore {
            matrix: Vec::with_capacity(rows.len() * TEXT_DIM),
            ..ExactStore::default()
        };
        for (unit_id, file_id, text_hash, bytes) in rows {
            let Some(vector) = from_bytes(&bytes).filter(|v| v.len() == TEXT_DIM) else {
                continue;
            };
            store.unit_ids.push(unit_id);
            store.file_ids.push(file_id);
            store.text_hashes.push(text_hash);
            store.matrix.extend_from_slice(&vector);
        }
        Ok(store)
    }
}

pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Chunked so the compiler vectorises it.
    let mut sums = [0.0f32; 8];
    let chunks_a = a.chunks_exact(8);
    let chunks_b = b.chunks_exact(8);
    let tail: f32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (ca, cb) in chunks_a.zip(chunks_b) {
        for i in 0..8 {
            sums[i] += ca[i] * cb[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

impl VectorStore for ExactStore {
    fn search(&self, query: &[f32], k: usize, filter: &VectorFilter) -> Vec<VectorHit> {
        if query.len() != TEXT_DIM || k == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(f32, usize)> = Vec::new();
        for (row, vector) in self.matrix.chunks_exact(TEXT_DIM).enumerate() {
            if let Some(allowed) = &filter.unit_ids {
                if !allowed.contains(&self.unit_ids[row]) {
                    continue;
                }
            }
            scored.push((dot(query, vector), row));
        }
        let k = k.min(scored.len());
        if k == 0 {
            return Vec::new();
        }
        scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
        scored.truncate(k);
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .map(|(score, row)| VectorHit {
                unit_id: self.unit_ids[row].clone(),
                file_id: self.file_ids[row].clone(),
                text_hash: self.text_hashes[row].clone(),
                score,
            })
            .collect()
    }

    fn len(&self) -> usize {
        self.unit_ids.len()
    }
}

/// Query embeddings kept for repeated queries.
const QUERY_CACHE: usize = 512;
/// How often the daemon checks the manifest for new vectors.
const RELOAD_CHECK: Duration = Duration::from_secs(2);

/// How a [`Reloading`] value is (re)loaded.
type Loader<T> = Box<dyn Fn(&Manifest) -> Result<Arc<T>, SearchError> + Send + Sync>;

/// Something loaded from the manifest's vectors and loaded again when the indexer has
/// written new ones (`vectors_generation` changed; checked at most every
/// [`RELOAD_CHECK`]).
pub struct Reloading<T: ?Sized> {
    current: RwLock<(u64, Arc<T>)>,
    last_check: Mutex<Instant>,
    load: Loader<T>,
}

impl<T: ?Sized> Reloading<T> {
    pub fn open(
        manifest: &Manifest,
        load: impl Fn(&Manifest) -> Result<Arc<T>, SearchError> + Send + Sync + 'static,
    ) -> Result<Reloading<T>, SearchError> {
        let generation = manifest.vectors_generation()?;
        Ok(Reloading {
            current: RwLock::new((generation, load(manifest)?)),
            last_check: Mutex::new(Instant::now()),
            load: Box::new(load),
        })
    }

    /// The current value, reloaded first when it is due and the vectors changed.
    pub fn get(&self, manifest: &Manifest) -> Result<Arc<T>, SearchError> {
        let due = {
            let mut last = self.last_check.lock().unwrap_or_else(|p| p.into_inner());
            let due = last.elapsed() >= RELOAD_CHECK;
            if due {
                *last = Instant::now();
            }
            due
        };
        if due {
            let generation = manifest.vectors_generation()?;
            if generation != self.current.read().unwrap_or_else(|p| p.into_inner()).0 {
                let fresh = (self.load)(manifest)?;
                *self.current.write().unwrap_or_else(|p| p.into_inner()) = (generation, fresh);
            }
        }
        Ok(self.peek())
    }

    /// The value held now, without checking for new vectors.
    pub fn peek(&self) -> Arc<T> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .1
            .clone()
    }
}

/// Query text → embedding, with insertion order for eviction.
type QueryCache = (HashMap<String, Arc<Vec<f32>>>, VecDeque<String>);

/// The dense side of the daemon: encoder, store, query cache, reloads.
pub struct Dense {
    encoder: Mutex<TextEncoder>,
    store: Reloading<dyn VectorStore>,
    cache: Mutex<QueryCache>,
}

impl Dense {
    /// Loads the query encoder and the vectors.
    pub fn open(models_dir: &Path, manifest: &Manifest) -> Result<Dense, SearchError> {
        let encoder = TextEncoder::load(models_dir, 1)
            .map_err(|e| SearchError::Unavailable(e.to_string()))?;
        let store = Reloading::open(manifest, |m| {
            Ok(Arc::new(ExactStore::load(m)?) as Arc<dyn VectorStore>)
        })?;
        Ok(Dense {
            encoder: Mutex::new(encoder),
            store,
            cache: Mutex::new((HashMap::new(), VecDeque::new())),
        })
    }

    /// The current store, reloaded first when the indexer wrote new vectors.
    pub fn store(&self, manifest: &Manifest) -> Result<Arc<dyn VectorStore>, SearchError> {
        self.store.get(manifest)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(dim: usize, hot: usize) -> Vec<f32> {
        let mut v = vec![0.0; dim];
        v[hot] = 1.0;
        v
    }

    #[test]
    fn exact_store_ranks_by_cosine_and_filters() {
        let mut store = ExactStore::default();
        for (i, hot) in [0usize, 1, 2].iter().enumerate() {
            store.unit_ids.push(format!("f:{i}"));
            store.file_ids.push("f".into());
            store.text_hashes.push(format!("h{i}"));
            let mut v = unit(TEXT_DIM, *hot);
            v[0] += 0.5 * i as f32;
            index::vector::normalize(&mut v);
            store.matrix.extend_from_slice(&v);
        }
        let query = unit(TEXT_DIM, 0);
        let hits = store.search(&query, 2, &VectorFilter::default());
        assert_eq!(
            hits.iter().map(|h| h.unit_id.as_str()).collect::<Vec<_>>(),
            ["f:0", "f:2"]
        );
        assert!(hits[0].score > hits[1].score);
        let only = VectorFilter {
            unit_ids: Some(HashSet::from(["f:1".to_string()])),
        };
        let hits = store.search(&query, 5, &only);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].unit_id, "f:1");
        assert!(store.search(&[1.0], 3, &VectorFilter::default()).is_empty());
    }

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..TEXT_DIM).map(|i| (i as f32).sin()).collect();
        let b: Vec<f32> = (0..TEXT_DIM).map(|i| (i as f32).cos()).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
    }
}
