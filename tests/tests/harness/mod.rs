//! Running the binaries and talking to the daemon.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use dentate_proto::v1::dentate_client::DentateClient;
use eval::HttpClient;
use serde_json::Value;
use tonic::transport::Channel;

/// The folder holding the workspace binaries (next to this test's `deps/`).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let deps = exe.parent().expect("deps dir");
    deps.parent().expect("target profile dir").to_path_buf()
}

pub fn binary(name: &str) -> PathBuf {
    let path = bin_dir().join(name);
    assert!(
        path.exists(),
        "{} is missing: build the binaries first with `cargo build --bins` (scripts/test does)",
        path.display()
    );
    path
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repo root")
        .to_path_buf()
}

/// `../shared/corpus` when present (CI and developer machines), else `None`.
pub fn shared_corpus() -> Option<PathBuf> {
    let path = repo_root().join("../shared/corpus");
    path.is_dir()
        .then(|| path.canonicalize().expect("canonical corpus path"))
}

/// Writes `bytes` to `rel` under `root`, making its folders.
pub fn write(root: &Path, rel: &str, bytes: &(impl AsRef<[u8]> + ?Sized)) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes.as_ref()).unwrap();
}

/// Copies a folder tree, keeping modification times.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create target");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let file_type = entry.file_type().expect("file type");
        if file_type.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if file_type.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy file");
            let mtime = entry.metadata().and_then(|m| m.modified()).expect("mtime");
            let file = std::fs::File::options()
                .write(true)
                .open(&target)
                .expect("open copy");
            file.set_modified(mtime).expect("set mtime");
        }
    }
}

/// Marks indexed files (attachments included) as converted by the version before
/// their converter's: what a release with a newer converter finds, so the next run
/// converts them again although their bytes did not change.
pub fn age_converter(index_dir: &Path, paths: &[&str]) {
    let layout = index::IndexLayout::new(index_dir);
    let mut manifest = index::Manifest::open(&layout.manifest_path()).unwrap();
    let records: Vec<index::FileRecord> = paths
        .iter()
        .map(|path| {
            let mut record = manifest.get(path).unwrap().expect(path);
            record.converter_version -= 1;
            record
        })
        .collect();
    manifest.apply(&records, &[]).unwrap();
}

/// Runs `dentate-index PROFILE --index INDEX --json` and returns the parsed summary.
pub fn index(profile: &Path, index_dir: &Path) -> Value {
    index_with(profile, index_dir, &[])
}

/// The arguments that point `dentate-index` and `dentate-searchd` at a Qdrant
/// collection.
pub fn qdrant_args<'a>(url: &'a str, collection: &'a str) -> [&'a str; 6] {
    [
        "--backend",
        "qdrant",
        "--qdrant-url",
        url,
        "--collection",
        collection,
    ]
}

