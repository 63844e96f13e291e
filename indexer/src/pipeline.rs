//! One indexing run: walk → diff against the manifest → convert changed files in
//! parallel → write units to tantivy in batches → commit → record the batch in the
//! manifest.
//!
//! Crash safety: the lexical index is committed before the manifest rows that describe
//! it, and every file's documents are deleted (by `file_id`, a hash of its path) before
//! its new units are added. A crash at any point therefore leaves an index that opens,
//! and the next run redoes exactly the files whose manifest rows were not written.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset, Local, TimeZone, Utc};
use converters::{ChildFile, Conversion, ConvertError, FileType, Input, Unit};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tantivy::Index;

use index::writer::IndexWriter;
pub use index::writer::{file_id_for, open_or_create, unit_document};

use crate::error::IndexError;
use crate::manifest::{FileRecord, FileStatus, Manifest};
use crate::media::{AsrModel, MediaStage, MediaSummary, MEDIA_KEY};
use crate::schema::Fields;
use crate::store::IndexLayout;
use crate::walk::{walk, WalkedFile};

/// Options of an indexing run.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    pub profile: PathBuf,
    pub index_dir: PathBuf,
    /// Conversion threads (default: available parallelism).
    pub threads: usize,
    /// Files per conversion batch.
    pub batch_files: usize,
    /// Commit at least this often (files are visible to a running daemon after a commit).
    pub commit_interval: Duration,
    /// Give up on one file's conversion after this long.
    pub file_timeout: Duration,
    /// Memory budget of the tantivy writer.
    pub writer_memory: usize,
    /// The models folder filled by `scripts/fetch-models`.
    pub models_dir: PathBuf,
    /// Compute dense embeddings (off: lexical only).
    pub embed: bool,
    /// HippoCamp Gold folder: matched files are indexed from their Gold JSON
    /// instead of being converted (see [`crate::gold`]).
    pub gold_dir: Option<PathBuf>,
    /// OCR of images (PP-OCRv5) with the models of `models_dir`; skipped with a note if
    /// they are missing.
    pub ocr: bool,
    /// Speech recognition of audio and video, and on-screen text of video frames (see
    /// [`crate::media`]); skipped with a note if ffmpeg or the models are missing.
    pub media: bool,
    /// Give up on decoding one audio/video file after this long.
    pub media_timeout: Duration,
    /// The speech recogniser.
    pub asr: AsrModel,
    /// A user-supplied CLIP-style model folder (see [`crate::clip`]): images get an
    /// image–text embedding.
    pub clip_dir: Option<PathBuf>,
}

impl IndexOptions {
    pub fn new(profile: impl Into<PathBuf>, index_dir: impl Into<PathBuf>) -> IndexOptions {
        IndexOptions {
            profile: profile.into(),
            index_dir: index_dir.into(),
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            batch_files: 32,
            commit_interval: Duration::from_secs(10),
            file_timeout: Duration::from_secs(120),
            writer_memory: 100_000_000,
            models_dir: crate::embed::default_models_dir(),
            embed: true,
            gold_dir: None,
            ocr: true,
            media: true,
            media_timeout: Duration::from_secs(600),
            asr: AsrModel::default(),
            clip_dir: None,
        }
    }
}

/// Receives progress events (the CLI draws a progress bar from them).
pub trait Progress: Sync {
    /// The walk is done: `to_convert` files need conversion.
    fn planned(&self, _walked: usize, _to_convert: usize) {}
    /// One file was converted (or failed).
    fn file_done(&self, _path: &str) {}
    /// A batch was committed and is now searchable.
    fn committed(&self, _files_so_far: usize) {}
    /// The embedding phase starts: `files` files need vectors.
    fn embedding(&self, _files: usize) {}
    /// One file's vectors were written.
    fn file_embedded(&self, _path: &str) {}
}

/// A progress sink that ignores everything.
pub struct NoProgress;
impl Progress for NoProgress {}

/// One failed file of the summary.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Failure {
    pub path: String,
    /// Short category: corrupt, encrypted, empty, unsupported, too_large,
    /// converter_bug (a converter panicked: a bug of ours, with the panic message and
    /// location), timeout, io; or `damaged` for a file that is damaged but whose recovered units
    /// are indexed (it counts as indexed in `FileCounts`).
    pub category: String,
    /// The full message.
    pub reason: String,
}

/// File counts by status over the whole index after the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FileCounts {
    pub indexed: u64,
    pub skipped: u64,
    pub failed: u64,
}

