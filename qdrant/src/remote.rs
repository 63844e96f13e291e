//! The connection to Qdrant: a client with its retry policy, the collection's layout
//! (created when absent, checked when present, named image vectors added on demand) and
//! the few point operations the sync and the backend use.

use std::collections::HashMap;
use std::time::Duration;

use index::vector::TEXT_DIM;
use qdrant_client::qdrant::points_selector::PointsSelectorOneOf;
use qdrant_client::qdrant::{
    payload_index_params::IndexParams, BinaryQuantizationBuilder, BinaryQuantizationQueryEncoding,
    CreateCollectionBuilder, CreateFieldIndexCollectionBuilder, CreateVectorNameRequestBuilder,
    DeletePointsBuilder, DenseVectorCreationConfigBuilder, Distance, FieldType, IntegerIndexParams,
    KeywordIndexParams, Modifier, MultiVectorComparator, MultiVectorConfig,
    OptimizersConfigDiffBuilder, PayloadIncludeSelector, PointId, PointStruct,
    ScalarQuantizationBuilder, ScrollPointsBuilder, SparseVectorParamsBuilder,
    SparseVectorsConfigBuilder, UpdateCollectionBuilder, UpsertPointsBuilder, VectorParamsBuilder,
    VectorsConfigBuilder,
};
use qdrant_client::Qdrant;

use crate::config::{QdrantConfig, Quantization};
use crate::error::{QdrantError, Retry};

