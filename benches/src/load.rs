//! A load driver for a running daemon: mixed queries (lexical and hybrid retrieval,
//! file tools) at a fixed concurrency over HTTP (keep-alive connections, one per
//! worker) or gRPC (one HTTP/2 channel per worker), with latency percentiles per kind
//! and every error counted (a non-200 status, a refused call, a reply of the wrong
//! shape). Used by `dentate-load` and by the end-to-end load test.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dentate_proto::v1 as pb;
use serde_json::{json, Value};

use crate::percentile_ms;

/// What to send and where.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    pub http: SocketAddr,
    pub grpc: SocketAddr,
    /// Requests in all.
    pub requests: usize,
    pub concurrency: usize,
    /// Questions to ask (cycled).
    pub queries: Vec<String>,
    /// Indexed files the file tools read (cycled).
    pub paths: Vec<String>,
    /// End the run at the first error (a daemon killed on purpose).
    pub stop_at_first_error: bool,
}

/// The kinds of request in the mix: half lexical, three tenths hybrid, one fifth file
/// tools (text, metadata, listing in turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Lexical,
    Hybrid,
    Files,
}

impl Kind {
    pub fn of(index: usize) -> Kind {
        match index % 10 {
            0..=4 => Kind::Lexical,
            5..=7 => Kind::Hybrid,
            _ => Kind::Files,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Lexical => "lexical",
            Kind::Hybrid => "hybrid",
            Kind::Files => "files",
        }
    }
}

/// Latencies of one kind.
#[derive(Debug, Clone, Default)]
pub struct Latencies {
    pub count: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct LoadReport {
    pub transport: &'static str,
    pub sent: usize,
    pub errors: usize,
    /// The first few error messages.
    pub error_samples: Vec<String>,
    pub seconds: f64,
    pub all: Latencies,
    pub by_kind: BTreeMap<&'static str, Latencies>,
}

impl LoadReport {
    pub fn throughput(&self) -> f64 {
        self.sent as f64 / self.seconds.max(1e-9)
    }

    pub fn summary(&self) -> String {
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(kind, l)| {
                format!(
                    "{kind} {} p50 {:.1} ms p99 {:.1} ms",
                    l.count, l.p50_ms, l.p99_ms
                )
            })
            .collect();
        format!(
            "{}: {} requests, {} errors, {:.1} s, {:.0} req/s, p50 {:.1} ms, p99 {:.1} ms ({})",
            self.transport,
            self.sent,
            self.errors,
            self.seconds,
            self.throughput(),
            self.all.p50_ms,
            self.all.p99_ms,
            kinds.join("; ")
        )
    }

    pub fn to_json(&self) -> Value {
        let latency =
            |l: &Latencies| json!({"count": l.count, "p50_ms": l.p50_ms, "p99_ms": l.p99_ms});
        json!({
            "transport": self.transport,
            "sent": self.sent,
            "errors": self.errors,
            "error_samples": self.error_samples,
            "seconds": self.seconds,
            "throughput": self.throughput(),
            "all": latency(&self.all),
            "by_kind": self.by_kind.iter().map(|(k, l)| (k.to_string(), latency(l))).collect::<serde_json::Map<_, _>>(),
        })
    }
}

/// Collects latencies and errors from the workers.
#[derive(Default)]
struct Tally {
    latencies: Vec<(Kind, Duration)>,
    errors: usize,
    samples: Vec<String>,
}

impl Tally {
    fn record(&mut self, kind: Kind, took: Duration, outcome: Result<(), String>) {
        self.latencies.push((kind, took));
        if let Err(message) = outcome {
            self.errors += 1;
            if self.samples.len() < 10 {
                self.samples.push(format!("{}: {message}", kind.as_str()));
            }
        }
    }

    fn report(self, transport: &'static str, seconds: f64) -> LoadReport {
        let summarise = |mut all: Vec<Duration>| {
            all.sort();
            Latencies {
                count: all.len(),
                p50_ms: percentile_ms(&all, 0.5),
                p99_ms: percentile_ms(&all, 0.99),
            }
        };
        let mut by_kind = BTreeMap::new();
        for kind in [Kind::Lexical, Kind::Hybrid, Kind::Files] {
            let of_kind: Vec<Duration> = self
                .latencies
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, d)| *d)
                .collect();
            by_kind.insert(kind.as_str(), summarise(of_kind));
        }
        LoadReport {
            transport,
            sent: self.latencies.len(),
            errors: self.errors,
            error_samples: self.samples,
            seconds,
            all: summarise(self.latencies.iter().map(|(_, d)| *d).collect()),
            by_kind,
        }
    }
}

/// One HTTP request of the mix: its kind, target and (for POST) body.
fn http_request(spec: &LoadSpec, index: usize) -> (Kind, String, Option<String>) {
    let kind = Kind::of(index);
    let query = &spec.queries[index % spec.queries.len()];
    match kind {
        Kind::Lexical | Kind::Hybrid => {
            let mode = if kind == Kind::Lexical {
                "lexical"
            } else {
                "hybrid"
            };
            let body = json!({"query": query, "top_k": 10, "mode": mode});
            (kind, "/retrieve".to_string(), Some(body.to_string()))
        }
        Kind::Files => {
            let path = searchd::fuzz::url_encode_path(&spec.paths[(index / 10) % spec.paths.len()]);
            let target = match (index / 10) % 3 {
                0 => format!("/api/return_txt/{path}"),
                1 => format!("/api/return_metadata/{path}"),
                _ => "/api/list_files?pattern=**/*.pdf&limit=50".to_string(),
            };
            (kind, target, None)
        }
    }
}