/// What a run did and what the index holds afterwards.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RunSummary {
    pub files: FileCounts,
    pub failures: Vec<Failure>,
    /// Paths recorded but not indexed on purpose (junk, links leaving the profile or
    /// to folders, FIFOs and other special files), with the reason.
    #[serde(default)]
    pub skipped: Vec<Failure>,
    pub units_by_kind: BTreeMap<String, u64>,
    pub units: u64,
    /// Files (incl. attachments) converted in this run.
    pub converted: u64,
    /// Files whose size and modification time were unchanged (no work).
    pub unchanged: u64,
    /// Files whose mtime changed but whose content hash did not.
    pub touched: u64,
    /// Files removed from the index because they left the profile.
    pub removed: u64,
    pub seconds: f64,
    pub embedding: EmbeddingSummary,
    /// Gold import (`--gold`): matched / unmatched / invalid Gold files.
    #[serde(default)]
    pub gold: crate::gold::GoldSummary,
    /// OCR of images in this run.
    #[serde(default)]
    pub ocr: OcrSummary,
    /// Speech and on-screen text of audio and video in this run.
    #[serde(default)]
    pub media: MediaSummary,
    /// CLIP image embeddings (`--clip`).
    #[serde(default)]
    pub clip: crate::clip::ClipSummary,
}

/// What the embedding phase did.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EmbeddingSummary {
    /// `done`, `skipped` (no models: lexical only) or `failed`.
    pub status: String,
    /// Why it was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub model: String,
    /// Files whose vectors were (re)computed in this run.
    pub files: u64,
    /// Units run through the model in this run.
    pub units_embedded: u64,
    /// Units whose vector was reused because their text was unchanged.
    pub units_reused: u64,
    /// Units with a vector / units in the index, after the run.
    pub coverage: f64,
    pub seconds: f64,
}

/// The result of converting one file (and, recursively, its attachments).
struct Converted {
    record: FileRecord,
    units: Vec<Unit>,
    /// Modification time used for units without a content time.
    mtime: DateTime<FixedOffset>,
    /// Converted attachments.
    children: Vec<Converted>,
}

/// Runs one indexing pass.
pub fn run(options: &IndexOptions, progress: &dyn Progress) -> Result<RunSummary, IndexError> {
    let started = Instant::now();
    let profile = options
        .profile
        .canonicalize()
        .map_err(|source| IndexError::Profile {
            path: options.profile.clone(),
            source,
        })?;
    if !profile.is_dir() {
        return Err(IndexError::Profile {
            path: options.profile.clone(),
            source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
        });
    }
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
    let ocr = Ocr::new(options);
    let media = options.media.then(|| {
        MediaStage::new(
            &options.models_dir,
            options.asr,
            options.threads,
            options.media_timeout,
        )
    });
    let stale_attachments = parents_of_stale_attachments(&known);
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
                    && record.extra.get(crate::gold::GOLD_HASH_KEY)
                        == gold.hash_of(&file.rel_path)
                    && !ocr_missing(ocr.as_ref(), record)
                    && !media_missing(media.as_ref(), record) =>
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
    let removed: Vec<&FileRecord> = known
        .values()
        .filter(|r| r.parent_path.is_none() && !seen.contains(&r.path))
        .collect();
    progress.planned(walked.files.len(), to_convert.len());

    // 2. Removals first (cheap), together with walk issues.
    if !removed.is_empty() || !issue_records.is_empty() {
        for record in &removed {
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

    // 3. Convert in batches; commit at intervals.
    let mut last_commit = Instant::now();
    let mut done = 0usize;
    for batch in to_convert.chunks(options.batch_files.max(1)) {
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
                        None => convert_file(
                            file,
                            previous,
                            options.file_timeout,
                            ocr.as_ref(),
                            media.as_ref(),
                        ),
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
            last_commit = Instant::now();
            progress.committed(done);
        }
    }
    writer.commit()?;
    progress.committed(done);
    let (index, fields, mut manifest) = writer.finish()?;

    // 4. Dense vectors catch up behind the lexical index (resumable per file).
    let models_dir = options.embed.then_some(&options.models_dir);
    summary.embedding = match models_dir {
        None => EmbeddingSummary {
            status: "skipped".to_string(),
            message: Some("disabled (--no-embed)".to_string()),
            ..EmbeddingSummary::default()
        },
        Some(models_dir) => {
            let started_embedding = Instant::now();
            manifest.delete_orphan_vectors()?;
            let needed = manifest.files_needing_embedding()?;
            let mut embedding = if needed.is_empty() {
                // Nothing to embed: do not even load the model.
                EmbeddingSummary {
                    status: "done".to_string(),
                    ..EmbeddingSummary::default()
                }
            } else {
                match crate::embed::TextEncoder::load(models_dir, options.threads) {
                    Ok(mut encoder) => embed_phase(
                        &index,
                        &fields,
                        &mut manifest,
                        &mut encoder,
                        needed,
                        progress,
                    )?,
                    Err(error) => EmbeddingSummary {
                        status: "skipped".to_string(),
                        message: Some(error.to_string()),
                        ..EmbeddingSummary::default()
                    },
                }
            };
            embedding.seconds = started_embedding.elapsed().as_secs_f64();
            embedding
        }
    };
    summary.embedding.model = crate::embed::TEXT_MODEL.to_string();
    let (with_vectors, units_total) = manifest.embedding_coverage()?;
    summary.embedding.coverage = if units_total == 0 {
        1.0
    } else {
        with_vectors as f64 / units_total as f64
    };

    // 4b. CLIP image vectors, when a model folder was given.
    summary.clip = match &options.clip_dir {
        Some(dir) => crate::clip::clip_phase(dir, options, &index, &fields, &mut manifest)?,
        None => crate::clip::ClipSummary {
            status: "disabled".into(),
            ..crate::clip::ClipSummary::default()
        },
    };

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
            }
        }
    }
    summary.ocr = Ocr::summary(ocr.as_ref());
    summary.media = MediaStage::summary(media.as_ref());
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Whether the file was converted by the current version of its type's converter
/// (versions are per type: improving one converter re-converts only its files).
fn converted_by_current(record: &FileRecord) -> bool {
    converters::is_current(&record.file_type, record.converter_version)
}

