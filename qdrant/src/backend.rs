//! The query side: [`QdrantBackend`] implements the daemon's storage boundary
//! ([`SearchBackend`], [`UnitSource`]) over a synced collection.
//!
//! Every method blocks on the backend's own small tokio runtime (two worker threads),
//! so it is called from plain threads or `spawn_blocking` threads, never from async
//! code directly.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use index::api::{
    BackendStats, FusedRequest, FusionMethod, LexicalRequest, Matches, SearchBackend,
    SearchSnapshot, StoreError, TimeOrder, UnitFilter, UnitKey, UnitSource, VectorSpace,
};
use index::manifest::{FileRecord, FileStatus, ManifestTotals};
use index::vector::{fits_one_window, unit_embedding_text, TEXT_DIM};
use index::StoredUnit;
use qdrant_client::qdrant::{
    Condition, CountPointsBuilder, Direction, Filter, OrderBy, PrefetchQueryBuilder,
    QuantizationSearchParamsBuilder, Query, QueryBatchPointsBuilder, QueryPointsBuilder,
    RrfBuilder, ScrollPointsBuilder, SearchParamsBuilder, VectorInput,
};

use crate::config::{Fusion, QdrantConfig};
use crate::error::QdrantError;
use crate::remote::{image_vector_name, DenseVectors, Remote, BM25_VECTOR, TEXT_VECTOR};
use crate::{filter, payload, sparse};

/// How many lexical matches `by_time` with a lexical request fetches before ordering
/// them by time on the client.
pub const BY_TIME_LEXICAL_DEPTH: u64 = 10_000;

/// Sparse BM25 scores closer than this are ties (tantivy's are exact ties there).
const BM25_RESOLUTION: f32 = 1e-3;

/// How long the collection's list of named vectors is trusted before it is read again.
const LAYOUT_TTL: Duration = Duration::from_secs(10);

/// A synced profile in a Qdrant collection.
pub struct QdrantBackend {
    pub(crate) remote: Remote,
    /// The named dense vectors last read, and when (image vectors appear with a sync).
    layout: Mutex<Option<(Instant, DenseVectors)>>,
    /// Points per named vector, and when they were counted (asked on every CLIP query;
    /// counted again after [`LAYOUT_TTL`]).
    counts: Mutex<HashMap<String, (Instant, usize)>>,
    /// `Some` until dropped (shut down in the background, so dropping is safe anywhere).
    runtime: Option<tokio::runtime::Runtime>,
    profile_root: String,
}

impl Drop for QdrantBackend {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl QdrantBackend {
    /// Connects to the collection of `config` and reads the profile's info point; fails
    /// with [`QdrantError::NotSynced`] when the profile was never synced.
    pub fn open(config: &QdrantConfig) -> Result<QdrantBackend, QdrantError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("dentate-qdrant")
            .enable_all()
            .build()
            .map_err(|e| QdrantError::Runtime(e.to_string()))?;
        let remote = {
            let _guard = runtime.enter();
            Remote::connect(config)?
        };
        let mut backend = QdrantBackend {
            remote,
            layout: Mutex::new(None),
            counts: Mutex::new(HashMap::new()),
            runtime: Some(runtime),
            profile_root: String::new(),
        };
        let info = backend.block_on(async {
            let id = payload::profile_point_id(&backend.remote.config.profile);
            backend
                .get(vec![id], "reading the profile's info point")
                .await
        })?;
        let root = info
            .first()
            .and_then(|p| payload::get_str(&p.payload, "profile_root"))
            .ok_or_else(|| QdrantError::NotSynced {
                profile: config.profile.clone(),
                collection: config.collection.clone(),
            })?;
        backend.profile_root = root.to_string();
        Ok(backend)
    }

    pub fn config(&self) -> &QdrantConfig {
        &self.remote.config
    }

