//! The agents' front door end to end: search by a client's own vector (`/api/embed`,
//! `"vector"` in `/retrieve`), the `dentate search` command, and the MCP route's
//! browser checks. (The MCP tools themselves are tested with the official Python SDK
//! in clients/python/tests/test_mcp.py.)

use std::process::Command;

use serde_json::{json, Value};

use crate::harness::{binary, http_with_headers, index, result_paths, write, Daemon};

const PUPPY: &str =
    "The puppy chased the tennis ball around the garden until it collapsed, happy and exhausted.\n";
const BUDGET: &str = "Quarterly revenue grew four percent while operating costs stayed flat.\n";
const BAKING: &str = "Whisk the eggs with sugar, fold in flour and bake at 180 degrees.\n";

fn served() -> (tempfile::TempDir, tempfile::TempDir, Daemon) {
    let profile = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("Notes/afternoon.md", PUPPY),
        ("Notes/budget.md", BUDGET),
        ("Notes/baking.md", BAKING),
    ] {
        write(profile.path(), path, text);
    }
    let index_dir = tempfile::tempdir().unwrap();
    let summary = index(profile.path(), index_dir.path());
    assert_eq!(summary["embedding"]["coverage"], 1.0, "{summary}");
    let daemon = Daemon::start(index_dir.path());
    (profile, index_dir, daemon)
}

fn embed(daemon: &Daemon, texts: &[&str]) -> Vec<Vec<f64>> {
    let (status, reply) = daemon.post("/api/embed", &json!({ "texts": texts }).to_string());
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["dimension"], 384, "{reply}");
    assert!(
        reply["model"].as_str().unwrap().contains("MiniLM"),
        "{reply}"
    );
    reply["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn a_clients_own_vector_is_searched_alone_or_beside_its_question() {
    let (_profile, _index, daemon) = served();
    let vectors = embed(
        &daemon,
        &["dog playing fetch outdoors", "a pet running on the lawn"],
    );
    assert_eq!(vectors.len(), 2);
    assert!(vectors.iter().all(|v| v.len() == 384));

    // Alone: a dense search by the vector (no words at all).
    let body = json!({ "vector": vectors[0], "top_k": 3 }).to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    assert_eq!(result_paths(&reply)[0], "Notes/afternoon.md", "{reply}");

    // HyDE's way: the mean of several embeddings.
    let mean: Vec<f64> = (0..384)
        .map(|i| (vectors[0][i] + vectors[1][i]) / 2.0)
        .collect();
    let (_, reply) = daemon.post(
        "/retrieve",
        &json!({ "vector": mean, "top_k": 1 }).to_string(),
    );
    assert_eq!(result_paths(&reply), ["Notes/afternoon.md"], "{reply}");

    // Beside a question: the lexical list reads the words, the dense list the vector
    // (here a vector that points elsewhere from words that match nothing semantically).
    let baking = embed(&daemon, &["cake recipe"]);
    let body = json!({ "query": "revenue", "vector": baking[0], "top_k": 3 }).to_string();
    let (_, reply) = daemon.post("/retrieve", &body);
    let paths = result_paths(&reply);
    assert!(paths.contains(&"Notes/budget.md".to_string()), "{reply}");
    assert!(paths.contains(&"Notes/baking.md".to_string()), "{reply}");
    // Filters apply to vector searches too.
    let body = json!({ "vector": vectors[0], "path_prefixes": ["Elsewhere"] }).to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!((status, result_paths(&reply).len()), (200, 0), "{reply}");

    for (body, needle) in [
        (json!({ "vector": [0.5, 0.5] }), "384"),
        (
            json!({ "vector": vectors[0], "query": "puppy", "mode": "lexical" }),
            "lexical",
        ),
        (
            json!({ "vector": vectors[0], "queries": ["a", "b"] }),
            "queries",
        ),
        (json!({ "vector": vec![0.1; 5000] }), "vector"),
    ] {
        let (status, reply) = daemon.post("/retrieve", &body.to_string());
        assert_eq!(status, 400, "{body}: {reply}");
        assert!(reply["error"].as_str().unwrap().contains(needle), "{reply}");
    }
    for body in [json!({ "texts": [] }), json!({ "text": "a" }), json!({})] {
        let (status, reply) = daemon.post("/api/embed", &body.to_string());
        assert_eq!(status, 400, "{body}: {reply}");
    }
}

