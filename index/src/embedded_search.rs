//! The embedded backend's read side for the daemon ([`SearchBackend`]): a lexical
//! request becomes a tantivy query (BM25 per field, boosted, summed), a snapshot is one
//! tantivy `Searcher`, and a [`UnitKey`] is a document address in it. Vectors come from
//! [`EmbeddedVectors`], files and units from [`EmbeddedUnits`].

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, EnableScoring, Occur, Query, Scorer, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, Order, Searcher, TantivyDocument, Term};

use crate::address::address_of_unit;
use crate::api::{
    BackendStats, LexicalField, LexicalRequest, LexicalSignal, Matches, SearchBackend,
    SearchSnapshot, StoreError, TimeOrder, UnitFilter, UnitKey, UnitSource, VectorSearch,
    VectorSpace,
};
use crate::embedded::{filter_query, EmbeddedUnits, EmbeddedVectors};
use crate::error::IndexError;
use crate::manifest::FileRecord;
use crate::schema::Fields;
use crate::store::{IndexHandle, StoredUnit};
use crate::unit_cache::UnitCache;

/// The tantivy field of a lexical field group.
pub fn field_of(fields: &Fields, field: LexicalField) -> Field {
    match field {
        LexicalField::Text => fields.text,
        LexicalField::Title => fields.title,
        LexicalField::Meta => fields.meta,
        LexicalField::Name => fields.name,
        LexicalField::Folders => fields.folders,
    }
}

/// One signal as a boosted OR of term queries (`None` without terms).
pub fn signal_query(fields: &Fields, signal: &LexicalSignal) -> Option<Box<dyn Query>> {
    if signal.terms.is_empty() {
        return None;
    }
    let field = field_of(fields, signal.field);
    let clauses: Vec<(Occur, Box<dyn Query>)> = signal
        .terms
        .iter()
        .map(|t| {
            let query: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(field, t),
                IndexRecordOption::WithFreqs,
            ));
            (Occur::Should, query)
        })
        .collect();
    Some(Box::new(BoostQuery::new(
        Box::new(BooleanQuery::new(clauses)),
        signal.boost,
    )))
}

/// The whole request as one tantivy query (`None` when no signal has terms).
pub fn lexical_query(fields: &Fields, request: &LexicalRequest) -> Option<Box<dyn Query>> {
    let clauses: Vec<(Occur, Box<dyn Query>)> = request
        .signals
        .iter()
        .filter_map(|s| signal_query(fields, s))
        .map(|q| (Occur::Should, q))
        .collect();
    (!clauses.is_empty()).then(|| Box::new(BooleanQuery::new(clauses)) as Box<dyn Query>)
}

/// Lexical query AND filter; a filter alone matches everything it lets through.
fn and_filter(
    fields: &Fields,
    lexical: Option<&LexicalRequest>,
    filter: &UnitFilter,
) -> Box<dyn Query> {
    let lexical = lexical.and_then(|l| lexical_query(fields, l));
    match (lexical, filter_query(fields, filter)) {
        (Some(lexical), Some(filter)) => Box::new(BooleanQuery::new(vec![
            (Occur::Must, lexical),
            (Occur::Must, filter),
        ])),
        (Some(lexical), None) => lexical,
        (None, Some(filter)) => filter,
        (None, None) => Box::new(AllQuery),
    }
}

fn key_of(address: DocAddress) -> UnitKey {
    UnitKey((u64::from(address.segment_ord) << 32) | u64::from(address.doc_id))
}

fn address_of(key: UnitKey) -> DocAddress {
    DocAddress::new((key.0 >> 32) as u32, key.0 as u32)
}

/// The embedded index, read by the daemon.
pub struct EmbeddedBackend {
    handle: IndexHandle,
    units: EmbeddedUnits,
    /// Decoded units of the current searcher generation.
    decoded: UnitCache,
    /// Loaded on first use (dense, hybrid or image search), then kept fresh.
    vectors: OnceLock<EmbeddedVectors>,
    /// [`SearchSnapshot::newest_content_time`] of one searcher generation.
    newest: Mutex<Option<(u64, Option<i64>)>>,
}

