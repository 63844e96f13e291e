//! The daemon's limits over HTTP and gRPC (`searchd::limits`): clear refusals of
//! oversized and malformed requests, fairness between request classes under a flood,
//! slow clients cut off, and the per-request deadline.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use dentate_proto::v1 as pb;
use serde_json::{json, Value};
use tonic::Code;

use crate::harness::{copy_tree, index_with, repo_root, url_path, Daemon};

/// A raw HTTP/1.1 exchange on a new connection: status, headers (lowercased names) and
/// body.
pub fn raw_http(addr: SocketAddr, method: &str, target: &str, body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).to_string();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

fn sample_index(extra: &[&str]) -> (tempfile::TempDir, tempfile::TempDir) {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    index_with(profile.path(), index_dir.path(), extra);
    (profile, index_dir)
}

fn error_of(reply: &Value) -> String {
    reply["error"].as_str().unwrap_or_default().to_string()
}

#[test]
fn oversized_and_malformed_requests_are_refused_clearly_over_http_and_grpc() {
    let (_profile, index_dir) = sample_index(&["--no-embed", "--no-ocr", "--no-media"]);
    let daemon = Daemon::start_with(index_dir.path(), &["--max-body-bytes", "100000"]);
    let cases: Vec<(String, u16, &str)> = vec![
        (
            json!({"query": "x", "top_k": 0}).to_string(),
            400,
            "top_k must be at least 1",
        ),
        (
            json!({"queries": ["x"], "topk": 0}).to_string(),
            400,
            "top_k must be at least 1",
        ),
        (
            json!({"query": "x", "top_k": 1001}).to_string(),
            400,
            "top_k",
        ),
        (json!({"query": "x", "topK": 5}).to_string(), 400, "topK"),
        (
            json!({"query": "x", "path_prefixes": ["a".repeat(5000)]}).to_string(),
            400,
            "path_prefixes\"[0]",
        ),
        (
            json!({"query": "x", "mode": "m".repeat(5000)}).to_string(),
            400,
            "\"mode\"",
        ),
        (
            json!({"query": "x", "extensions": vec!["pdf"; 300]}).to_string(),
            400,
            "300 items",
        ),
        (
            json!({"query": "x".repeat(200_000)}).to_string(),
            413,
            "larger than 100000 bytes",
        ),
    ];
    for (body, status, expected) in cases {
        let (got, reply) = daemon.post("/retrieve", &body);
        assert_eq!(got, status, "{}: {reply}", &body[..body.len().min(80)]);
        assert!(error_of(&reply).contains(expected), "{expected}: {reply}");
        assert!(reply.to_string().len() < 1000, "the reply echoes the input");
    }
    // Timeline: unknown fields and long values.
    let (status, reply) = daemon.post("/api/timeline", &json!({"whn": "last week"}).to_string());
    assert_eq!(status, 400);
    assert!(error_of(&reply).contains("whn"), "{reply}");
    let (status, reply) = daemon.post(
        "/api/timeline",
        &json!({"when": "x".repeat(5000)}).to_string(),
    );
    assert_eq!(status, 400);
    assert!(error_of(&reply).contains("\"when\""), "{reply}");
    // A request target longer than 8 KiB.
    let (status, reply) = daemon.get(&format!("/api/return_txt/{}", "a".repeat(9000)));
    assert_eq!(status, 414, "{reply}");
    // A HippoCamp client's request is accepted as it is sent.
    let (status, reply) = daemon.post(
        "/retrieve",
        &json!({"query": "joinery invoice", "top_k": 5}).to_string(),
    );
    assert_eq!(status, 200, "{reply}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut client = daemon.client().await;
        let refused = [
            client
                .retrieve(pb::SearchRequest {
                    query: "x".into(),
                    top_k: 5000,
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            client
                .timeline(pb::TimelineRequest {
                    when: "x".repeat(5000),
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            client
                .get_text(pb::FileRequest {
                    path: "a/".repeat(3000),
                })
                .await
                .unwrap_err(),
            client
                .search(pb::SearchRequest {
                    query: "x".into(),
                    path_prefixes: vec!["p".into(); 300],
                    ..Default::default()
                })
                .await
                .unwrap_err(),
        ];
        for status in refused {
            assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
            assert!(status.message().len() < 200, "{status:?}");
        }
        let huge = client
            .retrieve(pb::SearchRequest {
                query: "x".repeat(200_000),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(huge.code(), Code::ResourceExhausted, "{huge:?}");
        // top_k 0 over gRPC is proto3's "unset": the default.
        let reply = client
            .retrieve(pb::SearchRequest {
                query: "joinery invoice".into(),
                top_k: 0,
                mode: pb::SearchMode::Lexical as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!reply.units.is_empty() && reply.units.len() <= 10);
    });
}

#[test]
fn a_flood_of_hybrid_queries_does_not_starve_lexical_queries_or_file_tools() {
    let (_profile, index_dir) = sample_index(&["--no-ocr", "--no-media"]);
    let daemon = Daemon::start_with(
        index_dir.path(),
        &["--max-concurrent-search", "1", "--max-queue", "2"],
    );
    let http = daemon.http;
    let flooders = 48;
    let barrier = std::sync::Barrier::new(flooders + 1);
    let (flood, others) = std::thread::scope(|scope| {
        let flood: Vec<_> = (0..flooders)
            .map(|i| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let body =
                        json!({"query": format!("shelving timelapse flood {i}"), "mode": "hybrid"});
                    raw_http(http, "POST", "/retrieve", &body.to_string())
                })
            })
            .collect();
        barrier.wait();
        // Meanwhile, lexical queries and file tools, one after the other.
        let started = Instant::now();
        let mut others = Vec::new();
        for i in 0..20 {
            let (status, _, body) = if i % 2 == 0 {
                let body = json!({"query": "joinery invoice", "mode": "lexical"});
                raw_http(http, "POST", "/retrieve", &body.to_string())
            } else {
                raw_http(http, "GET", "/api/list_files?pattern=**/*.pdf", "")
            };
            others.push((status, body));
        }
        let others_took = started.elapsed();
        let flood: Vec<_> = flood.into_iter().map(|t| t.join().unwrap()).collect();
        (flood, (others, others_took))
    });
    let (others, others_took) = others;
    for (status, body) in &others {
        assert_eq!(
            *status, 200,
            "a lexical query or file tool was refused: {body}"
        );
    }
    assert!(others_took < Duration::from_secs(30), "{others_took:?}");
    let refused: Vec<_> = flood.iter().filter(|(s, _, _)| *s == 503).collect();
    assert!(
        flood.iter().all(|(s, _, _)| *s == 200 || *s == 503),
        "{:?}",
        flood.iter().map(|(s, _, b)| (s, b)).collect::<Vec<_>>()
    );
    assert!(
        !refused.is_empty(),
        "48 hybrid queries on one slot and a queue of 2: none refused"
    );
    for (_, head, body) in refused {
        assert!(head.contains("retry-after: 1"), "{head}");
        assert!(body.contains("too many search requests"), "{body}");
    }
    // gRPC: the same gates.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = daemon.client().await;
        let calls = (0..flooders).map(|i| {
            let mut client = client.clone();
            async move {
                client
                    .retrieve(pb::SearchRequest {
                        query: format!("grpc flood {i} shelving"),
                        ..Default::default()
                    })
                    .await
            }
        });
        let results = futures_join_all(calls).await;
        let exhausted = results
            .iter()
            .filter(|r| matches!(r, Err(s) if s.code() == Code::ResourceExhausted))
            .count();
        assert!(
            results
                .iter()
                .all(|r| r.is_ok() || matches!(r, Err(s) if s.code() == Code::ResourceExhausted)),
            "{results:?}"
        );
        assert!(exhausted > 0, "no gRPC call refused");
    });
}

/// Awaits all futures (spawned, so they run at once).
async fn futures_join_all<F, T>(futures: impl Iterator<Item = F>) -> Vec<T>
where
    F: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

/// Reads until the peer closes or `limit` passes; returns what arrived and when.
fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (String, Duration) {
    let started = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut got = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buffer[..n]),
        }
        if started.elapsed() > limit {
            break;
        }
    }
    (String::from_utf8_lossy(&got).to_string(), started.elapsed())
}

