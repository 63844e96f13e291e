//! The command-line options both binaries take to choose and reach a backend
//! (`dentate-index` syncs into it, `dentate-searchd` serves from it).

use std::time::Duration;

use crate::config::{
    profile_key, Fusion, QdrantConfig, Quantization, DEFAULT_BULK_UNITS, DEFAULT_COLLECTION,
};

/// Where the index lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Backend {
    /// tantivy + the manifest in the index folder (no server).
    #[default]
    Embedded,
    /// A Qdrant server or cluster (the index folder stays the crawler's state).
    Qdrant,
}

/// `--backend` and the Qdrant connection.
#[derive(Debug, Clone, clap::Args)]
pub struct BackendArgs {
    /// Where the searchable index lives: `embedded` (the index folder) or `qdrant`
    /// (a Qdrant server or cluster; dentate-index keeps the folder and syncs it there).
    #[arg(long, value_enum, default_value_t = Backend::Embedded, env = "DENTATE_BACKEND")]
    pub backend: Backend,
    /// Qdrant's gRPC URL.
    #[arg(
        long,
        value_name = "URL",
        env = "DENTATE_QDRANT_URL",
        default_value = "http://127.0.0.1:6334"
    )]
    pub qdrant_url: String,
    /// Qdrant API key.
    #[arg(
        long,
        value_name = "KEY",
        env = "DENTATE_QDRANT_API_KEY",
        hide_env_values = true
    )]
    pub qdrant_api_key: Option<String>,
    /// Qdrant collection; profiles are tenants in it.
    #[arg(long, value_name = "NAME", default_value = DEFAULT_COLLECTION)]
    pub collection: String,
    /// The profile's tenant key in the collection (default: derived from the profile
    /// folder, as `dentate-index` prints it).
    #[arg(long, value_name = "KEY")]
    pub profile_key: Option<String>,
    /// Shards of a collection created by this run (a cluster: at least its node count).
    #[arg(long, default_value_t = 1)]
    pub shards: u32,
    /// Copies of each shard in a collection created by this run.
    #[arg(long, default_value_t = 1)]
    pub replicas: u32,
    /// Quantization of the text vectors in a collection created by this run (`--quantize`
    /// alone: int8); searches rescore with the original vectors.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "int8", default_value_t = Quantization::None)]
    pub quantize: Quantization,
    /// Seconds one Qdrant request may take.
    #[arg(long, default_value_t = 30)]
    pub qdrant_timeout: u64,
    /// dentate-index: a sync writing at least this many new units pauses Qdrant's HNSW
    /// indexing until its points are in (one index build instead of rebuilds while the
    /// segments grow); 0: never pause.
    #[arg(long, value_name = "UNITS", default_value_t = DEFAULT_BULK_UNITS)]
    pub bulk_units: u64,
    /// dentate-searchd: where hybrid lists are fused. `daemon`: the daemon fuses the
    /// server's sparse and dense lists (the planner's fusion, explain with each list's
    /// rank); `server`: one Query API request with both lists as prefetches fused by
    /// Qdrant (RRF with the request's k, or DBSF), one round trip.
    #[arg(long, value_enum, default_value_t = Fusion::Daemon)]
    pub qdrant_fusion: Fusion,
}

impl BackendArgs {
    /// The Qdrant settings for the profile at `profile_root`.
    pub fn qdrant_config(&self, profile_root: &str) -> QdrantConfig {
        let mut config = QdrantConfig::new(&self.qdrant_url, profile_root);
        config.api_key = self.qdrant_api_key.clone().filter(|k| !k.is_empty());
        config.collection = self.collection.clone();
        config.profile = self
            .profile_key
            .clone()
            .unwrap_or_else(|| profile_key(profile_root));
        config.shard_number = self.shards.max(1);
        config.replication_factor = self.replicas.max(1);
        config.quantize = self.quantize;
        config.timeout = Duration::from_secs(self.qdrant_timeout.max(1));
        config.bulk_units = self.bulk_units;
        config.fusion = self.qdrant_fusion;
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        backend: BackendArgs,
    }

    #[test]
    fn defaults_are_embedded_and_flags_reach_the_config() {
        let cli = Cli::parse_from(["x"]);
        assert_eq!(cli.backend.backend, Backend::Embedded);
        let cli = Cli::parse_from([
            "x",
            "--backend",
            "qdrant",
            "--qdrant-url",
            "http://10.0.0.1:6334",
            "--collection",
            "home",
            "--shards",
            "3",
            "--replicas",
            "2",
            "--profile-key",
            "alice",
        ]);
        let config = cli.backend.qdrant_config("/nonexistent/alice");
        assert_eq!(cli.backend.backend, Backend::Qdrant);
        assert_eq!(config.url, "http://10.0.0.1:6334");
        assert_eq!(config.collection, "home");
        assert_eq!(config.profile, "alice");
        assert_eq!((config.shard_number, config.replication_factor), (3, 2));
        assert_eq!(config.bulk_units, DEFAULT_BULK_UNITS);
        assert_eq!(config.fusion, Fusion::Daemon);
        let cli = Cli::parse_from(["x", "--bulk-units", "0", "--qdrant-fusion", "server"]);
        let config = cli.backend.qdrant_config("/nonexistent/alice");
        assert_eq!((config.bulk_units, config.fusion), (0, Fusion::Server));
    }
}
