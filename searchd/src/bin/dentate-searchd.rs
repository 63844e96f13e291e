//! `dentate-searchd --index INDEX_DIR [--grpc-addr ADDR] [--http-addr ADDR]`: serve an
//! index over gRPC and HTTP. Prints `listening grpc=ADDR http=ADDR` once ready.
//!
//! Several profiles: `--profile NAME=INDEX_DIR` (repeatable), reached over HTTP under
//! `/p/NAME/` and over gRPC with `x-dentate-profile: NAME` metadata. API keys:
//! `--keys FILE` (see `dentate-searchd new-key`). Without keys the daemon only listens
//! on loopback addresses unless told `--insecure-no-auth`.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use dentate_qdrant::cli::{Backend, BackendArgs};
use searchd::auth::{KeyStore, Role};
use searchd::profiles::{Profile, ProfileSpec, Profiles, DEFAULT_PROFILE};
use searchd::server::{serve, Access, Bound};
use searchd::Engine;

/// Serve Dentate indexes over gRPC (dentate.v1) and HTTP (HippoCamp-compatible).
#[derive(Debug, Parser)]
#[command(
    name = "dentate-searchd",
    version,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Index folder written by dentate-index, served as the profile `default` (with
    /// `--backend qdrant`: optional, used only to find the profile's key).
    #[arg(long, short = 'i')]
    index: Option<PathBuf>,
    /// Serve several profiles: NAME=INDEX_DIR (repeatable; the first also answers
    /// requests that name no profile). Names: letters, digits, '-' and '_'.
    #[arg(long = "profile", value_name = "NAME=INDEX_DIR")]
    profiles: Vec<ProfileSpec>,
    /// With `--backend qdrant` and no index folder: the profile folder whose index was
    /// synced (its tenant key is derived from it), or give `--profile-key`.
    #[arg(long, value_name = "DIR")]
    profile_root: Option<PathBuf>,
    /// gRPC listen address (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:50051")]
    grpc_addr: SocketAddr,
    /// HTTP listen address (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    http_addr: SocketAddr,
    /// API keys (TOML `[[key]]` tables: name, sha256, profiles, role); every route but
    /// the health checks then needs `Authorization: Bearer KEY`. Re-read on SIGHUP.
    #[arg(long, value_name = "FILE", env = "DENTATE_KEYS")]
    keys: Option<PathBuf>,
    /// Listen on a non-loopback address without API keys (only when something else,
    /// e.g. a firewall or a container network, guards the port).
    #[arg(long)]
    insecure_no_auth: bool,
    /// A host name clients use for this daemon besides localhost and its IP addresses
    /// (HTTP requests with any other `Host` are refused: DNS-rebinding protection).
    /// Repeatable or comma-separated; `*` switches the check off.
    #[arg(
        long = "allow-host",
        value_name = "NAME",
        env = "DENTATE_ALLOW_HOSTS",
        value_delimiter = ','
    )]
    allow_hosts: Vec<String>,
    /// A web origin (e.g. https://notes.example.org) whose pages may call the HTTP API
    /// (CORS). Repeatable. Without it no cross-origin request is allowed.
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    cors_origins: Vec<String>,
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
    /// Serve MCP on standard input and output instead of listening (for an agent's
    /// `mcpServers` configuration); logs go to standard error. One profile only.
    #[arg(long)]
    mcp_stdio: bool,
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    limits: searchd::limits::cli::LimitArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Make a random API key: prints the key (give it to its user; it is not stored)
    /// and the `[[key]]` table to add to the key file.
    NewKey {
        /// The key's name (who or what uses it).
        name: String,
        /// Profiles it opens (comma-separated; default every profile, "*").
        #[arg(long, value_delimiter = ',', default_value = "*")]
        profiles: Vec<String>,
        /// `read` or `admin`.
        #[arg(long, default_value = "read")]
        role: String,
    },
    /// Print the SHA-256 (hex) of a key read from standard input, for the key file.
    HashKey,
}

/// What to serve: a profile name and its index folder (none: a Qdrant profile found by
/// its key or folder).
fn profile_specs(cli: &Cli) -> anyhow::Result<Vec<(String, Option<PathBuf>)>> {
    match (&cli.index, cli.profiles.is_empty()) {
        (Some(_), false) => anyhow::bail!("give --index DIR or --profile NAME=DIR, not both"),
        (None, false) => {
            if cli.profiles.len() > 1 && cli.backend.profile_key.is_some() {
                anyhow::bail!("--profile-key names one Qdrant tenant; with several profiles each is found from its index folder");
            }
            Ok(cli
                .profiles
                .iter()
                .map(|p| (p.name.clone(), Some(p.index.clone())))
                .collect())
        }
        (index, true) => {
            let qdrant_without_index = cli.backend.backend == Backend::Qdrant
                && (cli.backend.profile_key.is_some() || cli.profile_root.is_some());
            if index.is_none() && !qdrant_without_index {
                anyhow::bail!("give the index to serve: --index INDEX_DIR, or --profile NAME=INDEX_DIR (repeatable)");
            }
            Ok(vec![(DEFAULT_PROFILE.to_string(), index.clone())])
        }
    }
}

