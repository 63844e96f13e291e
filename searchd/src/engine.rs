//! The search service, independent of transport: gRPC and HTTP call these methods and
//! translate the results.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use index::api::{SearchBackend, SearchSnapshot, TimeOrder, UnitKey, VectorSpace};
use index::embedded_search::EmbeddedBackend;
use index::{FileRecord, IndexHandle, StoredUnit};

use crate::dense::Dense;

use crate::error::SearchError;
use crate::grouping::{group_by_file, FileGroup};
use crate::guard::PathGuard;
use crate::hits::{make_snippets, snippet_generator, snippet_generator_or, spread_hits, unit_hit};
pub(crate) use crate::hits::{Ranked, RankedHit, Ready};
pub use crate::outcome::{
    FileHit, ListOutcome, RetrieveOutcome, SearchOutcome, StatsOutcome, UnitHit,
};
use crate::plan::QueryPlan;
use crate::planner::folder_of;
use crate::query::{Mode, SearchParams};
use crate::rerank::rerank_hits as rerank;
use crate::routine::{RoutineOutcome, RoutineParams};
use crate::shown::{neighbours, record_kinds, RecordKindsShown};
pub(crate) use crate::snippets::snippet_of;
use crate::timeline::{TimelineOutcome, TimelineParams};

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