impl EmbeddedBackend {
    pub fn open(handle: IndexHandle) -> Result<EmbeddedBackend, IndexError> {
        // A damaged manifest stops the daemon here, naming the file.
        handle.manifest()?.check(&handle.layout.manifest_path())?;
        let units = EmbeddedUnits::open(&handle)?;
        Ok(EmbeddedBackend {
            handle,
            units,
            decoded: UnitCache::default(),
            vectors: OnceLock::new(),
            newest: Mutex::new(None),
        })
    }

    /// Loads the stored vectors now rather than on the first dense query.
    pub fn load_vectors(&self) -> Result<&EmbeddedVectors, IndexError> {
        if let Some(vectors) = self.vectors.get() {
            return Ok(vectors);
        }
        let loaded = EmbeddedVectors::open(&self.handle)?;
        Ok(self.vectors.get_or_init(|| loaded))
    }

    pub fn handle(&self) -> &IndexHandle {
        &self.handle
    }
}

impl UnitSource for EmbeddedBackend {
    fn file(&self, path: &str) -> Result<Option<FileRecord>, StoreError> {
        self.units.file(path)
    }

    fn file_by_id(&self, file_id: &str) -> Result<Option<FileRecord>, StoreError> {
        self.units.file_by_id(file_id)
    }

    fn files(&self) -> Result<Vec<FileRecord>, StoreError> {
        self.units.files()
    }

    fn units_of_file(&self, file_id: &str) -> Result<Vec<StoredUnit>, StoreError> {
        self.units.units_of_file(file_id)
    }

    fn content_hashes(
        &self,
        file_ids: &[&str],
    ) -> Result<std::collections::HashMap<String, String>, StoreError> {
        self.units.content_hashes(file_ids)
    }
}

impl SearchBackend for EmbeddedBackend {
    fn name(&self) -> &'static str {
        "embedded"
    }

    fn profile_root(&self) -> &str {
        &self.handle.info.profile_root
    }

    fn location(&self) -> String {
        self.handle.layout.root.display().to_string()
    }

    fn snapshot(&self) -> Result<Box<dyn SearchSnapshot + '_>, StoreError> {
        Ok(Box::new(EmbeddedSnapshot {
            backend: self,
            searcher: self.handle.searcher(),
            windows: Default::default(),
        }))
    }

    fn vector_count(&self, space: VectorSpace<'_>) -> Result<usize, StoreError> {
        self.load_vectors()?.vector_count(space)
    }

    fn stats(&self) -> Result<BackendStats, StoreError> {
        let manifest = self.handle.manifest()?;
        let (units_with_vectors, units) = manifest.embedding_coverage()?;
        Ok(BackendStats {
            totals: manifest.totals()?,
            last_commit: manifest.info("last_commit")?,
            units_with_vectors,
            units,
        })
    }

    fn activity(
        &self,
        query: &crate::activity::ActivityQuery,
    ) -> Result<Vec<crate::activity::ActivityEvent>, StoreError> {
        Ok(self.handle.manifest()?.activity(query)?)
    }
}

/// One tantivy searcher: what one request sees.
struct EmbeddedSnapshot<'a> {
    backend: &'a EmbeddedBackend,
    searcher: Searcher,
    /// The scoring window of units found by a text-vector search, where not the first,
    /// and how many windows the unit has.
    windows: std::sync::Mutex<HashMap<UnitKey, (usize, usize)>>,
}

impl EmbeddedSnapshot<'_> {
    fn fields(&self) -> &Fields {
        &self.backend.handle.fields
    }

    fn doc(&self, key: UnitKey) -> Result<TantivyDocument, StoreError> {
        Ok(self
            .searcher
            .doc(address_of(key))
            .map_err(IndexError::from)?)
    }
}

