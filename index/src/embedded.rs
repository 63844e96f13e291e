//! The embedded backend of the storage boundary ([`crate::api`]): filters become a
//! tantivy query, and vectors live in the manifest and are searched by exact scan in
//! memory (reloaded when the indexer writes new ones). Writing goes through
//! [`crate::writer::IndexWriter`].

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset};
use converters::Unit;
use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{Facet, IndexRecordOption};
use tantivy::{DocAddress, IndexReader, Searcher, Term};

use crate::api::{
    StoreError, StoreWriter, UnitFilter, UnitSource, UnitVectors, VectorHit, VectorSearch,
    VectorSpace,
};
use crate::error::IndexError;
use crate::manifest::{FileRecord, Manifest};
use crate::schema::Fields;
use crate::store::{IndexHandle, StoredUnit};
use crate::vector::from_bytes;
use crate::writer::IndexWriter;

/// A filter as one zero-scoring tantivy query, or `None` when it lets everything
/// through. Same meaning as [`UnitFilter::matches`].
pub fn filter_query(fields: &Fields, filter: &UnitFilter) -> Option<Box<dyn Query>> {
    let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if !filter.path_prefixes.is_empty() {
        let alternatives = filter
            .path_prefixes
            .iter()
            .flat_map(|prefix| {
                let clean = prefix.trim_matches('/');
                let facet = Facet::from_path(clean.split('/').filter(|p| !p.is_empty()));
                let folder: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_facet(fields.folder, &facet),
                    IndexRecordOption::Basic,
                ));
                let exact: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(fields.path, clean),
                    IndexRecordOption::Basic,
                ));
                [(Occur::Should, folder), (Occur::Should, exact)]
            })
            .collect();
        must.push((Occur::Must, Box::new(BooleanQuery::new(alternatives))));
    }
    let keyword_filter = |field, values: &[String]| -> Option<Box<dyn Query>> {
        if values.is_empty() {
            return None;
        }
        let alternatives = values
            .iter()
            .map(|v| {
                let query: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(field, v),
                    IndexRecordOption::Basic,
                ));
                (Occur::Should, query)
            })
            .collect();
        Some(Box::new(BooleanQuery::new(alternatives)))
    };
    for (field, values) in [
        (fields.modality, &filter.modalities),
        (fields.ext, &filter.extensions),
        (fields.kind, &filter.kinds),
    ] {
        if let Some(query) = keyword_filter(field, values) {
            must.push((Occur::Must, query));
        }
    }
    if filter.time_start.is_some() || filter.time_end.is_some() {
        let lower = filter
            .time_start
            .map(|t| Bound::Included(Term::from_field_i64(fields.content_time, t)))
            .unwrap_or(Bound::Unbounded);
        let upper = filter
            .time_end
            .map(|t| Bound::Excluded(Term::from_field_i64(fields.content_time, t)))
            .unwrap_or(Bound::Unbounded);
        must.push((Occur::Must, Box::new(RangeQuery::new(lower, upper))));
    }
    if must.is_empty() {
        return None;
    }
    Some(Box::new(ConstScoreQuery::new(
        Box::new(BooleanQuery::new(must)),
        0.0,
    )))
}

/// Unit ids of every document a query lets through.
fn unit_ids_matching(
    searcher: &Searcher,
    query: &dyn Query,
) -> Result<HashSet<String>, IndexError> {
    let addresses = searcher.search(query, &DocSetCollector)?;
    let mut ids = HashSet::with_capacity(addresses.len());
    for address in addresses {
        let segment = searcher.segment_reader(address.segment_ord);
        if let Some(column) = segment.fast_fields().str("unit_id")? {
            if let Some(ord) = column.term_ords(address.doc_id).next() {
                let mut id = String::new();
                if column.ord_to_str(ord, &mut id).unwrap_or(false) {
                    ids.insert(id);
                }
            }
        }
    }
    Ok(ids)
}

pub use crate::address::address_of_unit;

pub use crate::exact::{
    dot, quantize_above, rescore, rescore_depth, rescore_top, sign_depth, ExactStore, TextHit,
    QUANTIZE_ABOVE, SIGN_SHARE,
};

/// How often the daemon checks the manifest for new vectors.
const RELOAD_CHECK: Duration = Duration::from_secs(2);

/// How a [`Reloading`] value is (re)loaded.
type Loader<T> = Box<dyn Fn(&Manifest) -> Result<Arc<T>, IndexError> + Send + Sync>;

/// How a [`Reloading`] value is brought up to date from the one loaded at a generation
/// (`None`: load it all again).
type Updater<T> =
    Box<dyn Fn(&Manifest, &T, u64) -> Result<Option<Arc<T>>, IndexError> + Send + Sync>;

/// Something loaded from the manifest's vectors and loaded again when the indexer has
/// written new ones (`vectors_generation` changed; checked at most every
/// [`RELOAD_CHECK`]).
pub struct Reloading<T: ?Sized> {
    current: RwLock<(u64, Arc<T>)>,
    last_check: Mutex<Instant>,
    load: Loader<T>,
    update: Option<Updater<T>>,
}

