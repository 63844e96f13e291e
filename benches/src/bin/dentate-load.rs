//! Load against a real daemon while the indexer commits changes: indexes a copy of a
//! profile, starts `dentate-searchd` on it, then sends the mixed load of
//! `benches::load` (lexical, hybrid, file tools) over HTTP and then over gRPC, while a
//! churn loop edits, adds and removes notes in the profile and re-runs `dentate-index`
//! (each run commits). Prints one summary per transport, the daemon's RSS before and
//! after, the indexer runs, and a JSON line with all of it.
//!
//! Usage: `dentate-load [--profile DIR] [--requests N] [--concurrency C]
//! [--transport http|grpc|both] [--no-churn] [-- DENTATE-INDEX-FLAGS…]`
//! (defaults: `../shared/corpus/persona/home`, else `samples/profile`; 50,000 requests
//! per transport; 32; both). The binaries are taken from this executable's folder
//! (build them with `cargo build --release --bins -p searchd -p indexer -p benches`).
//! Exit status 1 when any request failed.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use benches::load::{indexed_paths, run_grpc, run_http, LoadReport, LoadSpec};
use benches::proc_status_kib;
use serde_json::json;

struct Options {
    profile: PathBuf,
    requests: usize,
    concurrency: usize,
    transports: Vec<&'static str>,
    churn: bool,
    index_flags: Vec<String>,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn options() -> anyhow::Result<Options> {
    let persona = repo().join("../shared/corpus/persona/home");
    let mut options = Options {
        profile: if persona.is_dir() {
            persona
        } else {
            repo().join("samples/profile")
        },
        requests: 50_000,
        concurrency: 32,
        transports: vec!["http", "grpc"],
        churn: true,
        index_flags: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--profile" => options.profile = PathBuf::from(value("--profile")?),
            "--requests" => options.requests = value("--requests")?.parse()?,
            "--concurrency" => options.concurrency = value("--concurrency")?.parse()?,
            "--transport" => {
                options.transports = match value("--transport")?.as_str() {
                    "http" => vec!["http"],
                    "grpc" => vec!["grpc"],
                    "both" => vec!["http", "grpc"],
                    other => bail!("unknown transport {other:?}"),
                }
            }
            "--no-churn" => options.churn = false,
            "--" => options.index_flags.extend(args.by_ref()),
            other => bail!("unknown option {other}"),
        }
    }
    Ok(options)
}

fn binary(name: &str) -> anyhow::Result<PathBuf> {
    let path = std::env::current_exe()?
        .parent()
        .context("executable folder")?
        .join(name);
    anyhow::ensure!(
        path.exists(),
        "{} is missing: build the binaries first",
        path.display()
    );
    Ok(path)
}

fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

fn index(profile: &Path, index: &Path, flags: &[String]) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let status = Command::new(binary("dentate-index")?)
        .arg(profile)
        .arg("--index")
        .arg(index)
        .args(flags)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    // 2: the run completed with some files failed (the corpus has broken files).
    anyhow::ensure!(
        matches!(status.code(), Some(0 | 2)),
        "dentate-index failed: {status}"
    );
    Ok(started.elapsed())
}

