//! Mirroring the embedded index into a Qdrant collection.
//!
//! Qdrant is the source of truth for what is synced: each synced file has a file point
//! whose `sync_key` hashes everything its points are made from. A run compares those
//! keys with the local ones and, for each new or changed file, deletes its unit points,
//! upserts the new ones (batches of [`QdrantConfig::batch_size`], `wait: true`) and
//! upserts the file point **last**; files gone locally lose all their points. An
//! interrupted run (even SIGKILL) leaves at worst a file whose key is stale or missing,
//! which the next run rewrites, so re-running converges to exactly the points of a
//! clean run.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use index::manifest::FileRecord;
use index::vector::{embedding_text, from_bytes, text_hash, TEXT_DIM};
use index::writer::lexical_texts;
use index::{IndexHandle, StoredUnit};
use qdrant_client::qdrant::points_selector::PointsSelectorOneOf;
use qdrant_client::qdrant::{
    payload_index_params::IndexParams, CreateCollectionBuilder, CreateFieldIndexCollectionBuilder,
    DeletePointsBuilder, Distance, FieldType, IntegerIndexParams, KeywordIndexParams, Modifier,
    PayloadIncludeSelector, PointId, PointStruct, ScalarQuantizationBuilder, ScrollPointsBuilder,
    SparseVectorParamsBuilder, SparseVectorsConfigBuilder, UpsertPointsBuilder, Vector,
    VectorParamsBuilder, Vectors, VectorsConfigBuilder,
};
use qdrant_client::Qdrant;

use crate::config::QdrantConfig;
use crate::error::{QdrantError, Retry};
use crate::sparse::AvgLengths;
use crate::{filter, payload, sparse};

/// Version of the point layout; part of every sync key, so a change rewrites all files.
pub const LAYOUT_VERSION: u32 = 1;
/// Name of the dense text vector.
pub const TEXT_VECTOR: &str = "text";
/// Name of the sparse BM25 vector.
pub const BM25_VECTOR: &str = "bm25";

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
    pub elapsed: Duration,
}

/// A connected client with its retry policy.
pub(crate) struct Remote {
    pub client: Qdrant,
    pub retry: Retry,
    pub config: QdrantConfig,
}

