//! The write side of the index folder: creating (or rebuilding) it, turning units into
//! tantivy documents, and committing files so that a crash leaves every file either
//! with its old or with its new complete state.
//!
//! A commit is always ordered: the lexical index first, then the manifest rows of the
//! files written since the last commit. A file is only recorded (with its hash) once its
//! units are durable, so the next run redoes whatever a crash interrupted.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Datelike, FixedOffset, Timelike, Utc};
use converters::Unit;
use tantivy::schema::Facet;
use tantivy::{doc, Index, TantivyDocument, Term};

use crate::activity::ActivityEvent;
use crate::error::IndexError;
use crate::manifest::{Change, FileRecord, Manifest};
use crate::path::UnitPath;
use crate::schema::{build_schema, register_analyzers, split_path_words, Fields, SCHEMA_VERSION};
use crate::store::{IndexInfo, IndexLayout, StoredUnit, FORMAT_NAME};

pub use crate::path::file_id_for;

/// Opens the index folder for writing, creating it (or rebuilding it after a schema
/// change) as needed. Refuses a folder that indexes another profile.
pub fn open_or_create(layout: &IndexLayout, profile: &Path) -> Result<(Index, Fields), IndexError> {
    std::fs::create_dir_all(&layout.root).map_err(|e| IndexError::io(&layout.root, e))?;
    let profile_root = profile.to_string_lossy().to_string();
    let info_path = layout.info_path();
    let rebuild = if info_path.exists() {
        let info = layout.read_info()?;
        if info.profile_root != profile_root {
            return Err(IndexError::ProfileMismatch {
                path: layout.root.clone(),
                indexed_root: info.profile_root,
                requested_root: profile_root,
            });
        }
        info.schema_version != SCHEMA_VERSION
    } else {
        let non_empty = std::fs::read_dir(&layout.root)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false);
        if non_empty {
            return Err(IndexError::NotAnIndex {
                path: layout.root.clone(),
                detail: "folder is not empty and has no dentate.json; refusing to write into it"
                    .to_string(),
            });
        }
        true
    };
    if rebuild {
        for stale in [layout.lexical_dir(), layout.manifest_path()] {
            if stale.is_dir() {
                std::fs::remove_dir_all(&stale).map_err(|e| IndexError::io(&stale, e))?;
            } else if stale.exists() {
                std::fs::remove_file(&stale).map_err(|e| IndexError::io(&stale, e))?;
            }
        }
        let info = IndexInfo {
            format: FORMAT_NAME.to_string(),
            schema_version: SCHEMA_VERSION,
            profile_root,
            created: Utc::now().to_rfc3339(),
        };
        let text = serde_json::to_string_pretty(&info).unwrap_or_default();
        std::fs::write(&info_path, text).map_err(|e| IndexError::io(&info_path, e))?;
    }
    let lexical = layout.lexical_dir();
    std::fs::create_dir_all(&lexical).map_err(|e| IndexError::io(&lexical, e))?;
    let directory = tantivy::directory::MmapDirectory::open(&lexical)
        .map_err(|e| IndexError::io(&lexical, std::io::Error::other(e.to_string())))?;
    let index = Index::open_or_create(directory, build_schema())?;
    register_analyzers(&index);
    let fields = Fields::from_schema(&index.schema())?;
    Ok((index, fields))
}

/// The texts of a unit's lexical field groups, exactly as the tantivy fields of the same
/// names receive them (before analysis). Other backends (Qdrant's sparse vectors) build
/// their lexical data from this same function, so the two cannot drift apart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LexicalTexts {
    /// `text` (en analyzer).
    pub text: String,
    /// `title` (en analyzer): the unit's title merged with the file's.
    pub title: String,
    /// `meta` (en analyzer): structured field values, one per line.
    pub meta: String,
    /// `name` (path analyzer): the file name split into words.
    pub name: String,
    /// `folders` (path analyzer): the folders the unit is filed under, split into words.
    pub folders: String,
}

/// The unit title as indexed: the unit's own title, followed by the file's title when it
/// does not already contain it (the stored `title` of a unit).
pub fn merged_title(unit_title: Option<&str>, file_title: Option<&str>) -> String {
    let mut title = unit_title.unwrap_or_default().to_string();
    if let Some(file_title) = file_title {
        if !title.contains(file_title) {
            title = format!("{title}\n{file_title}").trim().to_string();
        }
    }
    title
}