/// Top-level files with an attachment (at any depth) that an older version of the
/// attachment's converter converted. Attachments are only converted with their parent,
/// so such a parent is converted again, even when it is unchanged.
fn parents_of_stale_attachments(known: &HashMap<String, FileRecord>) -> HashSet<String> {
    known
        .values()
        .filter(|r| r.parent_path.is_some() && !converted_by_current(r))
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
    let mut out = vec![path.to_string()];
    let prefix = format!("{path}#");
    out.extend(known.keys().filter(|k| k.starts_with(&prefix)).cloned());
    out
}

fn issue_record(issue: &crate::walk::WalkIssue) -> FileRecord {
    let ext = converters::extension_of(&issue.rel_path);
    FileRecord {
        path: issue.rel_path.clone(),
        file_id: file_id_for(&issue.rel_path),
        parent_path: None,
        size: 0,
        mtime_ns: 0,
        hash: None,
        // No converter ran (and without a type the record is never current).
        converter_version: 0,
        status: if issue.skipped {
            FileStatus::Skipped
        } else {
            FileStatus::Failed
        },
        reason: Some(issue.reason.to_string()),
        error: Some(issue.message.clone()),
        file_type: String::new(),
        modality: String::new(),
        ext,
        unit_count: 0,
        units_by_kind: BTreeMap::new(),
        title: None,
        author: None,
        created: None,
        extra: BTreeMap::new(),
        embedded: None,
    }
}

/// How many bytes of a media/binary file are read for detection and metadata.
const HEAD_BYTES: u64 = 1024 * 1024;

fn read_file(file: &WalkedFile) -> Result<(FileType, Vec<u8>), std::io::Error> {
    let mut handle = std::fs::File::open(&file.abs_path)?;
    let mut head = Vec::with_capacity(converters::detect::SNIFF_LEN);
    (&mut handle)
        .take(converters::detect::SNIFF_LEN as u64)
        .read_to_end(&mut head)?;
    let file_type = converters::detect(&file.rel_path, &head);
    let limit = if file_type.needs_full_content() {
        converters::MAX_CONTENT_BYTES
    } else {
        HEAD_BYTES
    };
    if file_type.needs_full_content() && file.size > limit {
        return Ok((file_type, head));
    }
    let mut bytes = head;
    handle
        .take(limit.saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)?;
    Ok((file_type, bytes))
}

fn mtime_of(mtime_ns: i64) -> DateTime<FixedOffset> {
    let utc = Utc
        .timestamp_opt(
            mtime_ns.div_euclid(1_000_000_000),
            mtime_ns.rem_euclid(1_000_000_000) as u32,
        )
        .single()
        .unwrap_or_default();
    utc.with_timezone(&Local).fixed_offset()
}

fn convert_file(
    file: &WalkedFile,
    previous: Option<&FileRecord>,
    timeout: Duration,
    ocr: Option<&Ocr>,
    media: Option<&MediaStage>,
) -> Converted {
    let mtime = mtime_of(file.mtime_ns);
    let (file_type, bytes) = match read_file(file) {
        Ok(read) => read,
        Err(error) => {
            let mut record = base_record(
                &file.rel_path,
                None,
                file.size,
                file.mtime_ns,
                FileType::Binary,
                None,
            );
            fail(&mut record, "io", format!("read error: {error}"));
            return Converted {
                record,
                units: Vec::new(),
                mtime,
                children: Vec::new(),
            };
        }
    };
    let hash = content_hash(&bytes, file.size);
    // mtime moved, content did not: keep what is indexed.
    if let Some(previous) = previous {
        if previous.hash.as_deref() == Some(hash.as_str())
            && previous.file_type == file_type.as_str()
            && converted_by_current(previous)
            && previous.status == FileStatus::Indexed
            && previous.unit_count > 0
            && !ocr_missing(ocr, previous)
            && !media_missing(media, previous)
        {
            let mut record = previous.clone();
            record.mtime_ns = file.mtime_ns;
            return Converted {
                record,
                units: Vec::new(),
                mtime,
                children: Vec::new(),
            };
        }
    }
    let mut converted = convert_bytes(
        &file.rel_path,
        None,
        file_type,
        bytes,
        file.size,
        file.mtime_ns,
        Some(hash),
        timeout,
        0,
        ocr,
    );
    if file_type == FileType::Pdf && converted.record.status == FileStatus::Indexed {
        ocr_image_only_pages(ocr, file, &mut converted);
    }
    if let Some(media) = media.filter(|m| m.available()) {
        if matches!(file_type, FileType::Audio | FileType::Video)
            && converted.record.status == FileStatus::Indexed
        {
            analyse_media(media, ocr, file, file_type, &mut converted);
        }
    }
    converted
}

