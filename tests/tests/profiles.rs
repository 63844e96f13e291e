//! Several profiles in one daemon with API keys (issue 17): each profile's routes see
//! only its own units and files, over HTTP (`/p/NAME/…`, unprefixed = the first) and
//! gRPC (`x-dentate-profile`); no key → 401/UNAUTHENTICATED, another profile's key →
//! 403/PERMISSION_DENIED; keys re-read on SIGHUP; a non-loopback bind without keys is
//! refused; foreign `Host` and `Origin` headers are refused.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine as _;
use dentate_proto::v1 as pb;
use serde_json::{json, Value};
use tonic::Code;

use crate::harness::{binary, eventually, http_with_headers, index_with, url_path, Daemon};

const ALICE_KEY: &str = "alice-secret-key-0123456789";
const BOB_KEY: &str = "bob-secret-key-9876543210";
const ADMIN_KEY: &str = "admin-secret-key-abcdef";

/// A fixture profile: the same relative paths in both (different content), one folder
/// of its own, a word no other profile has.
struct Fixture {
    name: &'static str,
    canary: &'static str,
    own_folder: &'static str,
    key: &'static str,
    root: tempfile::TempDir,
    index: tempfile::TempDir,
    png: Vec<u8>,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn fixture(
    name: &'static str,
    canary: &'static str,
    own_folder: &'static str,
    key: &'static str,
    colour: [u8; 3],
) -> Fixture {
    let root = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    write(
        &root.path().join("notes/same.txt"),
        &format!("{name} writes {canary}: the shared garden budget and the spring plan.\n"),
    );
    write(
        &root.path().join(format!("{own_folder}/private.txt")),
        &format!("{canary} private diary of {name}, garden budget notes.\n"),
    );
    std::fs::create_dir_all(root.path().join("photos")).unwrap();
    let png_path = root.path().join("photos/same.png");
    image::RgbImage::from_pixel(8, 8, image::Rgb(colour))
        .save(&png_path)
        .unwrap();
    let png = std::fs::read(&png_path).unwrap();
    let summary = index_with(
        root.path(),
        index.path(),
        &["--no-embed", "--no-ocr", "--no-media"],
    );
    assert_eq!(summary["files"]["indexed"], 3, "{summary}");
    Fixture {
        name,
        canary,
        own_folder,
        key,
        root,
        index,
        png,
    }
}

fn key_table(name: &str, key: &str, profiles: &str) -> String {
    let digest = Command::new(binary("dentate-searchd"))
        .arg("hash-key")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(key.as_bytes())?;
            child.wait_with_output()
        })
        .expect("dentate-searchd hash-key");
    assert!(digest.status.success());
    let digest = String::from_utf8(digest.stdout).unwrap();
    format!(
        "[[key]]\nname = \"{name}\"\nsha256 = \"{}\"\nprofiles = {profiles}\n",
        digest.trim()
    )
}

/// Two profiles (alice first), three keys, one daemon.
struct Setup {
    alice: Fixture,
    bob: Fixture,
    keys: PathBuf,
    _dir: tempfile::TempDir,
    daemon: Daemon,
}

fn setup() -> Setup {
    let alice = fixture(
        "alice",
        "zqxalicecanary",
        "alice-only",
        ALICE_KEY,
        [200, 10, 10],
    );
    let bob = fixture("bob", "zqxbobcanary", "bob-only", BOB_KEY, [10, 10, 200]);
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys.toml");
    std::fs::write(
        &keys,
        [
            key_table("alice", ALICE_KEY, "[\"alice\"]"),
            key_table("bob", BOB_KEY, "[\"bob\"]"),
            key_table("admin", ADMIN_KEY, "\"*\""),
        ]
        .concat(),
    )
    .unwrap();
    let output = dir.path().join("output");
    let alice_arg = format!("alice={}", alice.index.path().display());
    let bob_arg = format!("bob={}", bob.index.path().display());
    let daemon = Daemon::spawn(
        &[
            "--profile",
            &alice_arg,
            "--profile",
            &bob_arg,
            "--keys",
            keys.to_str().unwrap(),
            "--no-dense",
        ],
        &[("DENTATE_OUTPUT_DIR", &output)],
    );
    Setup {
        alice,
        bob,
        keys,
        _dir: dir,
        daemon,
    }
}

