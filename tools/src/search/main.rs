//! `dentate search "question"`: ranked files for a person at a terminal.
//!
//! Asks a running daemon (`$DENTATE_URL`, default `http://127.0.0.1:8080`, with
//! `$DENTATE_API_KEY`) or, with `--index DIR`, opens the index itself. Prints each file
//! with the locator and highlighted snippet of its best unit, in colour on a terminal
//! and plain when piped; `--json` prints the daemon's `/api/search` reply.

mod show;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::{json, Value};

#[derive(Debug, Parser)]
#[command(name = "dentate", version, about = "Search your files with Dentate")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Find the files that answer a question.
    Search(SearchArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Debug, clap::Args)]
struct SearchArgs {
    /// The question or keywords.
    #[arg(required = true)]
    query: Vec<String>,
    /// Files to show.
    #[arg(long, short = 'k', default_value_t = 10)]
    top_k: u32,
    /// hybrid, lexical or dense.
    #[arg(long, short = 'm', default_value = "hybrid")]
    mode: String,
    /// Only files under this folder (profile-relative; repeatable).
    #[arg(long = "path", value_name = "FOLDER")]
    path_prefixes: Vec<String>,
    /// Only this modality: text, image, audio or video (repeatable).
    #[arg(long = "modality")]
    modalities: Vec<String>,
    /// Only this extension, e.g. pdf (repeatable).
    #[arg(long = "ext")]
    extensions: Vec<String>,
    /// Only content dated on or after this day (YYYY-MM-DD).
    #[arg(long)]
    after: Option<String>,
    /// Only content dated before this day (YYYY-MM-DD).
    #[arg(long)]
    before: Option<String>,
    /// Drop the files after the first large score gap.
    #[arg(long)]
    autocut: bool,
    /// Re-score the best units by their best sentence (needs the text model).
    #[arg(long)]
    rerank: bool,
    /// Print the reply as JSON (the daemon's /api/search reply).
    #[arg(long)]
    json: bool,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
    /// The daemon's URL (…/p/NAME for one profile of a several-profile daemon).
    #[arg(long, env = "DENTATE_URL", default_value = "http://127.0.0.1:8080")]
    url: String,
    /// The daemon's API key, when it was started with --keys.
    #[arg(long, env = "DENTATE_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// Open this index folder instead of asking a daemon.
    #[arg(long, short = 'i', value_name = "DIR")]
    index: Option<PathBuf>,
    /// With --index: the model folder (default: as dentate-searchd finds it).
    #[arg(long, value_name = "DIR")]
    models: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let Command::Search(args) = cli.command;
    match search(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("dentate search: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Unix seconds of a `YYYY-MM-DD` day (midnight UTC).
fn day(flag: &str, text: &str) -> anyhow::Result<i64> {
    let day = chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .with_context(|| format!("--{flag} {text:?}: expected a day as YYYY-MM-DD"))?;
    Ok(day.and_time(chrono::NaiveTime::MIN).and_utc().timestamp())
}

/// The request, as `/api/search` takes it.
fn request(args: &SearchArgs) -> anyhow::Result<Value> {
    let mut body = json!({
        "query": args.query.join(" "),
        "top_k": args.top_k,
        "units_per_file": 1,
        "mode": args.mode,
        "path_prefixes": args.path_prefixes,
        "modalities": args.modalities,
        "extensions": args.extensions,
    });
    if let Some(after) = &args.after {
        body["time_start"] = json!(day("after", after)?);
    }
    if let Some(before) = &args.before {
        body["time_end"] = json!(day("before", before)?);
    }
    if args.autocut {
        body["autocut"] = json!(true);
    }
    if args.rerank {
        body["rerank"] = json!(true);
    }
    Ok(body)
}

fn search(args: &SearchArgs) -> anyhow::Result<()> {
    let body = request(args)?;
    let started = Instant::now();
    let reply = match &args.index {
        Some(index) => from_index(index, args.models.as_deref(), &body)?,
        None => from_daemon(&args.url, args.api_key.clone(), &body)?,
    };
    let elapsed = started.elapsed();
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&reply)?)?;
        return Ok(());
    }
    let colour = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100usize);
    write!(out, "{}", show::files(&reply, colour, width, elapsed))?;
    Ok(())
}

/// Asks the daemon's `/api/search`.
fn from_daemon(url: &str, api_key: Option<String>, body: &Value) -> anyhow::Result<Value> {
    let url = url.trim_end_matches('/');
    let client =
        eval::http::HttpClient::new(Some(Duration::from_secs(5)), None).with_api_key(api_key);
    let reply = client
        .post_json(&format!("{url}/api/search"), &body.to_string())
        .map_err(|e| {
            anyhow::anyhow!(
                "no Dentate daemon answers at {url} ({e}); start one with `dentate-searchd --index DIR`, set DENTATE_URL, or search an index directly with --index DIR"
            )
        })?;
    let value = reply.json().with_context(|| {
        format!(
            "the daemon at {url} answered {} with something that is not JSON",
            reply.status
        )
    })?;
    if reply.status != 200 {
        let message = value["error"].as_str().unwrap_or("no reason given");
        anyhow::bail!(
            "the daemon at {url} refused the search ({}): {message}",
            reply.status
        );
    }
    Ok(value)
}

/// Opens the index and searches it in this process.
fn from_index(
    index: &std::path::Path,
    models: Option<&std::path::Path>,
    body: &Value,
) -> anyhow::Result<Value> {
    use searchd::query::{Mode, SearchParams};
    let models = models
        .map(PathBuf::from)
        .unwrap_or_else(models::embed::default_models_dir);
    let engine = searchd::engine::Engine::open_with_models(index, Some(&models))
        .with_context(|| format!("cannot open the index {}", index.display()))?;
    let strings = |key: &str| -> Vec<String> {
        body[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let query = body["query"].as_str().unwrap_or("").to_string();
    let params = SearchParams {
        query: query.clone(),
        top_k: body["top_k"].as_u64().unwrap_or(10) as usize,
        units_per_file: 1,
        mode: Mode::parse(body["mode"].as_str().unwrap_or(""))?,
        path_prefixes: strings("path_prefixes"),
        modalities: strings("modalities"),
        extensions: strings("extensions"),
        time_start: body["time_start"].as_i64(),
        time_end: body["time_end"].as_i64(),
        cutoff: searchd::cutoff::Cutoff {
            autocut: u32::from(body["autocut"] == json!(true)),
            min_score: None,
        },
        ..SearchParams::default()
    };
    let outcome = engine.search(params)?;
    Ok(searchd::http::grouped_reply(&query, &outcome))
}
