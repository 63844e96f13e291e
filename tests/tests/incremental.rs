//! Incremental re-indexing, and a running daemon following the indexer's commits.

use std::time::Duration;

use crate::harness::{eventually, index, result_paths, write, Daemon};

/// Lexical results: exact membership is checkable (dense retrieval always returns the
/// nearest units, matching or not).
fn paths_for(daemon: &Daemon, query: &str) -> Vec<String> {
    paths_in_mode(daemon, query, "lexical")
}

fn paths_in_mode(daemon: &Daemon, query: &str, mode: &str) -> Vec<String> {
    let body = serde_json::json!({ "query": query, "top_k": 10, "mode": mode }).to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    result_paths(&reply)
}

#[test]
fn changes_are_picked_up_incrementally_without_restarting_the_daemon() {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    write(
        root,
        "Notes/garden.md",
        "Plant the tomatoes after the last frost in May.\n",
    );
    write(
        root,
        "Notes/bike.txt",
        "The bike lock combination is hidden in the blue notebook.\n",
    );
    write(
        root,
        "Notes/keep.txt",
        "This file never changes: sourdough starter feeding schedule.\n",
    );

    let first = index(root, index_dir.path());
    assert_eq!(first["files"]["indexed"], 3);
    assert_eq!(first["converted"], 3);

    let daemon = Daemon::start(index_dir.path());
    assert_eq!(
        paths_for(&daemon, "tomatoes frost"),
        vec!["Notes/garden.md"]
    );

    // Unchanged profile: no conversion at all.
    let again = index(root, index_dir.path());
    assert_eq!(again["converted"], 0);
    assert_eq!(again["unchanged"], 3);

    // Change one file, delete one, add one; touch one without changing its content.
    std::thread::sleep(Duration::from_millis(20));
    write(
        root,
        "Notes/garden.md",
        "Plant the peppers in June; tomatoes went in already.\n",
    );
    std::fs::remove_file(root.join("Notes/bike.txt")).unwrap();
    write(
        root,
        "Notes/new/recipe.md",
        "Pastel de nata needs puff pastry and a very hot oven.\n",
    );
    let keep = std::fs::File::options()
        .write(true)
        .open(root.join("Notes/keep.txt"))
        .unwrap();
    keep.set_modified(std::time::SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(keep);

    let third = index(root, index_dir.path());
    assert_eq!(third["converted"], 2, "{third}");
    assert_eq!(third["removed"], 1, "{third}");
    assert_eq!(third["touched"], 1, "{third}");
    assert_eq!(third["files"]["indexed"], 3);

    assert!(
        eventually(Duration::from_secs(10), || paths_for(
            &daemon,
            "puff pastry oven"
        ) == vec!["Notes/new/recipe.md"]),
        "daemon did not pick up the new file"
    );
    assert!(
        paths_for(&daemon, "bike lock combination").is_empty(),
        "deleted file still found"
    );
    assert_eq!(paths_for(&daemon, "peppers June"), vec!["Notes/garden.md"]);
    assert_eq!(
        paths_for(&daemon, "sourdough starter"),
        vec!["Notes/keep.txt"]
    );
    // Exactly one unit per small file: no duplicates left behind by re-indexing.
    let body = r#"{"query": "tomatoes", "top_k": 10, "mode": "lexical"}"#;
    let (_, reply) = daemon.post("/retrieve", body);
    assert_eq!(reply["results"].as_array().unwrap().len(), 1, "{reply}");
}

#[test]
fn an_index_refuses_another_profile() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    write(a.path(), "x.txt", "alpha");
    write(b.path(), "y.txt", "beta");
    index(a.path(), index_dir.path());
    let output = std::process::Command::new(crate::harness::binary("dentate-index"))
        .arg(b.path())
        .arg("--index")
        .arg(index_dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("was built for profile"), "{stderr}");
}
