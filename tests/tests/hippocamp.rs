//! HippoCamp parity: every WebUI route and terminal command answers with HippoCamp's
//! keys and JSON types (`tests/fixtures/hippocamp/shapes.json`, written from its
//! documentation), HippoCamp's chunk post-processing over `/retrieve` finds the same
//! files as Dentate's scorer, and no route or command serves a path outside the profile.

use std::path::Path;
use std::process::Command;

use base64::Engine as _;
use serde_json::{json, Value};

use crate::harness::{binary, copy_tree, index, repo_root, url_path, Daemon};

fn shapes() -> Value {
    let text = std::fs::read_to_string(repo_root().join("tests/fixtures/hippocamp/shapes.json"))
        .expect("shapes fixture");
    serde_json::from_str(&text).expect("shapes JSON")
}

fn is_type(value: &Value, ty: &str) -> bool {
    ty.split('|').any(|ty| match ty {
        "string" => value.is_string(),
        "int" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "bool" => value.is_boolean(),
        "null" => value.is_null(),
        "object" => value.is_object(),
        "clock" => value.as_str().is_some_and(|s| {
            let parts: Vec<&str> = s.split(':').collect();
            (2..=3).contains(&parts.len())
                && parts
                    .iter()
                    .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()))
        }),
        array if array.starts_with("array<") => {
            let inner = &array[6..array.len() - 1];
            value
                .as_array()
                .is_some_and(|items| items.iter().all(|item| is_type(item, inner)))
        }
        other => panic!("unknown type {other:?} in the shapes fixture"),
    })
}

/// Asserts that `value` has every key of `shape` with its type.
fn check(shapes: &Value, shape: &str, value: &Value) {
    let spec = shapes[shape]
        .as_object()
        .unwrap_or_else(|| panic!("no shape {shape:?}"));
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{shape}: not an object: {value}"));
    for (key, ty) in spec {
        let (key, optional) = match key.strip_suffix('?') {
            Some(key) => (key, true),
            None => (key.as_str(), false),
        };
        match object.get(key) {
            None if optional => {}
            None => panic!("{shape}: key {key:?} missing in {value}"),
            Some(found) => assert!(
                is_type(found, ty.as_str().unwrap()),
                "{shape}: {key:?} should be {ty}, is {found}"
            ),
        }
    }
}