fn call(
    daemon: &Daemon,
    method: &str,
    path: &str,
    body: Option<&str>,
    key: Option<&str>,
) -> (u16, Vec<u8>) {
    let bearer = key.map(|k| format!("Bearer {k}"));
    let headers: Vec<(&str, &str)> = bearer
        .as_deref()
        .map(|b| vec![("authorization", b)])
        .unwrap_or_default();
    http_with_headers(daemon.http, method, path, body, &headers)
}

fn call_json(
    daemon: &Daemon,
    method: &str,
    path: &str,
    body: Option<&str>,
    key: Option<&str>,
) -> (u16, Value) {
    let (status, bytes) = call(daemon, method, path, body, key);
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, json)
}

/// Every kind of HTTP route, as (method, route, body).
fn routes() -> Vec<(&'static str, String, Option<String>)> {
    let search = json!({ "query": "garden budget", "top_k": 50, "mode": "lexical" }).to_string();
    let timeline = json!({ "start": 0, "end": 4_000_000_000i64 }).to_string();
    vec![
        ("POST", "/retrieve".into(), Some(search.clone())),
        ("POST", "/search".into(), Some(search.clone())),
        ("POST", "/api/search".into(), Some(search)),
        ("POST", "/api/timeline".into(), Some(timeline)),
        ("GET", "/api/stats".into(), None),
        ("GET", "/api/list_files?pattern=**".into(), None),
        ("GET", "/api/files/list?pattern=*".into(), None),
        ("GET", "/api/files".into(), None),
        ("GET", "/api/return_txt/notes/same.txt".into(), None),
        ("GET", "/api/return_txt_full/notes/same.txt".into(), None),
        ("GET", "/api/return_metadata/notes/same.txt".into(), None),
        ("GET", "/api/return_ori/notes/same.txt".into(), None),
        ("GET", "/api/return_img/photos/same.png".into(), None),
        ("GET", "/api/serve_file/notes/same.txt".into(), None),
    ]
}

/// The reply of every route of `me`'s profile (under `prefix`) names only `me`.
fn assert_only_own(daemon: &Daemon, prefix: &str, me: &Fixture, other: &Fixture) {
    for (method, route, body) in routes() {
        let path = format!("{prefix}{route}");
        let (status, bytes) = call(daemon, method, &path, body.as_deref(), Some(me.key));
        let text = String::from_utf8_lossy(&bytes);
        assert_eq!(status, 200, "{path}: {text}");
        assert!(
            !text.contains(other.canary) && !text.contains(other.own_folder),
            "{path} shows {}'s data: {text}",
            other.name
        );
        let other_root = other.root.path().canonicalize().unwrap();
        assert!(
            !text.contains(other_root.to_str().unwrap()),
            "{path} names {}'s folder: {text}",
            other.name
        );
        let own_visible = !route.contains("return_img")
            && !route.contains("return_ori")
            && !route.contains("stats")
            && !route.contains("return_metadata");
        if own_visible {
            assert!(
                text.contains(me.canary) || text.contains(me.own_folder),
                "{path} does not show {}'s data: {text}",
                me.name
            );
        }
    }
    // The other profile's own file does not exist here, for every file tool.
    let foreign = format!("{}/private.txt", other.own_folder);
    for route in ["return_txt", "return_metadata", "return_ori", "return_img"] {
        let path = format!("{prefix}/api/{route}/{}", url_path(&foreign));
        let (status, reply) = call_json(daemon, "GET", &path, None, Some(me.key));
        assert!(
            status >= 400 || reply["success"] == false,
            "{path}: {status} {reply}"
        );
        assert!(!reply.to_string().contains(other.canary), "{path}: {reply}");
    }
    let (status, _) = call(
        daemon,
        "GET",
        &format!("{prefix}/api/serve_file/{}", url_path(&foreign)),
        None,
        Some(me.key),
    );
    assert_eq!(status, 404);
    // The original and the rendering of the same path are this profile's bytes.
    let (_, reply) = call_json(
        daemon,
        "GET",
        &format!("{prefix}/api/return_ori/photos/same.png"),
        None,
        Some(me.key),
    );
    let b64 = base64::engine::general_purpose::STANDARD;
    assert_eq!(
        b64.decode(reply["file_b64"].as_str().unwrap()).unwrap(),
        me.png
    );
    let (_, bytes) = call(
        daemon,
        "GET",
        &format!("{prefix}/api/serve_file/photos/same.png"),
        None,
        Some(me.key),
    );
    assert_eq!(bytes, me.png);
}