/// The lexical texts of a unit of the file at `path` (relative path; attachments are
/// filed under their containing file), from its merged `title` (see [`merged_title`]),
/// its `text` and its structured `fields`. A [`crate::StoredUnit`] holds all four.
pub fn lexical_texts(
    path: &str,
    title: &str,
    text: &str,
    fields: &std::collections::BTreeMap<String, String>,
) -> LexicalTexts {
    let path = UnitPath::parse(path);
    let folders = path
        .filed_under()
        .map(split_path_words)
        .collect::<Vec<_>>()
        .join(" ");
    let meta = fields
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "rrule" | "start" | "end" | "taken"))
        .map(|(_, v)| v.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    LexicalTexts {
        text: text.to_string(),
        title: title.to_string(),
        meta,
        name: split_path_words(path.name()),
        folders,
    }
}

/// The date the file's name gives ([`converters::name_date::date_in_name`]) as a date
/// without a time of day (midnight UTC, as dated records and all-day entries are
/// written): the content time of a unit whose content has none, before the
/// modification time, which a copy of the profile resets.
pub fn name_time(name: &str) -> Option<DateTime<FixedOffset>> {
    let date = converters::name_date::date_in_name(name)?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc().fixed_offset())
}

/// Builds the tantivy document of one unit.
pub fn unit_document(
    fields: &Fields,
    record: &FileRecord,
    unit: &Unit,
    ordinal: u64,
    file_mtime: DateTime<FixedOffset>,
) -> TantivyDocument {
    // Attachments are filed under their containing file.
    let path = UnitPath::parse(&record.path);
    let content_time = unit
        .content_time
        .or_else(|| name_time(path.name()))
        .unwrap_or(file_mtime);
    let facet = Facet::from_path(path.filed_under());
    let title = merged_title(unit.title.as_deref(), record.title.as_deref());
    let texts = lexical_texts(&record.path, &title, &unit.text, &unit.fields);
    let mut document = doc!(
        fields.unit_id => format!("{}:{ordinal}", record.file_id),
        fields.file_id => record.file_id.clone(),
        fields.path => record.path.clone(),
        fields.folder => facet,
        fields.name => texts.name,
        fields.folders => texts.folders,
        fields.text => texts.text,
        fields.title => texts.title,
        fields.meta => texts.meta,
        fields.kind => unit.kind().as_str(),
        fields.modality => record.modality_name(),
        fields.ext => record.ext.clone(),
        fields.file_type => record.file_type_name(),
        fields.content_time => content_time.timestamp(),
        fields.modified => file_mtime.timestamp(),
        fields.hour => u64::from(content_time.hour()),
        fields.ordinal => ordinal,
        fields.locator => serde_json::to_string(&unit.locator).unwrap_or_default(),
        fields.fields_json => serde_json::to_string(&unit.fields).unwrap_or_default(),
        fields.content_time_text => content_time.to_rfc3339(),
    );
    let mut weekdays: HashSet<u64> = HashSet::new();
    weekdays.insert(u64::from(content_time.weekday().num_days_from_monday()));
    if let Some(listed) = unit.fields.get("weekdays") {
        weekdays.extend(
            converters::unit::parse_weekday_list(listed)
                .into_iter()
                .map(u64::from),
        );
    }
    for day in weekdays {
        document.add_u64(fields.weekday, day);
    }
    document
}

/// Writes files into the index folder. Units are added or deleted at once; manifest rows
/// are queued and written by [`IndexWriter::commit`] after the lexical commit.
pub struct IndexWriter {
    index: Index,
    fields: Fields,
    writer: tantivy::IndexWriter<TantivyDocument>,
    manifest: Manifest,
    /// Records to write at the next commit.
    pending: Vec<FileRecord>,
    /// Manifest rows to delete at the next commit.
    forgotten: Vec<String>,
    /// Vectors to move to a renamed file's new id at the next commit.
    vector_moves: Vec<(String, String)>,
    /// Activity events to append at the next commit.
    events: Vec<ActivityEvent>,
    /// Reads the committed units (files being moved, earlier conversions).
    reader: Option<tantivy::IndexReader>,
    /// Events recorded through this writer, by kind.
    recorded: BTreeMap<String, u64>,
}