/// Candidates each retriever contributes before fusion.
const FUSION_DEPTH: usize = 200;
/// Units ranked for a Retrieve with a cut-off (the files' curve needs more than top_k).
const CUTOFF_DEPTH: usize = 100;

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
        PathGuard::of(self.backend())
    }

    /// The query encoders, as the planner sees them.
    fn models(&self) -> crate::planning::Models<'_> {
        crate::planning::Models {
            dense: self.dense.as_ref(),
            problem: self.dense_problem.as_deref(),
        }
    }

    /// Files whose path matches a glob ([`crate::files::list_files`]).
    pub fn list_files(
        &self,
        pattern: &str,
        limit: usize,
        include_failed: bool,
    ) -> Result<ListOutcome, SearchError> {
        crate::files::list_files(self.backend(), pattern, limit, include_failed)
    }

    /// The manifest record of one file ([`crate::files::metadata`]).
    pub fn metadata(&self, path: &str) -> Result<FileRecord, SearchError> {
        crate::files::metadata(self.backend(), path)
    }

    /// Where an indexed file's bytes are ([`crate::files::original_path`]).
    pub fn original_path(&self, path: &str) -> Result<std::path::PathBuf, SearchError> {
        crate::files::original_path(self.backend(), path)
    }

    /// A file's record and all its units in order ([`crate::files::text`]).
    pub fn text(&self, path: &str) -> Result<(FileRecord, Vec<StoredUnit>), SearchError> {
        crate::files::text(self.backend(), path)
    }

    /// Files and units in a time range ([`crate::timeline::timeline`]).
    pub fn timeline(&self, params: TimelineParams) -> Result<TimelineOutcome, SearchError> {
        crate::timeline::timeline(self.backend(), params)
    }

    /// The routine of the profile ([`crate::routine::routine`]).
    pub fn routine(&self, params: RoutineParams) -> Result<RoutineOutcome, SearchError> {
        crate::routine::routine(self.backend(), params)
    }

    /// The index's counts and the state of the models.
    pub fn stats(&self) -> Result<StatsOutcome, SearchError> {
        let stats = self.backend().stats()?;
        Ok(StatsOutcome {
            totals: stats.totals,
            profile_root: self.profile_root().to_string(),
            index_dir: self.backend().location(),
            backend: self.backend().name().to_string(),
            last_commit: stats.last_commit,
            embedding_coverage: if stats.units == 0 {
                1.0
            } else {
                stats.units_with_vectors as f64 / stats.units as f64
            },
            dense_status: self.dense_status().map(str::to_string),
        })
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
            if let Some(hits) = crate::retrievers::backend_fused(
                self.backend(),
                self.dense.as_ref(),
                self.clip.as_ref(),
                snapshot,
                plan,
                limit.max(FUSION_DEPTH),
            )? {
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
                    let added = crate::activity::rank::add_activity_candidates(
                        snapshot,
                        plan,
                        &mut lexical_hits,
                        true,
                    )?;
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
                generator = snippet_generator(snapshot, lexical)?;
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
        let mut dense_hits = crate::retrievers::dense_candidates(
            self.dense.as_ref(),
            snapshot,
            plan,
            pending,
            limit.max(FUSION_DEPTH),
            limit,
        )?;
        crate::activity::rank::add_activity_candidates(snapshot, plan, &mut dense_hits, false)?;
        let image_hits = crate::retrievers::image_candidates(
            self.backend(),
            self.clip.as_ref(),
            snapshot,
            plan,
            limit.max(FUSION_DEPTH),
        )?;
        if total == 0 {
            total = (dense_hits.len() + image_hits.len()) as u64;
        }
        let weights = crate::weights::Weights::fitted();
        let lexical_scales = lexical_scales(snapshot, &lexical_hits, weights, plan.params.fusion)?;
        let fused = crate::fusion::fuse_weighted(
            &lexical_hits,
            &dense_hits,
            &image_hits,
            plan.params.fusion,
            weights.lists(),
            weights.ceilings(),
            &lexical_scales,
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
        let mut loaded = crate::priors::apply_priors(snapshot, plan, &mut hits, limit)?;
        if plan.params.planner.copies {
            notes.extend(crate::priors::fold_copies(
                self.backend(),
                snapshot,
                &mut hits,
                &mut loaded,
                limit,
            )?);
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

    /// Grouped search: files ranked by their best units.
    pub fn search(&self, params: SearchParams) -> Result<SearchOutcome, SearchError> {
        let started = Instant::now();
        let snapshot = self.backend.snapshot()?;
        let snapshot = &*snapshot;
        let plan =
            crate::planning::plan(self.models(), self.backend(), snapshot, params.validate()?)?;
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
        let snippets = snippet_generator_or(snippets, snapshot, lexical)?;
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
        make_snippets(
            self.dense.as_ref(),
            snapshot,
            &shown,
            snippets.as_ref(),
            &mut ready,
        )?;
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
                units.push(unit_hit(
                    self.dense.as_ref(),
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
        let plan =
            crate::planning::plan(self.models(), self.backend(), snapshot, params.validate()?)?;
        let params = &plan.params;
        let cutoff = params.cutoff;
        // A cut-off judges files, so it ranks deeper than the units it returns.
        let by_day = params.planner.diversify && plan.time.recurring;
        // The units the reply reaches: rerank reorders the first DEPTH units even when
        // fewer are returned.
        let reach = if params.rerank {
            params.top_k.max(crate::rerank::DEPTH)
        } else {
            params.top_k
        };
        // Deep enough to find other files for the spread (`crate::diversify`), but no
        // deeper than the retrievers' lists (a deeper fusion would rescale DBSF's scores).
        let depth = if !cutoff.is_off() {
            params.top_k.max(CUTOFF_DEPTH)
        } else {
            (params.top_k * crate::diversify::DEPTH_FACTOR)
                .min(params.top_k.max(FUSION_DEPTH))
                .max(reach)
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
        hits = spread_hits(snapshot, hits, &ready.units, reach, by_day)?;
        if by_day {
            notes.push(format!(
                "diversify: a routine question; at most {} units per file and {} per day first",
                crate::diversify::ROUTINE_PER_FILE,
                crate::diversify::PER_DAY
            ));
        }
        let lexical = plan.lexical.as_ref();
        let snippets = if params.snippets {
            snippet_generator_or(snippets, snapshot, lexical)?
        } else {
            // No snippets asked for: every shown unit gets an empty one.
            ready
                .snippets
                .extend(hits.iter().map(|hit| (hit.key, String::new())));
            None
        };
        let shown: Vec<UnitKey> = hits.iter().map(|hit| hit.key).collect();
        make_snippets(
            self.dense.as_ref(),
            snapshot,
            &shown,
            snippets.as_ref(),
            &mut ready,
        )?;
        let mut guard = self.guard();
        let hits = hits
            .into_iter()
            .map(|hit| {
                let snippets = snippets.as_ref();
                let mut hit = unit_hit(
                    self.dense.as_ref(),
                    snapshot,
                    hit,
                    lexical,
                    snippets,
                    params.explain,
                    &mut ready,
                )?;
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

/// The lexical list's weight factor of each lexical hit, by its unit's kind
/// ([`crate::weights::Weights::lexical_scale`]); empty when every kind weighs the same or
/// `fusion` is not DBSF (the only fusion that reads them: no unit is read for nothing).
fn lexical_scales(
    snapshot: &dyn SearchSnapshot,
    hits: &[(UnitKey, f32)],
    weights: crate::weights::Weights,
    fusion: crate::fusion::Fusion,
) -> Result<Vec<f32>, SearchError> {
    if weights.lexical_scales_neutral() || fusion != crate::fusion::Fusion::Dbsf {
        return Ok(Vec::new());
    }
    hits.iter()
        .map(|&(key, _)| Ok(weights.lexical_scale(snapshot.shared_unit(key)?.kind)))
        .collect()
}