impl Remote {
    /// Connects (call inside a tokio runtime).
    pub fn connect(config: &QdrantConfig) -> Result<Remote, QdrantError> {
        let mut builder = Qdrant::from_url(&config.url)
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(5)))
            .skip_compatibility_check();
        if let Some(key) = &config.api_key {
            builder = builder.api_key(key.clone());
        }
        let client = builder.build().map_err(|e| QdrantError::Connect {
            url: config.url.clone(),
            detail: e.to_string(),
        })?;
        Ok(Remote {
            client,
            retry: Retry {
                tries: config.retries.max(1),
                first_delay: config.retry_delay,
            },
            config: config.clone(),
        })
    }

    pub fn collection(&self) -> &str {
        &self.config.collection
    }

    pub fn profile(&self) -> &str {
        &self.config.profile
    }

    /// Creates the collection if absent, checks it otherwise, and makes the payload
    /// indexes.
    pub async fn ensure_collection(&self) -> Result<(), QdrantError> {
        let name = self.collection().to_string();
        let exists = self
            .retry
            .run(
                || format!("checking collection {name}"),
                || self.client.collection_exists(name.clone()),
            )
            .await?;
        if !exists {
            let mut vectors = VectorsConfigBuilder::default();
            let mut text = VectorParamsBuilder::new(TEXT_DIM as u64, Distance::Cosine);
            if self.config.quantize {
                text = text.quantization_config(ScalarQuantizationBuilder::default());
            }
            vectors.add_named_vector_params(TEXT_VECTOR, text);
            let mut sparse_config = SparseVectorsConfigBuilder::default();
            sparse_config.add_named_vector_params(
                BM25_VECTOR,
                SparseVectorParamsBuilder::default().modifier(Modifier::Idf as i32),
            );
            let request = CreateCollectionBuilder::new(name.clone())
                .vectors_config(vectors)
                .sparse_vectors_config(sparse_config)
                .shard_number(self.config.shard_number.max(1))
                .replication_factor(self.config.replication_factor.max(1));
            let created = self
                .retry
                .run(
                    || format!("creating collection {name}"),
                    || self.client.create_collection(request.clone()),
                )
                .await;
            if let Err(error) = created {
                // Another indexer may have created it meanwhile.
                let again = self.client.collection_exists(name.clone()).await;
                if !matches!(again, Ok(true)) {
                    return Err(error);
                }
            }
        }
        let info = self
            .retry
            .run(
                || format!("reading collection {name}"),
                || self.client.collection_info(name.clone()),
            )
            .await?
            .result
            .ok_or_else(|| QdrantError::Data("collection info without result".into()))?;
        check_compatible(&name, &info)?;
        for (field, kind) in payload_indexes() {
            if info.payload_schema.contains_key(field) {
                continue;
            }
            let params: IndexParams = match kind {
                FieldType::Integer => IndexParams::IntegerIndexParams(IntegerIndexParams {
                    lookup: Some(true),
                    range: Some(true),
                    ..IntegerIndexParams::default()
                }),
                _ => IndexParams::KeywordIndexParams(KeywordIndexParams {
                    is_tenant: Some(field == "profile"),
                    ..KeywordIndexParams::default()
                }),
            };
            let request = CreateFieldIndexCollectionBuilder::new(name.clone(), field, kind)
                .field_index_params(params)
                .wait(true);
            self.retry
                .run(
                    || format!("creating the payload index {field} of {name}"),
                    || self.client.create_field_index(request.clone()),
                )
                .await?;
        }
        Ok(())
    }

    /// Upserts points (`wait: true`).
    /// Points by id, with their payloads.
    pub async fn get(
        &self,
        ids: Vec<qdrant_client::qdrant::PointId>,
        context: &str,
    ) -> Result<Vec<qdrant_client::qdrant::RetrievedPoint>, QdrantError> {
        let request =
            qdrant_client::qdrant::GetPointsBuilder::new(self.collection(), ids).with_payload(true);
        Ok(self
            .retry
            .run(
                || context.to_string(),
                || self.client.get_points(request.clone()),
            )
            .await?
            .result)
    }

    pub async fn upsert(&self, points: Vec<PointStruct>, context: &str) -> Result<(), QdrantError> {
        let request = UpsertPointsBuilder::new(self.collection(), points).wait(true);
        self.retry
            .run(
                || context.to_string(),
                || self.client.upsert_points(request.clone()),
            )
            .await
            .map(|_| ())
    }

    /// Deletes the points a filter selects (`wait: true`).
    pub async fn delete(
        &self,
        selector: qdrant_client::qdrant::Filter,
        context: &str,
    ) -> Result<(), QdrantError> {
        let request = DeletePointsBuilder::new(self.collection())
            .points(PointsSelectorOneOf::Filter(selector))
            .wait(true);
        self.retry
            .run(
                || context.to_string(),
                || self.client.delete_points(request.clone()),
            )
            .await
            .map(|_| ())
    }

    /// Every point a filter selects (paged scroll), with the given payload keys (`None`:
    /// all).
    pub async fn scroll_all(
        &self,
        selector: qdrant_client::qdrant::Filter,
        keys: Option<&[&str]>,
        context: &str,
    ) -> Result<Vec<qdrant_client::qdrant::RetrievedPoint>, QdrantError> {
        let mut out = Vec::new();
        let mut offset: Option<PointId> = None;
        loop {
            let mut request = ScrollPointsBuilder::new(self.collection())
                .filter(selector.clone())
                .limit(1000);
            request = match keys {
                Some(keys) => request.with_payload(PayloadIncludeSelector {
                    fields: keys.iter().map(|k| k.to_string()).collect(),
                }),
                None => request.with_payload(true),
            };
            if let Some(offset) = offset.take() {
                request = request.offset(offset);
            }
            let response = self
                .retry
                .run(
                    || context.to_string(),
                    || self.client.scroll(request.clone()),
                )
                .await?;
            out.extend(response.result);
            match response.next_page_offset {
                Some(next) => offset = Some(next),
                None => return Ok(out),
            }
        }
    }
}