    pub(crate) fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime
            .as_ref()
            .expect("the runtime lives as long as the backend")
            .block_on(future)
    }

    pub(crate) fn profile(&self) -> &str {
        &self.remote.config.profile
    }

    /// The name of the image vector of `model`, when the collection has it.
    fn image_vector(&self, model: &str) -> Result<Option<String>, QdrantError> {
        let name = image_vector_name(model);
        let mut cached = self.layout.lock().unwrap_or_else(|p| p.into_inner());
        let fresh = matches!(&*cached, Some((at, _)) if at.elapsed() < LAYOUT_TTL);
        if !fresh {
            let layout = self.block_on(self.remote.dense_layout())?;
            *cached = Some((Instant::now(), layout));
        }
        let known = cached.as_ref().is_some_and(|(_, l)| l.contains_key(&name));
        Ok(known.then_some(name))
    }

    pub(crate) async fn get(
        &self,
        ids: Vec<qdrant_client::qdrant::PointId>,
        context: &str,
    ) -> Result<Vec<qdrant_client::qdrant::RetrievedPoint>, QdrantError> {
        self.remote.get(ids, context).await
    }

    async fn count(&self, selector: Filter, context: &str) -> Result<u64, QdrantError> {
        let request = CountPointsBuilder::new(self.remote.collection())
            .filter(selector)
            .exact(true);
        Ok(self
            .remote
            .retry
            .run(
                || context.to_string(),
                || self.remote.client.count(request.clone()),
            )
            .await?
            .result
            .map_or(0, |r| r.count))
    }

    /// Units in content-time order (scroll with `order_by`).
    async fn units_by_time(
        &self,
        selector: Filter,
        limit: usize,
        order: TimeOrder,
    ) -> Result<Vec<StoredUnit>, QdrantError> {
        let direction = match order {
            TimeOrder::NewestFirst => Direction::Desc,
            TimeOrder::OldestFirst => Direction::Asc,
        };
        let request = ScrollPointsBuilder::new(self.remote.collection())
            .filter(selector)
            .limit(limit.min(u32::MAX as usize) as u32)
            .with_payload(true)
            .order_by(OrderBy {
                key: "content_time".into(),
                direction: Some(direction as i32),
                start_from: None,
            });
        let response = self
            .remote
            .retry
            .run(
                || "listing units by time".to_string(),
                || self.remote.client.scroll(request.clone()),
            )
            .await?;
        response
            .result
            .iter()
            .map(|p| payload::unit_from_payload(&p.payload))
            .collect()
    }

    /// Units found by a Query API request on a named vector, with their scores.
    async fn query_units(
        &self,
        using: &str,
        input: VectorInput,
        selector: Filter,
        limit: u64,
        context: &str,
    ) -> Result<Vec<(StoredUnit, f32)>, QdrantError> {
        let request = QueryPointsBuilder::new(self.remote.collection())
            .query(Query::new_nearest(input))
            .using(using)
            .filter(selector)
            .limit(limit)
            .params(rescored())
            .with_payload(true);
        self.run_query(request, context).await
    }

    /// Units of a Query API request, with their scores.
    async fn run_query(
        &self,
        request: QueryPointsBuilder,
        context: &str,
    ) -> Result<Vec<(StoredUnit, f32)>, QdrantError> {
        let response = self
            .remote
            .retry
            .run(
                || context.to_string(),
                || self.remote.client.query(request.clone()),
            )
            .await?;
        response
            .result
            .iter()
            .map(|p| Ok((payload::unit_from_payload(&p.payload)?, p.score)))
            .collect()
    }

    pub(crate) fn records(&self, selector: Filter) -> Result<Vec<FileRecord>, QdrantError> {
        self.block_on(async {
            let points = self
                .remote
                .scroll_all(selector, None, "listing files")
                .await?;
            let mut records = points
                .iter()
                .map(|p| payload::record_from_payload(&p.payload))
                .collect::<Result<Vec<_>, _>>()?;
            records.sort_by(|a, b| a.path.cmp(&b.path));
            Ok(records)
        })
    }

    fn profile_info(&self, key: &str) -> Result<Option<String>, QdrantError> {
        self.block_on(async {
            let id = payload::profile_point_id(self.profile());
            let points = self
                .get(vec![id], "reading the profile's info point")
                .await?;
            Ok(points
                .first()
                .and_then(|p| payload::get_str(&p.payload, key))
                .map(str::to_string))
        })
    }
}