/// The file list HippoCamp's `run_query.py` builds from retrieved chunks: each chunk's
/// `metadata.file_info.file_path`, else `file_name`, else `file_id`; falsy values
/// skipped; first occurrence kept.
fn hippocamp_file_list(reply: &Value) -> Vec<String> {
    let mut files = Vec::new();
    for chunk in reply["results"].as_array().unwrap() {
        let info = &chunk["metadata"]["file_info"];
        let pick = [&info["file_path"], &info["file_name"], &info["file_id"]]
            .into_iter()
            .find_map(|v| match v {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
        if let Some(file) = pick {
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// Runs a terminal command through the multicall binary; returns (exit code, JSON).
fn command(daemon: &Daemon, bin_dir: &Path, out: &Path, name: &str, args: &[&str]) -> (i32, Value) {
    let output = Command::new(bin_dir.join(name))
        .args(args)
        .env("DENTATE_URL", format!("http://{}", daemon.http))
        .env("DENTATE_OUTPUT_DIR", out)
        .output()
        .expect("run the command");
    assert!(
        output.stderr.is_empty(),
        "{name} wrote to stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{name} {args:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (output.status.code().unwrap_or(-1), json)
}

#[test]
fn routes_and_commands_answer_in_hippocamp_shapes() {
    let shapes = shapes();
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    // A memo with real speech (the sample's own is a tone), under a name with spaces.
    let memo = "Voice Memos/plumber and gate code.mp3";
    std::fs::copy(
        repo_root().join("tests/fixtures/media/memo.mp3"),
        profile.path().join(memo),
    )
    .unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    index(profile.path(), index_dir.path());
    let daemon = Daemon::start(index_dir.path());
    let root = profile.path();

    // /retrieve: nested metadata for every result, same files as our scorer.
    let mut neighbours_seen = 0;
    for query in [
        "shelf measurements alcove width",
        "Hartcliffe invoice balance due",
        "choir rehearsal",
        "allotment",
    ] {
        let body = json!({ "query": query, "top_k": 10 }).to_string();
        let (status, reply) = daemon.post("/retrieve", &body);
        assert_eq!(status, 200, "{reply}");
        check(&shapes, "retrieve", &reply);
        for result in reply["results"].as_array().unwrap() {
            check(&shapes, "retrieve.result", result);
            let metadata = &result["metadata"];
            check(&shapes, "retrieve.metadata", metadata);
            check(&shapes, "retrieve.file_info", &metadata["file_info"]);
            check(&shapes, "retrieve.segment_info", &metadata["segment_info"]);
            check(&shapes, "retrieve.chunk_meta", &metadata["chunk_meta"]);
            for range in metadata["segment_info"]["time_ranges"]
                .as_array()
                .into_iter()
                .flatten()
            {
                check(&shapes, "retrieve.time_range", range);
            }
            let on_disk = metadata["file_info"]["file_path"].as_str().unwrap();
            assert!(root.join(on_disk).is_file(), "{on_disk} is not a file");
        }
        let ours = eval::files_from_retrieve_reply(&reply);
        assert!(!ours.is_empty(), "{query}: {reply}");
        assert_eq!(hippocamp_file_list(&reply), ours, "{query}");

        // Without snippets: the same units, scores and texts, and no `snippet`.
        let body = json!({ "query": query, "top_k": 10, "snippets": false }).to_string();
        let (_, with_context) = daemon.post(
            "/retrieve",
            &json!({ "query": query, "top_k": 3, "snippets": false, "context": 1 }).to_string(),
        );
        for result in with_context["results"].as_array().unwrap() {
            assert!(result["metadata"].get("snippet").is_none(), "{result}");
            neighbours_seen += usize::from(result["metadata"]["context"] == true);
        }
        let (status, bare) = daemon.post("/retrieve", &body);
        assert_eq!(status, 200, "{bare}");
        let results = |reply: &Value| reply["results"].as_array().unwrap().clone();
        assert_eq!(results(&bare).len(), results(&reply).len(), "{query}");
        for (with, without) in results(&reply).iter().zip(results(&bare).iter()) {
            for key in ["id", "text", "score"] {
                assert_eq!(with[key], without[key], "{query}: {key}");
            }
            assert!(with["metadata"]["snippet"].is_string(), "{with}");
            assert!(without["metadata"].get("snippet").is_none(), "{without}");
            let mut trimmed = with["metadata"].clone();
            trimmed.as_object_mut().unwrap().remove("snippet");
            assert_eq!(trimmed, without["metadata"], "{query}");
        }
    }
    assert!(
        neighbours_seen > 0,
        "no neighbour was shown without its snippet"
    );
    // Grouped search always has its snippets: the switch is refused, not ignored.
    let (status, refused) = daemon.post(
        "/api/search",
        &json!({ "query": "choir rehearsal", "snippets": false }).to_string(),
    );
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("/api/search"),
        "{refused}"
    );
    // A time range of an audio hit, in seconds.
    let (_, reply) = daemon.post(
        "/retrieve",
        &json!({ "query": "plumber water heater", "top_k": 10, "modalities": ["audio"] })
            .to_string(),
    );
    let timed = reply["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metadata"]["segment_info"]["time_ranges"].is_array())
        .unwrap_or_else(|| panic!("no timed audio unit: {reply}"));
    let range = &timed["metadata"]["segment_info"]["time_ranges"][0];
    assert!(range["end"].as_f64().unwrap() > range["start"].as_f64().unwrap());

    // Listings.
    let (status, listing) = daemon.get("/api/files/list?pattern=*.pdf");
    assert_eq!(status, 200);
    check(&shapes, "files_list", &listing);
    let pdfs: Vec<String> = serde_json::from_value(listing["files"].clone()).unwrap();
    assert!(
        pdfs.len() >= 3 && pdfs.iter().all(|p| p.ends_with(".pdf")),
        "{pdfs:?}"
    );
    assert_eq!(listing["total"], pdfs.len());
    let (_, memos) = daemon.get(&format!(
        "/api/files/list?pattern={}",
        url_path("Voice Memos/")
    ));
    assert_eq!(
        memos["files"],
        json!([
            "Voice Memos/2024-03-08 shelf measurements.wav",
            "Voice Memos/plumber and gate code.mp3"
        ])
    );
    let (_, all) = daemon.get("/api/files/list");
    let all: Vec<String> = serde_json::from_value(all["files"].clone()).unwrap();
    assert!(all.iter().all(|p| !p.contains("#attachment/")));
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted);

    let (status, tree) = daemon.get("/api/files");
    assert_eq!(status, 200);
    check(&shapes, "files_tree", &tree);
    assert_eq!(tree["total"], all.len());
    fn walk(shapes: &Value, nodes: &Value, files: &mut Vec<String>) {
        for node in nodes.as_array().unwrap() {
            if node["type"] == "directory" {
                check(shapes, "tree.directory", node);
                walk(shapes, &node["children"], files);
            } else {
                check(shapes, "tree.file", node);
                files.push(node["path"].as_str().unwrap().to_string());
            }
        }
    }
    let mut in_tree = Vec::new();
    walk(&shapes, &tree["files"], &mut in_tree);
    in_tree.sort();
    assert_eq!(in_tree, all);
    let (_, notes) = daemon.get("/api/files?path=Notes");
    // A folder's subtree, still rooted at the profile.
    assert_eq!(notes["files"].as_array().unwrap().len(), 1, "{notes}");
    assert_eq!(notes["files"][0]["path"], "Notes", "{notes}");
    assert_eq!(notes["total"], 4, "{notes}");

    // return_txt: Gold-style data; pages for a PDF, clock times for audio.
    let pdf = pdfs
        .iter()
        .find(|p| p.contains("Invoice") || p.contains("invoice"))
        .unwrap_or(&pdfs[0])
        .clone();
    for route in ["return_txt", "return_txt_full"] {
        let (status, reply) = daemon.get(&format!("/api/{route}/{}", url_path(&pdf)));
        assert_eq!(status, 200);
        check(&shapes, "return_txt", &reply);
        check(&shapes, "return_txt.data", &reply["data"]);
        check(&shapes, "gold.file_info", &reply["data"]["file_info"]);
        assert_eq!(reply["data"]["file_info"]["file_path"], pdf.as_str());
        for segment in reply["data"]["segments"].as_array().unwrap() {
            check(&shapes, "segment.page", segment);
        }
    }
    let (_, reply) = daemon.get(&format!("/api/return_txt/{}", url_path(memo)));
    let segments = reply["data"]["segments"].as_array().unwrap();
    let timed: Vec<&Value> = segments
        .iter()
        .filter(|s| s.get("start").is_some())
        .collect();
    assert!(!timed.is_empty(), "{reply}");
    for segment in timed {
        check(&shapes, "segment.time", segment);
    }
    let (_, preview) = daemon.get(&format!(
        "/api/return_txt/{}?preview=1&max_chars=100",
        url_path(&pdf)
    ));
    check(&shapes, "return_txt.preview", &preview);
    assert_eq!(preview["truncated"], true);
    assert_eq!(
        preview["data_preview"].as_str().unwrap().chars().count(),
        100
    );

    // return_metadata.
    let (_, meta) = daemon.get(&format!("/api/return_metadata/{}", url_path(&pdf)));
    check(&shapes, "return_metadata", &meta);
    check(&shapes, "return_metadata.metadata", &meta["metadata"]);
    assert_eq!(meta["metadata"]["file_modality"], "document");

    // return_img: a PDF page, written where image_path says.
    let (_, image) = daemon.get(&format!("/api/return_img/{}?page=1", url_path(&pdf)));
    check(&shapes, "return_img", &image);
    assert!(image["image_b64"].as_str().unwrap().starts_with("/9j/"));
    assert!(Path::new(image["image_path"].as_str().unwrap()).is_file());
    assert!(image["page_count"].as_u64().unwrap() >= 1);
    let (status, bad) = daemon.get(&format!("/api/return_img/{}?page=999", url_path(&pdf)));
    assert_eq!(status, 200);
    check(&shapes, "failure", &bad);
    assert_eq!(bad["success"], false);

    // return_ori and serve_file: the original bytes.
    let original = std::fs::read(root.join(&pdf)).unwrap();
    for route in ["return_ori", "return_ori_full"] {
        let (_, ori) = daemon.get(&format!("/api/{route}/{}", url_path(&pdf)));
        check(&shapes, "return_ori", &ori);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(ori["file_b64"].as_str().unwrap())
            .unwrap();
        assert_eq!(bytes, original);
        assert!(ori["file_path"].as_str().unwrap().ends_with(&pdf));
    }
    let (_, preview) = daemon.get(&format!("/api/return_ori/{}?preview=1", url_path(&pdf)));
    check(&shapes, "return_ori.preview", &preview);
    let (status, raw) = daemon.get_raw(&format!("/api/serve_file/{}", url_path(&pdf)));
    assert_eq!(status, 200);
    assert_eq!(raw, original);
    let (status, missing) = daemon.get("/api/serve_file/no/such/file.pdf");
    assert_eq!(status, 404);
    check(&shapes, "failure", &missing);

    // Nothing outside the profile, through any route.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "top secret canary").unwrap();
    std::fs::remove_file(root.join(&pdf)).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join(&pdf)).unwrap();
    let escapes = [
        "../../../../etc/passwd".to_string(),
        "%2e%2e/%2e%2e/%2e%2e/etc/passwd".to_string(),
        "..%2f..%2f..%2fetc%2fpasswd".to_string(),
        "/etc/passwd".to_string(),
        "%2fetc%2fpasswd".to_string(),
        "Notes/../../../etc/passwd".to_string(),
        url_path(&pdf),
    ];
    for escape in &escapes {
        for route in [
            "return_txt",
            "return_txt_full",
            "return_metadata",
            "return_img",
            "return_ori",
            "return_ori_full",
            "serve_file",
        ] {
            let (status, body) = daemon.get_raw(&format!("/api/{route}/{escape}"));
            let text = String::from_utf8_lossy(&body);
            assert!(
                !text.contains("root:") && !text.contains("top secret"),
                "{route}/{escape}: {text}"
            );
            let encoded = base64::engine::general_purpose::STANDARD.encode("top secret canary");
            assert!(!text.contains(&encoded), "{route}/{escape}: {text}");
            let refused = status == 404
                || serde_json::from_slice::<Value>(&body)
                    .is_ok_and(|v| v["success"] == Value::Bool(false));
            assert!(refused, "{route}/{escape} answered {status}: {text}");
        }
    }
    std::fs::remove_file(root.join(&pdf)).unwrap();
    std::fs::write(root.join(&pdf), &original).unwrap();

    // The terminal commands, through links named like them.
    let links = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let installed = Command::new(binary("dentate-tools"))
        .arg("install")
        .arg(links.path())
        .output()
        .unwrap();
    assert!(installed.status.success());
    let bin = links.path();
    let (code, listed) = command(&daemon, bin, out.path(), "list_files", &["*.pdf"]);
    assert_eq!(code, 0);
    check(&shapes, "cli.list_files", &listed);
    assert_eq!(listed["data"], json!(pdfs));
    assert_eq!(listed["count"], pdfs.len());
    let (code, text) = command(&daemon, bin, out.path(), "return_txt", &[&pdf]);
    assert_eq!(code, 0, "{text}");
    check(&shapes, "cli.return_txt", &text);
    check(&shapes, "gold.file_info", &text["data"]["file_info"]);
    // A path with spaces given unquoted (several words) and with the data folder prefix.
    let words: Vec<&str> = memo.split(' ').collect();
    let (code, text) = command(&daemon, bin, out.path(), "return_txt", &words);
    assert_eq!(code, 0, "{text}");
    assert_eq!(text["data"]["file_info"]["file_path"], memo);
    let prefixed = format!("/hippocamp/data/{memo}");
    let (code, meta) = command(&daemon, bin, out.path(), "return_metadata", &[&prefixed]);
    assert_eq!(code, 0, "{meta}");
    check(&shapes, "cli.return_metadata", &meta);
    check(&shapes, "return_metadata.metadata", &meta["metadata"]);
    let (code, image) = command(
        &daemon,
        bin,
        out.path(),
        "return_img",
        &[&pdf, "--page", "1"],
    );
    assert_eq!(code, 0, "{image}");
    check(&shapes, "cli.return_img", &image);
    let written = Path::new(image["image_path"].as_str().unwrap());
    assert!(
        written.starts_with(out.path()) && written.is_file(),
        "{image}"
    );
    let chosen = out.path().join("page.png");
    let (code, image) = command(
        &daemon,
        bin,
        out.path(),
        "return_img",
        &[&pdf, chosen.to_str().unwrap(), "--page", "1"],
    );
    assert_eq!(code, 0, "{image}");
    assert_eq!(image["image_path"], chosen.to_str().unwrap());
    assert!(std::fs::read(&chosen).unwrap().starts_with(b"\xFF\xD8"));
    let copy = out.path().join("copy.pdf");
    let (code, ori) = command(
        &daemon,
        bin,
        out.path(),
        "return_ori",
        &[&pdf, copy.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{ori}");
    check(&shapes, "cli.return_ori", &ori);
    assert_eq!(std::fs::read(&copy).unwrap(), original);
    let (code, help) = command(&daemon, bin, out.path(), "hhelp", &[]);
    assert_eq!(code, 0);
    check(&shapes, "cli.hhelp", &help);
    // Failures: exit 1, HippoCamp's failure envelope.
    for (name, args) in [
        ("return_txt", vec!["../../etc/passwd"]),
        ("return_txt", vec!["no/such/file.txt"]),
        ("return_txt", vec![]),
        ("return_ori", vec!["/etc/passwd"]),
        ("return_img", vec![pdf.as_str(), "--page", "999"]),
        ("return_metadata", vec!["%2e%2e/x"]),
    ] {
        let (code, reply) = command(&daemon, bin, out.path(), name, &args);
        assert_eq!(code, 1, "{name} {args:?}: {reply}");
        check(&shapes, "failure", &reply);
        assert_eq!(reply["success"], false);
    }
    // The multicall form.
    let output = Command::new(binary("dentate-tools"))
        .args(["list_files", "Notes/"])
        .env("DENTATE_URL", format!("http://{}", daemon.http))
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(listed["count"].as_u64().unwrap() >= 4, "{listed}");
}

/// The container recipe's entrypoint (`docker/entrypoint.sh`), run outside Docker (no
/// Docker engine runs on the test machines): it indexes the mounted profile, serves it,
/// and runs a HippoCamp command against it with the commands on PATH.
#[test]
fn the_container_entrypoint_indexes_serves_and_runs_a_command() {
    let profile = tempfile::tempdir().unwrap();
    copy_tree(
        &repo_root().join("samples/profile/Notes"),
        &profile.path().join("Notes"),
    );
    let index_dir = tempfile::tempdir().unwrap();
    let links = tempfile::tempdir().unwrap();
    let installed = Command::new(binary("dentate-tools"))
        .arg("install")
        .arg(links.path())
        .output()
        .unwrap();
    assert!(installed.status.success());
    let path = format!(
        "{}:{}:{}",
        links.path().display(),
        crate::harness::bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        Command::new(repo_root().join("docker/entrypoint.sh"))
            .args(args)
            .env("PATH", &path)
            .env("DENTATE_DATA_DIR", profile.path())
            .env("DENTATE_INDEX_DIR", index_dir.path())
            .env("DENTATE_HTTP_ADDR", "127.0.0.1:0")
            .env("DENTATE_GRPC_ADDR", "127.0.0.1:0")
            .env("DENTATE_INDEX_ARGS", "--no-embed")
            .env_remove("DENTATE_URL")
            .output()
            .unwrap()
    };
    let output = run(&["list_files", "*.md"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON object ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    assert_eq!(listed["success"], true);
    assert_eq!(listed["count"], 4, "{listed}");
    // A second start reuses the index; a failing command's status comes through.
    let output = run(&["return_txt", "Notes/nope.md"]);
    assert_eq!(output.status.code(), Some(1));
    let reply: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(reply["success"], false);
    // No profile: a clear error.
    let output = Command::new(repo_root().join("docker/entrypoint.sh"))
        .env("PATH", &path)
        .env("DENTATE_DATA_DIR", "/nonexistent/profile")
        .env("DENTATE_INDEX_DIR", index_dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no profile at"));
}
