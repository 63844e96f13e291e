//! Mirroring the embedded index into a Qdrant collection.
//!
//! Qdrant is the source of truth for what is synced: each synced file has a file point
//! whose `sync_key` hashes everything its points are made from. A run compares those
//! keys with the local ones and rewrites the new or changed files **in groups**: one
//! delete of the group's old unit points, its new unit points in upserts of
//! [`QdrantConfig::batch_size`] (`wait: true`), then the group's file points **last**;
//! files gone locally lose all their points. An interrupted run (even SIGKILL) leaves at
//! worst files whose key is stale or missing, which the next run rewrites, so re-running
//! converges to exactly the points of a clean run. Grouping keeps the number of round
//! trips per file far below one when files are small (mail, notes, events).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use index::manifest::{FileRecord, Manifest};
use index::vector::{from_bytes, vector_is_current, windows_from_bytes, TEXT_DIM};
use index::writer::lexical_texts;
use index::{IndexHandle, StoredUnit};
use qdrant_client::qdrant::{PointStruct, Vector, Vectors};

use crate::config::QdrantConfig;
use crate::error::QdrantError;
use crate::remote::{image_vector_name, DenseVectors, Remote};
use crate::sparse::AvgLengths;
use crate::{filter, payload, sparse};

pub use crate::remote::{BM25_VECTOR, TEXT_VECTOR};

/// Version of the point layout; part of every sync key, so a change rewrites all files.
/// 2: image vectors of image–text models as named vectors.
/// 3: the text vector is a multivector, one vector per window of the unit's text.
pub const LAYOUT_VERSION: u32 = 3;

/// Files rewritten together at most (one delete and one file-point upsert per group).
const GROUP_FILES: usize = 256;
/// Where a sync is.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncProgress {
    /// Files looked at so far (of `files_total`).
    pub files_done: usize,
    pub files_total: usize,
    /// The file just handled.
    pub path: String,
    /// Whether its points were (re)written.
    pub written: bool,
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SyncSummary {
    /// Files of the local manifest.
    pub files: usize,
    /// Files whose points were (re)written (new or changed).
    pub changed: usize,
    /// Files already up to date.
    pub unchanged: usize,
    /// Files removed from Qdrant (gone locally).
    pub removed: usize,
    /// Unit points upserted.
    pub units_written: usize,
    /// Whether HNSW indexing was paused during the writes (a bulk sync; the server
    /// builds its indexes after the run).
    pub indexing_paused: bool,
    pub elapsed: Duration,
}

/// A file as it will be written: its record, units, fresh vectors and sync key.
struct LocalFile {
    record: FileRecord,
    units: Vec<StoredUnit>,
    /// unit_id → text vector, only where it was computed from the unit's current text.
    vectors: HashMap<String, Vec<f32>>,
    /// unit_id → (vector name, image vector), for the file's current content.
    images: HashMap<String, Vec<(String, Vec<f32>)>>,
    key: String,
}

fn local_file(
    handle: &IndexHandle,
    manifest: &Manifest,
    record: FileRecord,
    avg: &AvgLengths,
) -> Result<LocalFile, QdrantError> {
    let units = if record.unit_count > 0 || record.status == index::FileStatus::Indexed {
        handle.units_of_file(&record.file_id)?
    } else {
        Vec::new()
    };
    let mut vectors = HashMap::new();
    let mut images: HashMap<String, Vec<(String, Vec<f32>)>> = HashMap::new();
    if !units.is_empty() {
        let stored = manifest.vectors_of_file(&record.file_id)?;
        for unit in &units {
            let Some((hash, bytes)) = stored.get(&unit.unit_id) else {
                continue;
            };
            if !vector_is_current(hash, &unit.path, &unit.title, &unit.text) {
                continue; // stale: computed from an older text
            }
            if let Some(windows) = windows_from_bytes(bytes, TEXT_DIM) {
                vectors.insert(unit.unit_id.clone(), windows);
            }
        }
        for (model, unit_id, bytes) in manifest.image_vectors_of_file(&record.file_id)? {
            if let Some(vector) = from_bytes(&bytes).filter(|v| !v.is_empty()) {
                images
                    .entry(unit_id)
                    .or_default()
                    .push((image_vector_name(&model), vector));
            }
        }
    }
    let key = sync_key(&record, &units, &vectors, &images, avg);
    Ok(LocalFile {
        record,
        units,
        vectors,
        images,
        key,
    })
}

