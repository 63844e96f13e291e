//! One indexing run: walk → diff against the manifest → convert changed files in
//! parallel (`crate::convert`, with the enrichment stages of `crate::stages`) → write
//! units in batches → commit → record the batch in the manifest → text vectors
//! (`crate::vectors`) → CLIP vectors (`crate::clip`) → summary.
//!
//! Crash safety: the lexical index is committed before the manifest rows that describe
//! it, and every file's documents are deleted (by `file_id`, a hash of its path) before
//! its new units are added. A crash at any point therefore leaves an index that opens,
//! and the next run redoes exactly the files whose manifest rows were not written.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use rayon::prelude::*;

use crate::changes::{self, EventSource};
use crate::convert::{
    convert_file, convert_gold, converted_by_current, Converted, Converter, EarlierFiles,
    MAX_ATTACHMENT_DEPTH,
};
use crate::error::IndexError;
use crate::manifest::{FileRecord, FileStatus};
pub use crate::options::{IndexOptions, NoProgress, Progress};
use crate::stages::phases::{PhaseContext, VectorPhases};
use crate::stages::Stages;
use crate::store::IndexLayout;
pub use crate::summary::{EmbeddingSummary, Failure, FileCounts, RunSummary};
use crate::walk::{walk, WalkedFile};
use index::writer::IndexWriter;
pub use index::writer::{file_id_for, open_or_create, unit_document};
use index::UnitPath;

