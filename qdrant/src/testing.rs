//! A local Qdrant for tests and benchmarks: `../shared/bin/qdrant` beside the repository
//! (Qdrant built from a public tag; never part of this repository) started on free
//! loopback ports in a temporary folder, or the server at `DENTATE_QDRANT_URL`. Nodes are
//! SIGKILLed on drop.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A client of the server at `url` (gRPC) with a small runtime of its own to block on.
pub fn client(url: &str) -> (tokio::runtime::Runtime, qdrant_client::Qdrant) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let client = {
        let _guard = runtime.enter();
        qdrant_client::Qdrant::from_url(url)
            .skip_compatibility_check()
            .build()
            .expect("a Qdrant client")
    };
    (runtime, client)
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn qdrant_binary() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bin/qdrant");
    path.is_file().then_some(path)
}

/// `GET path` on a loopback HTTP port: the status code.
pub fn http_status(port: u16, path: &str) -> Option<u16> {
    let mut stream =
        TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(300))
            .ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response.split_whitespace().nth(1)?.parse().ok()
}

/// One Qdrant node started by a test; killed (and its folder removed) on drop.
pub struct Node {
    child: Option<Child>,
    pub http: u16,
    pub grpc: u16,
    pub p2p: u16,
    pub dir: PathBuf,
    pub bootstrap: Option<u16>,
}

impl Node {
    pub fn start(dir: PathBuf, cluster: bool, bootstrap: Option<u16>) -> Node {
        let mut node = Node {
            child: None,
            http: free_port(),
            grpc: free_port(),
            p2p: free_port(),
            dir,
            bootstrap,
        };
        node.spawn(cluster);
        node
    }

    pub fn spawn(&mut self, cluster: bool) {
        std::fs::create_dir_all(&self.dir).unwrap();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("qdrant.log"))
            .unwrap();
        let mut command = Command::new(qdrant_binary().unwrap());
        command
            .current_dir(&self.dir)
            .env("QDRANT__SERVICE__HOST", "127.0.0.1")
            .env("QDRANT__SERVICE__HTTP_PORT", self.http.to_string())
            .env("QDRANT__SERVICE__GRPC_PORT", self.grpc.to_string())
            .env("QDRANT__STORAGE__STORAGE_PATH", self.dir.join("storage"))
            .env(
                "QDRANT__STORAGE__SNAPSHOTS_PATH",
                self.dir.join("snapshots"),
            )
            .env("QDRANT__TELEMETRY_DISABLED", "true")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        if cluster {
            command
                .env("QDRANT__CLUSTER__ENABLED", "true")
                .env("QDRANT__CLUSTER__P2P__PORT", self.p2p.to_string())
                .arg("--uri")
                .arg(format!("http://127.0.0.1:{}", self.p2p));
            if let Some(boot) = self.bootstrap {
                command
                    .arg("--bootstrap")
                    .arg(format!("http://127.0.0.1:{boot}"));
            }
        }
        self.child = Some(command.spawn().expect("start qdrant"));
        let started = Instant::now();
        while http_status(self.http, "/readyz") != Some(200) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "qdrant did not become ready; log: {}",
                std::fs::read_to_string(self.dir.join("qdrant.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.grpc)
    }

    /// The server's process id while it runs (for its memory in `/proc/PID/status`).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// SIGKILL.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Where the tests find Qdrant: a node they started (kept alive by the guard) or an
/// external URL.
pub struct Server {
    pub url: String,
    _node: Option<Node>,
    _dir: Option<tempfile::TempDir>,
}

impl Server {
    /// The process id of the node this guard started (`None` for `DENTATE_QDRANT_URL`).
    pub fn pid(&self) -> Option<u32> {
        self._node.as_ref().and_then(Node::pid)
    }
}

/// [`server`] for a test that needs one: a missing server is a failure, with what to
/// do. Such tests carry `#[cfg_attr(not(dentate_qdrant), ignore = …)]` (see
/// `scripts/build/needs.rs`), so they run only where a server is at hand or required.
pub fn require_server() -> Server {
    server().expect(
        "a Qdrant server is required (../shared/bin/qdrant beside the repository, or DENTATE_QDRANT_URL)",
    )
}

pub fn server() -> Option<Server> {
    if let Ok(url) = std::env::var("DENTATE_QDRANT_URL") {
        return Some(Server {
            url,
            _node: None,
            _dir: None,
        });
    }
    let Some(_) = qdrant_binary() else {
        println!(
            "skipped: no Qdrant server (no ../shared/bin/qdrant beside the repository, DENTATE_QDRANT_URL unset)"
        );
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let node = Node::start(dir.path().join("node"), false, None);
    Some(Server {
        url: node.url(),
        _node: Some(node),
        _dir: Some(dir),
    })
}