/// BLAKE3 over everything a file's points are made from: the layout version, the record
/// (content hash, file id and every other field), each unit (its whole stored form) and
/// each fresh text and image vector.
pub fn sync_key(
    record: &FileRecord,
    units: &[StoredUnit],
    vectors: &HashMap<String, Vec<f32>>,
    images: &HashMap<String, Vec<(String, Vec<f32>)>>,
    avg: &AvgLengths,
) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&LAYOUT_VERSION.to_le_bytes());
    hasher.update(&avg.key_bytes());
    hasher.update(record.file_id.as_bytes());
    hasher.update(record.hash.as_deref().unwrap_or("").as_bytes());
    hasher.update(serde_json::to_string(record).unwrap_or_default().as_bytes());
    for unit in units {
        hasher.update(b"\x00unit\x00");
        hasher.update(serde_json::to_string(unit).unwrap_or_default().as_bytes());
        if let Some(vector) = vectors.get(&unit.unit_id) {
            hash_floats(&mut hasher, b"\x00vector\x00", vector);
        }
        for (name, vector) in images.get(&unit.unit_id).into_iter().flatten() {
            hash_floats(&mut hasher, name.as_bytes(), vector);
        }
    }
    hasher.finalize().to_hex()[..32].to_string()
}

fn hash_floats(hasher: &mut blake3::Hasher, tag: &[u8], vector: &[f32]) {
    hasher.update(b"\x00");
    hasher.update(tag);
    for x in vector {
        hasher.update(&x.to_le_bytes());
    }
}

/// The point of one unit: its sparse BM25 vector, its text vector and its image vectors
/// (named per model) where it has them.
pub fn unit_point(
    profile: &str,
    unit: &StoredUnit,
    vector: Option<&Vec<f32>>,
    images: &[(String, Vec<f32>)],
    avg: &AvgLengths,
) -> PointStruct {
    let texts = lexical_texts(&unit.path, &unit.title, &unit.text, &unit.fields);
    let bm25 = sparse::document_vector(&texts, avg);
    let mut vectors: HashMap<String, Vector> = HashMap::new();
    if !bm25.is_empty() {
        vectors.insert(BM25_VECTOR.to_string(), Vector::from(bm25));
    }
    if let Some(windows) = vector {
        let windows: Vec<Vec<f32>> = windows.chunks(TEXT_DIM).map(<[f32]>::to_vec).collect();
        vectors.insert(TEXT_VECTOR.to_string(), Vector::new_multi(windows));
    }
    for (name, vector) in images {
        vectors.insert(name.clone(), Vector::from(vector.clone()));
    }
    PointStruct {
        id: Some(payload::unit_point_id(profile, &unit.file_id, unit.ordinal)),
        payload: payload::unit_payload(profile, unit),
        vectors: Some(Vectors::from(vectors)),
    }
}

/// The point of one file (no vectors).
pub fn file_point(profile: &str, record: &FileRecord, key: &str) -> PointStruct {
    payload_point(
        payload::file_point_id(profile, &record.file_id),
        payload::file_payload(profile, record, key),
    )
}

/// The profile's info point with `payload` (no vectors).
fn info_point(
    profile: &str,
    payload: HashMap<String, qdrant_client::qdrant::Value>,
) -> PointStruct {
    payload_point(payload::profile_point_id(profile), payload)
}

/// A point with a payload and no vectors.
fn payload_point(
    id: qdrant_client::qdrant::PointId,
    payload: HashMap<String, qdrant_client::qdrant::Value>,
) -> PointStruct {
    PointStruct {
        id: Some(id),
        payload,
        vectors: Some(Vectors::from(HashMap::<String, Vector>::new())),
    }
}

/// Mirrors the local index of `handle` into the collection of `config` (see the module
/// documentation). Blocks; runs its own small tokio runtime, so it must not be called
/// from async code (use `spawn_blocking`).
pub fn sync(
    handle: &IndexHandle,
    config: &QdrantConfig,
    progress: impl FnMut(SyncProgress),
) -> Result<SyncSummary, QdrantError> {
    blocking(sync_async(handle, config, progress))
}

/// Runs `work` to completion on a small runtime of its own.
fn blocking<T>(
    work: impl std::future::Future<Output = Result<T, QdrantError>>,
) -> Result<T, QdrantError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| QdrantError::Runtime(e.to_string()))?
        .block_on(work)
}