impl<T: ?Sized> Reloading<T> {
    pub fn open(
        manifest: &Manifest,
        load: impl Fn(&Manifest) -> Result<Arc<T>, IndexError> + Send + Sync + 'static,
    ) -> Result<Reloading<T>, IndexError> {
        let generation = manifest.vectors_generation()?;
        Ok(Reloading {
            current: RwLock::new((generation, load(manifest)?)),
            last_check: Mutex::new(Instant::now()),
            load: Box::new(load),
            update: None,
        })
    }

    /// Brings the value up to date with `update` (from the value and the generation it
    /// was loaded at) instead of loading it all again, where `update` can.
    pub fn with_update(
        mut self,
        update: impl Fn(&Manifest, &T, u64) -> Result<Option<Arc<T>>, IndexError>
            + Send
            + Sync
            + 'static,
    ) -> Reloading<T> {
        self.update = Some(Box::new(update));
        self
    }

    /// The current value, reloaded first when it is due and the vectors changed.
    pub fn get(&self, manifest: &Manifest) -> Result<Arc<T>, IndexError> {
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
            let (loaded_at, current) = {
                let current = self.current.read().unwrap_or_else(|p| p.into_inner());
                (current.0, current.1.clone())
            };
            if generation != loaded_at {
                // Changes logged after `generation` was read are applied too, and again
                // at the next check: applying a file's change twice is harmless.
                let updated = match &self.update {
                    Some(update) => update(manifest, &current, loaded_at)?,
                    None => None,
                };
                let fresh = match updated {
                    Some(fresh) => fresh,
                    None => (self.load)(manifest)?,
                };
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

/// Vector search over the embedded index: text vectors always, image vectors per model
/// once asked for.
pub struct EmbeddedVectors {
    reader: IndexReader,
    fields: Fields,
    manifest: Mutex<Manifest>,
    text: Reloading<ExactStore>,
    images: Mutex<HashMap<String, Arc<Reloading<ExactStore>>>>,
    fresh: crate::fresh::FreshVectors,
}

impl EmbeddedVectors {
    /// Loads the text vectors of an index (image vectors load on first use).
    pub fn open(handle: &IndexHandle) -> Result<EmbeddedVectors, IndexError> {
        let manifest = handle.manifest()?;
        // A few changed files update the store; a reader too far behind loads it again.
        let text = Reloading::open(&manifest, |m| Ok(Arc::new(ExactStore::load(m)?)))?.with_update(
            |m, store: &ExactStore, since| {
                Ok(match m.vector_changes_since(since)? {
                    Some(files) => store.updated(m, &files)?.map(Arc::new),
                    None => None,
                })
            },
        );
        Ok(EmbeddedVectors {
            reader: handle.reader.clone(),
            fields: handle.fields,
            manifest: Mutex::new(manifest),
            text,
            images: Mutex::new(HashMap::new()),
            fresh: Default::default(),
        })
    }

    /// The `k` text vectors nearest to `query` among the units `filter` lets through,
    /// with their units' addresses in `searcher`; a vector whose unit left the index or
    /// changed since it was computed is dropped. Over int8 rows the best `exact` are
    /// exact (rescored from the stored vectors of [`rescore_depth`] candidates); the
    /// rest of the `k` keep their approximate scores (see [`rescore_top`]).
    pub fn text_search(
        &self,
        searcher: &Searcher,
        query: &[f32],
        k: usize,
        exact: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<(DocAddress, TextHit)>, StoreError> {
        let allowed = self.allowed_units(searcher, filter)?;
        let store = self.with_manifest(|m| self.text.get(m))?;
        let hits = if store.is_quantized() {
            // int8 scores pick the candidates; their stored vectors decide.
            let checked = rescore_depth(exact.min(k));
            let candidates = store.search(query, checked.max(k), allowed.as_ref());
            let ids: Vec<&str> = candidates
                .iter()
                .take(checked)
                .map(|h| h.unit_id.as_str())
                .collect();
            let vectors = self.with_manifest(|m| m.vectors_by_unit_ids(&ids))?;
            rescore_top(candidates, query, k, checked, |id| {
                vectors.get(id).and_then(|b| from_bytes(b))
            })
        } else {
            store.search(query, k, allowed.as_ref())
        };
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            if let Some(address) =
                self.fresh
                    .address(searcher, &self.fields, &hit.unit_id, &hit.text_hash)?
            {
                out.push((address, hit));
            }
        }
        Ok(out)
    }

    /// The `k` image vectors of `model` nearest to `query` among the units `filter` lets
    /// through, with their units' addresses in `searcher` (a unit that left the index is
    /// dropped).
    pub fn image_search(
        &self,
        searcher: &Searcher,
        model: &str,
        query: &[f32],
        k: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<(DocAddress, VectorHit)>, StoreError> {
        let allowed = self.allowed_units(searcher, filter)?;
        let reloading = self.images(model)?;
        let store = self.with_manifest(|m| reloading.get(m))?;
        let mut out = Vec::new();
        for hit in store.search_images(query, k, allowed.as_ref())? {
            if let Some(address) = address_of_unit(searcher, &self.fields, &hit.unit_id)? {
                out.push((address, hit));
            }
        }
        Ok(out)
    }

    /// The unit ids `filter` lets through in `searcher` (`None`: every unit).
    fn allowed_units(
        &self,
        searcher: &Searcher,
        filter: &UnitFilter,
    ) -> Result<Option<HashSet<String>>, IndexError> {
        match filter_query(&self.fields, filter) {
            Some(query) => Ok(Some(unit_ids_matching(searcher, &*query)?)),
            None => Ok(None),
        }
    }

    fn images(&self, model: &str) -> Result<Arc<Reloading<ExactStore>>, IndexError> {
        let mut images = self.images.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(store) = images.get(model) {
            return Ok(store.clone());
        }
        let name = model.to_string();
        let manifest = self.manifest.lock().unwrap_or_else(|p| p.into_inner());
        let store = Arc::new(Reloading::open(&manifest, move |m| {
            Ok(Arc::new(ExactStore::load_images(m, &name)?))
        })?);
        images.insert(model.to_string(), store.clone());
        Ok(store)
    }

    fn with_manifest<T>(
        &self,
        f: impl FnOnce(&Manifest) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        f(&self.manifest.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl VectorSearch for EmbeddedVectors {
    fn vector_search(
        &self,
        space: VectorSpace<'_>,
        query: &[f32],
        k: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<VectorHit>, StoreError> {
        let searcher = self.reader.searcher();
        match space {
            VectorSpace::Text => Ok(self
                .text_search(&searcher, query, k, k, filter)?
                .into_iter()
                .map(|(_, hit)| VectorHit {
                    unit_id: hit.unit_id,
                    file_id: hit.file_id,
                    score: hit.score,
                })
                .collect()),
            VectorSpace::Image { model } => Ok(self
                .image_search(&searcher, model, query, k, filter)?
                .into_iter()
                .map(|(_, hit)| hit)
                .collect()),
        }
    }

    fn vector_count(&self, space: VectorSpace<'_>) -> Result<usize, StoreError> {
        Ok(match space {
            VectorSpace::Text => self.text.peek().len(),
            VectorSpace::Image { model } => self.images(model)?.peek().len(),
        })
    }
}

/// Files and units of the embedded index.
pub struct EmbeddedUnits {
    reader: IndexReader,
    fields: Fields,
    manifest: Mutex<Manifest>,
    /// Content hashes already read (`None`: not known), for one searcher generation.
    hashes: Mutex<(u64, HashMap<String, Option<String>>)>,
}

/// Content hashes kept per generation at most (then they are dropped and read again).
const MAX_KEPT_HASHES: usize = 100_000;

impl EmbeddedUnits {
    pub fn open(handle: &IndexHandle) -> Result<EmbeddedUnits, IndexError> {
        Ok(EmbeddedUnits {
            reader: handle.reader.clone(),
            fields: handle.fields,
            manifest: Mutex::new(handle.manifest()?),
            hashes: Mutex::new((u64::MAX, HashMap::new())),
        })
    }

    fn with_manifest<T>(
        &self,
        f: impl FnOnce(&Manifest) -> Result<T, IndexError>,
    ) -> Result<T, StoreError> {
        Ok(f(&self.manifest.lock().unwrap_or_else(|p| p.into_inner()))?)
    }
}

impl UnitSource for EmbeddedUnits {
    fn file(&self, path: &str) -> Result<Option<FileRecord>, StoreError> {
        self.with_manifest(|m| m.get(path))
    }

    fn file_by_id(&self, file_id: &str) -> Result<Option<FileRecord>, StoreError> {
        self.with_manifest(|m| m.get_by_file_id(file_id))
    }

    fn files(&self) -> Result<Vec<FileRecord>, StoreError> {
        self.with_manifest(|m| m.all())
    }

    fn units_of_file(&self, file_id: &str) -> Result<Vec<StoredUnit>, StoreError> {
        Ok(crate::store::units_of_file(
            &self.reader.searcher(),
            &self.fields,
            file_id,
        )?)
    }

    /// Kept per searcher generation: a file's hash changes only with its units, in a
    /// commit, which starts a new generation. (The manifest rows of a commit land just
    /// after its units; a hash read in between is the file's previous one until the next
    /// commit.)
    fn content_hashes(&self, file_ids: &[&str]) -> Result<HashMap<String, String>, StoreError> {
        let generation = self.reader.searcher().generation().generation_id();
        let mut kept = self.hashes.lock().unwrap_or_else(|p| p.into_inner());
        if kept.0 != generation || kept.1.len() + file_ids.len() > MAX_KEPT_HASHES {
            *kept = (generation, HashMap::new());
        }
        let missing: Vec<&str> = file_ids
            .iter()
            .copied()
            .filter(|f| !kept.1.contains_key(*f))
            .collect();
        if !missing.is_empty() {
            let mut read = self.with_manifest(|m| m.content_hashes(&missing))?;
            for file_id in missing {
                kept.1.insert(file_id.to_string(), read.remove(file_id));
            }
        }
        Ok(file_ids
            .iter()
            .filter_map(|f| Some((f.to_string(), kept.1.get(*f)?.clone()?)))
            .collect())
    }
}

impl StoreWriter for IndexWriter {
    fn add_file(
        &mut self,
        record: FileRecord,
        units: &[Unit],
        file_mtime: DateTime<FixedOffset>,
    ) -> Result<(), StoreError> {
        Ok(IndexWriter::add_file(self, record, units, file_mtime)?)
    }

    fn put_record(&mut self, record: FileRecord) -> Result<(), StoreError> {
        IndexWriter::put_record(self, record);
        Ok(())
    }

    fn delete_file(&mut self, file_id: &str, forget: Option<String>) -> Result<(), StoreError> {
        self.delete_units(file_id);
        if let Some(path) = forget {
            self.forget(path);
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        Ok(IndexWriter::commit(self)?)
    }

    fn put_text_vectors(
        &mut self,
        path: &str,
        file_id: &str,
        content_hash: &str,
        model: &str,
        windows: usize,
        vectors: &UnitVectors,
    ) -> Result<(), StoreError> {
        let rows: Vec<(String, String, Vec<u8>)> = vectors
            .iter()
            .map(|(unit_id, hash, vector)| {
                (
                    unit_id.clone(),
                    hash.clone(),
                    crate::vector::to_bytes(vector),
                )
            })
            .collect();
        Ok(self.manifest_mut().replace_file_vectors(
            path,
            file_id,
            content_hash,
            model,
            windows,
            &rows,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::UnitPayload;
    use crate::exact::Matrix;
    use crate::exact::{dot_generic, dot_i8, dot_i8_generic};
    use crate::vector::text_hash;
    use crate::vector::TEXT_DIM;
    use crate::writer::file_id_for;
    use converters::{Locator, UnitKind};

    fn hot(dim: usize, at: usize) -> Vec<f32> {
        let mut v = vec![0.0; dim];
        v[at] = 1.0;
        v
    }

    #[test]
    fn exact_store_ranks_by_cosine_and_filters() {
        let mut store = ExactStore::text();
        for (i, at) in [0usize, 1, 2].iter().enumerate() {
            let mut v = hot(TEXT_DIM, *at);
            v[0] += 0.5 * i as f32;
            crate::vector::normalize(&mut v);
            store.push(&format!("f:{i}"), "f", &format!("h{i}"), &v);
        }
        let query = hot(TEXT_DIM, 0);
        let hits = store.search(&query, 2, None);
        assert_eq!(
            hits.iter().map(|h| h.unit_id.as_str()).collect::<Vec<_>>(),
            ["f:0", "f:2"]
        );
        assert!(hits[0].score > hits[1].score);
        let only = HashSet::from(["f:1".to_string()]);
        let hits = store.search(&query, 5, Some(&only));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].unit_id, "f:1");
        assert!(store.search(&[1.0], 3, None).is_empty());
    }

    #[test]
    fn a_unit_of_several_windows_scores_by_its_best_one_in_either_row_format() {
        let mut store = ExactStore::text();
        let near = |at: usize, lift: f32| {
            let mut v = hot(TEXT_DIM, at);
            v[0] += lift;
            crate::vector::normalize(&mut v);
            v
        };
        // "long": three windows, the last close to the question; "short": one window.
        let long: Vec<f32> = [near(5, 0.0), near(6, 0.0), near(0, 0.1)].concat();
        store.push("f:long", "f", "h1", &long);
        store.push("f:short", "f", "h2", &near(1, 0.6));
        store.push("f:far", "f", "h3", &near(7, 0.0));
        assert_eq!(store.len(), 3);
        assert_eq!(store.rows_total(), 5);
        let query = hot(TEXT_DIM, 0);
        for store in [store.clone(), as_int8(&store)] {
            let hits = store.search(&query, 2, None);
            let found: Vec<(&str, usize)> = hits
                .iter()
                .map(|h| (h.unit_id.as_str(), h.window))
                .collect();
            assert_eq!(found, [("f:long", 2), ("f:short", 0)]);
            assert!((hits[0].score - near(0, 0.1)[0]).abs() < 0.01, "{hits:?}");
            // A unit is one hit however many windows it has.
            assert_eq!(store.search(&query, 10, None).len(), 3);
        }
        // Exact rescoring takes the best window too.
        let hits = vec![TextHit {
            unit_id: "f:long".into(),
            file_id: "f".into(),
            text_hash: "h1".into(),
            score: 0.0,
            window: 0,
            windows: 1,
        }];
        let rescored = rescore(hits, &query, 1, |_| Some(long.clone()));
        assert_eq!(rescored[0].window, 2);
        assert!((rescored[0].score - near(0, 0.1)[0]).abs() < 1e-6);
    }

    /// `(unit ids, file ids, text hashes, scores of a few queries)` of a store.
    fn fingerprint(store: &ExactStore) -> (Vec<String>, Vec<String>, Vec<String>, Vec<Vec<f32>>) {
        let scores = (0..4)
            .map(|at| {
                store
                    .search(&hot(TEXT_DIM, at), store.len(), None)
                    .iter()
                    .map(|h| h.score)
                    .collect()
            })
            .collect();
        (
            store.unit_ids.iter().map(str::to_string).collect(),
            store.file_ids.iter().map(str::to_string).collect(),
            store.text_hashes.iter().collect(),
            scores,
        )
    }

    /// The rows of a float32 store as int8 (as a load beyond `quantize_above` holds them).
    fn as_int8(store: &ExactStore) -> ExactStore {
        let Matrix::F32(values) = &store.matrix else {
            panic!("not a float32 store")
        };
        let mut int8 = ExactStore::text().quantized();
        for unit in 0..store.len() {
            let rows = store.rows_of(unit);
            int8.push(
                store.unit_ids.get(unit),
                store.file_ids.get(unit),
                &store.text_hashes.get(unit),
                &values[rows.start * TEXT_DIM..rows.end * TEXT_DIM],
            );
        }
        int8
    }

    #[test]
    fn a_store_updated_from_the_vector_log_equals_a_full_load() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::open(&dir.path().join("m.sqlite")).unwrap();
        let rows = |file: &str, seed: u64, n: usize| -> Vec<(String, String, Vec<u8>)> {
            random_vectors(seed, n, TEXT_DIM, None)
                .into_iter()
                .enumerate()
                .map(|(i, mut v)| {
                    crate::vector::normalize(&mut v);
                    // Every other unit has a second window.
                    if i % 2 == 1 {
                        let second: Vec<f32> = v.iter().rev().copied().collect();
                        v.extend(second);
                    }
                    (
                        format!("{file}:{i}"),
                        format!("h{seed}.{i}"),
                        crate::vector::to_bytes(&v),
                    )
                })
                .collect()
        };
        for (i, file) in ["a", "b", "c"].iter().enumerate() {
            let fid = file_id_for(file);
            manifest
                .replace_file_vectors(
                    file,
                    &fid,
                    "x",
                    crate::vector::LEGACY_TEXT_MODEL,
                    crate::vector::DEFAULT_TEXT_WINDOWS,
                    &rows(&fid, i as u64 + 1, 3),
                )
                .unwrap();
        }
        for quantized in [false, true] {
            let load = |m: &Manifest| {
                let store = ExactStore::load(m).unwrap();
                if quantized {
                    as_int8(&store)
                } else {
                    store
                }
            };
            let store = load(&manifest);
            let since = manifest.vectors_generation().unwrap();
            // b changes (4 units now), c loses its vectors, d is new.
            let (b, c, d) = (file_id_for("b"), file_id_for("c"), file_id_for("d"));
            let seed = if quantized { 20 } else { 10 };
            manifest
                .replace_file_vectors(
                    "b",
                    &b,
                    "y",
                    crate::vector::LEGACY_TEXT_MODEL,
                    crate::vector::DEFAULT_TEXT_WINDOWS,
                    &rows(&b, seed, 4),
                )
                .unwrap();
            manifest
                .replace_file_vectors(
                    "c",
                    &c,
                    "y",
                    crate::vector::LEGACY_TEXT_MODEL,
                    crate::vector::DEFAULT_TEXT_WINDOWS,
                    &[],
                )
                .unwrap();
            manifest
                .replace_file_vectors(
                    "d",
                    &d,
                    "y",
                    crate::vector::LEGACY_TEXT_MODEL,
                    crate::vector::DEFAULT_TEXT_WINDOWS,
                    &rows(&d, seed + 1, 2),
                )
                .unwrap();
            let mut changed = manifest.vector_changes_since(since).unwrap().unwrap();
            changed.sort();
            let mut expected = vec![b.clone(), c.clone(), d.clone()];
            expected.sort();
            assert_eq!(changed, expected);
            let updated = store.updated(&manifest, &changed).unwrap().unwrap();
            assert_eq!(updated.is_quantized(), quantized);
            assert_eq!(fingerprint(&updated), fingerprint(&load(&manifest)));
            assert_eq!(updated.len(), 3 + 4 + 2);
            assert!(signs_follow_codes(&updated));
        }
        // Nothing logged after the newest generation; a manifest without the log (or a
        // reader from before it) loads everything.
        let now = manifest.vectors_generation().unwrap();
        assert_eq!(
            manifest.vector_changes_since(now).unwrap(),
            Some(Vec::new())
        );
        manifest
            .set_info("vector_log_since", &(now + 5).to_string())
            .unwrap();
        assert_eq!(manifest.vector_changes_since(now).unwrap(), None);
    }

    /// Deterministic pseudo-random numbers in [-1, 1) (xorshift64*).
    fn random_vectors(seed: u64, count: usize, dim: usize, levels: Option<f32>) -> Vec<Vec<f32>> {
        let mut state = seed.max(1);
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let bits = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
            bits as f32 / (1u64 << 23) as f32 - 1.0
        };
        (0..count)
            .map(|_| {
                (0..dim)
                    .map(|_| {
                        let x = next();
                        // Coarse levels make equal scores (ties) common.
                        levels.map_or(x, |l| (x * l).round() / l)
                    })
                    .collect()
            })
            .collect()
    }

    /// `(unit_id, score)` of the `k` best rows by a full sort on (score desc, row asc).
    fn naive_top(
        vectors: &[Vec<f32>],
        query: &[f32],
        k: usize,
        allowed: Option<&HashSet<String>>,
    ) -> Vec<(String, f32)> {
        let mut scored: Vec<(f32, usize)> = vectors
            .iter()
            .enumerate()
            .filter(|(row, _)| allowed.is_none_or(|a| a.contains(&format!("u{row}"))))
            .map(|(row, v)| (dot(query, v), row))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(k)
            .map(|(score, row)| (format!("u{row}"), score))
            .collect()
    }

    #[test]
    fn exact_store_agrees_with_a_naive_full_sort_for_any_dimension() {
        for (seed, dim) in [(1u64, TEXT_DIM), (2, 7), (3, 512), (4, 1)] {
            // Text vectors (exact scores: no ties at the k-th place).
            let vectors = random_vectors(seed, 300, dim, None);
            let query = &random_vectors(seed + 100, 1, dim, None)[0];
            let mut text = ExactStore::empty(dim);
            // Image vectors, with many exact ties (kept in row order).
            let tied = random_vectors(seed + 200, 300, dim, Some(2.0));
            let tied_query = &random_vectors(seed + 300, 1, dim, Some(2.0))[0];
            let mut images = ExactStore::empty(dim);
            for (row, (v, t)) in vectors.iter().zip(&tied).enumerate() {
                text.push(
                    &format!("u{row}"),
                    &format!("f{row}"),
                    &format!("t{row}"),
                    v,
                );
                images.push(&format!("u{row}"), &format!("f{row}"), "", t);
            }
            let odd: HashSet<String> = (0..300)
                .filter(|r| r % 3 == 1)
                .map(|r| format!("u{r}"))
                .collect();
            for k in [1, 5, 50, 299, 300, 1000] {
                for allowed in [None, Some(&odd)] {
                    let got: Vec<(String, f32)> = text
                        .search(query, k, allowed)
                        .into_iter()
                        .map(|h| (h.unit_id, h.score))
                        .collect();
                    assert_eq!(
                        got,
                        naive_top(&vectors, query, k, allowed),
                        "text dim {dim} k {k}"
                    );
                    let got: Vec<(String, f32)> = images
                        .search_images(tied_query, k, allowed)
                        .unwrap()
                        .into_iter()
                        .map(|h| (h.unit_id, h.score))
                        .collect();
                    assert_eq!(
                        got,
                        naive_top(&tied, tied_query, k, allowed),
                        "image dim {dim} k {k}"
                    );
                }
            }
            // Another dimension: nothing for text, an error for images.
            assert!(text.search(&vec![0.5; dim + 1], 3, None).is_empty());
            assert!(images.search_images(&vec![0.5; dim + 1], 3, None).is_err());
        }
    }

    /// An int8 store of `vectors`, row `i` as unit `u{i}` of file `f{i}`.
    fn int8_rows(vectors: &[Vec<f32>]) -> ExactStore {
        let mut int8 = ExactStore::text().quantized();
        for (row, v) in vectors.iter().enumerate() {
            int8.push(&format!("u{row}"), &format!("f{row}"), "", v);
        }
        int8
    }

    /// Whether an int8 store's sign bits are those of its codes, row for row (always
    /// true for a float32 store).
    fn signs_follow_codes(store: &ExactStore) -> bool {
        let Matrix::I8 { codes, signs, .. } = &store.matrix else {
            return true;
        };
        signs.len() == store.rows_total()
            && codes
                .chunks_exact(store.dim)
                .enumerate()
                .all(|(row, codes)| {
                    let mut want = Vec::new();
                    crate::signs::push_signs(codes, &mut want);
                    signs.row(row) == want
                })
    }

    #[test]
    fn the_sign_pass_keeps_the_int8_top_with_filters_and_windows() {
        let dim = TEXT_DIM;
        let mut vectors = random_vectors(21, 20_000, dim, None);
        for v in &mut vectors {
            crate::vector::normalize(v);
        }
        let with = int8_rows(&vectors).with_sign_pass(true);
        let without = int8_rows(&vectors).with_sign_pass(false);
        assert!(signs_follow_codes(&with));
        // The pass is used: 20,000 units keep 2,048 candidates for 42.
        assert!(sign_depth(with.len(), rescore_depth(10)) < with.len());
        let ids = |hits: Vec<TextHit>| -> Vec<String> {
            hits.into_iter().take(10).map(|h| h.unit_id).collect()
        };
        let (mut found, mut wanted) = (0, 0);
        for q in 0..20 {
            let query = &random_vectors(5000 + q, 1, dim, None)[0];
            let want = ids(without.search(query, rescore_depth(10), None));
            let got = ids(with.search(query, rescore_depth(10), None));
            wanted += want.len();
            found += want.iter().filter(|id| got.contains(id)).count();
            // A unit's own vector finds it first, with the same score either way.
            let own = &vectors[(q as usize * 997) % vectors.len()];
            let first = &with.search(own, 10, None)[0];
            assert_eq!(first, &without.search(own, 10, None)[0]);
            assert_eq!(
                first.unit_id,
                format!("u{}", (q as usize * 997) % vectors.len())
            );
        }
        let recall = found as f64 / wanted as f64;
        assert!(
            recall >= 0.98,
            "int8 top 10 kept by the sign pass: {recall}"
        );

        // A filter: only allowed units come back, the best of them first.
        let allowed: HashSet<String> = (0..vectors.len())
            .filter(|i| i % 7 == 3)
            .map(|i| format!("u{i}"))
            .collect();
        let hits = with.search(&vectors[10], 10, Some(&allowed));
        assert!(hits.iter().all(|h| allowed.contains(&h.unit_id)));
        assert_eq!(hits[0].unit_id, "u10");

        // A unit of two windows is found by its second one, which is reported.
        let mut store = int8_rows(&vectors[..5000]).with_sign_pass(true);
        let target = &random_vectors(77, 1, dim, None)[0];
        let mut windows = vectors[6000].clone();
        windows.extend_from_slice(target);
        store.push("w", "fw", "", &windows);
        assert!(sign_depth(store.len(), 10) < store.len());
        let hit = &store.search(target, 10, None)[0];
        assert_eq!((hit.unit_id.as_str(), hit.window), ("w", 1));
        assert!(signs_follow_codes(&store));
    }

    #[test]
    fn int8_rows_then_exact_rescoring_find_the_exact_top_10() {
        let dim = TEXT_DIM;
        let vectors = random_vectors(7, 3000, dim, None);
        let int8 = int8_rows(&vectors);
        assert!(int8.is_quantized() && !ExactStore::text().is_quantized());
        let by_id = |id: &str| vectors.get(id[1..].parse::<usize>().ok()?).cloned();
        let (mut found, mut wanted) = (0, 0);
        for q in 0..50 {
            let query = &random_vectors(1000 + q, 1, dim, None)[0];
            let exact = naive_top(&vectors, query, 10, None);
            let approximate = int8.search(query, rescore_depth(10), None);
            let rescored = rescore(approximate, query, 10, by_id);
            // Rescored scores are the exact ones.
            for hit in &rescored {
                let exact_score = dot(query, &by_id(&hit.unit_id).unwrap());
                assert_eq!(hit.score, exact_score);
            }
            let got: HashSet<String> = rescored.into_iter().map(|h| h.unit_id).collect();
            wanted += exact.len();
            found += exact.iter().filter(|(id, _)| got.contains(id)).count();
        }
        let recall = found as f64 / wanted as f64;
        assert!(recall >= 0.98, "recall@10 {recall}");
    }

    #[test]
    fn only_the_top_is_rescored_and_the_rest_stays_below_it() {
        let dim = TEXT_DIM;
        let vectors = random_vectors(11, 3000, dim, None);
        let int8 = int8_rows(&vectors);
        let reads = std::cell::Cell::new(0);
        let by_id = |id: &str| {
            reads.set(reads.get() + 1);
            vectors.get(id[1..].parse::<usize>().ok()?).cloned()
        };
        let (mut found, mut wanted) = (0, 0);
        for q in 0..50 {
            let query = &random_vectors(2000 + q, 1, dim, None)[0];
            let checked = rescore_depth(10);
            let approximate = int8.search(query, 200, None);
            let order: Vec<String> = approximate.iter().map(|h| h.unit_id.clone()).collect();
            reads.set(0);
            let hits = rescore_top(approximate, query, 200, checked, by_id);
            assert_eq!(reads.get(), checked, "only the top is read");
            assert_eq!(hits.len(), 200);
            // Sorted; the first `checked` exact, the rest in approximate order.
            assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
            for hit in &hits[..checked] {
                assert_eq!(hit.score, dot(query, &by_id(&hit.unit_id).unwrap()));
            }
            let rest: Vec<&String> = hits[checked..].iter().map(|h| &h.unit_id).collect();
            let expected: Vec<&String> = order[checked..].iter().collect();
            assert_eq!(rest, expected);
            // The exact top 10 are among the rescored ones, in the first 10.
            let exact = naive_top(&vectors, query, 10, None);
            let got: HashSet<&str> = hits[..10].iter().map(|h| h.unit_id.as_str()).collect();
            wanted += exact.len();
            found += exact
                .iter()
                .filter(|(id, _)| got.contains(id.as_str()))
                .count();
        }
        let recall = found as f64 / wanted as f64;
        assert!(recall >= 0.98, "recall@10 {recall}");
    }

    #[test]
    fn int8_dot_matches_naive_on_every_path() {
        for len in [0, 1, 31, 32, 33, 384, 1000] {
            let a: Vec<i8> = (0..len).map(|i| ((i * 37 + 11) % 255) as i8).collect();
            let b: Vec<i8> = (0..len).map(|i| ((i * 91 + 5) % 255) as i8).collect();
            let naive: i32 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| i32::from(*x) * i32::from(*y))
                .sum();
            assert_eq!(dot_i8(&a, &b), naive, "len {len}");
            assert_eq!(dot_i8_generic(&a, &b), naive, "len {len}");
        }
    }

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..TEXT_DIM).map(|i| (i as f32).sin()).collect();
        let b: Vec<f32> = (0..TEXT_DIM).map(|i| (i as f32).cos()).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
        // The AVX2 path adds in the same lanes and order: bit for bit the same.
        for len in [0, 3, 8, 17, TEXT_DIM, 513] {
            let (a, b) = (&a[..len.min(a.len())], &b[..len.min(b.len())]);
            assert_eq!(
                dot(a, b).to_bits(),
                dot_generic(a, b).to_bits(),
                "len {len}"
            );
        }
    }

    fn record(path: &str, modality: &str, ext: &str) -> FileRecord {
        FileRecord {
            size: 1,
            mtime_ns: 1,
            hash: Some(format!("hash-{path}")),
            converter_version: 1,
            // `txt` is no type name: such files are `text`.
            file_type: Some(converters::FileType::parse(ext).unwrap_or(converters::FileType::Text)),
            modality: converters::Modality::parse(modality),
            ext: ext.to_string(),
            unit_count: 1,
            ..FileRecord::new(path)
        }
    }

    /// A small index written through the storage boundary: the tantivy filter and the
    /// reference meaning agree, and vector search honours filters and staleness.
    #[test]
    fn text_vectors_are_marked_with_the_windows_they_were_cut_into() {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let layout = crate::store::IndexLayout::new(dir.path());
        let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
        let path = "Documents/notes.txt";
        let mtime = DateTime::parse_from_rfc3339("2024-04-01T10:00:00+00:00").unwrap();
        let mut file = record(path, "text", "txt");
        file.hash = Some("h1".into());
        let unit = Unit::new(UnitKind::Span, Locator::default(), "a note");
        StoreWriter::add_file(&mut writer, file, &[unit], mtime).unwrap();
        StoreWriter::commit(&mut writer).unwrap();
        let id = file_id_for(path);
        let rows = [(format!("{id}:0"), text_hash("a note"), hot(TEXT_DIM, 0))];
        for (windows, marker) in [
            (1, "h1@m+named"),
            (4, "h1@m+windows4+named"),
            (16, "h1@m+windows+named"),
        ] {
            writer
                .put_text_vectors(path, &id, "h1", "m", windows, &rows)
                .unwrap();
            let record = writer.manifest_mut().get(path).unwrap().unwrap();
            assert_eq!(record.embedded.as_deref(), Some(marker), "{windows}");
        }
    }

    #[test]
    fn embedded_backend_agrees_with_the_filter_reference() {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let layout = crate::store::IndexLayout::new(dir.path());
        let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
        let files = [
            (
                "Documents/Finance/r.pdf",
                "document",
                "pdf",
                "2024-03-01T10:00:00+00:00",
            ),
            (
                "Documents/notes.txt",
                "text",
                "txt",
                "2024-04-01T10:00:00+00:00",
            ),
            ("Mail/x.eml", "document", "eml", "2024-05-01T10:00:00+00:00"),
            (
                "Mail/x.eml#attachment/q.pdf",
                "document",
                "pdf",
                "2024-06-01T10:00:00+00:00",
            ),
        ];
        for (i, (path, modality, ext, time)) in files.iter().enumerate() {
            let mtime = DateTime::parse_from_rfc3339(time).unwrap();
            let unit = Unit::new(UnitKind::Span, Locator::default(), format!("unit {i}"));
            StoreWriter::add_file(&mut writer, record(path, modality, ext), &[unit], mtime)
                .unwrap();
        }
        StoreWriter::commit(&mut writer).unwrap();
        for (i, (path, ..)) in files.iter().enumerate() {
            let text = format!("unit {i}");
            // The last file's vector is stale (computed from other text).
            let hash = if i == 3 {
                text_hash("old")
            } else {
                text_hash(&crate::vector::unit_embedding_text(path, "", &text))
            };
            let vector = hot(TEXT_DIM, i);
            let id = file_id_for(path);
            writer
                .put_text_vectors(
                    path,
                    &id,
                    &format!("hash-{path}"),
                    crate::vector::LEGACY_TEXT_MODEL,
                    crate::vector::DEFAULT_TEXT_WINDOWS,
                    &[(format!("{id}:0"), hash, vector)],
                )
                .unwrap();
        }
        let (_, _, _) = writer.finish().unwrap();
        let handle = IndexHandle::open(dir.path()).unwrap();
        let units = EmbeddedUnits::open(&handle).unwrap();
        let all: Vec<StoredUnit> = files
            .iter()
            .flat_map(|(path, ..)| units.units_of_file(&file_id_for(path)).unwrap())
            .collect();
        assert_eq!(all.len(), 4);
        let filters = [
            UnitFilter::default(),
            UnitFilter {
                path_prefixes: vec!["Documents".into()],
                ..Default::default()
            },
            UnitFilter {
                path_prefixes: vec!["/Mail/".into()],
                ..Default::default()
            },
            UnitFilter {
                path_prefixes: vec!["Mail/x.eml".into()],
                ..Default::default()
            },
            UnitFilter {
                path_prefixes: vec!["Documents/notes.txt".into()],
                ..Default::default()
            },
            UnitFilter {
                extensions: vec!["pdf".into()],
                ..Default::default()
            },
            UnitFilter {
                modalities: vec!["text".into()],
                kinds: vec!["span".into()],
                ..Default::default()
            },
            UnitFilter {
                kinds: vec!["page".into()],
                ..Default::default()
            },
            UnitFilter {
                time_start: Some(
                    DateTime::parse_from_rfc3339("2024-04-01T10:00:00+00:00")
                        .unwrap()
                        .timestamp(),
                ),
                time_end: Some(
                    DateTime::parse_from_rfc3339("2024-06-01T10:00:00+00:00")
                        .unwrap()
                        .timestamp(),
                ),
                ..Default::default()
            },
        ];
        let searcher = handle.reader.searcher();
        let vectors = EmbeddedVectors::open(&handle).unwrap();
        assert_eq!(vectors.vector_count(VectorSpace::Text).unwrap(), 4);
        for filter in &filters {
            let expected: HashSet<String> = all
                .iter()
                .filter(|u| filter.matches(&UnitPayload::of(u)))
                .map(|u| u.unit_id.clone())
                .collect();
            let found = match filter_query(&handle.fields, filter) {
                Some(query) => unit_ids_matching(&searcher, &*query).unwrap(),
                None => all.iter().map(|u| u.unit_id.clone()).collect(),
            };
            assert_eq!(found, expected, "{filter:?}");
            // Vector search returns the fresh matching units only.
            let hits = vectors
                .vector_search(VectorSpace::Text, &hot(TEXT_DIM, 0), 10, filter)
                .unwrap();
            let stale = format!("{}:0", file_id_for(files[3].0));
            let mut want: Vec<String> = expected.into_iter().filter(|id| *id != stale).collect();
            let mut got: Vec<String> = hits.into_iter().map(|h| h.unit_id).collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{filter:?}");
        }
    }
}