#[test]
fn http_keys_open_only_their_profiles_and_no_route_crosses_profiles() {
    let Setup {
        alice,
        bob,
        keys,
        daemon,
        _dir,
    } = setup();
    let d = &daemon;
    // Health stays open.
    for path in ["/health", "/p/alice/health", "/p/bob/health"] {
        let (status, reply) = call_json(d, "GET", path, None, None);
        assert_eq!(status, 200, "{path}: {reply}");
    }
    // Every other route: no key 401, unknown key 401, the other profile's key 403.
    for (method, route, body) in routes() {
        for (prefix, wrong_key) in [("", BOB_KEY), ("/p/alice", BOB_KEY), ("/p/bob", ALICE_KEY)] {
            let path = format!("{prefix}{route}");
            let body = body.as_deref();
            let (status, reply) = call_json(d, method, &path, body, None);
            assert_eq!(status, 401, "{path} without a key: {reply}");
            assert!(
                reply["error"].as_str().unwrap().contains("API key"),
                "{reply}"
            );
            let (status, _) = call_json(d, method, &path, body, Some("not-a-key"));
            assert_eq!(status, 401, "{path} with an unknown key");
            let (status, reply) = call_json(d, method, &path, body, Some(wrong_key));
            assert_eq!(status, 403, "{path} with another profile's key: {reply}");
            assert!(reply.to_string().len() < 200, "{path}: {reply}");
        }
    }
    // The right key: that profile's files only; unprefixed is the first profile.
    assert_only_own(d, "/p/alice", &alice, &bob);
    assert_only_own(d, "/p/bob", &bob, &alice);
    assert_only_own(d, "", &alice, &bob);
    // A key for every profile reads both, each under its own prefix.
    for (prefix, me) in [("/p/alice", &alice), ("/p/bob", &bob)] {
        let (status, reply) = call_json(
            d,
            "GET",
            &format!("{prefix}/api/return_txt/notes/same.txt"),
            None,
            Some(ADMIN_KEY),
        );
        assert_eq!(status, 200);
        assert!(reply.to_string().contains(me.canary), "{reply}");
    }
    // Unknown profile: judged by the key first, then 404.
    let (status, _) = call_json(d, "GET", "/p/carol/api/stats", None, None);
    assert_eq!(status, 401);
    let (status, _) = call_json(d, "GET", "/p/carol/api/stats", None, Some(ALICE_KEY));
    assert_eq!(status, 403);
    let (status, reply) = call_json(d, "GET", "/p/carol/api/stats", None, Some(ADMIN_KEY));
    assert_eq!(status, 404);
    assert!(
        reply["error"].as_str().unwrap().contains("no profile"),
        "{reply}"
    );

    // Rendered images live per profile: alice's is not served under bob's prefix.
    let (_, reply) = call_json(
        d,
        "GET",
        "/p/alice/api/return_img/photos/same.png",
        None,
        Some(ALICE_KEY),
    );
    let serve_url = reply["serve_url"].as_str().unwrap().to_string();
    assert!(
        serve_url.starts_with("/p/alice/api/serve_image/"),
        "{reply}"
    );
    let (status, bytes) = call(d, "GET", &serve_url, None, Some(ALICE_KEY));
    assert_eq!((status, &bytes), (200, &alice.png));
    let (status, _) = call(d, "GET", &serve_url, None, Some(BOB_KEY));
    assert_eq!(status, 403);
    let name = serve_url.rsplit('/').next().unwrap();
    let bob_url = format!("/p/bob/api/serve_image/{name}");
    let (status, bytes) = call(d, "GET", &bob_url, None, Some(BOB_KEY));
    assert_ne!(bytes, alice.png, "bob got alice's rendering");
    if status == 200 {
        assert_eq!(bytes, bob.png);
    }
    let (_, reply) = call_json(
        d,
        "GET",
        "/p/bob/api/return_img/photos/same.png",
        None,
        Some(BOB_KEY),
    );
    assert_eq!(reply["serve_url"], json!(bob_url));
    let (_, bytes) = call(d, "GET", &bob_url, None, Some(BOB_KEY));
    assert_eq!(bytes, bob.png);
    let (_, bytes) = call(d, "GET", &serve_url, None, Some(ALICE_KEY));
    assert_eq!(bytes, alice.png);

    // SIGHUP re-reads the key file: alice's key is replaced by a new one.
    let new_key = "alice-rotated-key-42";
    std::fs::write(
        &keys,
        [
            key_table("alice", new_key, "[\"alice\"]"),
            key_table("bob", BOB_KEY, "[\"bob\"]"),
        ]
        .concat(),
    )
    .unwrap();
    let hup = Command::new("kill")
        .args(["-HUP", &d.pid().to_string()])
        .status()
        .unwrap();
    assert!(hup.success());
    let path = "/p/alice/api/stats";
    assert!(
        eventually(Duration::from_secs(10), || call(
            d,
            "GET",
            path,
            None,
            Some(new_key)
        )
        .0 == 200),
        "the new key was not loaded"
    );
    assert_eq!(call(d, "GET", path, None, Some(ALICE_KEY)).0, 401);
    // A broken file keeps the keys in force.
    std::fs::write(&keys, "[[key]]\nname = 3\n").unwrap();
    assert!(Command::new("kill")
        .args(["-HUP", &d.pid().to_string()])
        .status()
        .unwrap()
        .success());
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(call(d, "GET", path, None, Some(new_key)).0, 200);
}

