//! Activity import (`dentate-index --import-trace`, `recently-used.xbel`): the fixture
//! FileGram trace (recorded under `/home/dana/workspace`) and bookmark file (of
//! `/home/dana`) land in the manifest's activity log with profile paths, exactly once.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use index::{ActivityEvent, ActivityQuery, ActivitySource, IndexLayout, Manifest};
use serde_json::{json, Value};

use crate::harness::{binary, index_with, repo_root};

const FILES: &[(&str, &str)] = &[
    (
        "Projects/tacoma/itinerary.md",
        "# Tacoma\nDay 1: ferry to Vashon at 9:10.\n",
    ),
    (
        "Projects/tacoma/budget.csv",
        "item,amount\nferry,12\nhotel,180\n",
    ),
    ("Notes/weekly.md", "# Week 10\n- book the ferry\n"),
    ("Notes/ideas.txt", "kayak on the sound\n"),
    ("Notes/trip plan.md", "Leave Friday evening.\n"),
];

fn fixture(name: &str) -> std::path::PathBuf {
    repo_root().join("tests/fixtures/filegram").join(name)
}

fn profile() -> tempfile::TempDir {
    let profile = tempfile::tempdir().unwrap();
    for (path, text) in FILES {
        let path = profile.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let share = profile.path().join(".local/share");
    std::fs::create_dir_all(&share).unwrap();
    std::fs::copy(
        fixture("recently-used.xbel"),
        share.join("recently-used.xbel"),
    )
    .unwrap();
    profile
}

fn log(index_dir: &Path, source: ActivitySource) -> Vec<ActivityEvent> {
    let manifest = Manifest::open_existing(&IndexLayout::new(index_dir).manifest_path()).unwrap();
    manifest
        .activity(&ActivityQuery {
            sources: vec![source],
            ..ActivityQuery::default()
        })
        .unwrap()
}

/// `(kind, path, old path)` of each event, in log order.
fn rows(events: &[ActivityEvent]) -> Vec<(String, Option<String>, Option<String>)> {
    events
        .iter()
        .map(|e| {
            (
                e.kind.as_str().to_string(),
                e.path.clone(),
                e.old_path.clone(),
            )
        })
        .collect()
}

fn row(
    kind: &str,
    path: Option<&str>,
    old: Option<&str>,
) -> (String, Option<String>, Option<String>) {
    (
        kind.to_string(),
        path.map(str::to_string),
        old.map(str::to_string),
    )
}

fn report<'a>(summary: &'a Value, format: &str) -> &'a Value {
    summary["imports"]
        .as_array()
        .and_then(|imports| imports.iter().find(|r| r["format"] == format))
        .unwrap_or_else(|| panic!("no {format} import in {}", summary["imports"]))
}

