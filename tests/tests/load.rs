//! Load and faults: the mixed load of `benches::load` (lexical, hybrid, file tools) at
//! 32-way concurrency over HTTP and gRPC while the indexer commits changes (reduced to
//! 2,000 requests per transport here; `dentate-load` runs 50,000), a daemon killed in
//! the middle of the load and restarted, and damaged index folders that stop the daemon
//! with the damaged file's name.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use benches::load::{indexed_paths, run_grpc, run_http, LoadSpec};
use serde_json::json;

use crate::harness::{binary, copy_tree, index, index_with, repo_root, result_paths, Daemon};

fn spec(daemon: &Daemon, requests: usize) -> LoadSpec {
    LoadSpec {
        http: daemon.http,
        grpc: daemon.grpc,
        requests,
        concurrency: 32,
        queries: std::fs::read_to_string(repo_root().join("samples/queries.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
        paths: indexed_paths(daemon.http).unwrap(),
        stop_at_first_error: false,
    }
}

#[test]
fn mixed_load_over_http_and_grpc_while_the_indexer_commits_has_no_errors() {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    let flags = ["--no-ocr", "--no-media"];
    index_with(profile.path(), index_dir.path(), &flags);
    let daemon = Daemon::start(index_dir.path());
    let spec = spec(&daemon, 2_000);
    let stop = AtomicBool::new(false);
    let (reports, runs) = std::thread::scope(|scope| {
        let churn = scope.spawn(|| {
            let mut runs = 0;
            while !stop.load(Ordering::Relaxed) {
                runs += 1;
                std::fs::write(
                    profile.path().join(format!("Notes/churn-{}.md", runs % 3)),
                    format!("# Churn {runs}\n\nThe budget review moved to room {runs}.\n"),
                )
                .unwrap();
                index_with(profile.path(), index_dir.path(), &flags);
            }
            runs
        });
        let reports = [run_http(&spec), run_grpc(&spec)];
        stop.store(true, Ordering::Relaxed);
        (reports, churn.join().unwrap())
    });
    for report in &reports {
        eprintln!("{}", report.summary());
        assert_eq!(report.sent, 2_000);
        assert_eq!(report.errors, 0, "{:?}", report.error_samples);
    }
    assert!(runs >= 1);
    // The last run's note is searchable.
    let (status, reply) = daemon.post(
        "/retrieve",
        &json!({"query": format!("budget review room {runs}"), "mode": "lexical"}).to_string(),
    );
    assert_eq!(status, 200);
    assert!(
        result_paths(&reply)
            .iter()
            .any(|p| p.starts_with("Notes/churn-")),
        "{reply}"
    );
}

#[test]
fn a_daemon_killed_mid_load_restarts_and_answers_as_before() {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    index_with(
        profile.path(),
        index_dir.path(),
        &["--no-embed", "--no-ocr", "--no-media"],
    );
    let probe =
        json!({"query": "joinery invoice balance", "mode": "lexical", "top_k": 5}).to_string();
    let mut daemon = Daemon::start(index_dir.path());
    let before = result_paths(&daemon.post("/retrieve", &probe).1);
    assert!(!before.is_empty());
    let load = LoadSpec {
        stop_at_first_error: true,
        ..spec(&daemon, 1_000_000)
    };
    std::thread::scope(|scope| {
        let running = scope.spawn(|| run_http(&load));
        std::thread::sleep(Duration::from_millis(1500));
        daemon.kill();
        let report = running.join().unwrap();
        // The load ends at the refused connections; it does not hang.
        assert!(
            report.errors > 0 && report.sent < 1_000_000,
            "{}",
            report.summary()
        );
        assert!(report.sent - report.errors > 100, "{}", report.summary());
    });
    let daemon = Daemon::start(index_dir.path());
    assert_eq!(result_paths(&daemon.post("/retrieve", &probe).1), before);
    let report = run_http(&spec(&daemon, 500));
    assert_eq!(report.errors, 0, "{:?}", report.error_samples);
}

/// Starts the daemon on a damaged index: it must exit by itself, non-zero, naming
/// `file` on stderr.
pub fn refuses_naming(index_dir: &Path, file: &str) {
    let mut child = std::process::Command::new(binary("dentate-searchd"))
        .arg("--index")
        .arg(index_dir)
        .args(["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("dentate-searchd started on a damaged index ({file})");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains(file), "{file}: {stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("listening"));
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_damaged_index_folder_stops_the_daemon_naming_the_file() {
    let profile = tempfile::tempdir().unwrap();
    std::fs::write(profile.path().join("a.txt"), "hello there\n").unwrap();
    std::fs::write(profile.path().join("b.md"), "# Notes\n\nbudget review\n").unwrap();
    let clean = tempfile::tempdir().unwrap();
    index(profile.path(), clean.path());
    let damaged = || {
        let copy = tempfile::tempdir().unwrap();
        copy_tree(clean.path(), copy.path());
        copy
    };
    // The manifest: random bytes (the truncated case is in `safety`).
    let dir = damaged();
    let mut noise = vec![0u8; 64 * 1024];
    let mut x = 0x9E37_79B9u32;
    for b in &mut noise {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    std::fs::write(dir.path().join("manifest.sqlite"), &noise).unwrap();
    refuses_naming(dir.path(), "manifest.sqlite");
    // A tantivy segment file cut in half.
    let dir = damaged();
    let segment = std::fs::read_dir(dir.path().join("lexical"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "store" || e == "idx"))
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .expect("a segment file");
    let bytes = std::fs::read(&segment).unwrap();
    std::fs::write(&segment, &bytes[..bytes.len() / 2]).unwrap();
    let name = segment.file_name().unwrap().to_string_lossy().to_string();
    let stem = name.split('.').next().unwrap().to_string();
    refuses_naming(dir.path(), &stem);
}