fn grpc_request<T>(message: T, profile: Option<&str>, key: Option<&str>) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(profile) = profile {
        request
            .metadata_mut()
            .insert("x-dentate-profile", profile.parse().unwrap());
    }
    if let Some(key) = key {
        request
            .metadata_mut()
            .insert("authorization", format!("Bearer {key}").parse().unwrap());
    }
    request
}

/// A reply as text (its `Debug` form), or its status.
fn shown<T: std::fmt::Debug>(
    reply: Result<tonic::Response<T>, tonic::Status>,
) -> Result<String, tonic::Status> {
    reply.map(|r| format!("{:?}", r.into_inner()))
}

/// Every RPC, each returning its reply as text (or the status).
async fn every_rpc(
    daemon: &Daemon,
    profile: Option<&str>,
    key: Option<&str>,
) -> Vec<(&'static str, Result<String, tonic::Status>)> {
    let mut client = daemon.client().await;
    let req = |message| grpc_request(message, profile, key);
    let search = pb::SearchRequest {
        query: "garden budget".into(),
        top_k: 50,
        mode: pb::SearchMode::Lexical as i32,
        ..Default::default()
    };
    let file = |path: &str| grpc_request(pb::FileRequest { path: path.into() }, profile, key);
    let list = pb::ListFilesRequest {
        pattern: "**".into(),
        limit: 0,
        include_failed: true,
    };
    let timeline = pb::TimelineRequest {
        range: Some(pb::TimeRange {
            start: 1,
            end: 4_000_000_000,
        }),
        ..Default::default()
    };
    let render = pb::RenderRequest {
        path: "photos/same.png".into(),
        page: None,
        second: None,
    };
    vec![
        ("Search", shown(client.search(req(search.clone())).await)),
        ("Retrieve", shown(client.retrieve(req(search)).await)),
        (
            "ListFiles",
            shown(client.list_files(grpc_request(list, profile, key)).await),
        ),
        (
            "GetText",
            shown(client.get_text(file("notes/same.txt")).await),
        ),
        (
            "GetMetadata",
            shown(client.get_metadata(file("notes/same.txt")).await),
        ),
        (
            "Stats",
            shown(
                client
                    .stats(grpc_request(pb::StatsRequest::default(), profile, key))
                    .await,
            ),
        ),
        (
            "Timeline",
            shown(client.timeline(grpc_request(timeline, profile, key)).await),
        ),
        (
            "Render",
            shown(client.render(grpc_request(render, profile, key)).await),
        ),
    ]
}

