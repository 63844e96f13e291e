//! The search service, independent of transport: gRPC and HTTP call these methods and
//! translate the results.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use index::api::{
    FusedRequest, FusionMethod, LexicalRequest, SearchBackend, SearchSnapshot, TimeOrder, UnitKey,
    VectorSpace,
};
use index::embedded_search::EmbeddedBackend;
use index::manifest::ManifestTotals;
use index::{FileRecord, IndexHandle, StoredUnit};
use serde::Serialize;
use tantivy::snippet::SnippetGenerator;

use crate::activity::plan::ActivitySummary;
use crate::dense::Dense;

use crate::error::SearchError;
use crate::fusion::Signals;
use crate::grouping::{group_by_file, FileGroup};
use crate::guard::PathGuard;
use crate::plan::QueryPlan;
use crate::planner::{folder_of, Factors};
use crate::query::{Mode, SearchParams};

/// One ranked unit.
#[derive(Debug, Clone, Serialize)]
pub struct UnitHit {
    pub unit: StoredUnit,
    pub score: f32,
    /// Excerpt with matched terms in `<b></b>` (HTML-escaped); `None` when the request
    /// asked for none (`"snippets": false`).
    pub snippet: Option<String>,
    /// Per-signal scores (only with `explain`).
    pub signals: BTreeMap<String, f64>,
    /// Shown for its file, not a match itself: a neighbour of a hit (`context`), or a
    /// log's records of one kind shown with its tied spans (`crate::record_kinds`).
    pub is_context: bool,
}