/// A Qdrant backend for the profile whose index folder is `index` (or the one given by
/// `--profile-root`/`--profile-key`).
fn qdrant_backend(
    cli: &Cli,
    index: Option<&Path>,
) -> anyhow::Result<dentate_qdrant::QdrantBackend> {
    let profile_root = match (index, &cli.profile_root) {
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
    dentate_qdrant::QdrantBackend::open(&config).with_context(|| {
        format!(
            "cannot serve profile {:?} from Qdrant at {} (collection {:?})",
            config.profile, config.url, config.collection
        )
    })
}

/// The engine of one profile over the chosen backend; every engine after the first
/// shares the first one's models.
fn open_engine(
    cli: &Cli,
    index: Option<&Path>,
    models: Option<&Path>,
    first: Option<&Engine>,
) -> anyhow::Result<Engine> {
    let backend: Box<dyn index::api::SearchBackend> = match (cli.backend.backend, index) {
        (Backend::Embedded, Some(index)) => {
            if first.is_none() {
                return Engine::open_with_models(index, models)
                    .with_context(|| format!("cannot open index {}", index.display()));
            }
            let handle = index::IndexHandle::open(index)
                .and_then(index::embedded_search::EmbeddedBackend::open)
                .with_context(|| format!("cannot open index {}", index.display()))?;
            Box::new(handle)
        }
        (Backend::Embedded, None) => anyhow::bail!("--index is required with --backend embedded"),
        (Backend::Qdrant, index) => Box::new(qdrant_backend(cli, index)?),
    };
    match first {
        None => Ok(Engine::with_backend(backend, models)),
        Some(first) => first
            .sharing_models(backend)
            .map_err(|e| anyhow::anyhow!("cannot open index: {e}")),
    }
}

fn key_command(command: &Command) -> anyhow::Result<()> {
    match command {
        Command::NewKey {
            name,
            profiles,
            role,
        } => {
            let role = match role.as_str() {
                "read" => Role::Read,
                "admin" => Role::Admin,
                other => anyhow::bail!("unknown role {other:?} (expected read or admin)"),
            };
            let key = searchd::auth::new_key().context("cannot read random bytes")?;
            println!("# key (give it to {name}; only its SHA-256 below is stored): {key}");
            print!("{}", searchd::auth::key_table(name, &key, profiles, role));
        }
        Command::HashKey => {
            let mut key = String::new();
            std::io::stdin()
                .read_line(&mut key)
                .context("cannot read the key from standard input")?;
            let key = key.trim_end_matches(['\r', '\n']);
            anyhow::ensure!(!key.is_empty(), "no key on standard input");
            println!("{}", searchd::auth::digest_hex(key));
        }
    }
    Ok(())
}

/// Refuses to listen beyond loopback without keys unless told to, and warns when told.
fn check_addresses(cli: &Cli, has_keys: bool) -> anyhow::Result<()> {
    searchd::auth::check_exposure(
        &[cli.grpc_addr, cli.http_addr],
        has_keys,
        cli.insecure_no_auth,
    )
    .map_err(anyhow::Error::msg)?;
    for addr in [cli.grpc_addr, cli.http_addr] {
        if !addr.ip().is_loopback() && !has_keys {
            eprintln!("warning: listening on non-loopback address {addr} without API keys (--insecure-no-auth); the index is readable by anyone who can reach it");
        }
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(command) = &cli.command {
        return key_command(command);
    }
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
        // Colour only on a terminal (an agent host captures --mcp-stdio's stderr).
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let specs = profile_specs(&cli)?;
    if cli.mcp_stdio && specs.len() > 1 {
        anyhow::bail!("--mcp-stdio serves one profile; give --index DIR or a single --profile");
    }
    let names: Vec<String> = specs.iter().map(|(name, _)| name.clone()).collect();
    let keys = match &cli.keys {
        Some(path) => Some(Arc::new(KeyStore::load(path, &names)?)),
        None => None,
    };
    if !cli.mcp_stdio {
        check_addresses(&cli, keys.is_some())?;
    }
    let models = if cli.no_dense {
        None
    } else {
        Some(
            cli.models
                .clone()
                .unwrap_or_else(models::embed::default_models_dir),
        )
    };
    let clip = cli
        .clip
        .clone()
        .or_else(|| std::env::var_os("DENTATE_CLIP").map(PathBuf::from));
    let mut engines: Vec<Engine> = Vec::new();
    for (i, (name, index)) in specs.iter().enumerate() {
        let mut engine = open_engine(&cli, index.as_deref(), models.as_deref(), engines.first())
            .with_context(|| format!("profile {name:?}"))?;
        if let (0, Some(dir), Some(models)) = (i, &clip, &models) {
            if let Err(error) = engine.enable_clip(dir, models) {
                eprintln!("warning: CLIP search unavailable: {error}");
            }
        }
        if let Some(Ok(0)) = engine.clip_vector_count() {
            eprintln!(
                "warning: profile {name:?} holds no image vectors for the CLIP model; run dentate-index --clip"
            );
        }
        engines.push(engine);
    }
    if let (Some(problem), false) = (engines[0].dense_status(), cli.no_dense) {
        eprintln!("warning: dense retrieval unavailable, serving lexical search only: {problem}");
    }
    let profiles = Profiles::new(
        names
            .into_iter()
            .zip(engines)
            .map(|(name, engine)| Profile {
                name,
                engine: Arc::new(engine),
            })
            .collect(),
    )
    .map_err(anyhow::Error::msg)?;
    let access = Access {
        keys,
        allow_hosts: cli.allow_hosts.clone(),
        cors_origins: cli.cors_origins.clone(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    if cli.mcp_stdio {
        let engine = profiles.first().engine.clone();
        return runtime.block_on(searchd::mcp::serve_stdio(engine));
    }
    runtime.block_on(async move {
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        serve(
            profiles,
            access,
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
