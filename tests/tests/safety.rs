//! Hostile profiles: folder links that leave the profile (nothing under them is ever
//! indexed, listed, searched or read, over HTTP or gRPC), an index that already holds
//! such files (served safely, cleaned by the next run), and texts made of one long line
//! (chunked without loss), and real names containing `#`.

use std::path::Path;

use dentate_proto::v1 as pb;
use serde_json::{json, Value};
use tonic::Code;

use crate::harness::{index_with, result_paths, url_path, Daemon};

/// A word that exists only in the canary files outside the profile.
const CANARY: &str = "zqxcanaryvortex";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A folder outside the profile with canary files at two depths.
fn canary_folder() -> tempfile::TempDir {
    let canary = tempfile::tempdir().unwrap();
    write(
        &canary.path().join("passwd.txt"),
        &format!("root:x:0:0 {CANARY} secret account list\n"),
    );
    write(
        &canary.path().join("deep/shadow.txt"),
        &format!("hashes {CANARY} deep secret\n"),
    );
    canary
}

/// Asserts that nothing under `prefixes` (or containing the canary word) is reachable
/// through any HTTP route or gRPC call of `daemon`.
async fn assert_nothing_served(daemon: &Daemon, prefixes: &[&str]) {
    let leaks = |paths: &[String]| {
        paths
            .iter()
            .filter(|p| prefixes.iter().any(|prefix| p.starts_with(prefix)))
            .cloned()
            .collect::<Vec<_>>()
    };
    // Search, every mode and route.
    for mode in ["lexical", "hybrid"] {
        let body = json!({ "query": format!("{CANARY} secret"), "top_k": 50, "mode": mode });
        let (status, reply) = daemon.post("/retrieve", &body.to_string());
        assert_eq!(status, 200, "{reply}");
        let paths = result_paths(&reply);
        assert!(
            leaks(&paths).is_empty(),
            "{mode} /retrieve leaked {paths:?}"
        );
        assert!(
            !reply["results"].to_string().contains(CANARY),
            "{mode}: {reply}"
        );
        let (status, reply) = daemon.post("/api/search", &body.to_string());
        assert_eq!(status, 200, "{reply}");
        assert!(reply["files"].is_array(), "{reply}");
        assert!(
            !reply["files"].to_string().contains(CANARY),
            "{mode} /api/search: {reply}"
        );
    }
    let (_, reply) = daemon.post(
        "/api/timeline",
        &json!({ "start": 0, "end": 4_000_000_000i64, "query": CANARY }).to_string(),
    );
    assert!(reply["days"].is_array(), "timeline: {reply}");
    assert!(
        !reply["days"].to_string().contains(CANARY),
        "timeline: {reply}"
    );
    let (_, reply) = daemon.post(
        "/api/timeline",
        &json!({ "start": 0, "end": 4_000_000_000i64 }).to_string(),
    );
    for prefix in prefixes {
        assert!(
            !reply["days"].to_string().contains(&format!("\"{prefix}")),
            "timeline lists {prefix}: {reply}"
        );
    }
    // Listings.
    for pattern in ["", "**", "**/*.txt", "*.txt"] {
        let (status, reply) = daemon.get(&format!("/api/list_files?pattern={}", url_path(pattern)));
        assert_eq!(status, 200, "{reply}");
        let listed: Vec<String> = reply["data"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file_path"].as_str().unwrap().to_string())
            .collect();
        assert!(
            leaks(&listed).is_empty(),
            "list_files {pattern:?}: {listed:?}"
        );
    }
    // File tools on the canary paths.
    for prefix in prefixes {
        for file in ["passwd.txt", "deep/shadow.txt", "shadow.txt"] {
            let path = url_path(&format!("{prefix}/{file}"));
            for route in ["return_txt", "return_metadata", "return_ori", "return_img"] {
                let (status, body) = daemon.get_raw(&format!("/api/{route}/{path}"));
                let text = String::from_utf8_lossy(&body);
                // Refused: an error status, or HippoCamp's envelope with success false.
                let refused = status >= 400
                    || serde_json::from_slice::<Value>(&body)
                        .is_ok_and(|v| v["success"] == Value::Bool(false));
                assert!(refused, "{route}/{path} answered {status}: {text}");
                assert!(!text.contains(CANARY), "{route}/{path}: {text}");
            }
        }
    }
    // gRPC.
    let mut client = daemon.client().await;
    let listed = client
        .list_files(pb::ListFilesRequest {
            pattern: "**".into(),
            limit: 0,
            include_failed: false,
        })
        .await
        .unwrap()
        .into_inner();
    let paths: Vec<String> = listed.files.iter().map(|f| f.path.clone()).collect();
    assert!(leaks(&paths).is_empty(), "gRPC ListFiles: {paths:?}");
    let found = client
        .search(pb::SearchRequest {
            query: CANARY.into(),
            top_k: 50,
            mode: pb::SearchMode::Lexical as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(found.files.is_empty(), "gRPC Search: {found:?}");
    let found = client
        .retrieve(pb::SearchRequest {
            query: CANARY.into(),
            top_k: 50,
            mode: pb::SearchMode::Lexical as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(found.units.is_empty(), "gRPC Retrieve: {found:?}");
    for prefix in prefixes {
        for file in ["passwd.txt", "deep/shadow.txt"] {
            let path = format!("{prefix}/{file}");
            let error = client
                .get_text(pb::FileRequest { path: path.clone() })
                .await
                .unwrap_err();
            assert!(
                matches!(error.code(), Code::NotFound | Code::InvalidArgument),
                "{path}: {error:?}"
            );
            assert!(client
                .get_metadata(pb::FileRequest { path: path.clone() })
                .await
                .is_err());
            assert!(client
                .render(pb::RenderRequest {
                    path,
                    page: None,
                    second: None
                })
                .await
                .is_err());
        }
    }
}

#[test]
fn folder_links_leaving_the_profile_are_never_indexed_or_served() {
    let canary = canary_folder();
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    write(
        &root.join("Notes/plan.txt"),
        "Garden plan: plant the tomatoes after the last frost.\n",
    );
    // A link at the top, one nested deeper, and a link to a link.
    std::os::unix::fs::symlink(canary.path(), root.join("etclink")).unwrap();
    std::fs::create_dir_all(root.join("Docs/sub")).unwrap();
    std::os::unix::fs::symlink(canary.path(), root.join("Docs/sub/nested")).unwrap();
    std::os::unix::fs::symlink(root.join("etclink"), root.join("Docs/chain")).unwrap();

    let summary = index_with(root, index_dir.path(), &["--no-embed"]);
    assert_eq!(summary["files"]["indexed"], 1, "{summary}");
    assert_eq!(summary["files"]["failed"], 0, "{summary}");
    let skipped: Vec<(String, String)> = summary["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["category"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for link in ["etclink", "Docs/sub/nested", "Docs/chain"] {
        assert!(
            skipped.contains(&(link.to_string(), "symlink_outside_profile".to_string())),
            "{link} not reported as skipped: {skipped:?}"
        );
    }
    assert!(!summary.to_string().contains("passwd.txt"), "{summary}");

    let daemon = Daemon::start(index_dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(assert_nothing_served(
        &daemon,
        &["etclink", "Docs/sub/nested", "Docs/chain"],
    ));
    // The link itself is listed among skipped files with its reason.
    let mut client = rt.block_on(daemon.client());
    let link = rt
        .block_on(client.get_metadata(pb::FileRequest {
            path: "etclink".into(),
        }))
        .unwrap()
        .into_inner();
    assert_eq!(link.status, "skipped", "{link:?}");
    assert!(link.error.contains("outside the profile"), "{link:?}");
    // The profile's own file is still found.
    let (_, reply) = daemon.post(
        "/retrieve",
        &json!({ "query": "tomatoes frost", "top_k": 5, "mode": "lexical" }).to_string(),
    );
    assert_eq!(result_paths(&reply), vec!["Notes/plan.txt"]);
}

#[test]
fn an_index_holding_files_behind_a_new_link_is_served_safely_and_cleaned() {
    // A folder is indexed while it lies inside the profile; then it is moved out and a
    // link left in its place (the same state as an index built by the old walker).
    let profile = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    write(
        &root.join("Notes/plan.txt"),
        "Garden plan: plant the tomatoes after the last frost.\n",
    );
    write(
        &root.join("Moved/passwd.txt"),
        &format!("root:x:0:0 {CANARY} secret account list\n"),
    );
    write(
        &root.join("Moved/deep/shadow.txt"),
        &format!("hashes {CANARY} deep secret\n"),
    );
    let first = index_with(root, index_dir.path(), &["--no-embed"]);
    assert_eq!(first["files"]["indexed"], 3, "{first}");

    let moved = outside.path().join("Moved");
    std::fs::rename(root.join("Moved"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, root.join("Moved")).unwrap();

    // Served before any re-run: the old entries are in the index, yet never returned.
    {
        let daemon = Daemon::start(index_dir.path());
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(assert_nothing_served(&daemon, &["Moved"]));
    }

    // The next run removes them and reports the link.
    let second = index_with(root, index_dir.path(), &["--no-embed"]);
    assert_eq!(second["files"]["indexed"], 1, "{second}");
    assert_eq!(second["removed"], 2, "{second}");
    let skipped = second["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "Moved" && s["category"] == "symlink_outside_profile"),
        "{second}"
    );
    let daemon = Daemon::start(index_dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut client = rt.block_on(daemon.client());
    for path in ["Moved/passwd.txt", "Moved/deep/shadow.txt"] {
        let error = rt
            .block_on(client.get_metadata(pb::FileRequest { path: path.into() }))
            .unwrap_err();
        assert_eq!(error.code(), Code::NotFound, "{path}: {error:?}");
    }
    let manifest = index::Manifest::open(&index_dir.path().join("manifest.sqlite")).unwrap();
    let paths: Vec<String> = manifest
        .all()
        .unwrap()
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert_eq!(paths, vec!["Moved", "Notes/plan.txt"]);
}

#[test]
fn long_single_line_texts_are_indexed_whole() {
    // One-paragraph abstracts (the BEIR SciFact shape), an unwrapped Markdown paragraph,
    // a log line, and minified JSON: every one is indexed, and words from the end of
    // each line are found.
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    let sentence = "The results of a survey of 769 patients attending the clinic were analysed. ";
    for (k, name) in ["abstract1.txt", "abstract2.txt", "note.md", "server.log"]
        .iter()
        .enumerate()
    {
        let mut line = "word ".repeat(k * 7);
        while line.len() < 9000 {
            line.push_str(sentence);
        }
        line.push_str(&format!("Closing remark number{k} ends here."));
        write(&root.join(name), &line);
    }
    let json: String = (0..3000)
        .map(|i| format!("{{\"k{i}\":\"v{i}\"}},"))
        .collect::<String>()
        + "\"jsontailmarker\"";
    write(&root.join("data.json"), &json);

    let summary = index_with(root, index_dir.path(), &["--no-embed"]);
    assert_eq!(summary["files"]["indexed"], 5, "{summary}");
    assert_eq!(summary["files"]["failed"], 0, "{summary}");
    assert!(
        summary["failures"].as_array().unwrap().is_empty(),
        "{summary}"
    );
    let daemon = Daemon::start(index_dir.path());
    for (query, expected) in [
        ("number0", "abstract1.txt"),
        ("number1", "abstract2.txt"),
        ("number2", "note.md"),
        ("number3", "server.log"),
    ] {
        let (_, reply) = daemon.post(
            "/retrieve",
            &json!({ "query": query, "top_k": 5, "mode": "lexical" }).to_string(),
        );
        assert_eq!(result_paths(&reply), vec![expected], "{query}: {reply}");
        let line_start = &reply["results"][0]["metadata"]["line_start"];
        assert_eq!(line_start, &Value::from(1), "{reply}");
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut client = rt.block_on(daemon.client());
    let text = rt
        .block_on(client.get_text(pb::FileRequest {
            path: "data.json".into(),
        }))
        .unwrap()
        .into_inner();
    assert!(text.segments.len() > 1, "minified JSON is cut into spans");
    assert!(text
        .segments
        .last()
        .unwrap()
        .text
        .contains("jsontailmarker"));
}

#[test]
fn real_names_with_hash_signs_are_indexed_and_found_as_themselves() {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    write(
        &root.join("Notes/C#/x#1.md"),
        "Pattern matching in qxsharpword is exhaustive.\n",
    );
    write(
        &root.join("Invoices/invoice #12.txt"),
        "Invoice qxhashinvoice total due 40 EUR.\n",
    );
    write(&root.join("Odd#attachment/z.txt"), "qxreservedword\n");
    let summary = index_with(root, index_dir.path(), &["--no-embed"]);
    assert_eq!(summary["files"]["indexed"], 2, "{summary}");
    assert!(
        summary["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["path"] == "Odd#attachment/z.txt" && s["category"] == "reserved_name"),
        "{summary}"
    );
    let daemon = Daemon::start(index_dir.path());
    for (query, path, name) in [
        ("qxsharpword", "Notes/C#/x#1.md", "x#1.md"),
        (
            "qxhashinvoice",
            "Invoices/invoice #12.txt",
            "invoice #12.txt",
        ),
    ] {
        let (_, reply) = daemon.post(
            "/retrieve",
            &json!({ "query": query, "top_k": 5, "mode": "lexical" }).to_string(),
        );
        assert_eq!(result_paths(&reply), vec![path], "{reply}");
        let metadata = &reply["results"][0]["metadata"];
        assert_eq!(metadata["file_name"], name, "{reply}");
        assert_eq!(metadata["file_info"]["file_path"], path, "{reply}");
        let (status, text) = daemon.get(&format!("/api/return_txt/{}", url_path(path)));
        assert_eq!(status, 200);
        assert_eq!(text["data"]["file_info"]["file_path"], path, "{text}");
        assert_eq!(text["data"]["file_info"]["file_name"], name, "{text}");
    }
    // A folder filter on the folder with `#` in its name.
    let (_, reply) = daemon.post(
        "/retrieve",
        &json!({ "query": "pattern matching", "top_k": 5, "mode": "lexical",
                 "path_prefixes": ["Notes/C#"] })
        .to_string(),
    );
    assert_eq!(result_paths(&reply), vec!["Notes/C#/x#1.md"], "{reply}");
    let (_, reply) = daemon.post(
        "/retrieve",
        &json!({ "query": "qxreservedword", "top_k": 5, "mode": "lexical" }).to_string(),
    );
    assert!(result_paths(&reply).is_empty(), "{reply}");
}

#[test]
fn a_damaged_manifest_stops_the_daemon_with_its_name_and_long_fields_are_refused() {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    write(&profile.path().join("a.txt"), "hello\n");
    index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    {
        // A 1 MB `when` is refused with a clear 400, not echoed back.
        let daemon = Daemon::start(index_dir.path());
        let body = json!({ "when": "x".repeat(1_000_000) }).to_string();
        let (status, reply) = daemon.post("/api/timeline", &body);
        assert_eq!(status, 400);
        assert!(reply.to_string().len() < 1000, "the reply echoes the input");
    }
    let manifest = index_dir.path().join("manifest.sqlite");
    let bytes = std::fs::read(&manifest).unwrap();
    std::fs::write(&manifest, &bytes[..bytes.len() / 2]).unwrap();
    crate::load::refuses_naming(index_dir.path(), "manifest.sqlite");
}