struct Daemon {
    child: Child,
    http: SocketAddr,
    grpc: SocketAddr,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_daemon(index: &Path) -> anyhow::Result<Daemon> {
    let mut child = Command::new(binary("dentate-searchd")?)
        .arg("--index")
        .arg(index)
        .args(["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().context("stdout")?).read_line(&mut line)?;
    let address = |key: &str| -> anyhow::Result<SocketAddr> {
        line.split_whitespace()
            .find_map(|part| part.strip_prefix(key))
            .with_context(|| format!("no {key} in {line:?}"))?
            .parse()
            .context("address")
    };
    Ok(Daemon {
        http: address("http=")?,
        grpc: address("grpc=")?,
        child,
    })
}

/// Edits, adds and removes notes and re-indexes until `stop`; returns the runs made.
fn churn(profile: &Path, index_dir: &Path, flags: &[String], stop: &AtomicBool) -> usize {
    let runs = AtomicUsize::new(0);
    let folder = profile.join("LoadChurn");
    let mut round = 0usize;
    while !stop.load(Ordering::Relaxed) {
        round += 1;
        let _ = std::fs::create_dir_all(&folder);
        let _ = std::fs::write(
            folder.join(format!("note-{}.md", round % 5)),
            format!("# Churn note {round}\n\nThe quarterly budget review moved to room {round}.\n"),
        );
        if round > 2 {
            let _ = std::fs::remove_file(folder.join(format!("note-{}.md", (round + 2) % 5)));
        }
        if index(profile, index_dir, flags).is_ok() {
            runs.fetch_add(1, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    runs.into_inner()
}

fn queries() -> Vec<String> {
    let mut queries: Vec<String> = std::fs::read_to_string(repo().join("samples/queries.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    queries.extend(
        [
            "invoice from the joinery",
            "photos of the garden last summer",
            "choir rehearsal schedule",
            "bank statement March",
            "meeting notes budget",
            "recipe with lentils",
            "train tickets to Cork",
            "what did the doctor say about my knee",
        ]
        .map(String::from),
    );
    queries
}

fn main() -> anyhow::Result<()> {
    let options = options()?;
    let work = tempfile::tempdir()?;
    let profile = work.path().join("profile");
    let index_dir = work.path().join("index");
    copy_tree(&options.profile, &profile)?;
    let took = index(&profile, &index_dir, &options.index_flags)?;
    eprintln!(
        "indexed {} in {:.1} s",
        options.profile.display(),
        took.as_secs_f64()
    );
    let daemon = start_daemon(&index_dir)?;
    let pid = daemon.child.id();
    let paths = indexed_paths(daemon.http)?;
    let spec = LoadSpec {
        http: daemon.http,
        grpc: daemon.grpc,
        requests: options.requests,
        concurrency: options.concurrency,
        queries: queries(),
        paths,
        stop_at_first_error: false,
    };
    // Warm-up: models loaded, caches filled, before the first RSS reading.
    run_http(&LoadSpec {
        requests: 200,
        ..spec.clone()
    });
    let rss_start = proc_status_kib(Some(pid), "VmRSS").unwrap_or(0);
    let stop = AtomicBool::new(false);
    let mut reports: Vec<(LoadReport, u64)> = Vec::new();
    let runs = std::thread::scope(|scope| {
        let churner = options
            .churn
            .then(|| scope.spawn(|| churn(&profile, &index_dir, &options.index_flags, &stop)));
        for transport in &options.transports {
            let report = match *transport {
                "http" => run_http(&spec),
                _ => run_grpc(&spec),
            };
            let rss = proc_status_kib(Some(pid), "VmRSS").unwrap_or(0);
            eprintln!("{} | daemon RSS {} MiB", report.summary(), rss / 1024);
            for sample in &report.error_samples {
                eprintln!("  error: {sample}");
            }
            reports.push((report, rss));
        }
        stop.store(true, Ordering::Relaxed);
        churner.map_or(0, |c| c.join().unwrap_or(0))
    });
    let errors: usize = reports.iter().map(|(r, _)| r.errors).sum();
    println!(
        "{}",
        json!({
            "profile": options.profile.display().to_string(),
            "concurrency": options.concurrency,
            "rss_before_kib": rss_start,
            "indexer_runs_during_load": runs,
            "reports": reports.iter().map(|(r, rss)| {
                let mut value = r.to_json();
                value["rss_after_kib"] = json!(rss);
                value
            }).collect::<Vec<_>>(),
        })
    );
    eprintln!(
        "daemon RSS before {} MiB; indexer runs during the load: {runs}",
        rss_start / 1024
    );
    drop(daemon);
    if errors > 0 {
        std::process::exit(1);
    }
    Ok(())
}