/// A snapshot of the committed units (see [`IndexWriter::committed`]); it can be read
/// from several threads.
#[derive(Clone)]
pub struct CommittedUnits {
    searcher: tantivy::Searcher,
    fields: Fields,
}

impl CommittedUnits {
    /// All units of one file in order.
    pub fn units_of_file(&self, file_id: &str) -> Result<Vec<StoredUnit>, IndexError> {
        crate::store::units_of_file(&self.searcher, &self.fields, file_id)
    }
}

/// A segment is merged (rewritten without them) once this share of its units is
/// deleted. Deleted units still count in BM25's statistics (document frequencies and
/// the average length), so an index updated in place ranks differently from the same
/// files indexed afresh until its segments are merged: after a converter change that
/// re-converts a whole file type, every query felt it. Lucene's default share.
pub const DELETED_SHARE_BEFORE_MERGE: f32 = 0.2;

/// tantivy's log merge policy (segments of similar sizes merged in groups), plus a
/// merge of any segment with [`DELETED_SHARE_BEFORE_MERGE`] of its units deleted.
fn merge_policy() -> tantivy::merge_policy::LogMergePolicy {
    let mut policy = tantivy::merge_policy::LogMergePolicy::default();
    policy.set_del_docs_ratio_before_merge(DELETED_SHARE_BEFORE_MERGE);
    policy
}

