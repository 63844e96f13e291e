//! The Qdrant backend end to end: `dentate-index --backend qdrant` syncs the sample
//! profile into a real Qdrant server (`../shared/bin/qdrant`, started on loopback, or
//! `DENTATE_QDRANT_URL`), and `dentate-searchd --backend qdrant` answers like the
//! embedded daemon over the same index. Without a server the test prints `skipped:`.

use serde_json::{json, Value};

use crate::harness::{
    copy_tree, index_with, qdrant_args, repo_root, result_paths, url_path, Daemon,
};

const PLAN: &str = "Documents/Shop/Lantern Business Plan 2024-2026.pdf";

/// Questions about the sample profile with one clear answer file.
const QUESTIONS: [&str; 8] = [
    "invoice total",
    "joinery quote for the shelving",
    "meeting with the bank in February",
    "children's corner or a cafe",
    "choir requiem practice",
    "grant application for the shop",
    "daily takings in March",
    "Felix birthday plan",
];

#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn a_profile_synced_to_qdrant_is_served_like_the_embedded_index() {
    let server = dentate_qdrant::testing::require_server();
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    // A copy of one document, for the copies fold over the remote backend.
    std::fs::copy(
        profile.path().join(PLAN),
        profile.path().join("Desktop/Lantern plan - copy.pdf"),
    )
    .unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let collection = format!("e2e_{}", std::process::id());
    let backend = qdrant_args(&server.url, &collection);
    let mut args = vec!["--no-media", "--no-ocr"];
    args.extend(backend);
    let first = index_with(profile.path(), index_dir.path(), &args);
    let synced = &first["qdrant"];
    let files = synced["files"].as_u64().unwrap();
    assert!(files > 10, "{first}");
    assert_eq!(synced["changed"].as_u64(), Some(files), "{synced}");
    assert!(synced["units_written"].as_u64().unwrap() > 0, "{synced}");
    // A second run has nothing to convert and nothing to send.
    let again = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(again["qdrant"]["changed"], 0, "{again}");
    assert_eq!(again["qdrant"]["unchanged"].as_u64(), Some(files));

    let embedded = Daemon::start(index_dir.path());
    let remote = Daemon::start_with(index_dir.path(), &backend);
    let (_, stats) = remote.get("/api/stats");
    let (_, local_stats) = embedded.get("/api/stats");
    assert_eq!(stats["backend"], "qdrant", "{stats}");
    assert_eq!(local_stats["backend"], "embedded");
    assert_eq!(stats["totals"], local_stats["totals"]);
    assert_eq!(
        stats["embedding_coverage"],
        local_stats["embedding_coverage"]
    );

    for mode in ["lexical", "hybrid"] {
        let mut same = 0;
        for question in QUESTIONS {
            let body = json!({"query": question, "top_k": 5, "mode": mode}).to_string();
            let (status, local) = embedded.post("/retrieve", &body);
            assert_eq!(status, 200, "{local}");
            let (status, served) = remote.post("/retrieve", &body);
            assert_eq!(status, 200, "{served}");
            // A unit found by both retrievers is one hit.
            let ids: Vec<String> = served["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].to_string())
                .collect();
            let distinct: std::collections::HashSet<&String> = ids.iter().collect();
            assert_eq!(distinct.len(), ids.len(), "{mode} {question:?}: {ids:?}");
            let (local, served) = (result_paths(&local), result_paths(&served));
            assert!(
                !served.is_empty(),
                "{mode} {question:?}: no results from qdrant"
            );
            if local.first() == served.first() {
                same += 1;
            }
        }
        assert!(
            same >= QUESTIONS.len() - 1,
            "{mode}: the first file agrees on only {same} of {} questions",
            QUESTIONS.len()
        );
    }
    // Fusion by Qdrant (one Query API request) finds the same first files as the daemon's
    // fusion, and explain says who fused. Compared under RRF, which both compute alike:
    // the server's DBSF clamps at 1 and weighs every unit kind alike, where the daemon's
    // keeps part of an outlier's lead and weighs mails and events less in BM25's list
    // (`weights.json`), so under DBSF they differ by design.
    let mut fused_args = backend.to_vec();
    fused_args.extend(["--qdrant-fusion", "server"]);
    let server_fused = Daemon::start_with(index_dir.path(), &fused_args);
    let mut same = 0;
    for question in QUESTIONS {
        let body = json!({"query": question, "top_k": 5, "fusion": "rrf"}).to_string();
        let (_, daemon_fused) = remote.post("/retrieve", &body);
        let (status, fused) = server_fused.post("/retrieve", &body);
        assert_eq!(status, 200, "{fused}");
        let (a, b) = (result_paths(&daemon_fused), result_paths(&fused));
        assert!(!b.is_empty(), "{question:?}: no results fused by qdrant");
        if a.first() == b.first() {
            same += 1;
        }
    }
    assert!(
        same >= QUESTIONS.len() - 1,
        "server fusion: the first file agrees on only {same} of {} questions",
        QUESTIONS.len()
    );
    for (fusion, note) in [
        ("rrf", "fused by the backend (qdrant, rrf k=60)"),
        ("dbsf", "fused by the backend (qdrant, dbsf)"),
    ] {
        let body = json!({"query": "invoice total", "explain": true, "fusion": fusion});
        let (status, explained) = server_fused.post("/api/search", &body.to_string());
        assert_eq!(status, 200, "{explained}");
        assert!(
            explained["explain"].to_string().contains(note),
            "{explained}"
        );
        assert!(
            !explained["files"].as_array().unwrap().is_empty(),
            "{explained}"
        );
        // The daemon's own fusion answers the same request too.
        let (status, local) = embedded.post("/api/search", &body.to_string());
        assert_eq!(status, 200, "{local}");
        assert!(
            !local["explain"]
                .to_string()
                .contains("fused by the backend"),
            "{local}"
        );
    }
    // Weighted fusion stays the daemon's.
    let body = json!({"query": "invoice total", "explain": true, "fusion": "weighted"});
    let (_, explained) = server_fused.post("/api/search", &body.to_string());
    assert!(
        !explained["explain"]
            .to_string()
            .contains("fused by the backend"),
        "{explained}"
    );
    drop(server_fused);

    // Copies fold over the remote backend as over the embedded index (content hashes
    // read from the file points).
    let body = json!({"query": "lantern business plan", "explain": true, "mode": "lexical"});
    for daemon in [&embedded, &remote] {
        let (status, reply) = daemon.post("/api/search", &body.to_string());
        assert_eq!(status, 200, "{reply}");
        let paths: Vec<&str> = reply["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file"]["path"].as_str().unwrap())
            .collect();
        assert!(paths.contains(&PLAN), "{paths:?}");
        assert!(!paths.iter().any(|p| p.contains("- copy")), "{paths:?}");
        assert!(reply["explain"].to_string().contains("copies: "), "{reply}");
    }

    // explain says which backend answered; filters work remotely.
    let (_, explained) = remote.post(
        "/api/search",
        &json!({"query": "invoice", "explain": true, "path_prefixes": ["Documents"]}).to_string(),
    );
    let notes = explained["explain"].to_string();
    assert!(notes.contains("backend: qdrant"), "{explained}");
    for file in explained["files"].as_array().unwrap() {
        let path = file["file"]["path"].as_str().unwrap();
        assert!(path.starts_with("Documents/"), "{path}");
    }
    // Per-signal BM25 scores in explain, close to tantivy's for the same unit.
    let body = json!({"query": "invoice total", "explain": true, "mode": "lexical", "top_k": 1});
    let (_, local) = embedded.post("/api/search", &body.to_string());
    let (_, served) = remote.post("/api/search", &body.to_string());
    let signals = |reply: &Value| reply["files"][0]["units"][0]["metadata"]["explain"].clone();
    let (local, served) = (signals(&local), signals(&served));
    assert_eq!(
        local["bm25.rank"], served["bm25.rank"],
        "{local} / {served}"
    );
    for name in ["bm25.text", "bm25.title", "bm25.name"] {
        let (a, b) = (
            local[name].as_f64().unwrap(),
            served[name].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() <= 0.15 * a.max(b) + 1e-6,
            "{name}: tantivy {a}, qdrant {b} ({local} / {served})"
        );
    }
    assert!(served["bm25.text"].as_f64().unwrap() > 0.0, "{served}");
    // The file tools read the same records and units.
    let (_, listed) = remote.get("/api/list_files?pattern=*.pdf");
    let (_, local_listed) = embedded.get("/api/list_files?pattern=*.pdf");
    assert_eq!(listed, local_listed);
    let first_pdf = listed["data"]["files"][0]["file_path"]
        .as_str()
        .unwrap()
        .to_string();
    let text_path = format!("/api/return_txt/{}", url_path(&first_pdf));
    let (status, text) = remote.get(&text_path);
    assert_eq!(status, 200, "{text}");
    assert_eq!(text, embedded.get(&text_path).1);
    // A timeline over everything lists the same units.
    let window = json!({"start": 0, "end": 4_000_000_000i64}).to_string();
    let units = |reply: &Value| reply["units_matched"].clone();
    assert_eq!(
        units(&remote.post("/api/timeline", &window).1),
        units(&embedded.post("/api/timeline", &window).1)
    );
    // The routine reads the same units and records through the storage boundary; the
    // activity log stays with the embedded index.
    let (status, local) = embedded.get("/api/routine");
    assert_eq!(status, 200, "{local}");
    let (status, served) = remote.get("/api/routine");
    assert_eq!(status, 200, "{served}");
    assert_eq!(served["activity_available"], false, "{served}");
    assert_eq!(local["activity_available"], true);
    assert!(local["content"]["total"].as_u64().unwrap() > 0, "{local}");
    for figure in ["content", "calendar", "series", "people"] {
        assert_eq!(served[figure], local[figure], "{figure}");
    }
    // Folders and habits: the same but for the activity figures, which only the embedded
    // index has (the indexer's first run recorded each file's creation).
    // (Activity also weighs in the choice of the top folders, so only folders both list
    // are compared.)
    let without_activity = |routine: &Value| {
        let mut habits = routine["habits"].clone();
        let by_activity = habits["folders_by_activity"].take();
        let folders: std::collections::BTreeMap<String, Value> = routine["by_folder"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["folder"].as_str().unwrap().to_string(),
                    f["content"].clone(),
                )
            })
            .collect();
        (habits, folders, by_activity)
    };
    let (served_habits, served_folders, served_activity) = without_activity(&served);
    let (local_habits, local_folders, local_activity) = without_activity(&local);
    assert_eq!(served_habits, local_habits);
    let mut compared = 0;
    for (folder, content) in &served_folders {
        if let Some(local) = local_folders.get(folder) {
            assert_eq!(content, local, "{folder}");
            compared += 1;
        }
    }
    assert!(compared > 0, "{served_folders:?} / {local_folders:?}");
    assert_eq!(served_activity, json!([]));
    assert!(!local_activity.as_array().unwrap().is_empty(), "{local}");
}