#[test]
fn filegram_trace_and_xbel_import_into_the_activity_log_once() {
    let profile = profile();
    let index_dir = tempfile::tempdir().unwrap();
    let trace = fixture("trace.json");
    let missing = index_dir.path().join("no-such-trace.json");
    let args = [
        "--no-embed",
        "--no-ocr",
        "--no-media",
        "--import-trace",
        trace.to_str().unwrap(),
        "--import-trace",
        missing.to_str().unwrap(),
    ];
    let first = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(first["files"]["indexed"], FILES.len(), "{first}");

    let traced = report(&first, "trace");
    assert_eq!(traced["read"], 25, "{traced}");
    assert_eq!(traced["added"], 23, "{traced}");
    assert_eq!(traced["duplicates"], 0);
    assert_eq!(traced["unknown_types"], json!({"context_switch": 1}));
    assert_eq!(traced["unmapped"], 1);
    assert_eq!(traced["errors"], 2);
    assert_eq!(
        traced["error_messages"],
        json!([
            "events[16] (event_id \"e17\"): lines_added must be an integer, not a string",
            "events[17] (event_id \"e18\"): timestamp is missing",
        ])
    );
    let failed = first["imports"][2]["failed"].as_str().unwrap_or_default();
    assert!(
        failed.contains("no-such-trace.json"),
        "{}",
        first["imports"]
    );
    let bookmarks = report(&first, "xbel");
    assert_eq!(
        (
            &bookmarks["read"],
            &bookmarks["added"],
            &bookmarks["outside"]
        ),
        (&json!(5), &json!(7), &json!(2)),
        "{bookmarks}"
    );

    // The trace, in time order, with the foreign `/home/dana/workspace` placed on the
    // profile (files deleted or moved since included).
    let trace_log = log(index_dir.path(), ActivitySource::Trace);
    let tacoma = "Projects/tacoma";
    let itinerary = Some("Projects/tacoma/itinerary.md");
    let budget = Some("Projects/tacoma/budget.csv");
    let weekly = Some("Notes/weekly.md");
    let ideas = Some("Notes/ideas.txt");
    let ferry = Some("Projects/tacoma/receipts/ferry.txt");
    let backup = Some("Projects/tacoma/budget_backup.csv");
    assert_eq!(
        rows(&trace_log),
        [
            row("browsed", Some(tacoma), None),
            row("read", itinerary, None),
            row("searched", None, None),
            row("read", weekly, None),
            row("referenced", weekly, None),
            row("modified", weekly, None),
            row("dir_created", Some("Projects/tacoma/receipts"), None),
            row("created", ferry, None),
            row("modified", budget, None),
            row("copied", backup, budget),
            row("renamed", ideas, Some("Notes/ideas-draft.txt")),
            row("moved", Some("Archive/ferry.txt"), ferry),
            row("deleted", backup, None),
            row("context_switch", None, None),
            row("read", ideas, None),
            row("read", Some("/tmp/scratch/todo.txt"), None),
            row("read", itinerary, None),
            row("modified", itinerary, None),
            row("browsed", Some("Notes"), None),
            row("searched", None, None),
            row("read", budget, None),
            row("modified", ideas, None),
            row("referenced", itinerary, None),
        ]
    );
    let by_id: BTreeMap<&str, &ActivityEvent> = trace_log
        .iter()
        .filter_map(|e| Some((e.dedup_key.as_deref()?, e)))
        .collect();
    let first_browse = by_id["trace:p7_dana:e01"];
    assert_eq!(first_browse.time_ms, 1_741_114_805_000);
    assert_eq!(first_browse.session.as_deref(), Some("s1-tuesday"));
    assert_eq!(first_browse.detail["files_listed"], 2);
    let edit = by_id["trace:p7_dana:e06"];
    assert_eq!(
        (&edit.detail["lines_added"], &edit.detail["lines_deleted"]),
        (&json!(4), &json!(1))
    );
    assert_eq!(edit.hash.as_deref(), Some("b2c3d4e5f6071829"));
    let search = by_id["trace:p7_dana:e03"];
    assert_eq!(search.detail["query"], "ferry");
    assert_eq!(
        search.detail["files_opened_after"],
        json!(["Projects/tacoma/itinerary.md", "Notes/weekly.md"])
    );
    assert_eq!(
        by_id["trace:p7_dana:e05"].detail["source_file"],
        "Projects/tacoma/itinerary.md"
    );
    assert_eq!(by_id["trace:p7_dana:e08"].size_delta, Some(64));
    assert_eq!(by_id["trace:p7_dana:e16"].detail["unmapped"], true);
    assert!(
        trace_log
            .iter()
            .filter(|e| e.detail.contains_key("unmapped"))
            .count()
            == 1
    );
    // The event without an id is keyed by its content.
    assert!(by_id.keys().any(|k| k.starts_with("trace:p7_dana:sha:")));

    // The bookmarks: edits and application opens; `visited` only when no application
    // says the same; the epoch ("never") and outside bookmarks dropped.
    let xbel_log = log(index_dir.path(), ActivitySource::Xbel);
    let opened: Vec<(String, Option<String>, i64, Option<String>)> = xbel_log
        .iter()
        .map(|e| {
            (
                e.kind.as_str().to_string(),
                e.path.clone(),
                e.time_ms,
                e.detail
                    .get("app")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            )
        })
        .collect();
    let app = |name: &str| Some(name.to_string());
    let path = |p: &str| Some(p.to_string());
    assert_eq!(
        opened,
        [
            (
                "modified".into(),
                path("Pictures/old map.png"),
                1_740_045_600_000,
                None
            ),
            (
                "read".into(),
                path("Pictures/old map.png"),
                1_740_045_600_000,
                app("eog")
            ),
            (
                "modified".into(),
                path("Notes/trip plan.md"),
                1_740_945_600_000,
                None
            ),
            (
                "read".into(),
                path("Notes/trip plan.md"),
                1_740_945_900_000,
                app("org.gnome.TextEditor")
            ),
            (
                "read".into(),
                path("Notes/trip plan.md"),
                1_740_951_000_000,
                None
            ),
            (
                "read".into(),
                path("Projects/tacoma/itinerary.md"),
                1_740_993_000_000,
                app("gedit")
            ),
            (
                "modified".into(),
                path("Projects/tacoma/itinerary.md"),
                1_740_993_300_250,
                None
            ),
        ]
    );
    let gedit = &xbel_log[5];
    assert_eq!(gedit.detail["count"], 3);
    assert_eq!(gedit.detail["mime_type"], "text/markdown");

    // A second run (text summary) adds nothing.
    let output = Command::new(binary("dentate-index"))
        .arg(profile.path())
        .args(["--index", index_dir.path().to_str().unwrap()])
        .args(&args[..5])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("25 events read, 0 events added, 23 already imported, unknown types kept: context_switch 1"),
        "{text}"
    );
    assert!(text.contains("import xbel .local/share/recently-used.xbel: 5 bookmarks read, 0 events added, 7 already imported"), "{text}");
    assert!(
        text.contains("error: events[17] (event_id \"e18\"): timestamp is missing"),
        "{text}"
    );
    assert_eq!(log(index_dir.path(), ActivitySource::Trace).len(), 23);
    assert_eq!(log(index_dir.path(), ActivitySource::Xbel).len(), 7);
}

#[test]
fn a_trace_that_is_not_an_array_is_reported_and_indexing_goes_on() {
    let profile = profile();
    let index_dir = tempfile::tempdir().unwrap();
    let traces = tempfile::tempdir().unwrap();
    let bad = traces.path().join("object.json");
    std::fs::write(&bad, r#"{"events": []}"#).unwrap();
    let summary = index_with(
        profile.path(),
        index_dir.path(),
        &[
            "--no-embed",
            "--no-ocr",
            "--no-media",
            "--import-trace",
            bad.to_str().unwrap(),
        ],
    );
    assert_eq!(summary["files"]["indexed"], FILES.len());
    let traced = report(&summary, "trace");
    let failed = traced["failed"].as_str().unwrap_or_default();
    assert!(
        failed
            .ends_with("is not a FileGram trace: expected a JSON array of events, found an object"),
        "{traced}"
    );
    assert!(log(index_dir.path(), ActivitySource::Trace).is_empty());
}