#[test]
fn slow_clients_are_cut_off_and_late_work_is_answered_504() {
    let (_profile, index_dir) = sample_index(&["--no-embed", "--no-ocr", "--no-media"]);
    let daemon = Daemon::start_with(index_dir.path(), &["--client-timeout", "1"]);
    // Headers that never end.
    let mut stream = TcpStream::connect(daemon.http).unwrap();
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n")
        .unwrap();
    let (_, took) = read_until_closed(&mut stream, Duration::from_secs(10));
    assert!(
        took < Duration::from_secs(5),
        "headers: still open after {took:?}"
    );
    // A body that trickles.
    let mut stream = TcpStream::connect(daemon.http).unwrap();
    stream
        .write_all(b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"query\"")
        .unwrap();
    let (reply, took) = read_until_closed(&mut stream, Duration::from_secs(10));
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // A gRPC client that never sends its preface.
    let mut stream = TcpStream::connect(daemon.grpc).unwrap();
    let (_, took) = read_until_closed(&mut stream, Duration::from_secs(10));
    assert!(
        took < Duration::from_secs(5),
        "gRPC: still open after {took:?}"
    );
    // The daemon serves on.
    assert_eq!(daemon.get("/health").0, 200);

    // A deadline shorter than a render: 504 over HTTP, DEADLINE_EXCEEDED over gRPC.
    let daemon = Daemon::start_with(index_dir.path(), &["--request-timeout", "0.02"]);
    let video = "Videos/2024-03-17 shelving install timelapse.mp4";
    let (status, reply) = daemon.get(&format!("/api/return_img/{}?second=1", url_path(video)));
    assert_eq!(status, 504, "{reply}");
    assert!(error_of(&reply).contains("deadline"), "{reply}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut client = daemon.client().await;
        let error = client
            .render(pb::RenderRequest {
                path: video.into(),
                second: Some(1.0),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(error.code(), Code::DeadlineExceeded, "{error:?}");
    });
}