/// The payload indexes of the layout.
fn payload_indexes() -> [(&'static str, FieldType); 11] {
    [
        ("profile", FieldType::Keyword),
        ("doc_type", FieldType::Keyword),
        ("file_id", FieldType::Keyword),
        ("unit_id", FieldType::Keyword),
        ("path", FieldType::Keyword),
        ("folders", FieldType::Keyword),
        ("modality", FieldType::Keyword),
        ("ext", FieldType::Keyword),
        ("kind", FieldType::Keyword),
        ("content_time", FieldType::Integer),
        ("ordinal", FieldType::Integer),
    ]
}

/// An existing collection must have the `text` (384-d cosine) and `bm25` (IDF) vectors.
fn check_compatible(
    name: &str,
    info: &qdrant_client::qdrant::CollectionInfo,
) -> Result<(), QdrantError> {
    use qdrant_client::qdrant::vectors_config::Config;
    let incompatible = |detail: String| QdrantError::IncompatibleCollection {
        collection: name.to_string(),
        detail,
    };
    let params = info
        .config
        .as_ref()
        .and_then(|c| c.params.as_ref())
        .ok_or_else(|| incompatible("no parameters".into()))?;
    let text = match params
        .vectors_config
        .as_ref()
        .and_then(|v| v.config.as_ref())
    {
        Some(Config::ParamsMap(map)) => map.map.get(TEXT_VECTOR),
        _ => None,
    }
    .ok_or_else(|| incompatible(format!("no named vector {TEXT_VECTOR:?}")))?;
    if text.size != TEXT_DIM as u64 || text.distance != Distance::Cosine as i32 {
        return Err(incompatible(format!(
            "vector {TEXT_VECTOR:?} has {} dimensions and distance {}, not {TEXT_DIM} and cosine",
            text.size, text.distance
        )));
    }
    let bm25 = params
        .sparse_vectors_config
        .as_ref()
        .and_then(|s| s.map.get(BM25_VECTOR))
        .ok_or_else(|| incompatible(format!("no sparse vector {BM25_VECTOR:?}")))?;
    if bm25.modifier != Some(Modifier::Idf as i32) {
        return Err(incompatible(format!(
            "sparse vector {BM25_VECTOR:?} has no IDF modifier"
        )));
    }
    Ok(())
}

/// A file as it will be written: its record, units, fresh text vectors and sync key.
struct LocalFile {
    record: FileRecord,
    units: Vec<StoredUnit>,
    /// unit_id → vector, only where the vector was computed from the unit's current text.
    vectors: HashMap<String, Vec<f32>>,
    key: String,
}

fn local_file(
    handle: &IndexHandle,
    record: FileRecord,
    avg: &AvgLengths,
) -> Result<LocalFile, QdrantError> {
    let units = if record.unit_count > 0 || record.status == index::FileStatus::Indexed {
        handle.units_of_file(&record.file_id)?
    } else {
        Vec::new()
    };
    let mut vectors = HashMap::new();
    if !units.is_empty() {
        let stored = handle.manifest()?.vectors_of_file(&record.file_id)?;
        for unit in &units {
            let Some((hash, bytes)) = stored.get(&unit.unit_id) else {
                continue;
            };
            if *hash != text_hash(&embedding_text(&unit.title, &unit.text)) {
                continue; // stale: computed from an older text
            }
            if let Some(vector) = from_bytes(bytes).filter(|v| v.len() == TEXT_DIM) {
                vectors.insert(unit.unit_id.clone(), vector);
            }
        }
    }
    let key = sync_key(&record, &units, &vectors, avg);
    Ok(LocalFile {
        record,
        units,
        vectors,
        key,
    })
}

/// BLAKE3 over everything a file's points are made from: the layout version, the record
/// (content hash, file id and every other field), each unit (its whole stored form) and
/// each fresh text vector.
pub fn sync_key(
    record: &FileRecord,
    units: &[StoredUnit],
    vectors: &HashMap<String, Vec<f32>>,
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
            hasher.update(b"\x00vector\x00");
            for x in vector {
                hasher.update(&x.to_le_bytes());
            }
        }
    }
    hasher.finalize().to_hex()[..32].to_string()
}

