//! `dentate-eval --questions QA.json [--grpc ADDR | --http URL] [--k 10] [--mode M]`:
//! evaluate retrieval quality on HippoCamp annotation JSON against a running daemon.
//! The metrics and the HTTP client are in the `eval` library; this binary only reads,
//! queries and prints.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Parser, ValueEnum};
use dentate_proto::v1::dentate_client::DentateClient;
use dentate_proto::v1::{Fusion, SearchMode, SearchRequest};
use eval::{
    build_report, files_from_grpc, files_from_http_reply, misses_json, misses_table,
    parse_questions, retrieved_from_retrieve_reply, score_question, scores_json, select_part,
    HttpClient, QuestionResult, RetrievedFile,
};
use serde_json::{json, Value};
use tonic::transport::{Channel, Endpoint};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    Hybrid,
    Lexical,
    Dense,
}

impl ModeArg {
    fn name(self) -> &'static str {
        match self {
            ModeArg::Hybrid => "hybrid",
            ModeArg::Lexical => "lexical",
            ModeArg::Dense => "dense",
        }
    }

    fn grpc(self) -> SearchMode {
        match self {
            ModeArg::Hybrid => SearchMode::Hybrid,
            ModeArg::Lexical => SearchMode::Lexical,
            ModeArg::Dense => SearchMode::Dense,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FusionArg {
    Rrf,
    Weighted,
    Dbsf,
}

impl FusionArg {
    fn name(self) -> &'static str {
        match self {
            FusionArg::Rrf => "rrf",
            FusionArg::Weighted => "weighted",
            FusionArg::Dbsf => "dbsf",
        }
    }

    fn grpc(self) -> Fusion {
        match self {
            FusionArg::Rrf => Fusion::Rrf,
            FusionArg::Weighted => Fusion::Weighted,
            FusionArg::Dbsf => Fusion::Dbsf,
        }
    }
}

/// Evaluate retrieval (file P/R/F1, hit@k, MRR, evidence localisation, latency) on
/// HippoCamp annotation JSON against a running dentate-searchd.
#[derive(Debug, Parser)]
#[command(name = "dentate-eval", version)]
struct Cli {
    /// Annotation file: a JSON array of HippoCamp question records.
    #[arg(long)]
    questions: PathBuf,
    /// gRPC address of the daemon (default 127.0.0.1:50051 unless --http is given).
    #[arg(long, conflicts_with = "http")]
    grpc: Option<String>,
    /// HTTP base URL of the daemon, e.g. http://127.0.0.1:8080 (uses POST /api/search).
    #[arg(long)]
    http: Option<String>,
    /// Retrieval mode passed to the daemon (default: the server's default).
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// How hybrid lists are fused (default: the server's default, DBSF).
    #[arg(long, value_enum)]
    fusion: Option<FusionArg>,
    /// Planner priors to switch off for ablation (time, whose, folders, people, weekday_sense, activity, diversify, copies, event_context, record_kinds, all); repeatable.
    #[arg(long = "disable-planner")]
    disable_planner: Vec<String>,
    /// Confident cut-off: drop files after the N-th large score break (0: off).
    #[arg(long, default_value_t = 0)]
    autocut: u32,
    /// Drop files scoring below this.
    #[arg(long)]
    min_score: Option<f32>,
    /// Number of files retrieved per question.
    #[arg(long, default_value_t = 10)]
    k: usize,
    /// Best units returned per file (used for evidence localisation).
    #[arg(long, default_value_t = 5)]
    units_per_file: u32,
    /// Print one machine-readable JSON object on stdout instead of tables.
    #[arg(long)]
    json: bool,
    /// Also list the misses (gold files not retrieved, evidence not localised); with
    /// `--json`, every question's scores too (`per_question`).
    #[arg(long)]
    per_question: bool,
    /// Only evaluate the first N questions.
    #[arg(long)]
    limit: Option<usize>,
    /// Ask the daemon to reorder its best files by their best sentence (`rerank`).
    #[arg(long)]
    rerank: bool,
    /// With --http: query `POST /retrieve` (HippoCamp's flat unit list, `top_k` = --k
    /// units) instead of the grouped `/api/search`; files in first-seen order.
    #[arg(long, requires = "http")]
    retrieve: bool,
    /// A split file (`{"tuning": [ids], "test": [ids]}`, see scripts/split-questions);
    /// with --part, only that part's questions are evaluated.
    #[arg(long, requires = "part")]
    split: Option<PathBuf>,
    /// The part of --split to evaluate: tuning or test.
    #[arg(long, requires = "split")]
    part: Option<String>,
}

/// `POST {base}/api/search` over the shared HTTP client.
struct HttpTarget {
    client: HttpClient,
    /// `http://host:port` followed by the base path.
    base_url: String,
    base_path: String,
}

impl HttpTarget {
    fn parse(url: &str) -> anyhow::Result<HttpTarget> {
        let rest = if let Some(rest) = url.strip_prefix("http://") {
            rest
        } else if url.starts_with("https://") {
            bail!("--http {url}: https is not supported; use the daemon's plain http address");
        } else {
            url
        };
        let (host_port, path) = match rest.split_once('/') {
            Some((h, p)) => (h, format!("/{}", p.trim_end_matches('/'))),
            None => (rest, String::new()),
        };
        if host_port.is_empty() {
            bail!("--http {url}: missing host:port");
        }
        let host_port = if host_port.contains(':') {
            host_port.to_string()
        } else {
            format!("{host_port}:80")
        };
        let base_path = if path == "/" { String::new() } else { path };
        Ok(HttpTarget {
            client: HttpClient::new(Some(Duration::from_secs(5)), Some(Duration::from_secs(120)))
                .with_api_key(std::env::var("DENTATE_API_KEY").ok()),
            base_url: format!("http://{host_port}{base_path}"),
            base_path,
        })
    }

    fn post(&self, path: &str, body: &str) -> anyhow::Result<Value> {
        let reply = self
            .client
            .post_json(&format!("{}{path}", self.base_url), body)?;
        if reply.status != 200 {
            bail!(
                "HTTP {} from {}{path}: {}",
                reply.status,
                self.base_path,
                reply.text().trim()
            );
        }
        Ok(reply.json()?)
    }
}

enum Target {
    Grpc(DentateClient<Channel>),
    Http(HttpTarget),
}

impl Target {
    async fn search(
        &mut self,
        query: &str,
        cli: &Cli,
    ) -> anyhow::Result<(Vec<RetrievedFile>, f64)> {
        match self {
            Target::Grpc(client) => {
                let request = SearchRequest {
                    query: query.to_string(),
                    top_k: cli.k as u32,
                    units_per_file: cli.units_per_file,
                    mode: cli.mode.map_or(SearchMode::Unspecified, ModeArg::grpc) as i32,
                    fusion: cli.fusion.map_or(Fusion::Unspecified, FusionArg::grpc) as i32,
                    disable_planner: cli.disable_planner.clone(),
                    autocut: cli.autocut,
                    min_score: cli.min_score,
                    rerank: cli.rerank,
                    ..Default::default()
                };
                let start = Instant::now();
                let response = client
                    .search(request)
                    .await
                    .map_err(|s| anyhow::anyhow!("gRPC Search failed: {}", s.message()))?;
                let took = start.elapsed().as_secs_f64() * 1000.0;
                Ok((files_from_grpc(response.get_ref()), took))
            }
            Target::Http(http) => {
                let mut body = json!({
                    "query": query,
                    "top_k": cli.k,
                    "units_per_file": cli.units_per_file,
                });
                if !cli.disable_planner.is_empty() {
                    body["disable_planner"] = json!(cli.disable_planner);
                }
                if let Some(mode) = cli.mode {
                    body["mode"] = json!(mode.name());
                }
                if let Some(fusion) = cli.fusion {
                    body["fusion"] = json!(fusion.name());
                }
                if cli.autocut > 0 {
                    body["autocut"] = json!(cli.autocut);
                }
                if let Some(min_score) = cli.min_score {
                    body["min_score"] = json!(min_score);
                }
                if cli.rerank {
                    body["rerank"] = json!(true);
                }
                let route = if cli.retrieve {
                    "/retrieve"
                } else {
                    "/api/search"
                };
                let start = Instant::now();
                let reply = http.post(route, &body.to_string())?;
                let took = start.elapsed().as_secs_f64() * 1000.0;
                if cli.retrieve {
                    return Ok((retrieved_from_retrieve_reply(&reply), took));
                }
                Ok((files_from_http_reply(&reply)?, took))
            }
        }
    }
}

async fn connect_grpc(addr: &str) -> anyhow::Result<DentateClient<Channel>> {
    let uri = if addr.contains("://") {
        addr.to_string()
    } else {
        format!("http://{addr}")
    };
    let channel = Endpoint::from_shared(uri.clone())
        .with_context(|| format!("invalid gRPC address {addr}"))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(120))
        .connect()
        .await
        .with_context(|| format!("daemon unreachable at {uri} (gRPC)"))?;
    Ok(DentateClient::new(channel))
}