/// Waits until the collection of `config` has built every index (status green), at
/// most `timeout`; `false` when it is still optimising then. Blocks like [`sync`].
pub fn wait_indexed(config: &QdrantConfig, timeout: Duration) -> Result<bool, QdrantError> {
    blocking(async { Remote::connect(config)?.wait_green(timeout).await })
}

async fn sync_async(
    handle: &IndexHandle,
    config: &QdrantConfig,
    mut progress: impl FnMut(SyncProgress),
) -> Result<SyncSummary, QdrantError> {
    let started = Instant::now();
    let remote = Remote::connect(config)?;
    let mut layout = remote.ensure_collection().await?;
    let profile = config.profile.clone();

    let existing: HashMap<String, String> = remote
        .scroll_all(
            filter::file_points(&profile),
            Some(&["file_id", "sync_key"]),
            "listing the synced files",
        )
        .await?
        .into_iter()
        .filter_map(|point| {
            let file_id = payload::get_str(&point.payload, "file_id")?.to_string();
            let key = payload::get_str(&point.payload, "sync_key")
                .unwrap_or("")
                .to_string();
            Some((file_id, key))
        })
        .collect();

    // One manifest connection for the whole run.
    let manifest = handle.manifest()?;
    let records = manifest.all()?;
    let last_commit = manifest.info("last_commit")?;
    let mut summary = SyncSummary {
        files: records.len(),
        ..SyncSummary::default()
    };
    let local_ids: HashSet<String> = records.iter().map(|r| r.file_id.clone()).collect();
    // The averages the profile's points were written with stay while the live ones are
    // within 25 % of them, so a few edits do not rewrite the whole profile.
    let live = AvgLengths::of_index(handle).map_err(index::IndexError::from)?;
    let info = remote
        .get(
            vec![payload::profile_point_id(&profile)],
            "reading the profile's info point",
        )
        .await?
        .into_iter()
        .next()
        .map(|p| p.payload)
        .unwrap_or_default();
    let stored = payload::get_str(&info, "avg_lengths").and_then(AvgLengths::parse);
    let new_units: u64 = records
        .iter()
        .filter(|r| !existing.contains_key(&r.file_id))
        .map(|r| u64::from(r.unit_count))
        .sum();
    let paused = pause_indexing(&remote, &info, new_units).await?;
    let avg = match stored {
        Some(stored) if stored.close_to(&live) => stored,
        _ => live,
    };
    let total = records.len();
    let group_units = remote.config.batch_size.max(1) * 4;
    let mut group: Vec<LocalFile> = Vec::new();
    let mut units_in_group = 0;
    let mut done = 0;
    for record in records {
        let file = local_file(handle, &manifest, record, &avg)?;
        if existing.get(&file.record.file_id) == Some(&file.key) {
            summary.unchanged += 1;
            done += 1;
            progress(SyncProgress {
                files_done: done,
                files_total: total,
                path: file.record.path,
                written: false,
            });
            continue;
        }
        units_in_group += file.units.len();
        group.push(file);
        if units_in_group >= group_units || group.len() >= GROUP_FILES {
            write_group(&remote, &mut layout, &group, &avg).await?;
            report_group(&mut group, &mut summary, &mut done, total, &mut progress);
            units_in_group = 0;
        }
    }
    if !group.is_empty() {
        write_group(&remote, &mut layout, &group, &avg).await?;
        report_group(&mut group, &mut summary, &mut done, total, &mut progress);
    }
    let gone: BTreeMap<&String, ()> = existing
        .keys()
        .filter(|id| !local_ids.contains(*id))
        .map(|id| (id, ()))
        .collect();
    for file_id in gone.keys() {
        remote
            .delete(
                filter::whole_file(&profile, file_id),
                &format!("deleting the points of removed file {file_id}"),
            )
            .await?;
        summary.removed += 1;
    }
    if let Some(kb) = paused {
        remote.set_indexing_threshold(kb).await?;
        summary.indexing_paused = true;
    }
    let root = handle.info.profile_root.clone();
    remote
        .upsert(
            vec![info_point(&profile, {
                let mut info = payload::profile_payload(&profile, &root, last_commit.as_deref());
                info.insert("avg_lengths".into(), avg.to_text().into());
                info
            })],
            "writing the profile's info point",
        )
        .await?;
    summary.elapsed = started.elapsed();
    tracing::info!(
        changed = summary.changed,
        unchanged = summary.unchanged,
        removed = summary.removed,
        units = summary.units_written,
        "synced {} into Qdrant collection {}",
        root,
        config.collection
    );
    Ok(summary)
}