impl SearchSnapshot for EmbeddedSnapshot<'_> {
    fn lexical(
        &self,
        request: &LexicalRequest,
        filter: &UnitFilter,
        depth: usize,
    ) -> Result<Matches, StoreError> {
        if lexical_query(self.fields(), request).is_none() {
            return Ok(Matches::default());
        }
        let query = and_filter(self.fields(), Some(request), filter);
        let (hits, total) = self
            .searcher
            .search(
                &query,
                &(TopDocs::with_limit(depth.max(1)).order_by_score(), Count),
            )
            .map_err(IndexError::from)?;
        Ok(Matches {
            hits: hits.into_iter().map(|(s, a)| (key_of(a), s)).collect(),
            total: total as u64,
        })
    }

    fn by_time(
        &self,
        lexical: Option<&LexicalRequest>,
        filter: &UnitFilter,
        limit: usize,
        order: TimeOrder,
    ) -> Result<Matches, StoreError> {
        let query = and_filter(self.fields(), lexical, filter);
        let order = match order {
            TimeOrder::NewestFirst => Order::Desc,
            TimeOrder::OldestFirst => Order::Asc,
        };
        let (hits, total) = self
            .searcher
            .search(
                &query,
                &(
                    TopDocs::with_limit(limit.max(1))
                        .order_by_fast_field::<i64>("content_time", order),
                    Count,
                ),
            )
            .map_err(IndexError::from)?;
        Ok(Matches {
            hits: hits
                .into_iter()
                .take(limit)
                .map(|(_, a)| (key_of(a), 0.0))
                .collect(),
            total: total as u64,
        })
    }

    fn vectors(
        &self,
        space: VectorSpace<'_>,
        query: &[f32],
        k: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<(UnitKey, f32)>, StoreError> {
        self.vectors_exact_top(space, query, k, k, filter)
    }

    fn vectors_exact_top(
        &self,
        space: VectorSpace<'_>,
        query: &[f32],
        k: usize,
        exact: usize,
        filter: &UnitFilter,
    ) -> Result<Vec<(UnitKey, f32)>, StoreError> {
        // Checked against this snapshot's searcher: the addresses are its keys.
        let vectors = self.backend.load_vectors()?;
        Ok(match space {
            VectorSpace::Text => {
                let hits = vectors.text_search(&self.searcher, query, k, exact, filter)?;
                let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
                hits.into_iter()
                    .map(|(address, hit)| {
                        let key = key_of(address);
                        if hit.window > 0 {
                            windows.insert(key, (hit.window, hit.windows));
                        }
                        (key, hit.score)
                    })
                    .collect()
            }
            VectorSpace::Image { model } => vectors
                .image_search(&self.searcher, model, query, k, filter)?
                .into_iter()
                .map(|(address, hit)| (key_of(address), hit.score))
                .collect(),
        })
    }

    /// Recorded while scanning.
    fn text_windows(&self, keys: &[UnitKey]) -> HashMap<UnitKey, (usize, usize)> {
        let windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        keys.iter()
            .filter_map(|key| Some((*key, *windows.get(key)?)))
            .collect()
    }

    fn unit(&self, key: UnitKey) -> Result<StoredUnit, StoreError> {
        Ok(Arc::unwrap_or_clone(self.shared_unit(key)?))
    }

    fn shared_unit(&self, key: UnitKey) -> Result<Arc<StoredUnit>, StoreError> {
        let generation = self.searcher.generation().generation_id();
        self.backend
            .decoded
            .get_or_load(generation, address_of(key), || {
                Ok(StoredUnit::from_doc(self.fields(), &self.doc(key)?))
            })
    }

    fn file_id(&self, key: UnitKey) -> Result<String, StoreError> {
        let address = address_of(key);
        let segment = self.searcher.segment_reader(address.segment_ord);
        if let Some(column) = segment
            .fast_fields()
            .str("file_id")
            .map_err(IndexError::from)?
        {
            if let Some(ord) = column.term_ords(address.doc_id).next() {
                let mut out = String::new();
                if column.ord_to_str(ord, &mut out).unwrap_or(false) {
                    return Ok(out);
                }
            }
        }
        Ok(self.unit(key)?.file_id)
    }

    fn unit_by_id(&self, unit_id: &str) -> Result<Option<StoredUnit>, StoreError> {
        match address_of_unit(&self.searcher, self.fields(), unit_id)? {
            Some(address) => Ok(Some(self.unit(key_of(address))?)),
            None => Ok(None),
        }
    }

    fn highlight_terms(
        &self,
        request: &LexicalRequest,
    ) -> Result<BTreeMap<String, f32>, StoreError> {
        let mut out = BTreeMap::new();
        for term in request.text_terms() {
            let doc_freq = self
                .searcher
                .doc_freq(&Term::from_field_text(self.fields().text, term))
                .map_err(IndexError::from)?;
            if doc_freq > 0 {
                out.insert(term.to_string(), 1.0 / (1.0 + doc_freq as f32));
            }
        }
        Ok(out)
    }

    /// Scores the unit under each signal separately, with scorers rather than
    /// `Query::explain` (which must only be asked about documents that match).
    fn signal_scores(
        &self,
        request: &LexicalRequest,
        key: UnitKey,
    ) -> Result<BTreeMap<String, f64>, StoreError> {
        let address = address_of(key);
        let segment = self.searcher.segment_reader(address.segment_ord);
        let mut out = BTreeMap::new();
        for signal in &request.signals {
            let Some(query) = signal_query(self.fields(), signal) else {
                continue;
            };
            let score = (|| -> tantivy::Result<f32> {
                let weight = query.weight(EnableScoring::enabled_from_searcher(&self.searcher))?;
                let mut scorer = weight.scorer(segment, 1.0)?;
                if scorer.doc() < address.doc_id {
                    scorer.seek(address.doc_id);
                }
                Ok(if scorer.doc() == address.doc_id {
                    scorer.score()
                } else {
                    0.0
                })
            })()
            .map_err(IndexError::from)?;
            out.insert(signal.name.to_string(), f64::from(score));
        }
        Ok(out)
    }

    fn newest_content_time(&self) -> Result<Option<i64>, StoreError> {
        let generation = self.searcher.generation().generation_id();
        let mut kept = self
            .backend
            .newest
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((kept_generation, newest)) = *kept {
            if kept_generation == generation {
                return Ok(newest);
            }
        }
        let newest = newest_dated_content(&self.searcher)?;
        *kept = Some((generation, newest));
        Ok(newest)
    }
}

