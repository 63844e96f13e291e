//! How to reach Qdrant and where a profile's points live.

use std::path::Path;
use std::time::Duration;

/// The collection every profile syncs into unless told otherwise.
pub const DEFAULT_COLLECTION: &str = "dentate";

/// Default of [`QdrantConfig::bulk_units`].
pub const DEFAULT_BULK_UNITS: u64 = 50_000;

/// Connection and layout settings of the Qdrant backend.
#[derive(Debug, Clone, PartialEq)]
pub struct QdrantConfig {
    /// gRPC URL, e.g. `http://127.0.0.1:6334` (binaries read `DENTATE_QDRANT_URL`).
    pub url: String,
    /// `DENTATE_QDRANT_API_KEY`.
    pub api_key: Option<String>,
    pub collection: String,
    /// The tenant key of the profile (see [`profile_key`]).
    pub profile: String,
    /// Used when the collection is created.
    pub shard_number: u32,
    /// Used when the collection is created.
    pub replication_factor: u32,
    /// How the `text` vectors are quantized (when the collection is created).
    pub quantize: Quantization,
    /// Timeout of one request.
    pub timeout: Duration,
    /// Attempts of a request failing with a transient error (Unavailable,
    /// DeadlineExceeded, ResourceExhausted, connection refused) before it is reported.
    pub retries: u32,
    /// Delay before the first retry; doubled for each further one.
    pub retry_delay: Duration,
    /// Points per upsert request.
    pub batch_size: usize,
    /// A sync that writes at least this many units of files new to the collection
    /// pauses Qdrant's HNSW indexing until its points are in (Qdrant's advice for bulk
    /// uploads: one index build at the end instead of rebuilds while segments grow);
    /// 0: never.
    pub bulk_units: u64,
    /// Where the daemon's hybrid lists are fused (serving only).
    pub fusion: Fusion,
}

/// How a collection created by a sync stores a compressed copy of the text vectors for
/// its searches; dense searches rescore their candidates with the original vectors
/// whatever the collection holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Quantization {
    /// Original float vectors only.
    #[default]
    None,
    /// int8 scalar quantization: a quarter of the bytes.
    Int8,
    /// One bit per component, compared with a four-bit question (Qdrant's asymmetric
    /// binary quantization, as the embedded backend's sign pass): a 32nd of the bytes.
    Binary,
}

/// Where hybrid lists are fused on the Qdrant backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Fusion {
    /// The daemon fuses the server's lists (as the embedded backend does).
    #[default]
    Daemon,
    /// Qdrant fuses them (Query API prefetches with RRF or DBSF).
    Server,
}

impl QdrantConfig {
    /// Defaults for the profile at `profile_root`: the shared [`DEFAULT_COLLECTION`],
    /// the profile key of the root, one shard, one replica, 5 tries from 0.2 s.
    pub fn new(url: &str, profile_root: &str) -> QdrantConfig {
        QdrantConfig {
            url: url.to_string(),
            api_key: None,
            collection: default_collection(profile_root),
            profile: profile_key(profile_root),
            shard_number: 1,
            replication_factor: 1,
            quantize: Quantization::None,
            timeout: Duration::from_secs(30),
            retries: 5,
            retry_delay: Duration::from_millis(200),
            batch_size: 256,
            bulk_units: DEFAULT_BULK_UNITS,
            fusion: Fusion::Daemon,
        }
    }
}

/// The collection of a profile: always [`DEFAULT_COLLECTION`] — one collection for all
/// profiles, which are tenants (`profile` is a tenant keyword index), so that several
/// indexers can sync into one Qdrant without creating a collection each.
pub fn default_collection(_profile_root: &str) -> String {
    DEFAULT_COLLECTION.to_string()
}

/// The tenant key of a profile: the folder name (alphanumerics, `-`, `_` only; at most 32
/// characters) and 12 hex digits of BLAKE3 over the canonical root, e.g.
/// `Documents-3fa2c1d09b7e`. Stable for one root; different roots with the same name
/// differ.
pub fn profile_key(profile_root: &str) -> String {
    let canonical = std::fs::canonicalize(profile_root)
        .map(|p| p.to_string_lossy().to_string())
        .unwrap_or_else(|_| profile_root.to_string());
    let name: String = Path::new(&canonical)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .take(32)
        .collect();
    let hash = &blake3::hash(canonical.as_bytes()).to_hex()[..12];
    if name.is_empty() {
        hash.to_string()
    } else {
        format!("{name}-{hash}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_keys_are_stable_and_distinct() {
        let a = profile_key("/nonexistent/a/Docs");
        assert_eq!(a, profile_key("/nonexistent/a/Docs"));
        assert!(a.starts_with("Docs-") && a.len() == "Docs-".len() + 12);
        assert_ne!(a, profile_key("/nonexistent/b/Docs"));
        assert_eq!(default_collection("/x"), "dentate");
        let config = QdrantConfig::new("http://127.0.0.1:6334", "/nonexistent/a/Docs");
        assert_eq!(config.profile, a);
        assert_eq!((config.shard_number, config.replication_factor), (1, 1));
    }
}