fn check_http(kind: Kind, status: u16, body: &[u8]) -> Result<(), String> {
    if status != 200 {
        return Err(format!(
            "HTTP {status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        ));
    }
    let reply: Value =
        serde_json::from_slice(body).map_err(|e| format!("reply is not JSON: {e}"))?;
    let ok = match kind {
        Kind::Lexical | Kind::Hybrid => reply["results"].is_array(),
        Kind::Files => reply["success"] == Value::Bool(true),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "unexpected reply: {}",
            &reply.to_string()[..reply.to_string().len().min(300)]
        ))
    }
}

/// Runs the mix over HTTP, `concurrency` workers with a keep-alive connection each.
pub fn run_http(spec: &LoadSpec) -> LoadReport {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let tally = Mutex::new(Tally::default());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..spec.concurrency {
            scope.spawn(|| {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(120)))
                    .build()
                    .into();
                let mut mine = Tally::default();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= spec.requests || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let (kind, target, body) = http_request(spec, index);
                    let url = format!("http://{}{target}", spec.http);
                    let t = Instant::now();
                    let reply = match body {
                        Some(body) => agent
                            .post(&url)
                            .header("content-type", "application/json")
                            .send(body.as_bytes()),
                        None => agent.get(&url).call(),
                    };
                    let outcome = reply.map_err(|e| e.to_string()).and_then(|mut r| {
                        let status = r.status().as_u16();
                        let bytes = r
                            .body_mut()
                            .with_config()
                            .limit(u64::MAX)
                            .read_to_vec()
                            .map_err(|e| e.to_string())?;
                        check_http(kind, status, &bytes)
                    });
                    if outcome.is_err() && spec.stop_at_first_error {
                        failed.store(true, Ordering::Relaxed);
                    }
                    mine.record(kind, t.elapsed(), outcome);
                }
                let mut all = tally.lock().expect("tally");
                all.latencies.extend(mine.latencies);
                all.errors += mine.errors;
                let room = 10usize.saturating_sub(all.samples.len());
                all.samples.extend(mine.samples.into_iter().take(room));
            });
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    tally.into_inner().expect("tally").report("http", seconds)
}

/// Runs the mix over gRPC, `concurrency` tasks with a channel each.
pub fn run_grpc(spec: &LoadSpec) -> LoadReport {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let spec = Arc::new(spec.clone());
    let next = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let tallies = runtime.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..spec.concurrency {
            let (spec, next, failed) = (spec.clone(), next.clone(), failed.clone());
            tasks.push(tokio::spawn(async move {
                let mut mine = Tally::default();
                let mut client = match pb::dentate_client::DentateClient::connect(format!(
                    "http://{}",
                    spec.grpc
                ))
                .await
                {
                    Ok(client) => client.max_decoding_message_size(64 << 20),
                    Err(error) => {
                        mine.record(
                            Kind::Files,
                            Duration::ZERO,
                            Err(format!("connect: {error}")),
                        );
                        return mine;
                    }
                };
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= spec.requests || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let kind = Kind::of(index);
                    let query = spec.queries[index % spec.queries.len()].clone();
                    let path = spec.paths[(index / 10) % spec.paths.len()].clone();
                    let t = Instant::now();
                    let outcome = match kind {
                        Kind::Lexical | Kind::Hybrid => {
                            let mode = if kind == Kind::Lexical {
                                pb::SearchMode::Lexical
                            } else {
                                pb::SearchMode::Hybrid
                            };
                            client
                                .retrieve(pb::SearchRequest {
                                    query,
                                    top_k: 10,
                                    mode: mode as i32,
                                    ..Default::default()
                                })
                                .await
                                .map(|_| ())
                        }
                        Kind::Files => match (index / 10) % 3 {
                            0 => client.get_text(pb::FileRequest { path }).await.map(|_| ()),
                            1 => client
                                .get_metadata(pb::FileRequest { path })
                                .await
                                .map(|_| ()),
                            _ => client
                                .list_files(pb::ListFilesRequest {
                                    pattern: "**/*.pdf".into(),
                                    limit: 50,
                                    include_failed: false,
                                })
                                .await
                                .map(|_| ()),
                        },
                    };
                    if outcome.is_err() && spec.stop_at_first_error {
                        failed.store(true, Ordering::Relaxed);
                    }
                    mine.record(
                        kind,
                        t.elapsed(),
                        outcome.map_err(|s| format!("{:?}: {}", s.code(), s.message())),
                    );
                }
                mine
            }));
        }
        let mut tallies = Vec::new();
        for task in tasks {
            tallies.push(task.await.unwrap_or_default());
        }
        tallies
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut all = Tally::default();
    for tally in tallies {
        all.latencies.extend(tally.latencies);
        all.errors += tally.errors;
        let room = 10usize.saturating_sub(all.samples.len());
        all.samples.extend(tally.samples.into_iter().take(room));
    }
    all.report("grpc", seconds)
}

/// The indexed files a daemon lists (for the file tools of the mix).
pub fn indexed_paths(http: SocketAddr) -> anyhow::Result<Vec<String>> {
    let mut response = ureq::get(&format!("http://{http}/api/list_files?limit=5000")).call()?;
    let reply: Value = serde_json::from_str(&response.body_mut().read_to_string()?)?;
    let paths: Vec<String> = reply["data"]["files"]
        .as_array()
        .map(|files| {
            files
                .iter()
                .filter_map(|f| f["file_path"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    anyhow::ensure!(!paths.is_empty(), "the daemon lists no files: {reply}");
    Ok(paths)
}