impl IndexWriter {
    /// Opens (or creates) the index of `profile` in `layout` for writing, with a tantivy
    /// writer of `threads` threads and `memory` bytes. Fails with
    /// [`IndexError::Locked`] while another writer holds the folder.
    pub fn open(
        layout: &IndexLayout,
        profile: &Path,
        threads: usize,
        memory: usize,
    ) -> Result<IndexWriter, IndexError> {
        let (index, fields) = open_or_create(layout, profile)?;
        let writer = index
            .writer_with_num_threads(threads.max(1), memory)
            .map_err(|e| match e {
                tantivy::TantivyError::LockFailure(..) => IndexError::Locked {
                    path: layout.root.clone(),
                },
                other => IndexError::Tantivy(other),
            })?;
        writer.set_merge_policy(Box::new(merge_policy()));
        let manifest = Manifest::open(&layout.manifest_path())?;
        Ok(IndexWriter {
            index,
            fields,
            writer,
            manifest,
            pending: Vec::new(),
            forgotten: Vec::new(),
            vector_moves: Vec::new(),
            events: Vec::new(),
            reader: None,
            recorded: BTreeMap::new(),
        })
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn manifest_mut(&mut self) -> &mut Manifest {
        &mut self.manifest
    }

    /// Adds a file's units (its old ones must have been deleted) and queues its record.
    pub fn add_file(
        &mut self,
        record: FileRecord,
        units: &[Unit],
        file_mtime: DateTime<FixedOffset>,
    ) -> Result<(), IndexError> {
        for (ordinal, unit) in units.iter().enumerate() {
            self.writer.add_document(unit_document(
                &self.fields,
                &record,
                unit,
                ordinal as u64,
                file_mtime,
            ))?;
        }
        self.pending.push(record);
        Ok(())
    }

    /// Queues a record whose units do not change (a file touched but not changed, a path
    /// recorded as skipped or failed).
    pub fn put_record(&mut self, record: FileRecord) {
        self.pending.push(record);
    }

    /// Deletes every unit of a file.
    pub fn delete_units(&mut self, file_id: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.file_id, file_id));
    }

    /// Queues the removal of a path's manifest row (and its vectors).
    pub fn forget(&mut self, path: String) {
        self.forgotten.push(path);
    }

    /// Queues an activity event, written with the next commit's manifest rows.
    pub fn record(&mut self, event: ActivityEvent) {
        *self
            .recorded
            .entry(event.kind.as_str().to_string())
            .or_default() += 1;
        self.events.push(event);
    }

    /// Events recorded through this writer so far, by kind.
    pub fn recorded_activity(&self) -> &BTreeMap<String, u64> {
        &self.recorded
    }

    /// Moves a committed file to another path without converting it again: its stored
    /// units are written under `new` (a record of the new path, with the old record's
    /// content fields), the old ones deleted, and its vectors follow it at the next
    /// commit. Returns how many units moved.
    pub fn move_file(
        &mut self,
        old: &FileRecord,
        new: FileRecord,
        file_mtime: DateTime<FixedOffset>,
    ) -> Result<usize, IndexError> {
        let stored = self.committed()?.units_of_file(&old.file_id)?;
        self.delete_units(&old.file_id);
        for unit in &stored {
            let rebuilt = Unit {
                kind: Some(unit.kind),
                locator: unit.locator.clone(),
                title: (!unit.title.is_empty()).then(|| unit.title.clone()),
                text: unit.text.clone(),
                content_time: DateTime::parse_from_rfc3339(&unit.content_time_text).ok(),
                fields: unit.fields.clone(),
            };
            self.writer.add_document(unit_document(
                &self.fields,
                &new,
                &rebuilt,
                unit.ordinal,
                file_mtime,
            ))?;
        }
        self.vector_moves
            .push((old.file_id.clone(), new.file_id.clone()));
        self.forgotten.push(old.path.clone());
        self.pending.push(new);
        Ok(stored.len())
    }

    /// The units as of the last commit (what changes are queued does not show), to be
    /// read while this writer goes on.
    pub fn committed(&mut self) -> Result<CommittedUnits, IndexError> {
        let reader = match self.reader.take() {
            Some(reader) => {
                reader.reload()?;
                reader
            }
            None => self
                .index
                .reader_builder()
                .reload_policy(tantivy::ReloadPolicy::Manual)
                .try_into()?,
        };
        let searcher = reader.searcher();
        self.reader = Some(reader);
        Ok(CommittedUnits {
            searcher,
            fields: self.fields,
        })
    }

    /// Whether anything waits for a commit.
    pub fn is_dirty(&self) -> bool {
        !self.pending.is_empty() || !self.forgotten.is_empty() || !self.events.is_empty()
    }

    /// Commits the lexical index, then the queued manifest rows. Does nothing when
    /// nothing was queued.
    pub fn commit(&mut self) -> Result<(), IndexError> {
        if !self.is_dirty() {
            return Ok(());
        }
        self.writer.commit()?;
        self.manifest.apply_change(&Change {
            upserts: &self.pending,
            deletions: &self.forgotten,
            vector_moves: &self.vector_moves,
            events: &self.events,
        })?;
        self.pending.clear();
        self.forgotten.clear();
        self.vector_moves.clear();
        self.events.clear();
        Ok(())
    }

    /// Commits what is queued, waits for segment merges, records the time of this last
    /// commit and hands back the index, its fields and the manifest (for the phases that
    /// only add vectors).
    pub fn finish(mut self) -> Result<(Index, Fields, Manifest), IndexError> {
        self.commit()?;
        self.writer.wait_merging_threads()?;
        self.manifest
            .set_info("last_commit", &Utc::now().to_rfc3339())?;
        Ok((self.index, self.fields, self.manifest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::IndexHandle;
    use converters::{Locator, UnitKind};

    #[test]
    fn a_name_dates_a_unit_as_a_day_without_a_time() {
        let time = name_time("Scan 2025-09-15 lab results.pdf").unwrap();
        assert_eq!(time.to_rfc3339(), "2025-09-15T00:00:00+00:00");
        assert_eq!(name_time("lab results.pdf"), None);
    }

    fn record(path: &str, units: u32) -> FileRecord {
        FileRecord {
            size: 10,
            mtime_ns: 1,
            hash: Some("h".into()),
            converter_version: 1,
            file_type: Some(converters::FileType::Text),
            modality: Some(converters::Modality::Text),
            ext: "txt".into(),
            unit_count: units,
            ..FileRecord::new(path)
        }
    }

    fn mtime() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2024-03-08T10:00:00+00:00").unwrap()
    }

    /// BM25 scores of `query` over the text field, by unit id, and the deleted units
    /// still held in segments.
    fn scores_and_deleted(dir: &Path, query: &str) -> (BTreeMap<String, String>, u32) {
        let handle = IndexHandle::open(dir).unwrap();
        let searcher = handle.searcher();
        let fields = Fields::from_schema(&searcher.schema().clone()).unwrap();
        let parser = tantivy::query::QueryParser::for_index(searcher.index(), vec![fields.text]);
        let hits = searcher
            .search(
                &parser.parse_query(query).unwrap(),
                &tantivy::collector::TopDocs::with_limit(100).order_by_score(),
            )
            .unwrap();
        let scores = hits
            .into_iter()
            .map(|(score, address)| {
                let doc: TantivyDocument = searcher.doc(address).unwrap();
                let unit = crate::store::StoredUnit::from_doc(&fields, &doc);
                (unit.unit_id, format!("{score:.6}"))
            })
            .collect();
        let deleted = searcher
            .segment_readers()
            .iter()
            .map(|s| s.num_deleted_docs())
            .sum();
        (scores, deleted)
    }

    #[test]
    fn an_index_updated_in_place_ranks_as_a_fresh_one_once_many_units_changed() {
        let profile = tempfile::tempdir().unwrap();
        let text = |i: usize, version: usize| {
            format!(
                "note {i} about the allotment {} rain",
                "potatoes ".repeat(1 + (i + version) % 4)
            )
        };
        let write = |dir: &Path, version_of: &dyn Fn(usize) -> usize, rewrite: &[usize]| {
            let layout = IndexLayout::new(dir);
            let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
            for i in rewrite {
                let path = format!("Notes/{i}.txt");
                writer.delete_units(&file_id_for(&path));
                let unit = Unit::new(UnitKind::Span, Locator::default(), text(*i, version_of(*i)));
                writer.add_file(record(&path, 1), &[unit], mtime()).unwrap();
            }
            writer.finish().unwrap();
        };
        let all: Vec<usize> = (0..20).collect();
        let changed: Vec<usize> = (0..8).collect(); // 40 % of the units
        let version_of = |i: usize| usize::from(i < 8);

        // Indexed once, then 8 of 20 files converted again with other text.
        let updated = tempfile::tempdir().unwrap();
        write(updated.path(), &|_| 0, &all);
        write(updated.path(), &version_of, &changed);
        // The same final texts indexed afresh.
        let fresh = tempfile::tempdir().unwrap();
        write(fresh.path(), &version_of, &all);

        let (updated_scores, deleted) = scores_and_deleted(updated.path(), "potatoes rain");
        let (fresh_scores, _) = scores_and_deleted(fresh.path(), "potatoes rain");
        assert_eq!(deleted, 0, "the segment with 40 % deleted units was merged");
        assert_eq!(updated_scores.len(), 20);
        assert_eq!(updated_scores, fresh_scores);
    }

    #[test]
    fn records_are_written_only_by_commit_and_units_follow_them() {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let layout = IndexLayout::new(dir.path());
        let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
        let units = vec![
            Unit::new(UnitKind::Span, Locator::default(), "first unit".to_string()),
            Unit::new(
                UnitKind::Span,
                Locator::default(),
                "second unit".to_string(),
            ),
        ];
        writer
            .add_file(record("Notes/a.txt", 2), &units, mtime())
            .unwrap();
        assert!(writer.is_dirty());
        assert!(writer.manifest().get("Notes/a.txt").unwrap().is_none());
        writer.commit().unwrap();
        assert!(!writer.is_dirty());
        assert!(writer.manifest().get("Notes/a.txt").unwrap().is_some());
        // A second writer is refused while the first holds the folder.
        assert!(matches!(
            IndexWriter::open(&layout, profile.path(), 1, 15_000_000),
            Err(IndexError::Locked { .. })
        ));
        writer.delete_units(&file_id_for("Notes/a.txt"));
        writer.forget("Notes/a.txt".into());
        let (_, _, manifest) = writer.finish().unwrap();
        assert!(manifest.get("Notes/a.txt").unwrap().is_none());
        assert!(manifest.info("last_commit").unwrap().is_some());
        let handle = IndexHandle::open(dir.path()).unwrap();
        assert!(handle
            .units_of_file(&file_id_for("Notes/a.txt"))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn another_profile_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let layout = IndexLayout::new(dir.path());
        drop(IndexWriter::open(&layout, a.path(), 1, 15_000_000).unwrap());
        assert!(matches!(
            IndexWriter::open(&layout, b.path(), 1, 15_000_000),
            Err(IndexError::ProfileMismatch { .. })
        ));
    }
}