/// The point of one unit.
pub fn unit_point(
    profile: &str,
    unit: &StoredUnit,
    vector: Option<&Vec<f32>>,
    avg: &AvgLengths,
) -> PointStruct {
    let texts = lexical_texts(&unit.path, &unit.title, &unit.text, &unit.fields);
    let bm25 = sparse::document_vector(&texts, avg);
    let mut vectors: HashMap<String, Vector> = HashMap::new();
    if !bm25.is_empty() {
        vectors.insert(BM25_VECTOR.to_string(), Vector::from(bm25));
    }
    if let Some(vector) = vector {
        vectors.insert(TEXT_VECTOR.to_string(), Vector::from(vector.clone()));
    }
    PointStruct {
        id: Some(payload::unit_point_id(profile, &unit.file_id, unit.ordinal)),
        payload: payload::unit_payload(profile, unit),
        vectors: Some(Vectors::from(vectors)),
    }
}

/// The point of one file (no vectors).
pub fn file_point(profile: &str, record: &FileRecord, key: &str) -> PointStruct {
    PointStruct {
        id: Some(payload::file_point_id(profile, &record.file_id)),
        payload: payload::file_payload(profile, record, key),
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
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| QdrantError::Runtime(e.to_string()))?;
    runtime.block_on(sync_async(handle, config, progress))
}

async fn sync_async(
    handle: &IndexHandle,
    config: &QdrantConfig,
    mut progress: impl FnMut(SyncProgress),
) -> Result<SyncSummary, QdrantError> {
    let started = Instant::now();
    let remote = Remote::connect(config)?;
    remote.ensure_collection().await?;
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

    let (records, last_commit) = {
        let manifest = handle.manifest()?;
        (manifest.all()?, manifest.info("last_commit")?)
    };
    let mut summary = SyncSummary {
        files: records.len(),
        ..SyncSummary::default()
    };
    let local_ids: HashSet<String> = records.iter().map(|r| r.file_id.clone()).collect();
    // The averages the profile's points were written with stay while the live ones are
    // within 25 % of them, so a few edits do not rewrite the whole profile.
    let live = AvgLengths::of_index(handle).map_err(index::IndexError::from)?;
    let stored = remote
        .get(
            vec![payload::profile_point_id(&profile)],
            "reading the profile's info point",
        )
        .await?
        .first()
        .and_then(|p| payload::get_str(&p.payload, "avg_lengths"))
        .and_then(AvgLengths::parse);
    let avg = match stored {
        Some(stored) if stored.close_to(&live) => stored,
        _ => live,
    };
    let total = records.len();
    for (done, record) in records.into_iter().enumerate() {
        let file = local_file(handle, record, &avg)?;
        let path = file.record.path.clone();
        let written = existing.get(&file.record.file_id) != Some(&file.key);
        if written {
            summary.units_written += write_file(&remote, &file, &avg).await?;
            summary.changed += 1;
        } else {
            summary.unchanged += 1;
        }
        progress(SyncProgress {
            files_done: done + 1,
            files_total: total,
            path,
            written,
        });
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
    let root = handle.info.profile_root.clone();
    remote
        .upsert(
            vec![PointStruct {
                id: Some(payload::profile_point_id(&profile)),
                payload: {
                    let mut info =
                        payload::profile_payload(&profile, &root, last_commit.as_deref());
                    info.insert("avg_lengths".into(), avg.to_text().into());
                    info
                },
                vectors: Some(Vectors::from(HashMap::<String, Vector>::new())),
            }],
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

/// Rewrites one file's points: old units deleted, new ones upserted, file point last.
async fn write_file(
    remote: &Remote,
    file: &LocalFile,
    avg: &AvgLengths,
) -> Result<usize, QdrantError> {
    let profile = remote.profile();
    let path = &file.record.path;
    remote
        .delete(
            filter::units_of_file(profile, &file.record.file_id),
            &format!("deleting the old units of {path}"),
        )
        .await?;
    let batch = remote.config.batch_size.max(1);
    for (index, chunk) in file.units.chunks(batch).enumerate() {
        let points: Vec<PointStruct> = chunk
            .iter()
            .map(|unit| unit_point(profile, unit, file.vectors.get(&unit.unit_id), avg))
            .collect();
        let first = index * batch;
        remote
            .upsert(
                points,
                &format!("upserting units {first}..{} of {path}", first + chunk.len()),
            )
            .await?;
    }
    remote
        .upsert(
            vec![file_point(profile, &file.record, &file.key)],
            &format!("upserting the file point of {path}"),
        )
        .await?;
    Ok(file.units.len())
}