/// Totals over file records, like `Manifest::totals`.
pub fn totals_of(records: &[FileRecord]) -> ManifestTotals {
    let mut totals = ManifestTotals::default();
    for record in records {
        match record.status {
            FileStatus::Indexed => {
                totals.indexed += 1;
                *totals
                    .files_by_modality
                    .entry(record.modality_name().to_string())
                    .or_default() += 1;
            }
            FileStatus::Skipped => totals.skipped += 1,
            FileStatus::Failed => totals.failed += 1,
        }
        totals.units += u64::from(record.unit_count);
        for (kind, count) in &record.units_by_kind {
            *totals.units_by_kind.entry(kind.clone()).or_default() += count;
        }
    }
    totals
}

impl SearchBackend for QdrantBackend {
    fn name(&self) -> &'static str {
        "qdrant"
    }

    fn profile_root(&self) -> &str {
        &self.profile_root
    }

    /// `<url> <collection>`.
    fn location(&self) -> String {
        format!(
            "{} {}",
            self.remote.config.url, self.remote.config.collection
        )
    }

    fn fuses(&self) -> bool {
        self.remote.config.fusion == Fusion::Server
    }

    fn snapshot(&self) -> Result<Box<dyn SearchSnapshot + '_>, StoreError> {
        Ok(Box::new(QdrantSnapshot {
            backend: self,
            arena: Mutex::new(Arena::default()),
            text_query: Mutex::new(None),
        }))
    }

    fn vector_count(&self, space: VectorSpace<'_>) -> Result<usize, StoreError> {
        let name = match space {
            VectorSpace::Text => TEXT_VECTOR.to_string(),
            VectorSpace::Image { model } => match self.image_vector(model)? {
                Some(name) => name,
                None => return Ok(0),
            },
        };
        if let Some((at, count)) = self
            .counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&name)
        {
            if at.elapsed() < LAYOUT_TTL {
                return Ok(*count);
            }
        }
        let mut must = filter::of_type(self.profile(), payload::UNIT);
        must.push(Condition::has_vector(name.clone()));
        let count = self
            .block_on(self.count(Filter::must(must), &format!("counting {name} vectors")))?
            as usize;
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name, (Instant::now(), count));
        Ok(count)
    }

    fn stats(&self) -> Result<BackendStats, StoreError> {
        let records = self.files()?;
        let units_filter = Filter::must(filter::of_type(self.profile(), payload::UNIT));
        let mut with_vectors = filter::of_type(self.profile(), payload::UNIT);
        with_vectors.push(Condition::has_vector(TEXT_VECTOR));
        let (units, units_with_vectors) = self.block_on(async {
            Ok::<_, QdrantError>((
                self.count(units_filter, "counting units").await?,
                self.count(Filter::must(with_vectors), "counting text vectors")
                    .await?,
            ))
        })?;
        Ok(BackendStats {
            totals: totals_of(&records),
            last_commit: self.profile_info("last_commit")?,
            units_with_vectors,
            units,
        })
    }
}

/// The units one request fetched: each unit once, so a unit found by two retrievers
/// has one key and fusion sees it as one.
#[derive(Default)]
struct Arena {
    units: Vec<StoredUnit>,
    slots: std::collections::HashMap<String, usize>,
}

/// One request's view of the collection: the units its queries fetched, kept in an
/// arena; a [`UnitKey`] is an index into it. (Qdrant has no snapshot isolation: two
/// queries of one request may see different syncs.)
pub struct QdrantSnapshot<'a> {
    backend: &'a QdrantBackend,
    arena: Mutex<Arena>,
    /// The question vector of this snapshot's text-vector search, for
    /// [`SearchSnapshot::text_windows`].
    text_query: Mutex<Option<Vec<f32>>>,
}