fn main() {
    if let Err(error) = run(Cli::parse()) {
        eprintln!("dentate-eval: error: {error:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    if cli.k == 0 {
        bail!("--k must be at least 1");
    }
    let text = std::fs::read_to_string(&cli.questions)
        .with_context(|| format!("cannot read {}", cli.questions.display()))?;
    let mut questions = parse_questions(&text)
        .with_context(|| format!("cannot parse {}", cli.questions.display()))?;
    if let (Some(split), Some(part)) = (&cli.split, &cli.part) {
        let split_text = std::fs::read_to_string(split)
            .with_context(|| format!("cannot read {}", split.display()))?;
        questions = select_part(questions, &split_text, part)
            .with_context(|| format!("{} part {part}", split.display()))?;
    }
    if let Some(limit) = cli.limit {
        questions.truncate(limit);
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let results: Vec<QuestionResult> = runtime.block_on(async {
        let mut target = match &cli.http {
            Some(url) => Target::Http(HttpTarget::parse(url)?),
            None => {
                Target::Grpc(connect_grpc(cli.grpc.as_deref().unwrap_or("127.0.0.1:50051")).await?)
            }
        };
        let mut results = Vec::with_capacity(questions.len());
        for q in &questions {
            let (files, took) = target
                .search(&q.question, &cli)
                .await
                .with_context(|| format!("question {}", q.id))?;
            results.push(score_question(q, &files, cli.k, took));
        }
        anyhow::Ok(results)
    })?;

    let mode = cli.mode.map_or("default", ModeArg::name);
    let report = build_report(&results, cli.k, mode);
    let mut out = std::io::stdout().lock();
    if cli.json {
        let mut value = report.to_json();
        if cli.per_question {
            value["misses"] = misses_json(&results);
            value["per_question"] = scores_json(&results);
        }
        writeln!(out, "{value}")?;
    } else {
        writeln!(out, "{}", report.to_table())?;
        if cli.per_question {
            writeln!(out, "misses:\n\n{}", misses_table(&results))?;
        }
    }
    Ok(())
}