/// The payload key of the profile's info point that holds the indexing threshold to
/// restore while a bulk sync has paused indexing (so that a run killed in the middle
/// is finished by the next one).
const INDEXING_RESTORE: &str = "indexing_restore_kb";

/// Qdrant's default `indexing_threshold` (kB), restored when the value before a pause
/// is unknown.
const DEFAULT_INDEXING_THRESHOLD_KB: u64 = 10_000;

/// Pauses HNSW indexing (threshold 0) when `new_units` reach the bulk size; returns the
/// threshold to restore at the end: the one before the pause, or the one an earlier,
/// interrupted bulk sync of this profile left to restore (`None`: nothing to restore).
/// The value to restore is written to the info point before the pause.
async fn pause_indexing(
    remote: &Remote,
    info: &HashMap<String, qdrant_client::qdrant::Value>,
    new_units: u64,
) -> Result<Option<u64>, QdrantError> {
    let left = payload::get_i64(info, INDEXING_RESTORE).and_then(|kb| u64::try_from(kb).ok());
    let bulk = remote.config.bulk_units > 0 && new_units >= remote.config.bulk_units;
    if !bulk {
        return Ok(left);
    }
    let restore = match left {
        Some(kb) => kb,
        // 0: paused by another profile's bulk sync, which will restore it.
        None => match remote.indexing_threshold().await? {
            Some(0) | None => DEFAULT_INDEXING_THRESHOLD_KB,
            Some(kb) => kb,
        },
    };
    let mut note = info.clone();
    note.insert(INDEXING_RESTORE.into(), (restore as i64).into());
    remote
        .upsert(
            vec![info_point(remote.profile(), note)],
            "noting the indexing threshold to restore",
        )
        .await?;
    remote.set_indexing_threshold(0).await?;
    tracing::info!(
        new_units,
        "bulk sync: HNSW indexing paused until the points are in (restored to {restore} kB)"
    );
    Ok(Some(restore))
}

/// Counts a written group and reports its files.
fn report_group(
    group: &mut Vec<LocalFile>,
    summary: &mut SyncSummary,
    done: &mut usize,
    total: usize,
    progress: &mut impl FnMut(SyncProgress),
) {
    for file in group.drain(..) {
        summary.changed += 1;
        summary.units_written += file.units.len();
        *done += 1;
        progress(SyncProgress {
            files_done: *done,
            files_total: total,
            path: file.record.path,
            written: true,
        });
    }
}

/// Rewrites the points of a group of files: their old units deleted (one request), the
/// new ones upserted in batches, the file points last (one request).
async fn write_group(
    remote: &Remote,
    layout: &mut DenseVectors,
    group: &[LocalFile],
    avg: &AvgLengths,
) -> Result<(), QdrantError> {
    let profile = remote.profile();
    for file in group {
        for (name, vector) in file.images.values().flatten() {
            remote
                .ensure_dense_vector(name, vector.len(), layout)
                .await?;
        }
    }
    let first_path = &group[0].record.path;
    let what = if group.len() == 1 {
        first_path.clone()
    } else {
        format!("{} files from {first_path}", group.len())
    };
    let ids: Vec<String> = group.iter().map(|f| f.record.file_id.clone()).collect();
    remote
        .delete(
            filter::units_of_files(profile, ids),
            &format!("deleting the old units of {what}"),
        )
        .await?;
    let batch = remote.config.batch_size.max(1);
    let units = group.iter().flat_map(|file| {
        file.units.iter().map(move |unit| {
            let images = file.images.get(&unit.unit_id).map(Vec::as_slice);
            unit_point(
                profile,
                unit,
                file.vectors.get(&unit.unit_id),
                images.unwrap_or_default(),
                avg,
            )
        })
    });
    let mut points = Vec::with_capacity(batch);
    let mut written = 0;
    for point in units {
        points.push(point);
        if points.len() == batch {
            let chunk = std::mem::replace(&mut points, Vec::with_capacity(batch));
            written += chunk.len();
            remote
                .upsert(chunk, &format!("upserting units up to {written} of {what}"))
                .await?;
        }
    }
    if !points.is_empty() {
        remote
            .upsert(points, &format!("upserting the last units of {what}"))
            .await?;
    }
    let files = group
        .iter()
        .map(|file| file_point(profile, &file.record, &file.key))
        .collect();
    remote
        .upsert(files, &format!("upserting the file points of {what}"))
        .await
}