#[test]
fn grpc_keys_open_only_their_profiles_and_no_call_crosses_profiles() {
    let Setup {
        alice, bob, daemon, ..
    } = setup();
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Refusals, for every RPC.
    for (profile, key, code) in [
        (None, None, Code::Unauthenticated),
        (Some("bob"), None, Code::Unauthenticated),
        (Some("bob"), Some("not-a-key"), Code::Unauthenticated),
        (Some("bob"), Some(ALICE_KEY), Code::PermissionDenied),
        (None, Some(BOB_KEY), Code::PermissionDenied),
        (Some("alice"), Some(BOB_KEY), Code::PermissionDenied),
        (Some("carol"), Some(ALICE_KEY), Code::PermissionDenied),
        (Some("carol"), Some(ADMIN_KEY), Code::NotFound),
    ] {
        for (rpc, result) in rt.block_on(every_rpc(&daemon, profile, key)) {
            let status = result.expect_err(rpc);
            assert_eq!(status.code(), code, "{rpc} {profile:?} {key:?}: {status:?}");
        }
    }
    // The right key: that profile's data only (no profile metadata: the first).
    for (profile, me, other) in [
        (Some("alice"), &alice, &bob),
        (Some("bob"), &bob, &alice),
        (None, &alice, &bob),
    ] {
        for key in [me.key, ADMIN_KEY] {
            for (rpc, result) in rt.block_on(every_rpc(&daemon, profile, Some(key))) {
                let text = result.unwrap_or_else(|e| panic!("{rpc} {profile:?}: {e:?}"));
                assert!(
                    !text.contains(other.canary) && !text.contains(other.own_folder),
                    "{rpc} for {profile:?} shows {}'s data: {text}",
                    other.name
                );
                if !matches!(rpc, "Render" | "Stats" | "GetMetadata") {
                    assert!(
                        text.contains(me.canary) || text.contains(me.own_folder),
                        "{rpc} for {profile:?} misses {}'s data: {text}",
                        me.name
                    );
                }
            }
            let mut client = rt.block_on(daemon.client());
            let rendered = rt
                .block_on(client.render(grpc_request(
                    pb::RenderRequest {
                        path: "photos/same.png".into(),
                        page: None,
                        second: None,
                    },
                    profile,
                    Some(key),
                )))
                .unwrap()
                .into_inner();
            assert_eq!(rendered.data, me.png);
            let stats = rt
                .block_on(client.stats(grpc_request(
                    pb::StatsRequest::default(),
                    profile,
                    Some(key),
                )))
                .unwrap()
                .into_inner();
            let root = me.root.path().canonicalize().unwrap();
            assert_eq!(stats.profile_root, root.to_str().unwrap());
            let foreign = format!("{}/private.txt", other.own_folder);
            let error = rt
                .block_on(client.get_text(grpc_request(
                    pb::FileRequest { path: foreign },
                    profile,
                    Some(key),
                )))
                .unwrap_err();
            assert_eq!(error.code(), Code::NotFound, "{error:?}");
        }
    }
    // The health service stays open.
    let channel = rt.block_on(async {
        tonic::transport::Channel::from_shared(format!("http://{}", daemon.grpc))
            .unwrap()
            .connect()
            .await
            .unwrap()
    });
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    let reply = rt
        .block_on(health.check(tonic_health::pb::HealthCheckRequest {
            service: "dentate.v1.Dentate".into(),
        }))
        .unwrap()
        .into_inner();
    assert_eq!(
        reply.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
}

/// Runs `dentate-searchd ARGS` expecting it to refuse to start; returns its stderr.
fn refused_start(args: &[&str]) -> String {
    let mut child = Command::new(binary("dentate-searchd"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(!status.success());
            let mut stderr = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            return stderr;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("dentate-searchd {args:?} started instead of refusing");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_non_loopback_bind_without_keys_is_refused() {
    let profile = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    write(&profile.path().join("a.txt"), "hello exposed world\n");
    index_with(profile.path(), index.path(), &["--no-embed"]);
    let index_arg = index.path().to_str().unwrap();
    for (flag, addr) in [("--http-addr", "0.0.0.0:0"), ("--grpc-addr", "[::]:0")] {
        let other = if flag == "--http-addr" {
            "--grpc-addr"
        } else {
            "--http-addr"
        };
        let stderr = refused_start(&[
            "--index",
            index_arg,
            flag,
            addr,
            other,
            "127.0.0.1:0",
            "--no-dense",
        ]);
        assert!(
            stderr.contains("refusing to listen") && stderr.contains("--keys"),
            "{stderr}"
        );
    }
    // A malformed key file or a key for an unknown profile stops the start too.
    let keys = index.path().join("keys.toml");
    std::fs::write(&keys, key_table("x", "k", "[\"carol\"]")).unwrap();
    let stderr = refused_start(&[
        "--index",
        index_arg,
        "--keys",
        keys.to_str().unwrap(),
        "--no-dense",
        "--grpc-addr",
        "127.0.0.1:0",
        "--http-addr",
        "127.0.0.1:0",
    ]);
    assert!(stderr.contains("unknown profile \"carol\""), "{stderr}");
    // The explicit override and a key file both start it.
    let open = Daemon::start_with(
        index.path(),
        &[
            "--http-addr",
            "0.0.0.0:0",
            "--insecure-no-auth",
            "--no-dense",
        ],
    );
    assert!(open.http.ip().is_unspecified());
    std::fs::write(&keys, key_table("x", "k", "\"*\"")).unwrap();
    let keyed = Daemon::start_with(
        index.path(),
        &[
            "--http-addr",
            "0.0.0.0:0",
            "--keys",
            keys.to_str().unwrap(),
            "--no-dense",
        ],
    );
    let local: SocketAddr = format!("127.0.0.1:{}", keyed.http.port()).parse().unwrap();
    let (status, _) = http_with_headers(local, "GET", "/api/stats", None, &[]);
    assert_eq!(status, 401);
    let (status, _) = http_with_headers(
        local,
        "GET",
        "/api/stats",
        None,
        &[("authorization", "Bearer k")],
    );
    assert_eq!(status, 200);
}

/// A raw HTTP/1.1 exchange: (status, head lines, body).
fn raw_http(addr: SocketAddr, request: &str) -> (u16, Vec<String>, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).unwrap();
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let lines: Vec<String> = head.lines().map(|l| l.to_ascii_lowercase()).collect();
    let status = lines[0].split(' ').nth(1).unwrap().parse().unwrap();
    (status, lines, body.to_string())
}

fn get_with(addr: SocketAddr, path: &str, headers: &[&str]) -> (u16, Vec<String>, String) {
    let mut request = format!("GET {path} HTTP/1.1\r\nconnection: close\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    raw_http(addr, &request)
}

#[test]
fn foreign_host_and_origin_headers_are_refused() {
    let profile = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    write(&profile.path().join("a.txt"), "hello rebinding world\n");
    index_with(profile.path(), index.path(), &["--no-embed"]);
    let daemon = Daemon::start_with(
        index.path(),
        &[
            "--no-dense",
            "--allow-host",
            "search.home.arpa",
            "--cors-origin",
            "https://notes.example.org",
        ],
    );
    let addr = daemon.http;
    let port = addr.port();
    // DNS rebinding: the attacker's name in Host.
    for host in [
        format!("evil.example:{port}"),
        format!("localhost.evil.example:{port}"),
        "".to_string(),
    ] {
        let (status, _, body) = get_with(addr, "/api/stats", &[&format!("host: {host}")]);
        assert_eq!(status, 421, "{host}: {body}");
        assert!(body.contains("DNS rebinding"), "{body}");
    }
    let (status, _, body) = get_with(addr, "/api/stats", &[]);
    assert_eq!(status, 421, "no Host: {body}");
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "search.home.arpa".to_string(),
    ] {
        let (status, head, body) = get_with(addr, "/api/stats", &[&format!("host: {host}")]);
        assert_eq!(status, 200, "{host}: {body}");
        assert!(
            !head.iter().any(|h| h.starts_with("access-control-")),
            "{head:?}"
        );
    }
    // CORS: a foreign page is refused, the daemon's own origin passes without CORS
    // headers, the configured origin gets them.
    let host = format!("host: 127.0.0.1:{port}");
    let (status, head, body) =
        get_with(addr, "/api/stats", &[&host, "origin: http://evil.example"]);
    assert_eq!(status, 403, "{body}");
    assert!(!head.iter().any(|h| h.starts_with("access-control-")));
    let own = format!("origin: http://127.0.0.1:{port}");
    let (status, head, _) = get_with(addr, "/api/stats", &[&host, &own]);
    assert_eq!(status, 200);
    assert!(!head.iter().any(|h| h.starts_with("access-control-")));
    let allowed = "origin: https://notes.example.org";
    let (status, head, _) = get_with(addr, "/api/stats", &[&host, allowed]);
    assert_eq!(status, 200);
    assert!(
        head.contains(&"access-control-allow-origin: https://notes.example.org".to_string()),
        "{head:?}"
    );
    let preflight = format!(
        "OPTIONS /retrieve HTTP/1.1\r\n{host}\r\n{allowed}\r\naccess-control-request-method: POST\r\naccess-control-request-headers: authorization, content-type\r\nconnection: close\r\n\r\n"
    );
    let (status, head, _) = raw_http(addr, &preflight);
    assert_eq!(status, 204, "{head:?}");
    assert!(head
        .iter()
        .any(|h| h.starts_with("access-control-allow-headers: authorization")));
}