/// One ranked file with its best units.
#[derive(Debug, Clone, Serialize)]
pub struct FileHit {
    pub file: FileRecord,
    pub score: f32,
    pub units: Vec<UnitHit>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchOutcome {
    pub files: Vec<FileHit>,
    pub total_units: u64,
    pub took_ms: f64,
    pub notes: Vec<String>,
    /// The activity log's part (an explicit filter, or a question about doing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<ActivitySummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RetrieveOutcome {
    pub units: Vec<UnitHit>,
    /// Whether the request's `rerank` re-scored the units (`crate::rerank`).
    pub reranked: bool,
    pub took_ms: f64,
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<ActivitySummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListOutcome {
    pub files: Vec<FileRecord>,
    pub truncated: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatsOutcome {
    pub totals: ManifestTotals,
    pub profile_root: String,
    /// Where the index lives: a folder (embedded) or a URL and collection (qdrant).
    pub index_dir: String,
    /// `embedded` or `qdrant`.
    pub backend: String,
    pub last_commit: Option<String>,
    /// Units with a vector / units in the index.
    pub embedding_coverage: f64,
    /// `None` when dense retrieval works.
    pub dense_status: Option<String>,
}

/// One ranked unit: its (fused) score, key in the request's snapshot, and where it
/// came from.
#[derive(Debug, Clone)]
pub(crate) struct RankedHit {
    pub(crate) score: f32,
    pub(crate) key: UnitKey,
    /// Set when more than one retriever ran.
    pub(crate) fusion: Option<Signals>,
    /// Planner priors applied to the score.
    pub(crate) factors: Option<Factors>,
}

impl RankedHit {
    /// A hit with its score from one ranked list (no fusion signals, no priors yet).
    fn ranked(key: UnitKey, score: f32) -> RankedHit {
        RankedHit {
            score,
            key,
            fusion: None,
            factors: None,
        }
    }
}

/// Ranked units with what produced them.
#[derive(Default)]
struct Ranked {
    hits: Vec<RankedHit>,
    /// Units that matched lexically (or dense candidates when only dense ran).
    total: u64,
    notes: Vec<String>,
    /// Units the priors read and snippets made while the question was being embedded,
    /// kept for the reply.
    ready: Ready,
    /// The generator of those snippets, when some were made.
    snippets: Option<SnippetGenerator>,
}

/// Stored units already read in this request, by key.
pub(crate) type LoadedUnits = HashMap<UnitKey, std::sync::Arc<StoredUnit>>;

/// What the reply's units reuse: units read and snippets made earlier in the request
/// (snippets of the best lexical hits, made while the encoder embeds the question).
#[derive(Default)]
pub(crate) struct Ready {
    units: LoadedUnits,
    snippets: HashMap<UnitKey, String>,
}

/// The search engine over one index.
pub struct Engine {
    /// Where the index lives, behind the storage boundary.
    backend: Box<dyn SearchBackend>,
    /// Dense retrieval, when the models are available.
    dense: Option<Dense>,
    /// Why dense retrieval is unavailable.
    dense_problem: Option<String>,
    /// Text-to-image search with a user-supplied CLIP model (hybrid and dense modes).
    clip: Option<crate::clip::ClipSearch>,
}

/// Snippet length in characters.
pub(crate) const SNIPPET_CHARS: usize = 240;
/// Candidates each retriever contributes before fusion.
const FUSION_DEPTH: usize = 200;
/// Units ranked for a Retrieve with a cut-off (the files' curve needs more than top_k).
const CUTOFF_DEPTH: usize = 100;
/// Candidates the planner's priors look at.
pub(crate) const PRIOR_DEPTH: usize = 300;

impl Engine {
    /// Opens an index for lexical search only.
    pub fn open(index_dir: &Path) -> Result<Engine, SearchError> {
        Engine::open_with_models(index_dir, None)
    }

    /// Opens an index; with a models folder, dense and hybrid retrieval are enabled
    /// (a missing model is reported by `dense_status`, not fatal).
    pub fn open_with_models(
        index_dir: &Path,
        models_dir: Option<&Path>,
    ) -> Result<Engine, SearchError> {
        let backend = EmbeddedBackend::open(IndexHandle::open(index_dir)?)?;
        let engine = Engine::with_backend(Box::new(backend), models_dir);
        if engine.dense.is_some() {
            // Load the stored vectors now, not on the first question.
            engine.backend.vector_count(VectorSpace::Text)?;
        }
        Ok(engine)
    }

    /// Serves any storage backend (embedded, Qdrant); models as for
    /// [`Engine::open_with_models`].
    pub fn with_backend(backend: Box<dyn SearchBackend>, models_dir: Option<&Path>) -> Engine {
        let (dense, dense_problem) = match models_dir {
            None => (None, Some("no models folder given".to_string())),
            Some(dir) => match Dense::open(dir) {
                Ok(dense) => (Some(dense), None),
                Err(error) => (None, Some(error.to_string())),
            },
        };
        Engine {
            backend,
            dense,
            dense_problem,
            clip: None,
        }
    }

    /// Adds text-to-image search with the CLIP-style model in `dir` (see
    /// `indexer::clip`); used by hybrid and dense requests. Returns how many image
    /// vectors the index holds for it.
    pub fn enable_clip(&mut self, dir: &Path, models_dir: &Path) -> Result<usize, SearchError> {
        let clip = crate::clip::ClipSearch::open(dir, models_dir)?;
        let count = self
            .backend
            .vector_count(VectorSpace::Image { model: clip.name() })?;
        self.clip = Some(clip);
        Ok(count)
    }

    /// Another profile's engine over `backend`, sharing this engine's loaded models (the
    /// query encoders and CLIP text tower) but nothing else: each has its own query
    /// cache, and `backend` its own index.
    pub fn sharing_models(&self, backend: Box<dyn SearchBackend>) -> Result<Engine, SearchError> {
        let engine = Engine {
            backend,
            dense: self.dense.as_ref().map(Dense::share),
            dense_problem: self.dense_problem.clone(),
            clip: self.clip.clone(),
        };
        if engine.dense.is_some() {
            engine.backend.vector_count(VectorSpace::Text)?;
        }
        Ok(engine)
    }

    /// Image vectors the index holds for the CLIP model in use (`None`: no CLIP).
    pub fn clip_vector_count(&self) -> Option<Result<usize, SearchError>> {
        let clip = self.clip.as_ref()?;
        Some(
            self.backend
                .vector_count(VectorSpace::Image { model: clip.name() })
                .map_err(SearchError::from),
        )
    }

    /// The storage backend this engine searches.
    pub fn backend(&self) -> &dyn SearchBackend {
        &*self.backend
    }

    /// The profile folder the index was made from.
    pub fn profile_root(&self) -> &str {
        self.backend.profile_root()
    }

    /// `None` when dense retrieval works, else why not.
    pub fn dense_status(&self) -> Option<&str> {
        self.dense_problem.as_deref()
    }

    /// The query encoders, or why there are none (HTTP 503).
    pub fn dense(&self) -> Result<&crate::dense::Dense, SearchError> {
        self.dense.as_ref().ok_or_else(|| {
            SearchError::Unavailable(format!(
                "the text model is unavailable: {}",
                self.dense_problem.as_deref().unwrap_or("unknown reason")
            ))
        })
    }

    /// Checks, for one request, that the paths it returns lie inside the profile root.
    pub(crate) fn guard(&self) -> PathGuard {
        PathGuard::new(Path::new(self.profile_root()))
    }

    /// The mode of a request that gives its own query vector: dense alone without a
    /// question, else as asked; the vector must have the text model's dimension.
    pub(crate) fn vector_mode(
        &self,
        mode: Mode,
        len: usize,
        has_text: bool,
    ) -> Result<Mode, SearchError> {
        let Some(dense) = &self.dense else {
            return Err(SearchError::Unavailable(format!(
                "search by vector is unavailable: {}",
                self.dense_problem.as_deref().unwrap_or("no text model")
            )));
        };
        if len != dense.dimension() {
            return Err(SearchError::invalid(format!(
                "vector has {len} numbers; this index's text model ({}) makes {}",
                dense.model_name(),
                dense.dimension()
            )));
        }
        match (mode, has_text) {
            (_, false) => Ok(Mode::Dense),
            (Mode::Lexical, true) => Err(SearchError::invalid(
                "a vector is searched in dense or hybrid mode, not lexical",
            )),
            (mode, true) => Ok(mode),
        }
    }

    /// The mode actually used for a request.
    pub(crate) fn effective_mode(
        &self,
        params: &SearchParams,
        notes: &mut Vec<String>,
    ) -> Result<Mode, SearchError> {
        match (params.mode, &self.dense) {
            (Mode::Lexical, _) => Ok(Mode::Lexical),
            (mode, Some(_)) => Ok(mode),
            (Mode::Dense, None) => Err(SearchError::Unavailable(format!(
                "dense retrieval is unavailable: {}",
                self.dense_problem.as_deref().unwrap_or("unknown reason")
            ))),
            (Mode::Hybrid, None) => {
                notes.push(format!(
                    "hybrid requested but dense retrieval is unavailable ({}); answered lexically",
                    self.dense_problem.as_deref().unwrap_or("unknown reason")
                ));
                Ok(Mode::Lexical)
            }
        }
    }

    /// Ranked units (flat) for a plan. The core of both `search` and `retrieve`.
    fn rank_units(
        &self,
        snapshot: &dyn SearchSnapshot,
        plan: &QueryPlan,
        limit: usize,
    ) -> Result<Ranked, SearchError> {
        let mode = plan.mode;
        let lexical = plan.lexical.as_ref();
        let mut notes = plan.retrieval_notes.clone();
        if self.backend.name() != "embedded" {
            notes.push(format!("backend: {}", self.backend.name()));
        }
        if plan.activity_excludes_all() {
            notes.push("activity: no indexed file has matching events; no results".to_string());
            return Ok(Ranked {
                notes,
                ..Ranked::default()
            });
        }

        if mode == Mode::Hybrid {
            if let Some(hits) = self.backend_fused(snapshot, plan, limit.max(FUSION_DEPTH))? {
                notes.push(format!(
                    "fused by the backend ({}, {})",
                    self.backend.name(),
                    match plan.params.fusion {
                        crate::fusion::Fusion::Rrf { k } => format!("rrf k={k}"),
                        _ => "dbsf".to_string(),
                    }
                ));
                let total = hits.len() as u64;
                return self.with_priors(snapshot, plan, hits, limit, total, notes);
            }
        }

        // The question's embedding is computed by the encoder threads while the lexical
        // search runs here.
        let pending = match (&self.dense, mode) {
            (Some(dense), Mode::Dense | Mode::Hybrid)
                if plan.params.vector.is_none() && !plan.params.query.trim().is_empty() =>
            {
                Some(dense.begin(&plan.params.query))
            }
            _ => None,
        };

        // Lexical candidates.
        let mut lexical_hits: Vec<(UnitKey, f32)> = Vec::new();
        let mut total = 0u64;
        if mode != Mode::Dense || lexical.is_none() {
            match lexical {
                Some(lexical) => {
                    // Deep enough for fusion and for the planner's priors to reorder.
                    let found = snapshot.lexical(lexical, &plan.filter, limit.max(FUSION_DEPTH))?;
                    lexical_hits = found.hits;
                    total = found.total;
                    let added =
                        self.add_activity_candidates(snapshot, plan, &mut lexical_hits, true)?;
                    if added > 0 {
                        notes.push(format!("activity: {added} units of files with matching events added to the lexical candidates"));
                    }
                }
                // Searched by the client's vector alone.
                None if plan.params.vector.is_some() => {}
                None => {
                    notes.push("no query terms: newest units matching the filters".to_string());
                    let found =
                        snapshot.by_time(None, &plan.filter, limit, TimeOrder::NewestFirst)?;
                    let hits = found
                        .hits
                        .into_iter()
                        .map(|(key, _)| RankedHit {
                            score: 0.0,
                            key,
                            fusion: None,
                            factors: None,
                        })
                        .collect();
                    return Ok(Ranked {
                        hits,
                        total: found.total,
                        notes,
                        ..Ranked::default()
                    });
                }
            }
        }
        if mode == Mode::Lexical {
            let hits = lexical_hits
                .into_iter()
                .map(|(key, score)| RankedHit::ranked(key, score))
                .collect();
            return self.with_priors(snapshot, plan, hits, limit, total, notes);
        }

        // While the question is still being embedded, snippet the best lexical hits.
        // Only when no other question waits for an encoder (this one may still be
        // queued): a saturated daemon has no idle time to fill, and some of these
        // snippets are never shown.
        let mut pending = pending;
        let (mut generator, mut early) = (None, HashMap::new());
        let idle = plan.params.snippets && self.dense.as_ref().is_some_and(|d| d.backlog() <= 1);
        if let Some(waiting) = pending.as_mut().filter(|_| idle) {
            if !waiting.is_ready() {
                generator = self.snippet_generator(snapshot, lexical)?;
            }
            if let Some(generator) = &generator {
                for &(key, _) in lexical_hits.iter().take(limit) {
                    if waiting.is_ready() {
                        break;
                    }
                    let unit = snapshot.shared_unit(key)?;
                    early.insert(key, snippet_of(Some(generator), &unit.text));
                }
            }
        }

        // Dense candidates, filtered before scoring, stale vectors dropped.
        let mut dense_hits =
            self.dense_candidates(snapshot, plan, pending, limit.max(FUSION_DEPTH), limit)?;
        self.add_activity_candidates(snapshot, plan, &mut dense_hits, false)?;
        let image_hits = self.image_candidates(snapshot, plan, limit.max(FUSION_DEPTH))?;
        if total == 0 {
            total = (dense_hits.len() + image_hits.len()) as u64;
        }
        let fused = crate::fusion::fuse_weighted(
            &lexical_hits,
            &dense_hits,
            &image_hits,
            plan.params.fusion,
            crate::weights::Weights::fitted().lists(),
        );
        let hits = fused
            .into_iter()
            .map(|(key, signals)| RankedHit {
                score: if mode == Mode::Dense {
                    signals
                        .dense()
                        .or(signals.image())
                        .map(|d| d.1)
                        .unwrap_or(0.0)
                } else {
                    signals.fused
                },
                key,
                fusion: Some(signals),
                factors: None,
            })
            .collect();
        let mut ranked = self.with_priors(snapshot, plan, hits, limit, total, notes)?;
        ranked.ready.snippets = early;
        ranked.snippets = generator;
        Ok(ranked)
    }

    /// The ranked list after the planner's priors, with their notes.
    fn with_priors(
        &self,
        snapshot: &dyn SearchSnapshot,
        plan: &QueryPlan,
        mut hits: Vec<RankedHit>,
        limit: usize,
        total: u64,
        mut notes: Vec<String>,
    ) -> Result<Ranked, SearchError> {
        notes.extend(plan.prior_notes.iter().cloned());
        let mut loaded = self.apply_priors(snapshot, plan, &mut hits, limit)?;
        if plan.params.planner.copies {
            notes.extend(self.fold_copies(snapshot, &mut hits, &mut loaded, limit)?);
        } else {
            notes.push("copies: off".to_string());
        }
        hits.truncate(limit);
        let kept: HashSet<UnitKey> = hits.iter().map(|h| h.key).collect();
        loaded.retain(|key, _| kept.contains(key));
        Ok(Ranked {
            hits,
            total,
            notes,
            ready: Ready {
                units: loaded,
                snippets: HashMap::new(),
            },
            snippets: None,
        })
    }

    /// Hybrid candidates fused by the backend in one request, when it fuses itself
    /// (Qdrant with `--qdrant-fusion server`) and the request needs nothing that only
    /// the daemon adds: weighted fusion, activity candidates, image (CLIP) hits.
    fn backend_fused(
        &self,
        snapshot: &dyn SearchSnapshot,
        plan: &QueryPlan,
        depth: usize,
    ) -> Result<Option<Vec<RankedHit>>, SearchError> {
        let (Some(lexical), Some(dense)) = (plan.lexical.as_ref(), &self.dense) else {
            return Ok(None);
        };
        let method = match plan.params.fusion {
            crate::fusion::Fusion::Rrf { k } => FusionMethod::Rrf { k },
            // The server's DBSF weighs its lists alike: with fitted weights that differ,
            // the daemon fuses.
            crate::fusion::Fusion::Dbsf
                if crate::weights::Weights::fitted().lists() == [1.0; 3] =>
            {
                FusionMethod::Dbsf
            }
            crate::fusion::Fusion::Dbsf | crate::fusion::Fusion::Weighted { .. } => {
                return Ok(None)
            }
        };
        if !self.backend.fuses()
            || plan.activity.is_some()
            || plan.params.query.trim().is_empty()
            || plan.params.vector.is_some()
        {
            return Ok(None);
        }
        if let Some(clip) = &self.clip {
            if self
                .backend
                .vector_count(VectorSpace::Image { model: clip.name() })?
                > 0
            {
                return Ok(None);
            }
        }
        let text_vector = dense.embed_query(&plan.params.query)?;
        let request = FusedRequest {
            lexical,
            text_vector: &text_vector,
            filter: &plan.filter,
            depth,
            method,
        };
        Ok(snapshot.fused(&request)?.map(|found| {
            found
                .into_iter()
                .map(|(key, score)| RankedHit::ranked(key, score))
                .collect()
        }))
    }

    /// CLIP image hits: `(key, cosine)`, best first.
    fn image_candidates(
        &self,
        snapshot: &dyn SearchSnapshot,
        plan: &QueryPlan,
        depth: usize,
    ) -> Result<Vec<(UnitKey, f32)>, SearchError> {
        let (query, filter) = (&plan.params.query, &plan.filter);
        let Some(clip) = &self.clip else {
            return Ok(Vec::new());
        };
        let space = VectorSpace::Image { model: clip.name() };
        if query.trim().is_empty() || self.backend.vector_count(space)? == 0 {
            return Ok(Vec::new());
        }
        let query = clip.embed_text(query)?;
        Ok(snapshot.vectors(space, &query, depth, filter)?)
    }

    /// Dense hits: `(key, cosine)`, best first, for the embedding `pending` started;
    /// the best `exact` with exact scores (the rest of the fusion depth may be
    /// approximate). The backend drops vectors of units that left the index or
    /// changed since.
    fn dense_candidates(
        &self,
        snapshot: &dyn SearchSnapshot,
        plan: &QueryPlan,
        pending: Option<crate::dense::PendingVector>,
        depth: usize,
        exact: usize,
    ) -> Result<Vec<(UnitKey, f32)>, SearchError> {
        let query_vector = match (&self.dense, pending, &plan.params.vector) {
            (Some(_), _, Some(given)) => given.clone(),
            (Some(dense), Some(pending), None) => dense.finish(pending)?,
            _ => return Ok(Vec::new()),
        };
        Ok(snapshot.vectors_exact_top(
            VectorSpace::Text,
            &query_vector,
            depth,
            exact,
            &plan.filter,
        )?)
    }

    /// Makes the snippets of the units `keys` that have none yet (reading them into
    /// `ready`): the highlighted best fragment; else the window whose vector found it,
    /// asked of the backend for all of them at once (a remote one reads their vectors
    /// back), when that was not the first; else the text's beginning.
    fn make_snippets(
        &self,
        snapshot: &dyn SearchSnapshot,
        keys: &[UnitKey],
        snippets: Option<&SnippetGenerator>,
        ready: &mut Ready,
    ) -> Result<(), SearchError> {
        let mut plain = HashMap::new();
        for &key in keys {
            if ready.snippets.contains_key(&key) || plain.contains_key(&key) {
                continue;
            }
            let unit = match ready.units.get(&key) {
                Some(unit) => unit.clone(),
                None => {
                    let unit = snapshot.shared_unit(key)?;
                    ready.units.insert(key, unit.clone());
                    unit
                }
            };
            match snippets
                .map(|g| g.snippet(&unit.text))
                .filter(|s| !s.is_empty())
            {
                Some(snippet) => {
                    ready.snippets.insert(key, snippet.to_html());
                }
                None => {
                    plain.insert(key, unit);
                }
            }
        }
        if plain.is_empty() {
            return Ok(());
        }
        let windows = match self.dense {
            Some(_) => snapshot.text_windows(&plain.keys().copied().collect::<Vec<_>>()),
            None => HashMap::new(),
        };
        for (key, unit) in plain {
            let start = || {
                let &(window, count) = windows.get(&key)?;
                let dense = self.dense.as_ref()?;
                dense.window_start(&unit.title, &unit.text, window, count)
            };
            ready
                .snippets
                .insert(key, snippet_in(None, &unit.text, start));
        }
        Ok(())
    }

    fn unit_hit(
        &self,
        snapshot: &dyn SearchSnapshot,
        hit: RankedHit,
        lexical: Option<&LexicalRequest>,
        snippets: Option<&SnippetGenerator>,
        explain: bool,
        ready: &mut Ready,
    ) -> Result<UnitHit, SearchError> {
        let RankedHit {
            score,
            key,
            fusion,
            factors,
        } = hit;
        if !ready.snippets.contains_key(&key) {
            self.make_snippets(snapshot, &[key], snippets, ready)?;
        }
        let unit = match ready.units.remove(&key) {
            Some(unit) => std::sync::Arc::unwrap_or_clone(unit),
            None => snapshot.unit(key)?,
        };
        let snippet = Some(ready.snippets.remove(&key).unwrap_or_default());
        let mut signals = BTreeMap::new();
        if explain {
            if let Some(lexical) = lexical {
                signals = snapshot.signal_scores(lexical, key)?;
            }
            if let Some(fusion) = fusion {
                for &(source, rank, value) in &fusion.lists {
                    let (rank_key, score_key) = source.explain_keys();
                    signals.insert(rank_key, rank as f64);
                    signals.insert(score_key, f64::from(value));
                }
                signals.insert("fused".to_string(), f64::from(fusion.fused));
            }
            if let Some(factors) = factors {
                signals.insert("prior.time".to_string(), f64::from(factors.time));
                signals.insert("prior.whose".to_string(), f64::from(factors.whose));
                if factors.activity != 1.0 {
                    signals.insert("prior.activity".to_string(), f64::from(factors.activity));
                }
                if factors.event != 1.0 {
                    signals.insert("prior.event_context".to_string(), f64::from(factors.event));
                }
            }
            signals.insert("score".to_string(), f64::from(score));
        }
        Ok(UnitHit {
            unit,
            score,
            snippet,
            signals,
            is_context: false,
        })
    }

    /// Routine questions: units of several files and days first (`crate::diversify`).
    fn spread(
        &self,
        snapshot: &dyn SearchSnapshot,
        hits: Vec<RankedHit>,
        loaded: &LoadedUnits,
        limit: usize,
    ) -> Result<Vec<RankedHit>, SearchError> {
        let mut items = Vec::with_capacity(hits.len());
        for hit in hits {
            let day = loaded
                .get(&hit.key)
                .and_then(|u| u.content_time_text.get(..10).map(str::to_string));
            let file = snapshot.file_id(hit.key)?;
            items.push((hit, file, day));
        }
        Ok(crate::diversify::spread(items, limit))
    }

    /// The generator `made` earlier in the request, else a new one.
    fn snippet_generator_or(
        &self,
        made: Option<SnippetGenerator>,
        snapshot: &dyn SearchSnapshot,
        lexical: Option<&LexicalRequest>,
    ) -> Result<Option<SnippetGenerator>, SearchError> {
        match made {
            Some(generator) => Ok(Some(generator)),
            None => self.snippet_generator(snapshot, lexical),
        }
    }

    /// Highlights the request's text terms in snippets (the same analyzer as the text
    /// field, rarer terms preferred).
    pub(crate) fn snippet_generator(
        &self,
        snapshot: &dyn SearchSnapshot,
        lexical: Option<&LexicalRequest>,
    ) -> Result<Option<SnippetGenerator>, SearchError> {
        let Some(lexical) = lexical else {
            return Ok(None);
        };
        let terms = snapshot.highlight_terms(lexical)?;
        if terms.is_empty() {
            return Ok(None);
        }
        // The field is only used to read whole documents, which this never does.
        let field = tantivy::schema::Field::from_field_id(0);
        let analyzer = index::highlight::highlight_analyzer(terms.keys().map(String::as_str));
        Ok(Some(SnippetGenerator::new(
            terms,
            analyzer,
            field,
            SNIPPET_CHARS,
        )))
    }

    /// Grouped search: files ranked by their best units.
    pub fn search(&self, params: SearchParams) -> Result<SearchOutcome, SearchError> {
        let started = Instant::now();
        let snapshot = self.backend.snapshot()?;
        let snapshot = &*snapshot;
        let plan = self.plan(snapshot, params.validate()?)?;
        let params = &plan.params;
        let candidates = (params.top_k * params.units_per_file * 5).clamp(100, 5000);
        let Ranked {
            hits,
            total,
            mut notes,
            mut ready,
            snippets,
        } = self.rank_units(snapshot, &plan, candidates)?;
        let lexical = plan.lexical.as_ref();
        // Group by file, keeping rank order; files scored by their best units.
        let mut keyed = Vec::with_capacity(hits.len());
        for hit in hits {
            keyed.push((snapshot.file_id(hit.key)?, hit.score, hit));
        }
        let scored = group_by_file(keyed);
        if params.planner.folders && params.explain && scored.len() > 1 {
            self.folder_affinity(snapshot, &scored, &mut notes)?;
        } else if !params.planner.folders {
            notes.push("folders: off".to_string());
        }
        if !params.planner.record_kinds {
            notes.push("record_kinds: off".to_string());
        }
        let snippets = self.snippet_generator_or(snippets, snapshot, lexical)?;
        let mut guard = self.guard();
        let mut wanted = params.top_k;
        if !params.cutoff.is_off() {
            let scores: Vec<f32> = scored.iter().map(|g| g.score).collect();
            let min_break = crate::cutoff::min_break(plan.mode, params.fusion);
            wanted = wanted.min(params.cutoff.file_limit(&scores, params.top_k, min_break));
            let shown = params.top_k.min(scores.len());
            notes.push(params.cutoff.note("files", wanted.min(shown), shown));
        }
        let shown: Vec<UnitKey> = scored
            .iter()
            .take(wanted)
            .flat_map(|group| group.items.iter().take(params.units_per_file))
            .map(|hit| hit.key)
            .collect();
        self.make_snippets(snapshot, &shown, snippets.as_ref(), &mut ready)?;
        let mut files = Vec::with_capacity(wanted.min(scored.len()));
        // The question's highlighted terms, read once when a tied log needs them.
        let mut terms = None;
        for FileGroup {
            file_id,
            score,
            items,
        } in scored
        {
            if files.len() == wanted {
                break;
            }
            let Some(file) = self.backend.file_by_id(&file_id)? else {
                notes.push(format!("file {file_id} is being re-indexed; skipped"));
                continue;
            };
            if !guard.allows(&file.path) {
                notes.push(format!(
                    "{:?} lies outside the profile root; dropped",
                    file.path
                ));
                continue;
            }
            let mut units = Vec::new();
            for hit in items.iter().take(params.units_per_file) {
                units.push(self.unit_hit(
                    snapshot,
                    hit.clone(),
                    lexical,
                    snippets.as_ref(),
                    params.explain,
                    &mut ready,
                )?);
            }
            // Neighbours are the ranked units' (not the record kinds').
            let ordinals: Vec<u64> = units.iter().map(|u| u.unit.ordinal).collect();
            if params.planner.record_kinds {
                let scores: Vec<f32> = items.iter().map(|hit| hit.score).collect();
                let shown = RecordKindsShown {
                    scores: &scores,
                    units: &units,
                    lexical,
                    snippets: snippets.as_ref(),
                    explain: params.explain,
                };
                let (kinds, note) = record_kinds(snapshot, &file, shown, &mut terms)?;
                units.extend(kinds);
                notes.extend(note);
            }
            if params.context > 0 {
                let exclude: HashSet<String> =
                    units.iter().map(|u| u.unit.unit_id.clone()).collect();
                let neighbours = neighbours(
                    snapshot,
                    &file_id,
                    &ordinals,
                    params.context,
                    &exclude,
                    true,
                )?;
                units.extend(neighbours);
            }
            files.push(FileHit { file, score, units });
        }
        Ok(SearchOutcome {
            files,
            total_units: total,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
            notes: if params.explain { notes } else { Vec::new() },
            activity: plan.activity.as_ref().map(|a| a.summary()),
        })
    }

    /// The folder holding the most strong matches is suggested as a path filter in
    /// `explain`. (Raising files whose folder holds other strong matches was measured on
    /// the persona dev set and lowered MRR, so scores are left alone.)
    fn folder_affinity(
        &self,
        snapshot: &dyn SearchSnapshot,
        scored: &[FileGroup<RankedHit>],
        notes: &mut Vec<String>,
    ) -> Result<(), SearchError> {
        let strong = scored[0].score * 0.5;
        let mut counts: HashMap<String, (usize, f32)> = HashMap::new();
        for group in scored.iter().take_while(|g| g.score >= strong) {
            let score = group.score;
            let path = snapshot.unit(group.items[0].key)?.path;
            let entry = counts.entry(folder_of(&path).to_string()).or_default();
            entry.0 += 1;
            entry.1 += score;
        }
        if let Some((folder, (count, _))) = counts
            .iter()
            .filter(|(f, (n, _))| *n > 1 && !f.is_empty())
            .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1))
        {
            notes.push(format!("folders: {count} strong matches in {folder:?}; suggested path_prefixes: [{folder:?}]"));
        }
        Ok(())
    }

    /// Flat unit list.
    pub fn retrieve(&self, params: SearchParams) -> Result<RetrieveOutcome, SearchError> {
        let started = Instant::now();
        let snapshot = self.backend.snapshot()?;
        let snapshot = &*snapshot;
        let plan = self.plan(snapshot, params.validate()?)?;
        let params = &plan.params;
        let cutoff = params.cutoff;
        // A cut-off judges files, so it ranks deeper than the units it returns.
        let spread = params.planner.diversify && plan.time.recurring;
        let depth = if !cutoff.is_off() {
            params.top_k.max(CUTOFF_DEPTH)
        } else if spread {
            params.top_k * crate::diversify::DEPTH_FACTOR
        } else if params.rerank {
            // Rerank reorders the first DEPTH units even when fewer are returned.
            params.top_k.max(crate::rerank::DEPTH)
        } else {
            params.top_k
        };
        let Ranked {
            mut hits,
            mut notes,
            mut ready,
            snippets,
            ..
        } = self.rank_units(snapshot, &plan, depth)?;
        if !cutoff.is_off() {
            let mut keyed = Vec::with_capacity(hits.len());
            for hit in hits {
                keyed.push((snapshot.file_id(hit.key)?, hit.score, hit));
            }
            let min_break = crate::cutoff::min_break(plan.mode, params.fusion);
            let (kept, kept_files, all_files) = cutoff.cut_units(keyed, params.top_k, min_break);
            notes.push(cutoff.note("files", kept_files, all_files));
            hits = kept;
            hits.truncate(params.top_k);
        }
        if spread {
            hits = self.spread(snapshot, hits, &ready.units, params.top_k)?;
            notes.push(format!(
                "diversify: a routine question; at most {} units per file and {} per day first",
                crate::diversify::PER_FILE,
                crate::diversify::PER_DAY
            ));
        }
        let lexical = plan.lexical.as_ref();
        let snippets = if params.snippets {
            self.snippet_generator_or(snippets, snapshot, lexical)?
        } else {
            // No snippets asked for: every shown unit gets an empty one.
            ready
                .snippets
                .extend(hits.iter().map(|hit| (hit.key, String::new())));
            None
        };
        let shown: Vec<UnitKey> = hits.iter().map(|hit| hit.key).collect();
        self.make_snippets(snapshot, &shown, snippets.as_ref(), &mut ready)?;
        let mut guard = self.guard();
        let hits = hits
            .into_iter()
            .map(|hit| {
                let snippets = snippets.as_ref();
                let mut hit =
                    self.unit_hit(snapshot, hit, lexical, snippets, params.explain, &mut ready)?;
                if !params.snippets {
                    hit.snippet = None;
                }
                Ok(hit)
            })
            .collect::<Result<Vec<_>, SearchError>>()?;
        let mut hits: Vec<UnitHit> = hits
            .into_iter()
            .filter(|hit| guard.allows(&hit.unit.path))
            .collect();
        let mut reranked = false;
        if params.rerank {
            match &self.dense {
                None => notes.push(
                    "rerank: the text model is not available; units in retrieval order".into(),
                ),
                Some(_) if params.query.trim().is_empty() => {
                    notes.push("rerank: not applied to an empty question".into())
                }
                Some(dense) => {
                    let started = Instant::now();
                    let count = rerank(dense, &params.query, &mut hits, params.explain)?;
                    reranked = true;
                    notes.push(format!(
                        "rerank: the first {} units re-scored by their best sentence ({count} sentences embedded, {:.1} ms)",
                        hits.len().min(crate::rerank::DEPTH),
                        started.elapsed().as_secs_f64() * 1000.0
                    ));
                }
            }
        }
        hits.truncate(params.top_k);
        // Each hit followed by its neighbours (once each; hits are never repeated).
        let mut seen: HashSet<String> = hits.iter().map(|u| u.unit.unit_id.clone()).collect();
        let mut units = Vec::with_capacity(hits.len() * (1 + 2 * params.context));
        for hit in hits {
            let neighbours = if params.context > 0 {
                neighbours(
                    snapshot,
                    &hit.unit.file_id,
                    &[hit.unit.ordinal],
                    params.context,
                    &seen,
                    params.snippets,
                )?
            } else {
                Vec::new()
            };
            units.push(hit);
            for neighbour in neighbours {
                seen.insert(neighbour.unit.unit_id.clone());
                units.push(neighbour);
            }
        }
        Ok(RetrieveOutcome {
            units,
            reranked,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
            notes: if params.explain { notes } else { Vec::new() },
            activity: plan.activity.as_ref().map(|a| a.summary()),
        })
    }
}

/// Re-scores the first [`crate::rerank::DEPTH`] of `hits` by their best sentence
/// (`crate::rerank`) and puts them in the new order. The scores stay sorted: the
/// candidates' retrieval scores, sorted, one per place (a routine question's spread list
/// keeps its units; only their order changes); with `explain`, a unit's
/// signals add `rerank.sentence` (its best sentence's cosine), `rerank.score` (the
/// combined score) and `retrieval.score`. Returns the number of sentences embedded.
fn rerank(
    dense: &Dense,
    query: &str,
    hits: &mut Vec<UnitHit>,
    explain: bool,
) -> Result<usize, SearchError> {
    let n = hits.len().min(crate::rerank::DEPTH);
    if n < 2 {
        return Ok(0);
    }
    let question = dense.embed_query(query)?;
    let sentences: Vec<Vec<String>> = hits[..n]
        .iter()
        .map(|hit| crate::rerank::sentences(&hit.unit.text))
        .collect();
    let counts: Vec<usize> = sentences.iter().map(Vec::len).collect();
    let all: Vec<String> = sentences.into_iter().flatten().collect();
    let mut vectors = dense.embed_many(&all)?.into_iter();
    let best: Vec<Option<f32>> = counts
        .iter()
        .map(|&count| {
            let of_unit: Vec<_> = vectors.by_ref().take(count).collect();
            crate::rerank::best_cosine(&question, of_unit.iter().map(|v| v.as_slice()))
        })
        .collect();
    let retrieval: Vec<f32> = hits[..n].iter().map(|hit| hit.score).collect();
    let combined = crate::rerank::combined(&retrieval, &best);
    let mut places = retrieval.clone();
    places.sort_by(|a, b| b.total_cmp(a));
    let mut head: Vec<Option<UnitHit>> = hits.drain(..n).map(Some).collect();
    let reordered: Vec<UnitHit> = crate::rerank::order(&combined)
        .into_iter()
        .zip(places)
        .filter_map(|(i, place_score)| {
            let mut hit = head[i].take()?;
            if explain {
                let signals = &mut hit.signals;
                if let Some(sentence) = best[i] {
                    signals.insert("rerank.sentence".into(), f64::from(sentence));
                }
                signals.insert("rerank.score".into(), f64::from(combined[i]));
                signals.insert("retrieval.score".into(), f64::from(hit.score));
            }
            hit.score = place_score;
            Some(hit)
        })
        .collect();
    hits.splice(0..0, reordered);
    Ok(all.len())
}

/// The units within `context` ordinals of any of `ordinals` in one file, except those in
/// `exclude`, in ordinal order, flagged as context.
fn neighbours(
    snapshot: &dyn SearchSnapshot,
    file_id: &str,
    ordinals: &[u64],
    context: usize,
    exclude: &HashSet<String>,
    snippets: bool,
) -> Result<Vec<UnitHit>, SearchError> {
    let mut wanted: Vec<u64> = ordinals
        .iter()
        .flat_map(|&o| {
            let context = context as u64;
            o.saturating_sub(context)..=o.saturating_add(context)
        })
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let unit_ids: Vec<String> = wanted
        .into_iter()
        .map(|ordinal| format!("{file_id}:{ordinal}"))
        .filter(|unit_id| !exclude.contains(unit_id))
        .collect();
    // None: before the first or after the last unit.
    Ok(snapshot
        .units_by_id(&unit_ids)?
        .into_iter()
        .flatten()
        .map(|unit| UnitHit {
            snippet: snippets.then(|| html_escape(&truncate_chars(&unit.text, SNIPPET_CHARS))),
            unit,
            score: 0.0,
            signals: BTreeMap::new(),
            is_context: true,
        })
        .collect())
}

/// What [`record_kinds`] looks at: a file's ranked unit scores (best first) and the
/// units shown for it.
struct RecordKindsShown<'a> {
    scores: &'a [f32],
    units: &'a [UnitHit],
    lexical: Option<&'a LexicalRequest>,
    snippets: Option<&'a SnippetGenerator>,
    explain: bool,
}

