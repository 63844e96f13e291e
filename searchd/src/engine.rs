//! The search service, independent of transport: gRPC and HTTP call these methods and
//! translate the results.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use index::manifest::ManifestTotals;
use index::{FileRecord, IndexHandle, Manifest, StoredUnit};
use serde::Serialize;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{EnableScoring, Query, Scorer, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, DocSet, Order, Searcher, TantivyDocument, Term};

use index::api::{VectorSearch, VectorSpace};
use index::embedded::{address_of_unit, EmbeddedVectors};

use crate::dense::Dense;

use crate::error::SearchError;
use crate::fusion::Signals;
use crate::grouping::{group_by_file, FileGroup};
use crate::guard::PathGuard;
use crate::plan::QueryPlan;
use crate::planner::{folder_of, Factors};
use crate::query::{full_query, LexicalQuery, Mode, SearchParams};

/// One ranked unit.
#[derive(Debug, Clone, Serialize)]
pub struct UnitHit {
    pub unit: StoredUnit,
    pub score: f32,
    /// Excerpt with matched terms in `<b></b>` (HTML-escaped).
    pub snippet: String,
    /// Per-signal scores (only with `explain`).
    pub signals: BTreeMap<String, f64>,
    /// A neighbour of a hit (`context`), not a match itself.
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
}

#[derive(Debug, Clone, Serialize)]
pub struct RetrieveOutcome {
    pub units: Vec<UnitHit>,
    pub took_ms: f64,
    pub notes: Vec<String>,
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
    pub index_dir: String,
    pub last_commit: Option<String>,
    /// Units with a vector / units in the index.
    pub embedding_coverage: f64,
    /// `None` when dense retrieval works.
    pub dense_status: Option<String>,
}

/// One ranked unit: its (fused) score, address, and where it came from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RankedHit {
    pub(crate) score: f32,
    pub(crate) address: DocAddress,
    /// Set when more than one retriever ran.
    pub(crate) fusion: Option<Signals>,
    /// Planner priors applied to the score.
    pub(crate) factors: Option<Factors>,
}

/// Ranked units with what produced them.
struct Ranked {
    searcher: Searcher,
    hits: Vec<RankedHit>,
    /// Units that matched lexically (or dense candidates when only dense ran).
    total: u64,
    notes: Vec<String>,
}

/// The search engine over one index.
pub struct Engine {
    handle: IndexHandle,
    manifest: Mutex<Manifest>,
    /// Dense retrieval, when the models are available.
    dense: Option<Dense>,
    /// Why dense retrieval is unavailable.
    dense_problem: Option<String>,
    /// Text-to-image search with a user-supplied CLIP model (hybrid and dense modes).
    clip: Option<crate::clip::ClipSearch>,
    /// The stored vectors, through the storage boundary (when dense or CLIP is on).
    vectors: Option<Box<dyn VectorSearch>>,
}