impl QdrantSnapshot<'_> {
    fn keep(&self, found: Vec<(StoredUnit, f32)>) -> Vec<(UnitKey, f32)> {
        let mut arena = self.arena.lock().unwrap_or_else(|p| p.into_inner());
        found
            .into_iter()
            .map(|(unit, score)| {
                let slot = match arena.slots.get(&unit.unit_id) {
                    Some(&slot) => slot,
                    None => {
                        let slot = arena.units.len();
                        arena.slots.insert(unit.unit_id.clone(), slot);
                        arena.units.push(unit);
                        slot
                    }
                };
                (UnitKey(slot as u64), score)
            })
            .collect()
    }

    fn profile(&self) -> &str {
        self.backend.profile()
    }
}

impl SearchSnapshot for QdrantSnapshot<'_> {
    /// The best `depth` units by sparse BM25 (IDF from the server); `total` is the
    /// number returned (Qdrant does not count all matches).
    fn lexical(
        &self,
        request: &LexicalRequest,
        filter: &UnitFilter,
        depth: usize,
    ) -> Result<Matches, StoreError> {
        let query = sparse::query_vector(request);
        if query.is_empty() || depth == 0 {
            return Ok(Matches::default());
        }
        // Deeper than asked, so that units tied at the cut are chosen in file order
        // (as tantivy chooses them) rather than as the server happens to.
        let mut found = self.backend.block_on(self.backend.query_units(
            BM25_VECTOR,
            VectorInput::from(query.as_slice()),
            filter::unit_filter(self.profile(), filter),
            (depth + depth / 2 + 8) as u64,
            "searching the sparse BM25 vectors",
        ))?;
        found = ranked_in_file_order(found, BM25_RESOLUTION);
        found.truncate(depth);
        let hits = self.keep(found);
        Ok(Matches {
            total: hits.len() as u64,
            hits,
        })
    }

    fn by_time(
        &self,
        lexical: Option<&LexicalRequest>,
        filter: &UnitFilter,
        limit: usize,
        order: TimeOrder,
    ) -> Result<Matches, StoreError> {
        if limit == 0 {
            return Ok(Matches::default());
        }
        let selector = filter::unit_filter(self.profile(), filter);
        let units = match lexical {
            None => self
                .backend
                .block_on(self.backend.units_by_time(selector, limit, order))?,
            Some(request) => {
                let query = sparse::query_vector(request);
                if query.is_empty() {
                    return Ok(Matches::default());
                }
                let found = self.backend.block_on(self.backend.query_units(
                    BM25_VECTOR,
                    VectorInput::from(query.as_slice()),
                    selector,
                    BY_TIME_LEXICAL_DEPTH,
                    "searching the sparse BM25 vectors",
                ))?;
                let mut units: Vec<StoredUnit> = found.into_iter().map(|(u, _)| u).collect();
                units.sort_by(|a, b| {
                    let by_time = a.content_time.cmp(&b.content_time);
                    match order {
                        TimeOrder::OldestFirst => by_time,
                        TimeOrder::NewestFirst => by_time.reverse(),
                    }
                    .then_with(|| a.unit_id.cmp(&b.unit_id))
                });
                units.truncate(limit);
                units
            }
        };
        let hits = self.keep(units.into_iter().map(|u| (u, 0.0)).collect());
        Ok(Matches {
            total: hits.len() as u64,
            hits,
        })
    }

    fn vectors(
        &self,
        space: VectorSpace<'_>,
        query: &[f32],
        k: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<(UnitKey, f32)>, StoreError> {
        match space {
            VectorSpace::Text => {
                if query.len() != TEXT_DIM || k == 0 {
                    return Ok(Vec::new());
                }
                *self.text_query.lock().unwrap_or_else(|p| p.into_inner()) = Some(query.to_vec());
                let found = self.backend.block_on(self.backend.query_units(
                    TEXT_VECTOR,
                    // The text vector is a multivector (one per window): MaxSim of one
                    // question vector is its best cosine.
                    VectorInput::new_multi(vec![query.to_vec()]),
                    filter::unit_filter(self.profile(), filter),
                    k as u64,
                    "searching the text vectors",
                ))?;
                Ok(self.keep(ranked_in_file_order(found, f32::EPSILON)))
            }
            VectorSpace::Image { model } => {
                // A profile without vectors of this model has nothing to find.
                let Some(name) = self.backend.image_vector(model)? else {
                    return Ok(Vec::new());
                };
                if query.is_empty() || k == 0 {
                    return Ok(Vec::new());
                }
                let found = self.backend.block_on(self.backend.query_units(
                    &name,
                    VectorInput::from(query.to_vec()),
                    filter::unit_filter(self.profile(), filter),
                    k as u64,
                    "searching the image vectors",
                ))?;
                Ok(self.keep(ranked_in_file_order(found, f32::EPSILON)))
            }
        }
    }

    /// MaxSim does not say which window scored: the windows of the units whose text may
    /// make several (longer than one window could hold; not tokenised here) are read
    /// back, in one request, and compared with the question here.
    fn text_windows(&self, keys: &[UnitKey]) -> HashMap<UnitKey, (usize, usize)> {
        let query = self
            .text_query
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let Some(query) = query else {
            return HashMap::new();
        };
        let mut wanted = HashMap::new();
        {
            let arena = self.arena.lock().unwrap_or_else(|p| p.into_inner());
            for &key in keys {
                let Some(unit) = arena.units.get(key.0 as usize) else {
                    continue;
                };
                if fits_one_window(&unit_embedding_text(&unit.path, &unit.title, &unit.text)) {
                    continue;
                }
                let point = payload::unit_point_id(self.profile(), &unit.file_id, unit.ordinal);
                wanted.insert(payload::point_id_text(&point), key);
            }
        }
        if wanted.is_empty() {
            return HashMap::new();
        }
        let ids = wanted
            .keys()
            .map(|id| qdrant_client::qdrant::PointId::from(id.clone()))
            .collect();
        let read = self.backend.block_on(
            self.backend
                .remote
                .text_windows(ids, "reading units' text windows"),
        );
        let found = match read {
            Ok(found) => found,
            Err(error) => {
                tracing::debug!(%error, "text windows not read");
                return HashMap::new();
            }
        };
        found
            .into_iter()
            .filter_map(|(id, windows)| {
                let key = *wanted.get(&id)?;
                let best = best_window(&query, &windows).filter(|&(window, _)| window > 0)?;
                Some((key, best))
            })
            .collect()
    }

    fn unit(&self, key: UnitKey) -> Result<StoredUnit, StoreError> {
        self.arena
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .units
            .get(key.0 as usize)
            .cloned()
            .ok_or_else(|| StoreError::Backend(format!("unknown unit key {}", key.0)))
    }

    fn unit_by_id(&self, unit_id: &str) -> Result<Option<StoredUnit>, StoreError> {
        let Some(id) = payload::unit_point_id_of(self.profile(), unit_id) else {
            return Ok(None);
        };
        let points = self
            .backend
            .block_on(self.backend.get(vec![id], "reading a unit"))?;
        match points.first() {
            Some(point) => Ok(Some(payload::unit_from_payload(&point.payload)?)),
            None => Ok(None),
        }
    }

    /// One request for all of them.
    fn units_by_id(&self, unit_ids: &[String]) -> Result<Vec<Option<StoredUnit>>, StoreError> {
        let ids: Vec<_> = unit_ids
            .iter()
            .filter_map(|id| payload::unit_point_id_of(self.profile(), id))
            .collect();
        if ids.is_empty() {
            return Ok(vec![None; unit_ids.len()]);
        }
        let points = self
            .backend
            .block_on(self.backend.get(ids, "reading units"))?;
        let mut found = HashMap::with_capacity(points.len());
        for point in &points {
            let unit = payload::unit_from_payload(&point.payload)?;
            found.insert(unit.unit_id.clone(), unit);
        }
        Ok(unit_ids.iter().map(|id| found.get(id).cloned()).collect())
    }

    /// Every text term with weight 1 (Qdrant does not expose document frequencies).
    fn highlight_terms(
        &self,
        request: &LexicalRequest,
    ) -> Result<BTreeMap<String, f32>, StoreError> {
        Ok(request.text_terms().map(|t| (t.to_string(), 1.0)).collect())
    }

    /// Each signal's score alone: one sparse query per signal restricted to the unit's
    /// point, all in one batch request (only `explain` asks).
    fn signal_scores(
        &self,
        request: &LexicalRequest,
        key: UnitKey,
    ) -> Result<BTreeMap<String, f64>, StoreError> {
        let unit = self.unit(key)?;
        let point = payload::unit_point_id(self.profile(), &unit.file_id, unit.ordinal);
        let mut names = Vec::new();
        let mut queries = Vec::new();
        for signal in &request.signals {
            let vector = sparse::signals_vector(std::slice::from_ref(signal));
            if vector.is_empty() {
                continue;
            }
            names.push(signal.name.to_string());
            queries.push(
                QueryPointsBuilder::new(self.backend.remote.collection())
                    .query(Query::new_nearest(VectorInput::from(vector.as_slice())))
                    .using(BM25_VECTOR)
                    .filter(Filter::must([
                        Condition::matches("profile", self.profile().to_string()),
                        Condition::has_id([point.clone()]),
                    ]))
                    .limit(1)
                    .build(),
            );
        }
        if queries.is_empty() {
            return Ok(BTreeMap::new());
        }
        let remote = &self.backend.remote;
        let batch = QueryBatchPointsBuilder::new(remote.collection(), queries);
        let response = self.backend.block_on(remote.retry.run(
            || "scoring the signals of a unit".to_string(),
            || remote.client.query_batch(batch.clone()),
        ))?;
        Ok(names
            .into_iter()
            .zip(response.result)
            .map(|(name, found)| {
                let score = found.result.first().map_or(0.0, |p| p.score);
                (name, f64::from(score))
            })
            .collect())
    }

    /// With server fusion ([`Fusion::Server`]): one Query API request, the sparse BM25
    /// and the dense text search as prefetches (each with the request's filter and
    /// depth) fused by Qdrant with RRF (the request's k) or DBSF.
    fn fused(&self, request: &FusedRequest<'_>) -> Result<Option<Vec<(UnitKey, f32)>>, StoreError> {
        if !self.backend.fuses() {
            return Ok(None);
        }
        let sparse = sparse::query_vector(request.lexical);
        if sparse.is_empty() || request.text_vector.len() != TEXT_DIM || request.depth == 0 {
            return Ok(None); // one list only: nothing for the server to fuse
        }
        let selector = filter::unit_filter(self.profile(), request.filter);
        let depth = request.depth as u64;
        let query = match request.method {
            FusionMethod::Rrf { k } => {
                Query::new_rrf(RrfBuilder::with_k(k.round().clamp(1.0, 1e6) as u32))
            }
            FusionMethod::Dbsf => Query::new_fusion(qdrant_client::qdrant::Fusion::Dbsf),
        };
        let query = QueryPointsBuilder::new(self.backend.remote.collection())
            .add_prefetch(
                PrefetchQueryBuilder::default()
                    .query(Query::new_nearest(VectorInput::from(sparse.as_slice())))
                    .using(BM25_VECTOR)
                    .filter(selector.clone())
                    .limit(depth),
            )
            .add_prefetch(
                PrefetchQueryBuilder::default()
                    .query(Query::new_nearest(VectorInput::new_multi(vec![request
                        .text_vector
                        .to_vec()])))
                    .using(TEXT_VECTOR)
                    .filter(selector)
                    .params(rescored())
                    .limit(depth),
            )
            .query(query)
            .limit(depth)
            .with_payload(true);
        let found = self.backend.block_on(
            self.backend
                .run_query(query, "searching with server-side fusion"),
        )?;
        Ok(Some(self.keep(ranked_in_file_order(found, f32::EPSILON))))
    }

    fn newest_content_time(&self) -> Result<Option<i64>, StoreError> {
        let selector = Filter::must(filter::of_type(self.profile(), payload::UNIT));
        let newest = self.backend.block_on(self.backend.units_by_time(
            selector,
            1,
            TimeOrder::NewestFirst,
        ))?;
        Ok(newest.first().map(|u| u.content_time))
    }
}

