//! Watch mode end to end: `dentate-index --watch` follows a profile while a daemon serves
//! it; every change is searchable (or gone) within a bounded time, the activity log
//! records exactly what happened, and a SIGKILL in the middle of a burst ends in a
//! consistent index after a restart.
//!
//! `DENTATE_WATCH_SAVES=N` sets the number of timed saves (default 10; the closing note
//! of the watch-mode issue used 100) and prints their latency percentiles.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use index::{ActivityQuery, IndexHandle, IndexLayout, Manifest};
use serde_json::Value;

use crate::harness::{binary, result_paths, Daemon};

/// A change must be searchable within this long.
const BOUND: Duration = Duration::from_secs(15);

/// A running `dentate-index --watch`; its stdout lines (one JSON summary per pass) on a
/// channel. Killed on drop.
struct Watcher {
    child: Child,
    passes: Receiver<Value>,
}

impl Watcher {
    fn start(profile: &Path, index_dir: &Path) -> Watcher {
        let mut child = Command::new(binary("dentate-index"))
            .arg(profile)
            .arg("--index")
            .arg(index_dir)
            .args([
                "--watch",
                "--json",
                "--no-embed",
                "--no-ocr",
                "--no-media",
                "--debounce-ms",
                "100",
                "--commit-interval",
                "0",
                "--threads",
                "1",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn dentate-index --watch");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, passes) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value: Value = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if sender.send(value).is_err() {
                    break;
                }
            }
        });
        Watcher { child, passes }
    }

    /// The summary of the next pass.
    fn next_pass(&self) -> Value {
        self.passes
            .recv_timeout(Duration::from_secs(120))
            .expect("a pass within two minutes")
    }

    /// SIGTERM, then the exit status must be success.
    fn stop(mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "watch mode exited with {status:?}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "watch mode did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Writes like an editor: a hidden temporary file renamed over the target, so no pass
/// ever sees a half-written file.
fn save(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let temporary = path.with_file_name(format!(
        ".{}.swp",
        path.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, &path).unwrap();
}

fn lexical(daemon: &Daemon, query: &str) -> Vec<String> {
    let body = serde_json::json!({ "query": query, "top_k": 10, "mode": "lexical" }).to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    result_paths(&reply)
}

/// How long until `query` finds exactly `expected` (polled every 10 ms).
fn until_found(daemon: &Daemon, query: &str, expected: &[&str], started: Instant) -> Duration {
    loop {
        if lexical(daemon, query) == expected {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < BOUND,
            "{query:?} still finds {:?}, not {expected:?}, after {BOUND:?}",
            lexical(daemon, query)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `(kind, path, old path)` of the log, oldest first.
fn activity(index_dir: &Path) -> Vec<(String, String, String)> {
    let manifest = Manifest::open_existing(&IndexLayout::new(index_dir).manifest_path()).unwrap();
    manifest
        .activity(&ActivityQuery::default())
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.kind.as_str().to_string(),
                e.path.unwrap_or_default(),
                e.old_path.unwrap_or_default(),
            )
        })
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn watch_mode_makes_each_change_searchable_and_records_it_exactly() {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    save(
        root,
        "Notes/garden.md",
        "Plant the tomatoes after the last frost.\n",
    );
    let watcher = Watcher::start(root, index_dir.path());
    let first = watcher.next_pass();
    assert_eq!(first["trigger"], "Start", "{first}");
    let daemon = Daemon::start(index_dir.path());
    let before = activity(index_dir.path()).len();

    // Create, edit, rename in place, move to a new folder, delete.
    let started = Instant::now();
    save(root, "Notes/new.txt", "The zebracorn ledger lives here.\n");
    until_found(&daemon, "zebracorn", &["Notes/new.txt"], started);
    let started = Instant::now();
    save(
        root,
        "Notes/new.txt",
        "The quokkaberry ledger, revised twice.\n",
    );
    until_found(&daemon, "quokkaberry", &["Notes/new.txt"], started);
    until_found(&daemon, "zebracorn", &[], started);
    let started = Instant::now();
    std::fs::rename(root.join("Notes/new.txt"), root.join("Notes/ledger.txt")).unwrap();
    until_found(&daemon, "quokkaberry", &["Notes/ledger.txt"], started);
    let started = Instant::now();
    std::fs::create_dir_all(root.join("Archive/2025")).unwrap();
    std::fs::rename(
        root.join("Notes/ledger.txt"),
        root.join("Archive/2025/ledger.txt"),
    )
    .unwrap();
    until_found(
        &daemon,
        "quokkaberry",
        &["Archive/2025/ledger.txt"],
        started,
    );
    let started = Instant::now();
    std::fs::remove_dir_all(root.join("Archive")).unwrap();
    until_found(&daemon, "quokkaberry", &[], started);

    // Timed saves of one file, each with a word of its own.
    let saves: usize = std::env::var("DENTATE_WATCH_SAVES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10)
        .max(1);
    let mut latencies = Vec::with_capacity(saves);
    for i in 0..saves {
        let word = format!("tok{i}xq");
        let started = Instant::now();
        save(root, "Notes/draft.md", &format!("Draft number {word}.\n"));
        latencies.push(until_found(&daemon, &word, &["Notes/draft.md"], started));
    }
    latencies.sort();
    eprintln!(
        "save → searchable over {saves} saves: p50 {:?}, p99 {:?}, max {:?}",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies[saves - 1]
    );
    watcher.stop();

    let mut expected: Vec<(String, String, String)> = [
        ("created", "Notes/new.txt", ""),
        ("modified", "Notes/new.txt", ""),
        ("renamed", "Notes/ledger.txt", "Notes/new.txt"),
        ("moved", "Archive/2025/ledger.txt", "Notes/ledger.txt"),
        ("deleted", "Archive/2025/ledger.txt", ""),
        ("created", "Notes/draft.md", ""),
    ]
    .iter()
    .map(|(k, p, o)| (k.to_string(), p.to_string(), o.to_string()))
    .collect();
    expected
        .extend((1..saves).map(|_| ("modified".into(), "Notes/draft.md".into(), String::new())));
    // In the order they happened (the log is ordered by event time; a deletion is timed
    // when seen, a creation by the file's own times).
    let mut recorded = activity(index_dir.path()).split_off(before);
    let order = |e: &(String, String, String)| expected.iter().position(|x| x == e);
    recorded.sort_by_key(order);
    assert_eq!(recorded, expected);
}

#[test]
fn a_sigkill_in_the_middle_of_a_burst_ends_consistent_after_a_restart() {
    const FILES: usize = 400;
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    save(root, "seed.txt", "The first file.\n");
    let mut watcher = Watcher::start(root, index_dir.path());
    watcher.next_pass();
    for i in 0..FILES {
        save(
            root,
            &format!("Burst/{:02}/note-{i}.txt", i % 20),
            &format!("Burst note {i} mentions wombat{i}.\n"),
        );
    }
    // Killed once the burst's pass has committed part of it (or after 10 s at the
    // latest): whatever it committed is complete, the rest is redone.
    let manifest_path = IndexLayout::new(index_dir.path()).manifest_path();
    let committed = || {
        Manifest::open_existing(&manifest_path)
            .and_then(|m| m.all())
            .map(|r| r.len())
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while committed() <= 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    watcher.kill();
    let at_kill = committed();
    eprintln!("killed with {at_kill} of {} files committed", FILES + 1);

    let watcher = Watcher::start(root, index_dir.path());
    let restart = watcher.next_pass();
    watcher.stop();
    assert_eq!(restart["files"]["failed"], 0, "{restart}");
    assert_eq!(
        restart["converted"].as_u64().unwrap() as usize,
        FILES + 1 - at_kill,
        "{restart}"
    );

    let handle = IndexHandle::open(index_dir.path()).unwrap();
    let manifest = handle.manifest().unwrap();
    let records = manifest.all().unwrap();
    assert_eq!(records.len(), FILES + 1);
    for record in &records {
        let units = handle.units_of_file(&record.file_id).unwrap();
        assert_eq!(units.len(), 1, "{} has {} units", record.path, units.len());
        assert_eq!(record.unit_count, 1);
    }
    let searcher = handle.reader.searcher();
    assert_eq!(searcher.num_docs() as usize, FILES + 1);
    // Each file was created exactly once in the log: events commit with their files.
    let created = manifest
        .activity(&ActivityQuery {
            kinds: vec![index::ActivityKind::Created],
            path_prefix: Some("Burst".into()),
            ..ActivityQuery::default()
        })
        .unwrap();
    let mut paths: Vec<String> = created.into_iter().filter_map(|e| e.path).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), FILES);
    assert_eq!(
        manifest
            .activity_counts(&ActivityQuery::default())
            .unwrap()
            .get("created"),
        Some(&(FILES as u64 + 1))
    );
}