/// Snippet length in characters.
pub(crate) const SNIPPET_CHARS: usize = 240;
/// Candidates each retriever contributes before fusion.
const FUSION_DEPTH: usize = 200;
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
        let handle = IndexHandle::open(index_dir)?;
        let manifest = handle.manifest()?;
        // A damaged manifest stops the daemon here, naming the file.
        manifest.check(&handle.layout.manifest_path())?;
        let (dense, dense_problem) = match models_dir {
            None => (None, Some("no models folder given".to_string())),
            Some(dir) => match Dense::open(dir) {
                Ok(dense) => (Some(dense), None),
                Err(error) => (None, Some(error.to_string())),
            },
        };
        let vectors: Option<Box<dyn VectorSearch>> = match dense {
            Some(_) => Some(Box::new(EmbeddedVectors::open(&handle)?)),
            None => None,
        };
        Ok(Engine {
            handle,
            manifest: Mutex::new(manifest),
            dense,
            dense_problem,
            clip: None,
            vectors,
        })
    }

    /// Adds text-to-image search with the CLIP-style model in `dir` (see
    /// `indexer::clip`); used by hybrid and dense requests. Returns how many image
    /// vectors the index holds for it.
    pub fn enable_clip(&mut self, dir: &Path, models_dir: &Path) -> Result<usize, SearchError> {
        let clip = crate::clip::ClipSearch::open(dir, models_dir)?;
        if self.vectors.is_none() {
            self.vectors = Some(Box::new(EmbeddedVectors::open(&self.handle)?));
        }
        let count = self.vectors.as_ref().map_or(Ok(0), |v| {
            v.vector_count(VectorSpace::Image { model: clip.name() })
        })?;
        self.clip = Some(clip);
        Ok(count)
    }

    pub fn handle(&self) -> &IndexHandle {
        &self.handle
    }

    /// `None` when dense retrieval works, else why not.
    pub fn dense_status(&self) -> Option<&str> {
        self.dense_problem.as_deref()
    }

    /// Checks, for one request, that the paths it returns lie inside the profile root.
    pub(crate) fn guard(&self) -> PathGuard {
        PathGuard::new(Path::new(&self.handle.info.profile_root))
    }

    pub(crate) fn with_manifest<T>(
        &self,
        f: impl FnOnce(&Manifest) -> Result<T, index::IndexError>,
    ) -> Result<T, SearchError> {
        let guard = self
            .manifest
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        Ok(f(&guard)?)
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
        searcher: Searcher,
        plan: &QueryPlan,
        limit: usize,
    ) -> Result<Ranked, SearchError> {
        let fields = &self.handle.fields;
        let mode = plan.mode;
        let lexical = plan.lexical.as_ref();
        let mut notes = plan.retrieval_notes.clone();
        let filter = index::embedded::filter_query(fields, &plan.filter);

        // Lexical candidates.
        let mut lexical_hits: Vec<(DocAddress, f32)> = Vec::new();
        let mut total = 0u64;
        if mode != Mode::Dense || lexical.is_none() {
            let query = full_query(lexical, filter.as_ref().map(|f| f.box_clone()));
            // Deep enough for fusion and for the planner's priors to reorder.
            let depth = limit.max(FUSION_DEPTH);
            if lexical.is_some() {
                let (hits, count) = searcher.search(
                    &query,
                    &(TopDocs::with_limit(depth).order_by_score(), Count),
                )?;
                lexical_hits = hits.into_iter().map(|(s, a)| (a, s)).collect();
                total = count as u64;
            } else {
                notes.push("no query terms: newest units matching the filters".to_string());
                let (by_time, count) = searcher.search(
                    &query,
                    &(
                        TopDocs::with_limit(limit)
                            .order_by_fast_field::<i64>("content_time", Order::Desc),
                        Count,
                    ),
                )?;
                let hits = by_time
                    .into_iter()
                    .map(|(_, address)| RankedHit {
                        score: 0.0,
                        address,
                        fusion: None,
                        factors: None,
                    })
                    .collect();
                return Ok(Ranked {
                    searcher,
                    hits,
                    total: count as u64,
                    notes,
                });
            }
        }
        if mode == Mode::Lexical {
            let hits = lexical_hits
                .into_iter()
                .map(|(address, score)| RankedHit {
                    score,
                    address,
                    fusion: None,
                    factors: None,
                })
                .collect();
            notes.extend(plan.prior_notes.iter().cloned());
            let hits = self.apply_priors(&searcher, plan, hits, limit)?;
            return Ok(Ranked {
                searcher,
                hits,
                total,
                notes,
            });
        }

        // Dense candidates, filtered before scoring, stale vectors dropped.
        let dense_hits = self.dense_candidates(&searcher, plan, limit.max(FUSION_DEPTH))?;
        let image_hits = self.image_candidates(&searcher, plan, limit.max(FUSION_DEPTH))?;
        if total == 0 {
            total = (dense_hits.len() + image_hits.len()) as u64;
        }
        let fused = crate::fusion::fuse_with_images(
            &lexical_hits,
            &dense_hits,
            &image_hits,
            plan.params.fusion,
        );
        let hits = fused
            .into_iter()
            .map(|(address, signals)| RankedHit {
                score: if mode == Mode::Dense {
                    signals.dense.or(signals.image).map(|d| d.1).unwrap_or(0.0)
                } else {
                    signals.fused
                },
                address,
                fusion: Some(signals),
                factors: None,
            })
            .collect();
        notes.extend(plan.prior_notes.iter().cloned());
        let hits = self.apply_priors(&searcher, plan, hits, limit)?;
        Ok(Ranked {
            searcher,
            hits,
            total,
            notes,
        })
    }

    /// CLIP image hits resolved to index documents: `(address, cosine)`, best first.
    fn image_candidates(
        &self,
        searcher: &Searcher,
        plan: &QueryPlan,
        depth: usize,
    ) -> Result<Vec<(DocAddress, f32)>, SearchError> {
        let (query, filter) = (&plan.params.query, &plan.filter);
        let (Some(clip), Some(vectors)) = (&self.clip, &self.vectors) else {
            return Ok(Vec::new());
        };
        let space = VectorSpace::Image { model: clip.name() };
        if query.trim().is_empty() || vectors.vector_count(space)? == 0 {
            return Ok(Vec::new());
        }
        let query = clip.embed_text(query)?;
        let hits = vectors.vector_search(space, &query, depth, filter)?;
        self.resolve(searcher, hits)
    }

    /// Vector hits as index documents, in order (a unit that left this snapshot of the
    /// index is dropped).
    fn resolve(
        &self,
        searcher: &Searcher,
        hits: Vec<index::api::VectorHit>,
    ) -> Result<Vec<(DocAddress, f32)>, SearchError> {
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            if let Some(address) = address_of_unit(searcher, &self.handle.fields, &hit.unit_id)? {
                out.push((address, hit.score));
            }
        }
        Ok(out)
    }

    /// Dense hits resolved to index documents: `(address, cosine)`, best first. The
    /// backend drops vectors of units that left the index or changed since.
    fn dense_candidates(
        &self,
        searcher: &Searcher,
        plan: &QueryPlan,
        depth: usize,
    ) -> Result<Vec<(DocAddress, f32)>, SearchError> {
        let (query, filter) = (&plan.params.query, &plan.filter);
        let (Some(dense), Some(vectors)) = (&self.dense, &self.vectors) else {
            return Ok(Vec::new());
        };
        if query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let query_vector = dense.embed_query(query)?;
        let hits = vectors.vector_search(VectorSpace::Text, &query_vector, depth, filter)?;
        self.resolve(searcher, hits)
    }

    fn unit_hit(
        &self,
        searcher: &Searcher,
        hit: RankedHit,
        lexical: Option<&LexicalQuery>,
        snippets: Option<&SnippetGenerator>,
        explain: bool,
    ) -> Result<UnitHit, SearchError> {
        let RankedHit {
            score,
            address,
            fusion,
            factors,
        } = hit;
        let doc: TantivyDocument = searcher.doc(address)?;
        let unit = StoredUnit::from_doc(&self.handle.fields, &doc);
        let snippet = snippets
            .map(|g| g.snippet(&unit.text))
            .filter(|s| !s.is_empty())
            .map(|s| s.to_html())
            .unwrap_or_else(|| html_escape(&truncate_chars(&unit.text, SNIPPET_CHARS)));
        let mut signals = BTreeMap::new();
        if explain {
            if let Some(lexical) = lexical {
                signals = signal_scores(searcher, lexical, address)?;
            }
            if let Some(fusion) = fusion {
                if let Some((rank, value)) = fusion.lexical {
                    signals.insert("bm25.rank".to_string(), rank as f64);
                    signals.insert("bm25.score".to_string(), f64::from(value));
                }
                if let Some((rank, value)) = fusion.dense {
                    signals.insert("dense.rank".to_string(), rank as f64);
                    signals.insert("dense.cosine".to_string(), f64::from(value));
                }
                if let Some((rank, value)) = fusion.image {
                    signals.insert("clip.rank".to_string(), rank as f64);
                    signals.insert("clip.cosine".to_string(), f64::from(value));
                }
                signals.insert("fused".to_string(), f64::from(fusion.fused));
            }
            if let Some(factors) = factors {
                signals.insert("prior.time".to_string(), f64::from(factors.time));
                signals.insert("prior.whose".to_string(), f64::from(factors.whose));
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

    pub(crate) fn snippet_generator(
        &self,
        searcher: &Searcher,
        lexical: Option<&LexicalQuery>,
    ) -> Option<SnippetGenerator> {
        let lexical = lexical?;
        let mut generator =
            SnippetGenerator::create(searcher, &*lexical.combined, self.handle.fields.text).ok()?;
        generator.set_max_num_chars(SNIPPET_CHARS);
        Some(generator)
    }

    /// Grouped search: files ranked by their best units.
    pub fn search(&self, params: SearchParams) -> Result<SearchOutcome, SearchError> {
        let started = Instant::now();
        let searcher = self.handle.reader.searcher();
        let plan = self.plan(&searcher, params.validate()?)?;
        let params = &plan.params;
        let candidates = (params.top_k * params.units_per_file * 5).clamp(100, 5000);
        let Ranked {
            searcher,
            hits,
            total,
            mut notes,
        } = self.rank_units(searcher, &plan, candidates)?;
        let lexical = plan.lexical.as_ref();
        // Group by file, keeping rank order; files scored by their best units.
        let mut keyed = Vec::with_capacity(hits.len());
        for hit in hits {
            keyed.push((self.file_id_of(&searcher, hit.address)?, hit.score, hit));
        }
        let scored = group_by_file(keyed);
        if params.planner.folders && params.explain && scored.len() > 1 {
            self.folder_affinity(&searcher, &scored, &mut notes)?;
        } else if !params.planner.folders {
            notes.push("folders: off".to_string());
        }
        let snippets = self.snippet_generator(&searcher, lexical);
        let mut guard = self.guard();
        let mut files = Vec::with_capacity(params.top_k.min(scored.len()));
        for FileGroup {
            file_id,
            score,
            items,
        } in scored
        {
            if files.len() == params.top_k {
                break;
            }
            let Some(file) = self.with_manifest(|m| m.get_by_file_id(&file_id))? else {
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
            for &hit in items.iter().take(params.units_per_file) {
                units.push(self.unit_hit(
                    &searcher,
                    hit,
                    lexical,
                    snippets.as_ref(),
                    params.explain,
                )?);
            }
            if params.context > 0 {
                let ordinals: Vec<u64> = units.iter().map(|u| u.unit.ordinal).collect();
                let exclude: HashSet<String> =
                    units.iter().map(|u| u.unit.unit_id.clone()).collect();
                let neighbours =
                    self.neighbours(&searcher, &file_id, &ordinals, params.context, &exclude)?;
                units.extend(neighbours);
            }
            files.push(FileHit { file, score, units });
        }
        Ok(SearchOutcome {
            files,
            total_units: total,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
            notes: if params.explain { notes } else { Vec::new() },
        })
    }

    /// The folder holding the most strong matches is suggested as a path filter in
    /// `explain`. (Raising files whose folder holds other strong matches was measured on
    /// the persona dev set and lowered MRR, so scores are left alone.)
    fn folder_affinity(
        &self,
        searcher: &Searcher,
        scored: &[FileGroup<RankedHit>],
        notes: &mut Vec<String>,
    ) -> Result<(), SearchError> {
        let strong = scored[0].score * 0.5;
        let mut counts: HashMap<String, (usize, f32)> = HashMap::new();
        for group in scored.iter().take_while(|g| g.score >= strong) {
            let score = group.score;
            let doc: TantivyDocument = searcher.doc(group.items[0].address)?;
            let path = StoredUnit::from_doc(&self.handle.fields, &doc).path;
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
        let searcher = self.handle.reader.searcher();
        let plan = self.plan(&searcher, params.validate()?)?;
        let params = &plan.params;
        let Ranked {
            searcher,
            hits,
            notes,
            ..
        } = self.rank_units(searcher, &plan, params.top_k)?;
        let lexical = plan.lexical.as_ref();
        let snippets = self.snippet_generator(&searcher, lexical);
        let mut guard = self.guard();
        let hits = hits
            .into_iter()
            .map(|hit| self.unit_hit(&searcher, hit, lexical, snippets.as_ref(), params.explain))
            .collect::<Result<Vec<_>, _>>()?;
        let hits: Vec<UnitHit> = hits
            .into_iter()
            .filter(|hit| guard.allows(&hit.unit.path))
            .collect();
        // Each hit followed by its neighbours (once each; hits are never repeated).
        let mut seen: HashSet<String> = hits.iter().map(|u| u.unit.unit_id.clone()).collect();
        let mut units = Vec::with_capacity(hits.len() * (1 + 2 * params.context));
        for hit in hits {
            let neighbours = if params.context > 0 {
                self.neighbours(
                    &searcher,
                    &hit.unit.file_id,
                    &[hit.unit.ordinal],
                    params.context,
                    &seen,
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
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
            notes: if params.explain { notes } else { Vec::new() },
        })
    }

    /// The units within `context` ordinals of any of `ordinals` in one file, except those
    /// in `exclude`, in ordinal order, flagged as context.
    fn neighbours(
        &self,
        searcher: &Searcher,
        file_id: &str,
        ordinals: &[u64],
        context: usize,
        exclude: &HashSet<String>,
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
        let mut out = Vec::new();
        for ordinal in wanted {
            let unit_id = format!("{file_id}:{ordinal}");
            if exclude.contains(&unit_id) {
                continue;
            }
            let term = TermQuery::new(
                Term::from_field_text(self.handle.fields.unit_id, &unit_id),
                IndexRecordOption::Basic,
            );
            let Some((_, address)) = searcher
                .search(&term, &TopDocs::with_limit(1).order_by_score())?
                .into_iter()
                .next()
            else {
                continue; // before the first or after the last unit
            };
            let doc: TantivyDocument = searcher.doc(address)?;
            let unit = StoredUnit::from_doc(&self.handle.fields, &doc);
            out.push(UnitHit {
                snippet: html_escape(&truncate_chars(&unit.text, SNIPPET_CHARS)),
                unit,
                score: 0.0,
                signals: BTreeMap::new(),
                is_context: true,
            });
        }
        Ok(out)
    }

    fn file_id_of(&self, searcher: &Searcher, address: DocAddress) -> Result<String, SearchError> {
        let segment = searcher.segment_reader(address.segment_ord);
        let column = segment.fast_fields().str("file_id")?;
        if let Some(column) = column {
            let mut ords = column.term_ords(address.doc_id);
            if let Some(ord) = ords.next() {
                let mut out = String::new();
                if column.ord_to_str(ord, &mut out).unwrap_or(false) {
                    return Ok(out);
                }
            }
        }
        let doc: TantivyDocument = searcher.doc(address)?;
        Ok(StoredUnit::from_doc(&self.handle.fields, &doc).file_id)
    }
}

/// Scores one document under each signal query separately (0 where a signal does not
/// match). Done with scorers rather than `Query::explain`, which must only be asked about
/// documents that match.
fn signal_scores(
    searcher: &Searcher,
    lexical: &LexicalQuery,
    address: DocAddress,
) -> Result<BTreeMap<String, f64>, SearchError> {
    let segment = searcher.segment_reader(address.segment_ord);
    let mut out = BTreeMap::new();
    for (name, query) in &lexical.signals {
        let weight = query.weight(EnableScoring::enabled_from_searcher(searcher))?;
        let mut scorer = weight.scorer(segment, 1.0)?;
        if scorer.doc() < address.doc_id {
            scorer.seek(address.doc_id);
        }
        let value = if scorer.doc() == address.doc_id {
            scorer.score()
        } else {
            0.0
        };
        out.insert(name.to_string(), f64::from(value));
    }
    Ok(out)
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