/// Scored units in the embedded backend's order: best first, and among equal scores
/// (units with the same text statistics, such as the lines of a log) in file order
/// (path, then ordinal), as tantivy breaks ties by document address. Scores are compared
/// at `resolution`: the server's sums of the same terms in another order differ in the
/// last bits.
fn ranked_in_file_order(found: Vec<(StoredUnit, f32)>, resolution: f32) -> Vec<(StoredUnit, f32)> {
    ranked_by(found, resolution, |u| (u.path.as_str(), u.ordinal))
}

fn ranked_by<T>(
    mut found: Vec<(T, f32)>,
    resolution: f32,
    place: impl Fn(&T) -> (&str, u64),
) -> Vec<(T, f32)> {
    let level = |score: f32| (f64::from(score) / f64::from(resolution)).round() as i64;
    found.sort_by(|(a, x), (b, y)| {
        level(*y)
            .cmp(&level(*x))
            .then_with(|| place(a).cmp(&place(b)))
    });
    found
}

/// Candidates a dense search over a quantized copy of the vectors takes per unit asked
/// for, before rescoring them with the original vectors.
const OVERSAMPLING: f64 = 4.0;

/// Search parameters of a dense search: [`OVERSAMPLING`] times the units asked for are
/// found over a quantized copy of the vectors (`--quantize`) and rescored with the
/// original vectors, so the scores stay cosines; a collection without quantization
/// ignores them.
fn rescored() -> SearchParamsBuilder {
    SearchParamsBuilder::default().quantization(
        QuantizationSearchParamsBuilder::default()
            .rescore(true)
            .oversampling(OVERSAMPLING),
    )
}

