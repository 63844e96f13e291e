//! `dentate-searchd --index INDEX_DIR [--grpc-addr ADDR] [--http-addr ADDR]`: serve an
//! index over gRPC and HTTP. Prints `listening grpc=ADDR http=ADDR` once ready.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use dentate_qdrant::cli::{Backend, BackendArgs};
use searchd::server::{serve, Bound};
use searchd::Engine;

/// Serve a Dentate index over gRPC (dentate.v1) and HTTP (HippoCamp-compatible).
#[derive(Debug, Parser)]
#[command(name = "dentate-searchd", version)]
struct Cli {
    /// Index folder written by dentate-index (with `--backend qdrant`: optional, used
    /// only to find the profile's key).
    #[arg(long, short = 'i', required_unless_present_any = ["profile_key", "profile"])]
    index: Option<PathBuf>,
    /// With `--backend qdrant` and no index folder: the profile folder whose index was
    /// synced (its tenant key is derived from it), or give `--profile-key`.
    #[arg(long, value_name = "DIR")]
    profile: Option<PathBuf>,
    /// gRPC listen address (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:50051")]
    grpc_addr: SocketAddr,
    /// HTTP listen address (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    http_addr: SocketAddr,
    /// Model folder filled by scripts/fetch-models (default: $DENTATE_MODELS, ./models,
    /// or models/ of the checkout the binary was built in).
    #[arg(long)]
    models: Option<PathBuf>,
    /// Lexical search only (do not load the embedding model).
    #[arg(long)]
    no_dense: bool,
    /// A CLIP-style model folder of your own (the one given to dentate-index --clip):
    /// hybrid and dense queries also search images by their CLIP vectors.
    /// Default: $DENTATE_CLIP.
    #[arg(long, value_name = "DIR")]
    clip: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    limits: searchd::limits::cli::LimitArgs,
}

/// The engine over the chosen backend.
fn open_engine(cli: &Cli, models: Option<&std::path::Path>) -> anyhow::Result<Engine> {
    match (cli.backend.backend, &cli.index) {
        (Backend::Embedded, Some(index)) => Engine::open_with_models(index, models)
            .with_context(|| format!("cannot open index {}", index.display())),
        (Backend::Embedded, None) => anyhow::bail!("--index is required with --backend embedded"),
        (Backend::Qdrant, index) => {
            let profile_root = match (index, &cli.profile) {
                (Some(index), _) => {
                    index::IndexLayout::new(index)
                        .read_info()
                        .with_context(|| format!("cannot read index {}", index.display()))?
                        .profile_root
                }
                (None, Some(profile)) => profile
                    .canonicalize()
                    .with_context(|| format!("profile folder {}", profile.display()))?
                    .to_string_lossy()
                    .to_string(),
                (None, None) => String::new(),
            };
            let config = cli.backend.qdrant_config(&profile_root);
            let backend = dentate_qdrant::QdrantBackend::open(&config).with_context(|| {
                format!(
                    "cannot serve profile {:?} from Qdrant at {} (collection {:?})",
                    config.profile, config.url, config.collection
                )
            })?;
            Ok(Engine::with_backend(Box::new(backend), models))
        }
    }
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let limits = cli
        .limits
        .limits()
        .map_err(|problem| anyhow::anyhow!("{problem}"))?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("DENTATE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    for addr in [cli.grpc_addr, cli.http_addr] {
        if !addr.ip().is_loopback() {
            eprintln!("warning: listening on non-loopback address {addr}; the index is readable by anyone who can reach it");
        }
    }
    let models = if cli.no_dense {
        None
    } else {
        Some(
            cli.models
                .clone()
                .unwrap_or_else(indexer::embed::default_models_dir),
        )
    };
    let mut engine = open_engine(&cli, models.as_deref())?;
    let clip = cli
        .clip
        .clone()
        .or_else(|| std::env::var_os("DENTATE_CLIP").map(PathBuf::from));
    if let (Some(dir), Some(models)) = (&clip, &models) {
        match engine.enable_clip(dir, models) {
            Ok(0) => eprintln!(
                "warning: the index holds no image vectors for {}; run dentate-index --clip",
                dir.display()
            ),
            Ok(_) => {}
            Err(error) => eprintln!("warning: CLIP search unavailable: {error}"),
        }
    }
    let engine = Arc::new(engine);
    if let (Some(problem), false) = (engine.dense_status(), cli.no_dense) {
        eprintln!("warning: dense retrieval unavailable, serving lexical search only: {problem}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        serve(
            engine,
            limits,
            cli.grpc_addr,
            cli.http_addr,
            |bound: Bound| {
                println!("listening grpc={} http={}", bound.grpc, bound.http);
                let _ = std::io::stdout().flush();
            },
            shutdown,
        )
        .await
    })
}