/// Modification times within this of the newest count as one copy of the profile.
const COPY_WINDOW_SECONDS: i64 = 86_400;

/// The profile's "now" ([`SearchSnapshot::newest_content_time`]): the newest content
/// time of any unit, unless the profile looks copied without its modification times
/// (at least half of the units' files modified within [`COPY_WINDOW_SECONDS`] of the
/// newest) and some unit is dated by its content (a content time other than its
/// file's modification time) before that copy: then the newest such date (dates after
/// the copy, such as events planned ahead, are left out). Two passes
/// over three fast fields, once per searcher generation (a few milliseconds per
/// million units).
fn newest_dated_content(searcher: &Searcher) -> Result<Option<i64>, IndexError> {
    let columns = searcher
        .segment_readers()
        .iter()
        .map(|segment| {
            let fast = segment.fast_fields();
            Ok((segment, fast.i64("content_time")?, fast.i64("modified")?))
        })
        .collect::<Result<Vec<_>, tantivy::TantivyError>>()?;
    let live_times = || {
        columns.iter().flat_map(|(segment, content, modified)| {
            let alive = segment.alive_bitset();
            (0..segment.max_doc())
                .filter(move |&doc| alive.is_none_or(|a| a.is_alive(doc)))
                .filter_map(move |doc| Some((content.first(doc)?, modified.first(doc)?)))
        })
    };
    let (mut any, mut newest_modified, mut units) = (None, None, 0usize);
    for (content, modified) in live_times() {
        any = any.max(Some(content));
        newest_modified = newest_modified.max(Some(modified));
        units += 1;
    }
    let Some(newest_modified) = newest_modified else {
        return Ok(any);
    };
    let copied_at = newest_modified - COPY_WINDOW_SECONDS;
    let (mut recent, mut dated) = (0usize, None);
    for (content, modified) in live_times() {
        if modified >= copied_at {
            recent += 1;
        }
        if content != modified && content < copied_at {
            dated = dated.max(Some(content));
        }
    }
    Ok(if recent * 2 >= units && dated.is_some() {
        dated
    } else {
        any
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::IndexLayout;
    use crate::writer::{file_id_for, IndexWriter};
    use chrono::{DateTime, FixedOffset};
    use converters::{Locator, Unit, UnitKind};

    fn record(path: &str, units: u32) -> FileRecord {
        FileRecord {
            size: 10,
            mtime_ns: 1,
            hash: Some(path.into()),
            converter_version: 1,
            file_type: Some(converters::FileType::Text),
            modality: Some(converters::Modality::Text),
            ext: "txt".into(),
            unit_count: units,
            ..FileRecord::new(path)
        }
    }

    fn at(day: u32) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(&format!("2024-03-{day:02}T10:00:00+00:00")).unwrap()
    }

    fn span(text: &str, day: u32) -> Unit {
        let mut unit = Unit::new(UnitKind::Span, Locator::default(), text.to_string());
        unit.content_time = Some(at(day));
        unit
    }

    fn text_signal(terms: &[&str]) -> LexicalRequest {
        LexicalRequest {
            signals: vec![LexicalSignal {
                name: "bm25.text",
                field: LexicalField::Text,
                terms: terms.iter().map(|t| t.to_string()).collect(),
                boost: 1.0,
            }],
        }
    }

    #[test]
    fn a_snapshot_answers_every_question_of_the_engine() {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let layout = IndexLayout::new(dir.path());
        let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
        let notes = [
            span("the budget for the kitchen", 1),
            span("a budget budget review", 2),
        ];
        writer
            .add_file(record("Notes/a.txt", 2), &notes, at(1))
            .unwrap();
        writer
            .add_file(record("Mail/b.txt", 1), &[span("holiday plans", 3)], at(3))
            .unwrap();
        writer.commit().unwrap();
        drop(writer.finish().unwrap());

        let backend = EmbeddedBackend::open(IndexHandle::open(dir.path()).unwrap()).unwrap();
        assert_eq!(backend.name(), "embedded");
        let snapshot = backend.snapshot().unwrap();
        let budget = text_signal(&["budget"]);
        let found = snapshot
            .lexical(&budget, &UnitFilter::default(), 10)
            .unwrap();
        assert_eq!(found.total, 2);
        let best = snapshot.unit(found.hits[0].0).unwrap();
        assert_eq!(
            best.text, "a budget budget review",
            "higher term frequency first"
        );
        assert_eq!(
            snapshot.file_id(found.hits[0].0).unwrap(),
            file_id_for("Notes/a.txt")
        );
        let scores = snapshot.signal_scores(&budget, found.hits[0].0).unwrap();
        assert!((scores["bm25.text"] as f32 - found.hits[0].1).abs() < 1e-4);
        // Filters apply to lexical search and to the time order.
        let mail = UnitFilter {
            path_prefixes: vec!["Mail".into()],
            ..UnitFilter::default()
        };
        assert!(snapshot
            .lexical(&budget, &mail, 10)
            .unwrap()
            .hits
            .is_empty());
        let newest = snapshot
            .by_time(None, &UnitFilter::default(), 2, TimeOrder::NewestFirst)
            .unwrap();
        assert_eq!(newest.total, 3);
        assert_eq!(
            snapshot.unit(newest.hits[0].0).unwrap().text,
            "holiday plans"
        );
        let oldest = snapshot
            .by_time(
                Some(&budget),
                &UnitFilter::default(),
                5,
                TimeOrder::OldestFirst,
            )
            .unwrap();
        let texts: Vec<String> = oldest
            .hits
            .iter()
            .map(|(k, _)| snapshot.unit(*k).unwrap().text)
            .collect();
        assert_eq!(
            texts,
            ["the budget for the kitchen", "a budget budget review"]
        );
        assert_eq!(
            snapshot.newest_content_time().unwrap(),
            Some(at(3).timestamp())
        );
        let id = format!("{}:1", file_id_for("Notes/a.txt"));
        assert_eq!(
            snapshot.unit_by_id(&id).unwrap().unwrap().text,
            "a budget budget review"
        );
        assert!(snapshot.unit_by_id("nope:0").unwrap().is_none());
        let weights = snapshot
            .highlight_terms(&text_signal(&["budget", "absent"]))
            .unwrap();
        assert_eq!(weights.keys().collect::<Vec<_>>(), ["budget"]);
        let stats = backend.stats().unwrap();
        assert_eq!((stats.totals.indexed, stats.units), (2, 3));
    }

    #[test]
    fn content_hashes_are_kept_until_a_commit() {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let layout = IndexLayout::new(dir.path());
        let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
        for path in ["a.txt", "b.txt"] {
            writer
                .add_file(record(path, 1), &[span(path, 1)], at(1))
                .unwrap();
        }
        writer.commit().unwrap();
        let backend = EmbeddedBackend::open(IndexHandle::open(dir.path()).unwrap()).unwrap();
        let (a, b) = (file_id_for("a.txt"), file_id_for("b.txt"));
        let hashes = backend.content_hashes(&[&a, &b, "nope"]).unwrap();
        assert_eq!(hashes.len(), 2);
        assert_eq!(
            (hashes[&a].as_str(), hashes[&b].as_str()),
            ("a.txt", "b.txt")
        );
        // Asked again in the same generation: the same answer (from what was kept).
        assert_eq!(backend.content_hashes(&[&b, &a]).unwrap(), hashes);
        // a.txt changes; after the commit its new hash is read.
        let mut changed = record("a.txt", 1);
        changed.hash = Some("changed".into());
        writer.add_file(changed, &[span("new", 2)], at(2)).unwrap();
        writer.commit().unwrap();
        backend.handle().reader.reload().unwrap();
        let hashes = backend.content_hashes(&[&a]).unwrap();
        assert_eq!(hashes[&a], "changed");
    }

    #[test]
    fn a_copied_profile_is_dated_by_its_content_not_by_the_copy() {
        let index_of = |files: &[(&str, Vec<Unit>, u32)]| {
            let profile = tempfile::tempdir().unwrap();
            let dir = tempfile::tempdir().unwrap();
            let layout = IndexLayout::new(dir.path());
            let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
            for (path, units, modified) in files {
                writer
                    .add_file(record(path, units.len() as u32), units, at(*modified))
                    .unwrap();
            }
            writer.commit().unwrap();
            drop(writer.finish().unwrap());
            let backend = EmbeddedBackend::open(IndexHandle::open(dir.path()).unwrap()).unwrap();
            let newest = backend.snapshot().unwrap().newest_content_time().unwrap();
            newest
        };
        let undated = |text: &str| Unit::new(UnitKind::Span, Locator::default(), text);
        // Copied on day 28: every file modified then; the mail and the event carry their
        // own dates (days 5 and 9), the note none; an event planned for day 30 is ahead.
        let copied = [
            ("Mail/a.eml", vec![span("mail", 5)], 28),
            (
                "Calendar/c.ics",
                vec![span("event", 9), span("plan", 30)],
                28,
            ),
            ("Notes/n.txt", vec![undated("note")], 28),
        ];
        assert_eq!(index_of(&copied), Some(at(9).timestamp()));
        // Modification times that follow the story: the newest content time, as before.
        let kept = [
            ("Mail/a.eml", vec![span("mail", 5)], 5),
            ("Calendar/c.ics", vec![span("event", 9)], 10),
            ("Notes/n.txt", vec![undated("note")], 12),
        ];
        assert_eq!(index_of(&kept), Some(at(12).timestamp()));
        // Nothing dated by its content: the newest file time.
        let plain = [("Notes/n.txt", vec![undated("note")], 28)];
        assert_eq!(index_of(&plain), Some(at(28).timestamp()));
    }
}