/// The window of `windows` closest to `query` (by dot product: both are unit length;
/// the first among equals, as the embedded store scores them), and how many there are;
/// `None` for none.
fn best_window(query: &[f32], windows: &[Vec<f32>]) -> Option<(usize, usize)> {
    let (_, best) =
        index::vector::best_of(windows.len(), |i| index::embedded::dot(query, &windows[i]))?;
    Some((best, windows.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_window_is_the_closest_and_the_first_of_equals() {
        let query = vec![0.6, 0.8, 0.0];
        let windows = vec![
            vec![1.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
            vec![0.0, 0.0, 1.0],
        ];
        assert_eq!(best_window(&query, &windows), Some((1, 3)));
        let equal = vec![vec![0.0, 1.0, 0.0], vec![0.0, 1.0, 0.0]];
        assert_eq!(best_window(&query, &equal), Some((0, 2)));
        assert_eq!(best_window(&query, &[]), None);
    }

    #[test]
    fn near_equal_scores_rank_in_file_order() {
        let found = vec![
            (("b.log", 7), 8.5068),
            (("a.log", 3), 8.50681),
            (("b.log", 2), 8.50679),
            (("c.txt", 0), 9.3),
            (("a.log", 9), 1.0),
        ];
        let ranked: Vec<(&str, u64)> = ranked_by(found, BM25_RESOLUTION, |p| *p)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            ranked,
            [
                ("c.txt", 0),
                ("a.log", 3),
                ("b.log", 2),
                ("b.log", 7),
                ("a.log", 9)
            ]
        );
    }
}