/// Name of the dense text vector.
pub const TEXT_VECTOR: &str = "text";
/// Name of the sparse BM25 vector.
pub const BM25_VECTOR: &str = "bm25";

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
    /// Returns the collection's named dense vectors with their dimensions.
    pub async fn ensure_collection(&self) -> Result<DenseVectors, QdrantError> {
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
            // A unit has one text vector per window of its text and scores by the best
            // (see `indexer::windows`): a multivector compared by MaxSim, which for one
            // question vector is that best cosine.
            let mut text = VectorParamsBuilder::new(TEXT_DIM as u64, Distance::Cosine)
                .multivector_config(MultiVectorConfig {
                    comparator: MultiVectorComparator::MaxSim as i32,
                });
            match self.config.quantize {
                Quantization::None => {}
                Quantization::Int8 => {
                    text = text.quantization_config(ScalarQuantizationBuilder::default());
                }
                Quantization::Binary => {
                    text = text.quantization_config(
                        BinaryQuantizationBuilder::default()
                            .query_encoding(BinaryQuantizationQueryEncoding::scalar4bits()),
                    );
                }
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
        let info = self.collection_info().await?;
        check_compatible(&name, &info)?;
        let dense = dense_vectors(&info);
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
        Ok(dense)
    }

    /// Makes sure the collection has the named dense vector `name` of `dim` dimensions
    /// (cosine), adding it when absent (Qdrant 1.18+ adds named vectors to a live
    /// collection); `known` is the layout read by [`Remote::ensure_collection`] and is
    /// updated.
    pub async fn ensure_dense_vector(
        &self,
        name: &str,
        dim: usize,
        known: &mut DenseVectors,
    ) -> Result<(), QdrantError> {
        let collection = self.collection().to_string();
        match known.get(name) {
            Some(&size) if size == dim as u64 => return Ok(()),
            Some(&size) => {
                return Err(QdrantError::IncompatibleCollection {
                    collection,
                    detail: format!("vector {name:?} has {size} dimensions, the model gives {dim}"),
                })
            }
            None => {}
        }
        let request = CreateVectorNameRequestBuilder::new(
            collection.clone(),
            name,
            DenseVectorCreationConfigBuilder::new(dim as u64, Distance::Cosine),
        )
        .wait(true);
        let created = self
            .retry
            .run(
                || format!("adding the vector {name:?} to collection {collection}"),
                || self.client.create_vector_name(request.clone()),
            )
            .await;
        if let Err(error) = created {
            // Another indexer may have added it meanwhile; anything else is the error.
            let info = self
                .client
                .collection_info(collection.clone())
                .await
                .ok()
                .and_then(|r| r.result);
            let now = info.as_ref().map(dense_vectors).unwrap_or_default();
            if now.get(name) != Some(&(dim as u64)) {
                return Err(error);
            }
        }
        known.insert(name.to_string(), dim as u64);
        Ok(())
    }

    /// The collection's named dense vectors with their dimensions.
    pub async fn dense_layout(&self) -> Result<DenseVectors, QdrantError> {
        Ok(dense_vectors(&self.collection_info().await?))
    }

    async fn collection_info(&self) -> Result<qdrant_client::qdrant::CollectionInfo, QdrantError> {
        let name = self.collection().to_string();
        self.retry
            .run(
                || format!("reading collection {name}"),
                || self.client.collection_info(name.clone()),
            )
            .await?
            .result
            .ok_or_else(|| QdrantError::Data("collection info without result".into()))
    }

    /// The collection's `indexing_threshold` (kB of vectors a segment holds before the
    /// optimizer builds its HNSW index; 0: no index is built), when the server says.
    pub async fn indexing_threshold(&self) -> Result<Option<u64>, QdrantError> {
        Ok(self
            .collection_info()
            .await?
            .config
            .and_then(|c| c.optimizer_config)
            .and_then(|o| o.indexing_threshold))
    }

    /// Sets the collection's `indexing_threshold` (see [`Remote::indexing_threshold`]).
    pub async fn set_indexing_threshold(&self, kb: u64) -> Result<(), QdrantError> {
        let name = self.collection().to_string();
        let request = UpdateCollectionBuilder::new(name.clone())
            .optimizers_config(OptimizersConfigDiffBuilder::default().indexing_threshold(kb));
        self.retry
            .run(
                || format!("setting the indexing threshold of {name} to {kb} kB"),
                || self.client.update_collection(request.clone()),
            )
            .await
            .map(|_| ())
    }

    /// Waits until the collection is green (its optimizer idle: every index built),
    /// polling every 200 ms; `false` when `timeout` passed first.
    pub async fn wait_green(&self, timeout: Duration) -> Result<bool, QdrantError> {
        let started = std::time::Instant::now();
        loop {
            let info = self.collection_info().await?;
            if info.status == qdrant_client::qdrant::CollectionStatus::Green as i32 {
                return Ok(true);
            }
            if started.elapsed() >= timeout {
                return Ok(false);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Points by id, with their payloads.
    pub async fn get(
        &self,
        ids: Vec<qdrant_client::qdrant::PointId>,
        context: &str,
    ) -> Result<Vec<qdrant_client::qdrant::RetrievedPoint>, QdrantError> {
        let request =
            qdrant_client::qdrant::GetPointsBuilder::new(self.collection(), ids).with_payload(true);
        self.get_points(request, context).await
    }

    /// The points a get request returns.
    async fn get_points(
        &self,
        request: qdrant_client::qdrant::GetPointsBuilder,
        context: &str,
    ) -> Result<Vec<qdrant_client::qdrant::RetrievedPoint>, QdrantError> {
        Ok(self
            .retry
            .run(
                || context.to_string(),
                || self.client.get_points(request.clone()),
            )
            .await?
            .result)
    }

    /// The windows of some units' text vectors (a multivector, one vector per window),
    /// by point id (as text, see [`crate::payload::point_id_text`]), without payload;
    /// points without a text vector are left out.
    pub async fn text_windows(
        &self,
        ids: Vec<qdrant_client::qdrant::PointId>,
        context: &str,
    ) -> Result<Vec<(String, Vec<Vec<f32>>)>, QdrantError> {
        use qdrant_client::qdrant::vector_output::Vector;
        let request = qdrant_client::qdrant::GetPointsBuilder::new(self.collection(), ids)
            .with_payload(false)
            .with_vectors(qdrant_client::qdrant::VectorsSelector::from(vec![
                TEXT_VECTOR.to_string(),
            ]));
        let points = self.get_points(request, context).await?;
        Ok(points
            .into_iter()
            .filter_map(|point| {
                let id = crate::payload::point_id_text(point.id.as_ref()?);
                let windows = match point.vectors?.get_vector_by_name(TEXT_VECTOR)? {
                    Vector::MultiDense(multi) => {
                        multi.vectors.into_iter().map(|v| v.data).collect()
                    }
                    Vector::Dense(dense) => vec![dense.data],
                    _ => return None,
                };
                Some((id, windows))
            })
            .collect())
    }

    /// Upserts points (`wait: true`).
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

/// The named dense vectors of a collection and their dimensions.
pub type DenseVectors = HashMap<String, u64>;

fn dense_vectors(info: &qdrant_client::qdrant::CollectionInfo) -> DenseVectors {
    use qdrant_client::qdrant::vectors_config::Config;
    match info
        .config
        .as_ref()
        .and_then(|c| c.params.as_ref())
        .and_then(|p| p.vectors_config.as_ref())
        .and_then(|v| v.config.as_ref())
    {
        Some(Config::ParamsMap(map)) => map
            .map
            .iter()
            .map(|(name, params)| (name.clone(), params.size))
            .collect(),
        _ => DenseVectors::new(),
    }
}

/// The name of the dense vector holding the image vectors of one image–text model:
/// `image-<model, made safe>-<8 hex digits of its BLAKE3>`, so two models never share one.
pub fn image_vector_name(model: &str) -> String {
    let safe: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect();
    let digest = blake3::hash(model.as_bytes()).to_hex();
    format!("image-{safe}-{}", &digest[..8])
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
    if text.multivector_config.map(|m| m.comparator) != Some(MultiVectorComparator::MaxSim as i32) {
        return Err(incompatible(format!(
            "vector {TEXT_VECTOR:?} holds one vector per unit, not one per window of its text              (made by an older Dentate): delete the collection and sync again"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_vector_names_are_safe_and_distinct() {
        let a = image_vector_name("clip:ViT-B/32");
        let b = image_vector_name("clip:ViT_B_32");
        assert!(a.starts_with("image-clip_ViT-B_32-"), "{a}");
        assert_ne!(a, b, "models that sanitise alike keep distinct names");
        assert_eq!(a, image_vector_name("clip:ViT-B/32"));
        assert!(a
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert!(image_vector_name(&"x".repeat(500)).len() < 70);
    }
}