#[test]
fn vectors_need_the_text_model() {
    let profile = tempfile::tempdir().unwrap();
    write(profile.path(), "Notes/budget.md", BUDGET);
    let index_dir = tempfile::tempdir().unwrap();
    index(profile.path(), index_dir.path());
    let daemon = Daemon::start_with(index_dir.path(), &["--no-dense"]);
    let (status, reply) = daemon.post("/api/embed", r#"{"texts": ["x"]}"#);
    assert_eq!(status, 503, "{reply}");
    let (status, reply) = daemon.post(
        "/retrieve",
        &json!({ "vector": vec![0.1; 384] }).to_string(),
    );
    assert_eq!(status, 503, "{reply}");
}

fn dentate(args: &[&str], url: &str) -> (i32, String, String) {
    let output = Command::new(binary("dentate"))
        .args(args)
        .env("DENTATE_URL", url)
        .env_remove("DENTATE_API_KEY")
        .env_remove("NO_COLOR")
        .output()
        .expect("run dentate");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_search_command_prints_ranked_files_from_a_daemon_or_an_index() {
    let (_profile, index_dir, daemon) = served();
    let url = format!("http://{}", daemon.http);
    let (code, out, err) = dentate(&["search", "tennis ball in the garden", "-k", "2"], &url);
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().unwrap_or_default();
    assert!(first.starts_with(" 1. Notes/afternoon.md"), "{out}");
    assert!(out.contains("*tennis* *ball*"), "{out}");
    assert!(!out.contains('\x1b'), "piped output has no colour: {out:?}");
    assert!(
        out.trim_end()
            .lines()
            .last()
            .unwrap()
            .contains("files · search"),
        "{out}"
    );

    let (_, coloured, _) = dentate(&["search", "--color", "always", "tennis"], &url);
    assert!(coloured.contains("\x1b[1;33mtennis\x1b[0m"), "{coloured:?}");

    let (code, out, _) = dentate(&["search", "--json", "--mode", "lexical", "revenue"], &url);
    assert_eq!(code, 0);
    let reply: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        reply["files"][0]["file"]["path"], "Notes/budget.md",
        "{reply}"
    );

    let index_arg = index_dir.path().to_str().unwrap();
    let (code, out, err) = dentate(
        &["search", "--index", index_arg, "whisk the eggs"],
        "http://127.0.0.1:1",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(" 1. Notes/baking.md"), "{out}");

    let (code, _, err) = dentate(&["search", "anything"], "http://127.0.0.1:1");
    assert_eq!(code, 1);
    assert!(
        err.contains("no Dentate daemon answers at http://127.0.0.1:1"),
        "{err}"
    );
    let (code, _, err) = dentate(&["search", "--index", "/nonexistent", "x"], &url);
    assert_eq!(code, 1);
    assert!(err.contains("cannot open the index /nonexistent"), "{err}");
    let (code, _, err) = dentate(&["search", "--mode", "fuzzy", "x"], &url);
    assert_eq!(code, 1);
    assert!(err.contains("unknown mode"), "{err}");
}

#[test]
fn the_mcp_route_answers_behind_the_browser_checks() {
    let (_profile, _index, daemon) = served();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "1"}}})
    .to_string();
    let accept = ("accept", "application/json, text/event-stream");
    let content = ("content-type", "application/json");
    let (status, body) = http_with_headers(
        daemon.http,
        "POST",
        "/mcp",
        Some(&initialize),
        &[accept, content],
    );
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["serverInfo"]["name"], "dentate", "{reply}");

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "search", "arguments": {"query": "tennis ball", "top_k": 1}}})
    .to_string();
    let version = ("mcp-protocol-version", "2025-06-18");
    let (_, body) = http_with_headers(
        daemon.http,
        "POST",
        "/mcp",
        Some(&call),
        &[accept, content, version],
    );
    let reply: Value = serde_json::from_slice(&body).unwrap();
    let files = &reply["result"]["structuredContent"]["files"];
    assert_eq!(files[0]["path"], "Notes/afternoon.md", "{reply}");

    let foreign = ("origin", "http://evil.example");
    let (status, _) = http_with_headers(
        daemon.http,
        "POST",
        "/mcp",
        Some(&call),
        &[accept, content, foreign],
    );
    assert_eq!(status, 403);
    let rebound = ("host", "evil.example:8080");
    let (status, _) = http_with_headers(
        daemon.http,
        "POST",
        "/mcp",
        Some(&call),
        &[accept, content, rebound],
    );
    assert_eq!(status, 421);
}