/// Pages with less text than this are treated as images (scans) and read by OCR.
const IMAGE_ONLY_PAGE_CHARS: usize = 16;
/// At most this many image-only pages of one PDF are read by OCR.
const MAX_OCR_PAGES: usize = 200;
/// Resolution of pages rendered for OCR.
const OCR_PAGE_DPI: &str = "200";
/// Key in `FileRecord.extra` of PDFs with image-only pages that OCR has not read yet.
pub const OCR_PENDING_KEY: &str = "ocr_pending_pages";

/// Renders the PDF's image-only pages (poppler's `pdftoppm`) and appends their OCR text.
fn ocr_image_only_pages(ocr: Option<&Ocr>, file: &WalkedFile, converted: &mut Converted) {
    let pages: Vec<usize> = converted
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| {
            u.kind() == converters::unit::UnitKind::Page
                && u.text.trim().chars().count() < IMAGE_ONLY_PAGE_CHARS
        })
        .map(|(i, _)| i)
        .take(MAX_OCR_PAGES)
        .collect();
    if pages.is_empty() {
        return;
    }
    let record = &mut converted.record;
    let Some((ocr, engine)) = ocr.and_then(|o| Some((o, o.engine()?))) else {
        record
            .extra
            .insert(OCR_PENDING_KEY.to_string(), pages.len().to_string());
        return;
    };
    record.extra.remove(OCR_PENDING_KEY);
    record
        .extra
        .insert(OCR_KEY.to_string(), OCR_MARKER.to_string());
    let started = Instant::now();
    let mut read = 0u64;
    let mut lines_total = 0u64;
    let mut problems = Vec::new();
    for index in pages {
        let unit = &mut converted.units[index];
        let Some(page) = unit.locator.page else {
            continue;
        };
        let image = match crate::media::decode::render_pdf_page(&file.abs_path, page, OCR_PAGE_DPI)
        {
            Ok(image) => image::DynamicImage::ImageRgb8(image),
            Err(error) => {
                // One page that cannot be rendered: the others will not do better.
                problems.push(format!("page {page}: {error}"));
                break;
            }
        };
        read += 1;
        match crate::ocr::OcrEngine::recognize_shared(engine, &image) {
            Ok(lines) if !lines.is_empty() => {
                lines_total += lines.len() as u64;
                let text = crate::ocr::lines_text(&lines);
                if !unit.text.trim().is_empty() {
                    unit.text.push('\n');
                }
                unit.text.push_str(&text);
                unit.fields.insert(OCR_KEY.to_string(), text);
            }
            Ok(_) => {}
            Err(error) => problems.push(format!("page {page}: OCR failed: {error}")),
        }
    }
    if !problems.is_empty() {
        tracing::warn!(path = %record.path, problems = %problems.join("; "), "page OCR incomplete");
    }
    let mut stats = ocr.stats.lock().unwrap_or_else(|e| e.into_inner());
    stats.pages += read;
    stats.lines += lines_total;
    stats.seconds += started.elapsed().as_secs_f64();
}

/// Adds the speech and screen units of an audio/video file (see [`crate::media`]).
fn analyse_media(
    media: &MediaStage,
    ocr: Option<&Ocr>,
    file: &WalkedFile,
    file_type: FileType,
    converted: &mut Converted,
) {
    let record = &mut converted.record;
    let created = record
        .created
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok());
    let engine = ocr.and_then(Ocr::engine);
    let tagger = ocr.and_then(Ocr::tagger);
    let note = media.apply(
        &file.abs_path,
        file_type == FileType::Video,
        created,
        engine,
        tagger,
        &mut converted.units,
    );
    record.extra.insert(MEDIA_KEY.to_string(), media.marker());
    if let Some(note) = note {
        // The metadata unit stays; the file is listed as damaged with ffmpeg's reason.
        tracing::warn!(path = %record.path, note = %note, "media analysis incomplete");
        let damage = match record.extra.get(converters::unit::DAMAGE_KEY) {
            Some(earlier) => format!("{earlier}; {note}"),
            None => note,
        };
        record
            .extra
            .insert(converters::unit::DAMAGE_KEY.to_string(), damage);
    }
    tally_units(record, &converted.units);
}

/// Sets a record's unit count and units by kind from its units.
fn tally_units(record: &mut FileRecord, units: &[Unit]) {
    record.unit_count = units.len() as u32;
    record.units_by_kind.clear();
    for unit in units {
        *record
            .units_by_kind
            .entry(unit.kind().as_str().to_string())
            .or_default() += 1;
    }
}

