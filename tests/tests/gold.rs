//! HippoCamp Gold import (`dentate-index --gold`): Gold segments replace the converter's
//! units of matched files, with page and time locators; edits to a Gold file re-index
//! its target.

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::{copy_tree, eventually, index_with, repo_root, Daemon};

const PDF: &str = "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf";
const WAV: &str = "Voice Memos/2024-03-08 shelf measurements.wav";

fn retrieve(daemon: &Daemon, query: &str) -> Vec<Value> {
    let body = json!({ "query": query, "top_k": 3, "mode": "lexical" }).to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    reply["results"].as_array().cloned().unwrap_or_default()
}

fn top_metadata(daemon: &Daemon, query: &str) -> Value {
    let results = retrieve(daemon, query);
    assert!(!results.is_empty(), "{query:?} found nothing");
    results[0]["metadata"].clone()
}

#[test]
fn gold_segments_replace_units_and_follow_gold_edits() {
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    let gold = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("tests/fixtures/gold"), gold.path());
    let index_dir = tempfile::tempdir().unwrap();
    let gold_arg = gold.path().to_str().unwrap();
    let args = ["--gold", gold_arg, "--no-embed"];

    let first = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(first["gold"]["matched"], 3, "{}", first["gold"]);
    assert_eq!(first["gold"]["unmatched"], 1, "{}", first["gold"]);
    assert_eq!(first["gold"]["invalid"], 1, "{}", first["gold"]);
    assert_eq!(first["gold"]["unmatched_files"], json!(["unmatched.json"]));
    let warnings = first["gold"]["warnings"].to_string();
    assert!(warnings.contains("broken.json"), "{warnings}");

    let daemon = Daemon::start(index_dir.path());

    // Document: the Gold page-2 segment, with its page.
    let pdf = top_metadata(&daemon, "zebra-marker gold page two");
    assert_eq!(pdf["file_path"], PDF);
    assert_eq!(pdf["page"], 2);
    assert_eq!(pdf["kind"], "page");
    // The summary is a searchable file-level unit.
    let summary = top_metadata(&daemon, "quokka");
    assert_eq!(summary["file_path"], PDF);
    assert_eq!(summary["kind"], "metadata");
    // The converter's own text of the PDF is gone (Gold replaces it).
    let converted_text = retrieve(&daemon, "Balance due");
    assert!(
        converted_text
            .iter()
            .all(|r| r["metadata"]["file_path"] != PDF),
        "{converted_text:?}"
    );

    // Audio: the Gold segment with its time window (matched by unique file name).
    let wav = top_metadata(&daemon, "okapi-marker shelf reading");
    assert_eq!(wav["file_path"], WAV);
    assert_eq!(wav["kind"], "media");
    assert_eq!(wav["start"].as_f64(), Some(3.0));
    assert_eq!(wav["end"].as_f64(), Some(7.5));

    // Plain text: a span without locator.
    let span = top_metadata(&daemon, "pangolin-marker");
    assert_eq!(span["file_path"], "Notes/choir.md");
    assert_eq!(span["kind"], "span");

    // Unchanged profile and Gold folder: nothing converted.
    let again = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(again["converted"], 0, "{again}");
    assert_eq!(again["gold"]["matched"], 3);

    // Editing a Gold file re-indexes exactly its target.
    let gold_wav = gold.path().join("Ros/Audio/shelf measurements.json");
    let text = std::fs::read_to_string(&gold_wav).unwrap();
    std::fs::write(&gold_wav, text.replace("okapi-marker", "wombat-marker")).unwrap();
    let edited = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(edited["converted"], 1, "{edited}");
    assert!(
        eventually(Duration::from_secs(10), || {
            retrieve(&daemon, "wombat-marker")
                .first()
                .is_some_and(|r| r["metadata"]["file_path"] == WAV)
        }),
        "edited Gold text not searchable"
    );
    assert!(retrieve(&daemon, "okapi").is_empty());

    // Without --gold the files are converted normally again.
    let plain = index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    assert_eq!(plain["converted"], 3, "{plain}");
    assert_eq!(plain["gold"]["matched"], 0);
    assert!(
        eventually(Duration::from_secs(10), || retrieve(&daemon, "zebra")
            .is_empty()),
        "Gold units left behind"
    );
}