/// `index` with extra arguments (e.g. `--no-embed`).
pub fn index_with(profile: &Path, index_dir: &Path, extra: &[&str]) -> Value {
    let output = Command::new(binary("dentate-index"))
        .arg(profile)
        .arg("--index")
        .arg(index_dir)
        .arg("--json")
        .args(extra)
        .output()
        .expect("run dentate-index");
    // 0: all indexed or skipped; 2: the run completed with some files failed.
    let code = output.status.code();
    assert!(
        matches!(code, Some(0) | Some(2)),
        "dentate-index failed ({code:?}): {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "summary is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    let failed = summary["files"]["failed"].as_u64().unwrap_or(0);
    assert_eq!(
        code == Some(2),
        failed > 0,
        "exit status {code:?} does not match {failed} failed files"
    );
    summary
}

/// A running daemon; killed on drop.
pub struct Daemon {
    child: Child,
    pub grpc: SocketAddr,
    pub http: SocketAddr,
}

impl Daemon {
    /// Starts `dentate-searchd` on ephemeral loopback ports and waits for its
    /// `listening grpc=… http=…` line.
    pub fn start(index_dir: &Path) -> Daemon {
        Daemon::start_with(index_dir, &[])
    }

    /// `start` with extra arguments (e.g. `--clip DIR`).
    pub fn start_with(index_dir: &Path, extra: &[&str]) -> Daemon {
        let mut args = vec!["--index", index_dir.to_str().expect("UTF-8 index path")];
        args.extend_from_slice(extra);
        Daemon::spawn(&args, &[])
    }

    /// Starts `dentate-searchd ARGS` (on ephemeral loopback ports unless `args` says
    /// otherwise) with extra environment variables.
    pub fn spawn(args: &[&str], envs: &[(&str, &Path)]) -> Daemon {
        let mut command = Command::new(binary("dentate-searchd"));
        for flag in ["--grpc-addr", "--http-addr"] {
            if !args.contains(&flag) {
                command.arg(flag).arg("127.0.0.1:0");
            }
        }
        let mut child = command
            .args(args)
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn dentate-searchd");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read listening line");
        let (grpc, http) = parse_listening(&line)
            .unwrap_or_else(|| panic!("unexpected first line from dentate-searchd: {line:?}"));
        Daemon { child, grpc, http }
    }

    /// The daemon's process id (e.g. to send it SIGHUP).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub async fn client(&self) -> DentateClient<Channel> {
        DentateClient::connect(format!("http://{}", self.grpc))
            .await
            .expect("connect gRPC")
    }

    pub fn post(&self, path: &str, body: &str) -> (u16, Value) {
        http_request(self.http, "POST", path, Some(body))
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        http_request(self.http, "GET", path, None)
    }

    pub fn get_raw(&self, path: &str) -> (u16, Vec<u8>) {
        http_raw(self.http, "GET", path, None)
    }
}

impl Daemon {
    /// SIGKILLs the daemon (no clean shutdown).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_listening(line: &str) -> Option<(SocketAddr, SocketAddr)> {
    let rest = line.trim().strip_prefix("listening ")?;
    let mut grpc = None;
    let mut http = None;
    for part in rest.split_whitespace() {
        if let Some(addr) = part.strip_prefix("grpc=") {
            grpc = addr.parse().ok();
        } else if let Some(addr) = part.strip_prefix("http=") {
            http = addr.parse().ok();
        }
    }
    Some((grpc?, http?))
}

/// An HTTP request to the daemon (the `eval` crate's client); the reply parsed as JSON,
/// or as a JSON string when it is not JSON.
pub fn http_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, Value) {
    let (status, payload) = http_raw(addr, method, path, body);
    let text = String::from_utf8_lossy(&payload);
    let json = serde_json::from_str(&text).unwrap_or(Value::String(text.to_string()));
    (status, json)
}

/// Percent-encodes a relative path for a URL, keeping `/`.
pub fn url_path(path: &str) -> String {
    path.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// Like [`http_request`], returning the raw body bytes.
pub fn http_raw(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Vec<u8>) {
    http_with_headers(addr, method, path, body, &[])
}

/// Like [`http_raw`], with extra request headers (`Authorization`, `Host`, …).
pub fn http_with_headers(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, Vec<u8>) {
    static CLIENT: OnceLock<HttpClient> = OnceLock::new();
    let client = CLIENT.get_or_init(|| HttpClient::new(None, Some(Duration::from_secs(30))));
    let reply = client
        .request_with_headers(
            method,
            &format!("http://{addr}{path}"),
            body.map(str::as_bytes),
            headers,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
    (reply.status, reply.body)
}

/// Polls `check` until it returns true or `timeout` passes.
pub fn eventually(timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    check()
}

/// The result of an HTTP `/retrieve` reply whose file path is `path`, if any.
pub fn result_for<'a>(reply: &'a Value, path: &str) -> Option<&'a Value> {
    reply["results"]
        .as_array()?
        .iter()
        .find(|r| r["metadata"]["file_path"] == path)
}

/// File paths of an HTTP `/retrieve` reply, in rank order.
pub fn result_paths(reply: &Value) -> Vec<String> {
    reply["results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .map(|r| {
                    r["metadata"]["file_path"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}