/// An indexed audio/video file that a run with the media models has not analysed yet.
fn media_missing(media: Option<&MediaStage>, record: &FileRecord) -> bool {
    media.is_some_and(|m| m.missing(&record.extra))
        && record.status == FileStatus::Indexed
        && record.parent_path.is_none()
        // Gold text replaces conversion (and so media analysis) for its files.
        && !record.extra.contains_key(crate::gold::GOLD_HASH_KEY)
        && (record.file_type == FileType::Audio.as_str()
            || record.file_type == FileType::Video.as_str())
}

/// BLAKE3 of the bytes read (the whole file, or the head of a media file plus its size).
fn content_hash(bytes: &[u8], size: u64) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(bytes);
    hasher.update(&size.to_le_bytes());
    hasher.finalize().to_hex().to_string()
}

fn base_record(
    path: &str,
    parent: Option<&str>,
    size: u64,
    mtime_ns: i64,
    file_type: FileType,
    hash: Option<String>,
) -> FileRecord {
    FileRecord {
        path: path.to_string(),
        file_id: file_id_for(path),
        parent_path: parent.map(str::to_string),
        size,
        mtime_ns,
        hash,
        converter_version: converters::converter_version(file_type),
        status: FileStatus::Indexed,
        reason: None,
        error: None,
        file_type: file_type.as_str().to_string(),
        modality: file_type.modality().as_str().to_string(),
        ext: converters::extension_of(path.rsplit('#').next().unwrap_or(path)),
        unit_count: 0,
        units_by_kind: BTreeMap::new(),
        title: None,
        author: None,
        created: None,
        extra: BTreeMap::new(),
        embedded: None,
    }
}

fn fail(record: &mut FileRecord, category: &str, message: String) {
    record.status = FileStatus::Failed;
    record.reason = Some(category.to_string());
    record.error = Some(message);
}

/// Maximum nesting of attachments (mail in mail in mail…).
const MAX_ATTACHMENT_DEPTH: usize = 3;

#[allow(clippy::too_many_arguments)]
fn convert_bytes(
    path: &str,
    parent: Option<&str>,
    file_type: FileType,
    bytes: Vec<u8>,
    size: u64,
    mtime_ns: i64,
    hash: Option<String>,
    timeout: Duration,
    depth: usize,
    ocr: Option<&Ocr>,
) -> Converted {
    let mtime = mtime_of(mtime_ns);
    let mut record = base_record(path, parent, size, mtime_ns, file_type, hash);
    let ocr_input = match ocr {
        Some(ocr) if file_type == FileType::Image => Some((ocr, bytes.clone())),
        _ => None,
    };
    let conversion = match convert_with_timeout(path, file_type, bytes, size, timeout) {
        Ok(conversion) => conversion,
        Err(error) => {
            tracing::warn!(path, error = %error, "conversion failed");
            fail(&mut record, error.reason(), error.to_string());
            return Converted {
                record,
                units: Vec::new(),
                mtime,
                children: Vec::new(),
            };
        }
    };
    let Conversion {
        mut units,
        meta,
        children,
    } = conversion;
    tally_units(&mut record, &units);
    record.title = meta.title.clone();
    record.author = meta.author.clone();
    record.created = meta.created.map(|t| t.to_rfc3339());
    record.extra = meta.extra.clone();
    if let Some(pages) = meta.page_count {
        record
            .extra
            .insert("page_count".to_string(), pages.to_string());
    }
    if let Some((ocr, bytes)) = ocr_input {
        ocr.apply(path, &bytes, &mut record, &mut units);
    }
    let children = if depth < MAX_ATTACHMENT_DEPTH {
        convert_children(path, children, mtime_ns, timeout, depth, ocr)
    } else {
        Vec::new()
    };
    Converted {
        record,
        units,
        mtime,
        children,
    }
}

fn convert_children(
    parent: &str,
    children: Vec<ChildFile>,
    mtime_ns: i64,
    timeout: Duration,
    depth: usize,
    ocr: Option<&Ocr>,
) -> Vec<Converted> {
    let mut used = HashSet::new();
    children
        .into_iter()
        .map(|child| {
            let mut name = child.name.replace(['/', '\\', '#'], "_");
            if name.is_empty() || name == "." || name == ".." {
                name = "attachment".to_string();
            }
            let mut unique = name.clone();
            let mut n = 1;
            while !used.insert(unique.clone()) {
                n += 1;
                unique = format!("{n}-{name}");
            }
            let path = format!("{parent}#attachment/{unique}");
            let head = &child.bytes[..child.bytes.len().min(converters::detect::SNIFF_LEN)];
            let file_type = converters::detect(&unique, head);
            let size = child.bytes.len() as u64;
            let hash = Some(content_hash(&child.bytes, size));
            convert_bytes(
                &path,
                Some(parent),
                file_type,
                child.bytes,
                size,
                mtime_ns,
                hash,
                timeout,
                depth + 1,
                ocr,
            )
        })
        .collect()
}