/// A log's records of one kind shown with its tied spans (`crate::record_kinds`), as
/// context units, with the note for `explain`. `terms`: the question's highlighted
/// terms, read on first need and kept for the request's other files.
fn record_kinds(
    snapshot: &dyn SearchSnapshot,
    file: &FileRecord,
    shown: RecordKindsShown<'_>,
    terms: &mut Option<BTreeMap<String, f32>>,
) -> Result<(Vec<UnitHit>, Option<String>), SearchError> {
    let none = Ok((Vec::new(), None));
    let gathered = |unit: &StoredUnit| !unit.locator.lines.is_empty();
    let (Some(lexical), Some(last)) = (shown.lexical, u64::from(file.unit_count).checked_sub(1))
    else {
        return none;
    };
    if !file.ext.eq_ignore_ascii_case("log")
        || shown.units.iter().any(|hit| gathered(&hit.unit))
        || !crate::record_kinds::ranked_units_tie(shown.scores, shown.units.len())
    {
        return none;
    }
    // The gathered units are a log's last: its last units, read at once, from the
    // first gathered one that runs to the end.
    let first = last.saturating_sub(converters::MAX_GATHERED_UNITS as u64 - 1);
    let unit_ids: Vec<String> = (first..=last)
        .map(|ordinal| format!("{}:{ordinal}", file.file_id))
        .collect();
    let mut kinds: Vec<StoredUnit> = Vec::new();
    for unit in snapshot.units_by_id(&unit_ids)? {
        match unit {
            Some(unit) if gathered(&unit) => kinds.push(unit),
            _ => kinds.clear(),
        }
    }
    let texts: Vec<&str> = kinds.iter().map(|unit| unit.text.as_str()).collect();
    let terms = match terms {
        Some(terms) => terms,
        None => terms.insert(snapshot.highlight_terms(lexical)?),
    };
    let matching = crate::record_kinds::matching_kinds(&texts, terms);
    let mut kinds: Vec<Option<StoredUnit>> = kinds.into_iter().map(Some).collect();
    let mut hits = Vec::with_capacity(matching.len());
    for (index, weight) in matching {
        let Some(unit) = kinds[index].take() else {
            continue;
        };
        let mut signals = BTreeMap::new();
        if shown.explain {
            signals.insert("record_kind.terms".to_string(), f64::from(weight));
        }
        hits.push(UnitHit {
            snippet: Some(snippet_of(shown.snippets, &unit.text)),
            unit,
            score: 0.0,
            signals,
            is_context: true,
        });
    }
    let note = (shown.explain && !hits.is_empty()).then(|| {
        let lines: Vec<String> = hits
            .iter()
            .map(|hit| hit.unit.locator.lines.len().to_string())
            .collect();
        format!(
            "record_kinds: {:?}: its ranked units tie (within {:.0} %); {} of its records of one kind ({} lines) shown as context",
            file.path,
            crate::record_kinds::NEAR_TIE * 100.0,
            hits.len(),
            lines.join(" + ")
        )
    });
    Ok((hits, note))
}

/// A unit's snippet: the highlighted best fragment, else its escaped beginning.
pub(crate) fn snippet_of(snippets: Option<&SnippetGenerator>, text: &str) -> String {
    snippet_in(snippets, text, || None)
}

/// [`snippet_of`], where a text without a highlighted fragment starts at the byte `from`
/// gives (the window that found it; asked only then), after an ellipsis.
pub(crate) fn snippet_in(
    snippets: Option<&SnippetGenerator>,
    text: &str,
    from: impl FnOnce() -> Option<usize>,
) -> String {
    if let Some(snippet) = snippets.map(|g| g.snippet(text)).filter(|s| !s.is_empty()) {
        return snippet.to_html();
    }
    match from().filter(|&at| text.is_char_boundary(at)) {
        Some(at) => format!(
            "…{}",
            html_escape(&truncate_chars(text[at..].trim_start(), SNIPPET_CHARS))
        ),
        None => html_escape(&truncate_chars(text, SNIPPET_CHARS)),
    }
}

pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

pub(crate) fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