/// Runs one indexing pass.
pub fn run(options: &IndexOptions, progress: &dyn Progress) -> Result<RunSummary, IndexError> {
    let started = Instant::now();
    // Freed model memory goes back to the system while the run lasts (see `memory`).
    let _trimmer = crate::memory::Trimmer::start();
    let profile = options.canonical_profile()?;
    let layout = IndexLayout::new(&options.index_dir);
    let mut writer = IndexWriter::open(
        &layout,
        &profile,
        options.threads.clamp(1, 4),
        options.writer_memory,
    )?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .build()
        .map_err(|e| IndexError::io(&profile, std::io::Error::other(e)))?;

    // 1. Walk and diff.
    let index_dir = options.index_dir.canonicalize().ok();
    let walked = walk(&profile, index_dir.as_deref());
    let known: HashMap<String, FileRecord> = writer
        .manifest()
        .all()?
        .into_iter()
        .map(|r| (r.path.clone(), r))
        .collect();
    let mut summary = RunSummary::default();
    // Gold import: matched files take their units from Gold JSON.
    let gold = match &options.gold_dir {
        Some(dir) => crate::gold::load_gold(dir, &walked.files)
            .map_err(|source| IndexError::io(dir, source))?,
        None => crate::gold::GoldSet::default(),
    };
    summary.gold = gold.summary.clone();
    let stages = Stages::new(options);
    stages.name_sources(&walked.files);
    // The units as of the last commit, for the stages to carry work over from (see
    // `Earlier`). A reader holds the segments of its commit, merged away or not: it is
    // renewed at every commit below and dropped when conversion ends, so that those
    // segments do not hold disk space for the whole run.
    let mut committed = writer.committed()?;
    let stale_attachments = parents_of_stale_attachments(&known, |r| stages.owed(r));
    let mut seen: HashSet<String> = HashSet::new();
    let mut to_convert: Vec<&WalkedFile> = Vec::new();
    let mut issue_records = Vec::new();
    for file in &walked.files {
        seen.insert(file.rel_path.clone());
        match known.get(&file.rel_path) {
            Some(record)
                if record.size == file.size
                    && record.mtime_ns == file.mtime_ns
                    && converted_by_current(record)
                    && !stale_attachments.contains(&record.path)
                    && record.stages.gold_hash.as_ref() == gold.hash_of(&file.rel_path)
                    && !stages.owed(record) =>
            {
                summary.unchanged += 1;
            }
            _ => to_convert.push(file),
        }
    }
    for issue in &walked.issues {
        seen.insert(issue.rel_path.clone());
        let record = issue_record(issue);
        if known.get(&record.path).map(|r| (&r.status, &r.error))
            != Some((&record.status, &record.error))
        {
            issue_records.push(record);
        }
    }
    // Top-level rows that left the profile (attachments go with their parents).
    let mut removed: Vec<&FileRecord> = known
        .values()
        .filter(|r| r.parent_path.is_none() && !seen.contains(&r.path))
        .collect();
    removed.sort_by(|a, b| a.path.cmp(&b.path));
    // New paths with the content of a vanished one were renamed or moved: they move in
    // the index instead of being converted again.
    let source = EventSource {
        first_run: known.is_empty(),
        watch: options.watching,
    };
    let new_files: HashMap<&str, &WalkedFile> = to_convert
        .iter()
        .filter(|f| !known.contains_key(&f.rel_path))
        .map(|f| (f.rel_path.as_str(), *f))
        .collect();
    let renames = {
        let mut candidates: Vec<&WalkedFile> = new_files
            .values()
            .copied()
            .filter(|f| gold.hash_of(&f.rel_path).is_none())
            .collect();
        candidates.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
        changes::find_renames(
            &removed,
            &candidates,
            |r| {
                converted_by_current(r)
                    && r.stages.gold_hash.is_none()
                    && !stages.owed(r)
                    && !stale_attachments.contains(&r.path)
            },
            crate::convert::content_hash_of,
        )
    };
    let moved_from: HashSet<&str> = renames.iter().map(|(r, _)| r.path.as_str()).collect();
    let moved_to: HashSet<&str> = renames.iter().map(|(_, f)| f.rel_path.as_str()).collect();
    removed.retain(|r| !moved_from.contains(r.path.as_str()));
    to_convert.retain(|f| !moved_to.contains(f.rel_path.as_str()));
    // Recordings last: everything else is searchable (committed) before the long work
    // of hearing them, and they come together for the speech queue (`Stages::prepare`).
    let recording = |f: &&WalkedFile| {
        matches!(
            crate::walk::sniff_type(&f.abs_path, &f.rel_path),
            Some(converters::FileType::Audio | converters::FileType::Video)
        )
    };
    let mut keyed: Vec<(bool, &WalkedFile)> =
        to_convert.iter().map(|f| (recording(f), *f)).collect();
    keyed.sort_by_key(|(is_recording, _)| *is_recording);
    let first_recording = keyed.iter().position(|(is_recording, _)| *is_recording);
    let to_convert: Vec<&WalkedFile> = keyed.into_iter().map(|(_, f)| f).collect();
    progress.planned(walked.files.len(), to_convert.len());

    // 2. Removals first (cheap), together with walk issues.
    if !removed.is_empty() || !issue_records.is_empty() {
        for record in &removed {
            writer.record(changes::deleted(record, source));
            for path in subtree(&known, &record.path) {
                if let Some(r) = known.get(&path) {
                    writer.delete_units(&r.file_id);
                }
                writer.forget(path);
            }
        }
        for record in issue_records {
            for path in subtree(&known, &record.path) {
                if let Some(r) = known.get(&path) {
                    writer.delete_units(&r.file_id);
                }
                if path != record.path {
                    writer.forget(path);
                }
            }
            writer.put_record(record);
        }
        writer.commit()?;
        summary.removed = removed.len() as u64;
    }
    for (old, new) in &renames {
        for path in subtree(&known, &old.path) {
            if let Some(r) = known.get(&path) {
                let record = changes::moved_record(r, &old.path, &new.rel_path, new.mtime_ns);
                writer.move_file(r, record, crate::convert::mtime_of(new.mtime_ns))?;
            }
        }
        writer.record(changes::renamed(old, new, source));
        summary.moved += 1;
    }
    writer.commit()?;

    // 3. Convert in batches; commit at intervals.
    let mut last_commit = Instant::now();
    let mut done = 0usize;
    let (documents, recordings) = to_convert.split_at(first_recording.unwrap_or(to_convert.len()));
    let chunks = documents
        .chunks(options.batch_files.max(1))
        .map(|chunk| (chunk, false))
        .chain(
            recordings
                .chunks(options.batch_files.max(1))
                .map(|c| (c, true)),
        );
    for (batch, of_recordings) in chunks {
        // Before the first recording, the documents are committed: searchable while the
        // recordings are heard.
        if of_recordings && summary.documents_searchable_seconds.is_none() {
            writer.commit()?;
            committed = writer.committed()?;
            last_commit = Instant::now();
            progress.committed(done);
            summary.documents_searchable_seconds = Some(started.elapsed().as_secs_f64());
            progress.recordings(recordings.len(), recordings.iter().map(|f| f.size).sum());
        }
        if options.stop_requested() {
            summary.interrupted = true;
            break;
        }
        let converter = Converter {
            timeout: options.file_timeout,
            stages: &stages,
            earlier: Some(EarlierFiles {
                records: &known,
                units: &committed,
            }),
        };
        // The recordings' speech, heard together (the sort above already read their type).
        let ahead: Vec<(&WalkedFile, Option<&FileRecord>)> = batch
            .iter()
            .filter(|file| of_recordings && !gold.by_path.contains_key(&file.rel_path))
            .map(|&file| (file, known.get(&file.rel_path)))
            .collect();
        stages.prepare(&ahead, progress);
        let results: Vec<Converted> = pool.install(|| {
            batch
                .par_iter()
                .map(|file| {
                    // A file whose attachments need converting again is not kept as is,
                    // even when its content is unchanged.
                    let previous = known
                        .get(&file.rel_path)
                        .filter(|r| !stale_attachments.contains(&r.path));
                    let file_started = Instant::now();
                    let converted = match gold.by_path.get(&file.rel_path) {
                        Some(entry) => convert_gold(file, entry),
                        None => convert_file(&converter, file, previous),
                    };
                    tracing::debug!(
                        path = %file.rel_path,
                        seconds = file_started.elapsed().as_secs_f64(),
                        units = converted.units.len(),
                        "converted"
                    );
                    progress.file_done(&file.rel_path);
                    converted
                })
                .collect()
        });
        for converted in results {
            done += 1;
            let path = converted.record.path.clone();
            match known.get(&path) {
                None => {
                    if let Some(file) = new_files.get(path.as_str()) {
                        for event in changes::created(file, source) {
                            writer.record(event);
                        }
                    }
                }
                Some(old) => {
                    if let Some(event) = changes::modified(old, &converted.record, source) {
                        writer.record(event);
                    }
                }
            }
            // Content unchanged (only mtime moved): keep units, update the row.
            if converted.record.status == FileStatus::Indexed
                && converted.units.is_empty()
                && converted.record.unit_count > 0
            {
                summary.touched += 1;
                writer.put_record(converted.record);
                continue;
            }
            // Old documents of this file and of its old attachments go.
            for old in subtree(&known, &path) {
                if let Some(r) = known.get(&old) {
                    writer.delete_units(&r.file_id);
                }
                if old != path {
                    writer.forget(old);
                }
            }
            write_converted(&mut writer, converted, &mut summary)?;
        }
        if last_commit.elapsed() >= options.commit_interval {
            writer.commit()?;
            // Units of files not converted yet are in the new commit as they were.
            committed = writer.committed()?;
            last_commit = Instant::now();
            progress.committed(done);
        }
    }
    drop(committed);
    writer.commit()?;
    progress.committed(done);
    summary.activity = writer.recorded_activity().clone();
    let (index, fields, mut manifest) = writer.finish()?;
    // The conversion models (OCR, tagger, speech) are done: free them before the
    // vector phases load theirs, so the models take turns instead of adding up.
    summary.ocr = stages.ocr_summary();
    summary.media = stages.media_summary();
    drop(stages);
    crate::memory::release();

    // 4. Text and CLIP vectors catch up behind the lexical index (resumable per file).
    if options.stop_requested() {
        summary.interrupted = true;
    } else {
        VectorPhases::new(options).run(
            &mut PhaseContext {
                index: &index,
                fields: &fields,
                manifest: &mut manifest,
                progress,
            },
            &mut summary,
        )?;
        // A stop during the vector phases leaves vectors for the next run.
        summary.interrupted |= options.stop_requested();
    }

    // 5. Summary over the whole manifest.
    let totals = manifest.totals()?;
    summary.files = FileCounts {
        indexed: totals.indexed,
        skipped: totals.skipped,
        failed: totals.failed,
    };
    summary.units = totals.units;
    summary.units_by_kind = totals.units_by_kind;
    for r in manifest.all()? {
        let entry = |category: String, reason: String| Failure {
            path: r.path.clone(),
            category,
            reason,
        };
        match r.status {
            FileStatus::Failed => summary.failures.push(entry(
                r.reason.clone().unwrap_or_default(),
                r.error.clone().unwrap_or_default(),
            )),
            FileStatus::Skipped => summary.skipped.push(entry(
                r.reason.clone().unwrap_or_default(),
                r.error.clone().unwrap_or_default(),
            )),
            FileStatus::Indexed => {
                if let Some(damage) = r.extra.get(converters::unit::DAMAGE_KEY) {
                    summary
                        .failures
                        .push(entry("damaged".to_string(), damage.clone()));
                }
                if let Some(change) = r.extra.get(crate::convert::CHANGED_KEY) {
                    summary.failures.push(entry(
                        crate::convert::CHANGED_KEY.to_string(),
                        change.clone(),
                    ));
                }
                if let Some(kept) = r.extra.get(converters::unit::TRUNCATED_KEY) {
                    summary
                        .truncated
                        .push(entry("truncated".to_string(), kept.clone()));
                }
            }
        }
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Top-level files with an attachment (at any depth) that an older version of the
/// attachment's converter converted, or that a stage owes work (an audio attachment
/// indexed before attachments were transcribed, a model changed). Attachments are only
/// converted with their parent, so such a parent is converted again, even when it is
/// unchanged.
fn parents_of_stale_attachments(
    known: &HashMap<String, FileRecord>,
    owed: impl Fn(&FileRecord) -> bool,
) -> HashSet<String> {
    known
        .values()
        .filter(|r| r.parent_path.is_some() && (!converted_by_current(r) || owed(r)))
        .filter_map(|r| {
            let mut top = r.parent_path.clone()?;
            // Bounded: a damaged manifest could hold a cycle.
            for _ in 0..=MAX_ATTACHMENT_DEPTH {
                match known.get(&top).and_then(|p| p.parent_path.clone()) {
                    Some(up) => top = up,
                    None => break,
                }
            }
            Some(top)
        })
        .collect()
}

/// A path and all the attachments below it, as known to the manifest.
fn subtree(known: &HashMap<String, FileRecord>, path: &str) -> Vec<String> {
    let parent = UnitPath::parse(path);
    let mut out = vec![path.to_string()];
    out.extend(
        known
            .keys()
            .filter(|k| k.as_str() != path && parent.contains(k))
            .cloned(),
    );
    out
}

fn issue_record(issue: &crate::walk::WalkIssue) -> FileRecord {
    // No converter ran: no type, and converter version 0 (never current).
    FileRecord {
        status: if issue.skipped {
            FileStatus::Skipped
        } else {
            FileStatus::Failed
        },
        reason: Some(issue.reason.to_string()),
        error: Some(issue.message.clone()),
        ext: converters::extension_of(&issue.rel_path),
        ..FileRecord::new(&issue.rel_path)
    }
}

fn write_converted(
    writer: &mut IndexWriter,
    converted: Converted,
    summary: &mut RunSummary,
) -> Result<(), IndexError> {
    let Converted {
        record,
        units,
        mtime,
        children,
    } = converted;
    summary.converted += 1;
    writer.add_file(record, &units, mtime)?;
    for child in children {
        write_converted(writer, child, summary)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use converters::FileType;

    use super::*;
    use crate::manifest::Manifest;
    use crate::options::NoProgress;

    /// A message with one text attachment (converted as `mail.eml#attachment/notes.txt`).
    const MAIL: &str = "From: Ana <ana@example.com>\r\nTo: Bo <bo@example.com>\r\n\
        Subject: Minutes\r\nDate: Wed, 1 Oct 2025 18:05:00 -0700\r\nMIME-Version: 1.0\r\n\
        Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
        --b\r\nContent-Type: text/plain\r\n\r\nThe minutes are attached.\r\n\
        --b\r\nContent-Type: text/plain; name=\"notes.txt\"\r\n\
        Content-Disposition: attachment; filename=\"notes.txt\"\r\n\r\n\
        Minutes of the Tuesday meeting.\r\n--b--\r\n";

    fn options(profile: &Path, index: &Path) -> IndexOptions {
        IndexOptions::lexical_only(profile, index)
    }

    /// Asks the run to stop as soon as the embedding phase starts.
    struct StopAtEmbedding(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl crate::options::Progress for StopAtEmbedding {
        fn embedding(&self, _files: usize) {
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// A stop during the embedding phase: lexical search is complete, the summary says
    /// the run was interrupted, and the next run embeds what was left.
    #[test]
    fn a_stop_in_the_embedding_phase_leaves_the_vectors_to_the_next_run() {
        let models = crate::embed::test_models_dir("minilm");
        assert!(
            models.join("minilm").is_dir(),
            "models: run scripts/fetch-models"
        );
        let (profile, index) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for i in 0..3 {
            let note = format!("Note {i} about the garden, the budget and the bakery.\n");
            std::fs::write(profile.path().join(format!("n{i}.txt")), note).unwrap();
        }
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let options = IndexOptions {
            embed: true,
            models_dir: models,
            stop: Some(stop.clone()),
            ..IndexOptions::lexical_only(profile.path(), index.path())
        };
        let first = run(&options, &StopAtEmbedding(stop.clone())).unwrap();
        assert!(first.interrupted, "{first:?}");
        assert_eq!(first.files.indexed, 3, "{first:?}");
        assert_eq!(first.embedding.units_embedded, 0, "{first:?}");
        assert!(first.embedding.coverage < 1.0, "{first:?}");

        stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let second = run(&options, &NoProgress).unwrap();
        assert!(!second.interrupted, "{second:?}");
        assert_eq!(second.embedding.units_embedded, 3, "{second:?}");
        assert_eq!(second.embedding.coverage, 1.0, "{second:?}");
    }

    /// Asks the run to stop when its first recording has been heard.
    struct StopAfterARecording(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl crate::options::Progress for StopAfterARecording {
        fn heard(&self, _path: &str, _audio_seconds: f64, _bytes: u64) {
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// A stop while recordings are heard keeps the recordings heard so far (committed
    /// with their batch) and the documents; the next run hears only the others: the
    /// recordings' queue resumes where it stopped.
    #[test]
    fn a_stop_among_the_recordings_leaves_the_others_to_the_next_run() {
        let models = crate::embed::test_models_dir("whisper-base");
        assert!(
            models.join("whisper-base/decoder.onnx").is_file(),
            "models: run scripts/fetch-models"
        );
        let (profile, index) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let memo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/media/memo.mp3");
        for i in 0..3 {
            std::fs::copy(&memo, profile.path().join(format!("memo {i}.mp3"))).unwrap();
        }
        std::fs::write(
            profile.path().join("note.txt"),
            "The bakery opens at eight.\n",
        )
        .unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let options = IndexOptions {
            media: true,
            models_dir: models,
            batch_files: 1,
            stop: Some(stop.clone()),
            ..IndexOptions::lexical_only(profile.path(), index.path())
        };
        let first = run(&options, &StopAfterARecording(stop.clone())).unwrap();
        assert!(first.interrupted, "{first:?}");
        assert_eq!(first.media.files, 1, "{:?}", first.media);
        assert!(first.media.speech_units > 0, "{:?}", first.media);
        assert_eq!(
            first.files.indexed, 2,
            "the note and one recording: {first:?}"
        );

        stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let second = run(&options, &NoProgress).unwrap();
        assert!(!second.interrupted, "{second:?}");
        assert_eq!(
            second.media.files, 2,
            "only the recordings not heard: {:?}",
            second.media
        );
        let manifest = Manifest::open(&IndexLayout::new(index.path()).manifest_path()).unwrap();
        for i in 0..3 {
            let record = manifest.get(&format!("memo {i}.mp3")).unwrap();
            assert!(record.is_some_and(|r| r.stages.media.is_some()), "memo {i}");
        }
    }

    /// Rewrites one manifest row with `change`.
    fn edit(index: &Path, path: &str, change: impl FnOnce(&mut FileRecord)) {
        let mut manifest = Manifest::open(&IndexLayout::new(index).manifest_path()).unwrap();
        let mut record = manifest.get(path).unwrap().expect(path);
        change(&mut record);
        manifest.apply(&[record], &[]).unwrap();
    }

    fn stored_version(index: &Path, path: &str) -> u32 {
        let manifest = Manifest::open(&IndexLayout::new(index).manifest_path()).unwrap();
        manifest.get(path).unwrap().expect(path).converter_version
    }

    /// (converted, unchanged) of one more run.
    fn rerun(options: &IndexOptions) -> (u64, u64) {
        let summary = run(options, &NoProgress).unwrap();
        assert_eq!(summary.touched, 0, "{summary:?}");
        (summary.converted, summary.unchanged)
    }

    #[test]
    fn a_new_converter_version_reconverts_only_the_files_of_its_type() {
        let dir = tempfile::tempdir().unwrap();
        let (profile, index) = (dir.path().join("profile"), dir.path().join("index"));
        std::fs::create_dir(&profile).unwrap();
        std::fs::write(
            profile.join("notes.txt"),
            "Minutes of the Monday meeting.\n",
        )
        .unwrap();
        std::fs::write(profile.join("table.csv"), "item,amount\nrent,1200\n").unwrap();
        std::fs::write(profile.join("mail.eml"), MAIL).unwrap();
        let options = options(&profile, &index);

        // Three files and the attachment, then nothing to do.
        assert_eq!(rerun(&options), (4, 0));
        assert_eq!(rerun(&options), (0, 3));
        let text_version = converters::converter_version(FileType::Text);
        assert_eq!(stored_version(&index, "notes.txt"), text_version);
        assert_eq!(
            stored_version(&index, "table.csv"),
            converters::converter_version(FileType::Csv)
        );

        // The text converter moved on since notes.txt was converted: only it is redone.
        edit(&index, "notes.txt", |r| r.converter_version -= 1);
        assert_eq!(rerun(&options), (1, 2));
        assert_eq!(stored_version(&index, "notes.txt"), text_version);
        assert_eq!(rerun(&options), (0, 3));

        // Same for an attachment: it is redone with its (unchanged) parent.
        let attachment = "mail.eml#attachment/notes.txt";
        assert_eq!(stored_version(&index, attachment), text_version);
        edit(&index, attachment, |r| r.converter_version -= 1);
        assert_eq!(rerun(&options), (2, 2));
        assert_eq!(stored_version(&index, attachment), text_version);
        assert_eq!(rerun(&options), (0, 3));

        // A row whose type is no longer known (a stored name this build cannot read
        // back, see index::manifest) counts as converted by an old version.
        edit(&index, "table.csv", |r| r.file_type = None);
        assert_eq!(rerun(&options), (1, 2));
        assert_eq!(rerun(&options), (0, 3));
    }

    /// `(kind, path, old path)` of the activity log, in order.
    fn activity_of(index: &Path) -> Vec<(String, String, Option<String>)> {
        let manifest = Manifest::open(&IndexLayout::new(index).manifest_path()).unwrap();
        manifest
            .activity(&index::ActivityQuery::default())
            .unwrap()
            .into_iter()
            .map(|e| {
                (
                    e.kind.as_str().to_string(),
                    e.path.unwrap_or_default(),
                    e.old_path,
                )
            })
            .collect()
    }

    fn units_at(index: &Path, path: &str) -> Vec<String> {
        let handle = index::IndexHandle::open(index).unwrap();
        handle
            .units_of_file(&file_id_for(path))
            .unwrap()
            .into_iter()
            .map(|u| u.text)
            .collect()
    }

    #[test]
    fn changes_between_runs_are_recorded_and_renames_move_without_converting() {
        let dir = tempfile::tempdir().unwrap();
        let (profile, index) = (dir.path().join("profile"), dir.path().join("index"));
        std::fs::create_dir_all(profile.join("Archive")).unwrap();
        std::fs::write(profile.join("budget.txt"), "Budget for the Tacoma trip.\n").unwrap();
        std::fs::write(
            profile.join("notes.txt"),
            "Minutes of the Monday meeting.\n",
        )
        .unwrap();
        std::fs::write(profile.join("mail.eml"), MAIL).unwrap();
        std::fs::write(profile.join("old.txt"), "Remove me.\n").unwrap();
        let options = options(&profile, &index);
        run(&options, &NoProgress).unwrap();
        let first = activity_of(&index);
        let created: Vec<&str> = first
            .iter()
            .filter(|(kind, ..)| kind == "created")
            .map(|(_, path, _)| path.as_str())
            .collect();
        assert_eq!(created.len(), 4, "{first:?}");

        // A rename in place, a move with an attachment, an edit, a deletion.
        std::fs::rename(profile.join("budget.txt"), profile.join("budget_2025.txt")).unwrap();
        std::fs::rename(
            profile.join("mail.eml"),
            profile.join("Archive/minutes.eml"),
        )
        .unwrap();
        std::fs::write(
            profile.join("notes.txt"),
            "Minutes of the Monday meeting, revised.\n",
        )
        .unwrap();
        std::fs::remove_file(profile.join("old.txt")).unwrap();
        let summary = run(&options, &NoProgress).unwrap();
        assert_eq!(
            (summary.moved, summary.converted, summary.removed),
            (2, 1, 1),
            "{summary:?}"
        );
        let later: Vec<_> = activity_of(&index).split_off(first.len());
        let expected = [
            ("deleted", "old.txt", None),
            ("renamed", "budget_2025.txt", Some("budget.txt")),
            ("moved", "Archive/minutes.eml", Some("mail.eml")),
            ("modified", "notes.txt", None),
        ];
        let later: Vec<(&str, &str, Option<&str>)> = later
            .iter()
            .map(|(k, p, o)| (k.as_str(), p.as_str(), o.as_deref()))
            .collect();
        let mut sorted = later.clone();
        sorted.sort_by_key(|(kind, ..)| expected.iter().position(|e| e.0 == *kind));
        assert_eq!(sorted, expected);

        // The moved files are searchable under their new paths, attachment included,
        // and gone under the old ones.
        assert_eq!(
            units_at(&index, "budget_2025.txt"),
            ["Budget for the Tacoma trip."]
        );
        assert!(units_at(&index, "budget.txt").is_empty());
        let attachment = "Archive/minutes.eml#attachment/notes.txt";
        assert!(units_at(&index, attachment)[0].contains("Tuesday meeting"));
        assert!(units_at(&index, "mail.eml#attachment/notes.txt").is_empty());
        let manifest = Manifest::open(&IndexLayout::new(&index).manifest_path()).unwrap();
        assert!(manifest.get("mail.eml").unwrap().is_none());
        assert_eq!(
            manifest
                .get(attachment)
                .unwrap()
                .unwrap()
                .parent_path
                .as_deref(),
            Some("Archive/minutes.eml")
        );
        drop(manifest);

        // Nothing more happened: nothing more is recorded.
        let count = activity_of(&index).len();
        assert_eq!(rerun(&options), (0, 3));
        assert_eq!(activity_of(&index).len(), count);
    }
}