/// Runs a converter on its own thread and gives up after `timeout` (the thread is left
/// to finish on its own; its result is dropped).
fn convert_with_timeout(
    name: &str,
    file_type: FileType,
    bytes: Vec<u8>,
    size: u64,
    timeout: Duration,
) -> Result<Conversion, ConvertError> {
    let (sender, receiver) = mpsc::channel();
    let owned_name = name.to_string();
    let spawned = std::thread::Builder::new()
        .name("convert".to_string())
        .stack_size(16 * 1024 * 1024)
        .spawn(move || {
            let input = Input {
                name: &owned_name,
                bytes: &bytes,
                size,
                file_type,
            };
            let _ = sender.send(converters::convert(&input));
        });
    if let Err(error) = spawned {
        return Err(ConvertError::Io(error));
    }
    match receiver.recv_timeout(timeout) {
        Ok(result) => result,
        Err(_) => Err(ConvertError::Timeout {
            format: file_type.as_str(),
            seconds: timeout.as_secs(),
        }),
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

/// Texts embedded per model call (across files).
const EMBED_BATCH: usize = 64;

struct FileVectors {
    path: String,
    file_id: String,
    hash: String,
    /// `(unit_id, text_hash, vector bytes)`; `None` bytes wait for the model.
    rows: Vec<(String, String, Option<Vec<u8>>)>,
    /// Texts to embed, with their row index.
    todo: Vec<(usize, String)>,
}

/// Computes the missing vectors of every indexed file whose vectors are missing or
/// stale, reusing vectors of unchanged texts; each file is written in one transaction.
fn embed_phase(
    index: &Index,
    fields: &Fields,
    manifest: &mut Manifest,
    encoder: &mut crate::embed::TextEncoder,
    todo: Vec<(String, String, String)>,
    progress: &dyn Progress,
) -> Result<EmbeddingSummary, IndexError> {
    use crate::embed::{embedding_text, text_hash};
    let mut summary = EmbeddingSummary {
        status: "done".to_string(),
        ..EmbeddingSummary::default()
    };
    progress.embedding(todo.len());
    if todo.is_empty() {
        return Ok(summary);
    }
    let reader = index.reader()?;
    let searcher = reader.searcher();
    let mut group: Vec<FileVectors> = Vec::new();
    let mut group_texts = 0usize;
    for (path, file_id, hash) in todo {
        let units = crate::store::units_of_file(&searcher, fields, &file_id)?;
        let existing = manifest.vectors_of_file(&file_id)?;
        let mut file = FileVectors {
            path,
            file_id,
            hash,
            rows: Vec::new(),
            todo: Vec::new(),
        };
        for unit in units {
            let text = embedding_text(&unit.title, &unit.text);
            let hash = text_hash(&text);
            let reused = match existing.get(&unit.unit_id) {
                Some((old_hash, bytes)) if *old_hash == hash => Some(bytes.clone()),
                _ => manifest.vector_for_text(&hash)?,
            };
            if reused.is_some() {
                summary.units_reused += 1;
            } else {
                file.todo.push((file.rows.len(), text));
            }
            file.rows.push((unit.unit_id, hash, reused));
        }
        group_texts += file.todo.len();
        group.push(file);
        if group_texts >= EMBED_BATCH {
            flush_group(&mut group, encoder, manifest, progress, &mut summary)?;
            group_texts = 0;
        }
    }
    flush_group(&mut group, encoder, manifest, progress, &mut summary)?;
    Ok(summary)
}

fn flush_group(
    group: &mut Vec<FileVectors>,
    encoder: &mut crate::embed::TextEncoder,
    manifest: &mut Manifest,
    progress: &dyn Progress,
    summary: &mut EmbeddingSummary,
) -> Result<(), IndexError> {
    let texts: Vec<String> = group
        .iter()
        .flat_map(|f| f.todo.iter().map(|(_, t)| t.clone()))
        .collect();
    let vectors = match encoder.embed(&texts) {
        Ok(vectors) => vectors,
        Err(error) => {
            // A model failure is not a per-file problem: stop embedding, keep what is done.
            tracing::error!(%error, "embedding failed");
            summary.status = "failed".to_string();
            summary.message = Some(error.to_string());
            group.clear();
            return Ok(());
        }
    };
    let mut next = vectors.into_iter();
    for mut file in group.drain(..) {
        for (row, _) in &file.todo {
            if let Some(vector) = next.next() {
                file.rows[*row].2 = Some(crate::embed::to_bytes(&vector));
            }
        }
        summary.units_embedded += file.todo.len() as u64;
        let rows: Vec<(String, String, Vec<u8>)> = file
            .rows
            .into_iter()
            .filter_map(|(unit_id, hash, bytes)| Some((unit_id, hash, bytes?)))
            .collect();
        manifest.replace_file_vectors(&file.path, &file.file_id, &file.hash, &rows)?;
        summary.files += 1;
        progress.file_embedded(&file.path);
    }
    Ok(())
}

// ---- Gold import -------------------------------------------------------------------

/// Indexes a file from its Gold JSON instead of converting it (the file itself is only
/// sniffed for its type).
fn convert_gold(file: &WalkedFile, entry: &crate::gold::GoldEntry) -> Converted {
    let mut head = Vec::with_capacity(converters::detect::SNIFF_LEN);
    if let Ok(handle) = std::fs::File::open(&file.abs_path) {
        let _ = handle
            .take(converters::detect::SNIFF_LEN as u64)
            .read_to_end(&mut head);
    }
    let file_type = converters::detect(&file.rel_path, &head);
    let hash = crate::gold::record_hash(&entry.hash, file.size);
    let mut record = base_record(
        &file.rel_path,
        None,
        file.size,
        file.mtime_ns,
        file_type,
        Some(hash),
    );
    let units = crate::gold::gold_units(&entry.file);
    tally_units(&mut record, &units);
    record.extra.insert(
        crate::gold::GOLD_KEY.to_string(),
        entry.path.to_string_lossy().to_string(),
    );
    record
        .extra
        .insert(crate::gold::GOLD_HASH_KEY.to_string(), entry.hash.clone());
    Converted {
        record,
        units,
        mtime: mtime_of(file.mtime_ns),
        children: Vec::new(),
    }
}

// ---- OCR of images ------------------------------------------------------------------

/// Key in `FileRecord.extra` of images that went through OCR; its value names the models,
/// so images indexed without OCR (or with other models) are redone by an OCR-enabled run.
pub const OCR_KEY: &str = "ocr";
/// Value of [`OCR_KEY`] (OCR only).
pub const OCR_MARKER: &str = "ppocrv5-mobile";
/// Value of [`OCR_KEY`] when the image was also tagged.
pub const OCR_TAGS_MARKER: &str = "ppocrv5-mobile+efficientnet-lite0";
/// Key of the tags in an image unit's fields.
pub const TAGS_KEY: &str = "tags";
/// Images larger than this (per side, pixels) are not decoded for OCR.
const OCR_MAX_IMAGE_SIDE: u32 = 20_000;
/// Memory the image decoder may allocate for OCR.
const OCR_MAX_DECODE_BYTES: u64 = 512 * 1024 * 1024;

/// What OCR did in a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct OcrSummary {
    /// `done`, `unused` (no image to read), `disabled`, `skipped` (models missing) or
    /// `failed` (the models did not load).
    pub status: String,
    /// Why OCR was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Images run through OCR in this run.
    pub images: u64,
    /// Text lines recognised.
    pub lines: u64,
    /// Time spent decoding and recognising images (summed over workers).
    pub seconds: f64,
    /// Image-only PDF pages rendered and read.
    #[serde(default)]
    pub pages: u64,
    /// Images (not frames) given visual tags, and the classifier's share of `seconds`.
    #[serde(default)]
    pub tagged: u64,
    #[serde(default)]
    pub tag_seconds: f64,
}

/// The run's OCR engine: loaded on the first image, shared by the workers.
struct Ocr {
    models_dir: PathBuf,
    threads: usize,
    /// The model files are present (images without the marker are redone).
    available: bool,
    engine: std::sync::OnceLock<Result<std::sync::Mutex<crate::ocr::OcrEngine>, String>>,
    /// The tag model files are present.
    tags_available: bool,
    tagger: std::sync::OnceLock<Result<std::sync::Mutex<crate::tags::Tagger>, String>>,
    stats: std::sync::Mutex<OcrSummary>,
}

impl Ocr {
    fn new(options: &IndexOptions) -> Option<Ocr> {
        if !options.ocr {
            return None;
        }
        let models_dir = options.models_dir.clone();
        let available = models_dir.join("ocr").join("ppocrv5_det.onnx").exists()
            && models_dir.join("ocr").join("ppocrv5_rec.onnx").exists();
        Some(Ocr {
            models_dir: models_dir.clone(),
            threads: options.threads.max(1),
            available,
            engine: std::sync::OnceLock::new(),
            tags_available: crate::tags::model_files(&models_dir)
                .iter()
                .all(|p| p.exists()),
            tagger: std::sync::OnceLock::new(),
            stats: std::sync::Mutex::new(OcrSummary::default()),
        })
    }

    /// Reads the text of an image and appends it to the image's unit.
    fn apply(&self, path: &str, bytes: &[u8], record: &mut FileRecord, units: &mut [Unit]) {
        if !self.available {
            return;
        }
        if units.is_empty() {
            // Nothing to attach text to; do not come back for it.
            record
                .extra
                .insert(OCR_KEY.to_string(), self.marker().to_string());
            return;
        }
        let Some(engine) = self.engine() else { return };
        let started = Instant::now();
        record
            .extra
            .insert(OCR_KEY.to_string(), self.marker().to_string());
        let image = decode_image(bytes);
        let lines = match &image {
            Some(image) => {
                crate::ocr::OcrEngine::recognize_shared(engine, image).unwrap_or_else(|error| {
                    tracing::warn!(path, error = %error, "OCR failed");
                    Vec::new()
                })
            }
            None => Vec::new(),
        };
        let tag_started = Instant::now();
        let tags = match (&image, self.tagger()) {
            (Some(image), Some(tagger)) => crate::tags::Tagger::tag_shared(tagger, image)
                .map_err(|error| tracing::warn!(path, error = %error, "tagging failed"))
                .ok(),
            _ => None,
        };
        {
            let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
            stats.images += 1;
            stats.lines += lines.len() as u64;
            stats.seconds += started.elapsed().as_secs_f64();
            if tags.is_some() {
                stats.tagged += 1;
                stats.tag_seconds += tag_started.elapsed().as_secs_f64();
            }
        }
        let at = units
            .iter()
            .position(|u| u.kind() == converters::unit::UnitKind::Image)
            .unwrap_or(0);
        let unit = &mut units[at];
        let tags = crate::tags::tags_text(&tags.unwrap_or_default());
        if !tags.is_empty() {
            unit.text.push_str("\nShows: ");
            unit.text.push_str(&tags);
            unit.fields.insert(TAGS_KEY.to_string(), tags);
        }
        if lines.is_empty() {
            return;
        }
        let text = crate::ocr::lines_text(&lines);
        unit.text.push_str("\nText in image:\n");
        unit.text.push_str(&text);
        unit.fields.insert(OCR_KEY.to_string(), text);
    }

    /// What an image read by this run is marked with.
    fn marker(&self) -> &'static str {
        if self.tags_available {
            OCR_TAGS_MARKER
        } else {
            OCR_MARKER
        }
    }

    /// The tagger, loaded on first use; `None` if its models are missing or broken.
    fn tagger(&self) -> Option<&std::sync::Mutex<crate::tags::Tagger>> {
        crate::onnx::load_once(&self.tagger, self.tags_available, "visual tags", || {
            crate::tags::Tagger::load(&self.models_dir, self.threads)
        })
    }

    /// The engine, loaded on first use; `None` if the models are missing or broken.
    fn engine(&self) -> Option<&std::sync::Mutex<crate::ocr::OcrEngine>> {
        crate::onnx::load_once(&self.engine, self.available, "OCR", || {
            crate::ocr::OcrEngine::load(&self.models_dir, self.threads)
        })
    }

    fn summary(ocr: Option<&Ocr>) -> OcrSummary {
        let Some(ocr) = ocr else {
            return OcrSummary {
                status: "disabled".to_string(),
                ..OcrSummary::default()
            };
        };
        let mut summary = ocr.stats.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match ocr.engine.get() {
            _ if !ocr.available => {
                summary.status = "skipped".to_string();
                summary.message = Some(format!(
                    "OCR models missing in {}; run scripts/fetch-models",
                    ocr.models_dir.join("ocr").display()
                ));
            }
            None => summary.status = "unused".to_string(),
            Some(Ok(_)) => summary.status = "done".to_string(),
            Some(Err(error)) => {
                summary.status = "failed".to_string();
                summary.message = Some(error.clone());
            }
        }
        summary
    }
}

/// An indexed image that an OCR-enabled run has not read yet.
fn ocr_missing(ocr: Option<&Ocr>, record: &FileRecord) -> bool {
    ocr.is_some_and(|ocr| ocr.available)
        && record.status == FileStatus::Indexed
        // Gold text replaces conversion (and so OCR) for its files.
        && !record.extra.contains_key(crate::gold::GOLD_HASH_KEY)
        && ((record.file_type == FileType::Image.as_str()
            && record.extra.get(OCR_KEY).map(String::as_str) != ocr.map(Ocr::marker))
            || record.extra.contains_key(OCR_PENDING_KEY))
}

/// Decodes an image (for OCR, tags, CLIP) with size and memory limits; `None` if it
/// cannot be decoded.
pub(crate) fn decode_image(bytes: &[u8]) -> Option<image::DynamicImage> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(OCR_MAX_IMAGE_SIDE);
    limits.max_image_height = Some(OCR_MAX_IMAGE_SIDE);
    limits.max_alloc = Some(OCR_MAX_DECODE_BYTES);
    reader.limits(limits);
    reader.decode().ok()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// A message with one text attachment (converted as `mail.eml#attachment/notes.txt`).
    const MAIL: &str = "From: Ana <ana@example.com>\r\nTo: Bo <bo@example.com>\r\n\
        Subject: Minutes\r\nDate: Wed, 1 Oct 2025 18:05:00 -0700\r\nMIME-Version: 1.0\r\n\
        Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
        --b\r\nContent-Type: text/plain\r\n\r\nThe minutes are attached.\r\n\
        --b\r\nContent-Type: text/plain; name=\"notes.txt\"\r\n\
        Content-Disposition: attachment; filename=\"notes.txt\"\r\n\r\n\
        Minutes of the Tuesday meeting.\r\n--b--\r\n";

    /// Lexical only: no models, no OCR, no media analysis.
    fn options(profile: &Path, index: &Path) -> IndexOptions {
        IndexOptions {
            threads: 1,
            embed: false,
            ocr: false,
            media: false,
            models_dir: index.join("no-models"),
            ..IndexOptions::new(profile, index)
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

        // A row whose type is no longer known counts as converted by an old version.
        edit(&index, "table.csv", |r| {
            r.file_type = "spreadsheet".to_string()
        });
        assert_eq!(rerun(&options), (1, 2));
        assert_eq!(rerun(&options), (0, 3));
    }
}
