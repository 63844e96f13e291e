//! The activity log as a query channel, end to end: a small profile indexed by the real
//! `dentate-index` (`--no-embed`), events appended to its manifest, the real daemon
//! asked over HTTP and gRPC: the Timeline shows each day's events (a deleted file's
//! too, an event outside the profile never), an explicit activity search returns
//! exactly the files with matching events, a first-person question about editing ranks
//! the edited file first and says why, and with an empty log nothing changes.

use std::path::Path;

use dentate_proto::v1 as pb;
use index::{ActivityEvent, ActivityKind, ActivitySource, IndexLayout, Manifest};
use serde_json::{json, Value};

use crate::harness::{index_with, Daemon};

/// 2025-03-11T00:00:00Z (a Tuesday).
const DAY: i64 = 1_741_651_200;
const HOUR_MS: i64 = 3_600_000;
const LANTERN: &str = "Projects/lantern.txt";
const BUDGET: &str = "Notes/budget.md";
const DECOY: &str = "Notes/editing checklist.md";
const QUESTION: &str = "What was I editing on 11 March 2025?";

fn write_profile(root: &Path) {
    for (path, text) in [
        (
            LANTERN,
            "Lantern shop opening plan: stock, lighting and shelves for the front room.",
        ),
        (
            BUDGET,
            "Kiln budget: clay, glaze and firing costs for the spring term.",
        ),
        (
            DECOY,
            "Editing checklist for 11 March 2025: edit the headings, edit the captions, proofread.",
        ),
        (
            "Notes/recipes.md",
            "Sourdough: flour, water, salt; fold every half hour.",
        ),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
}

fn event(kind: ActivityKind, path: &str, ms: i64) -> ActivityEvent {
    ActivityEvent::new(kind, ActivitySource::Watch, Some(path), ms)
}

fn append_events(index_dir: &Path) {
    let day_ms = DAY * 1000;
    let mut renamed = event(
        ActivityKind::Renamed,
        "Notes/recipes.md",
        day_ms + 34 * HOUR_MS,
    );
    renamed.old_path = Some("Notes/recipes-old.md".into());
    let mut edit = event(ActivityKind::Modified, LANTERN, day_ms + 19 * HOUR_MS);
    edit.size_delta = Some(120);
    let events = vec![
        edit,
        event(ActivityKind::Modified, LANTERN, day_ms + 20 * HOUR_MS),
        event(ActivityKind::Modified, BUDGET, day_ms + 21 * HOUR_MS),
        // Never served: a path outside the profile.
        event(
            ActivityKind::Modified,
            "../outside.txt",
            day_ms + 22 * HOUR_MS,
        ),
        renamed,
        event(
            ActivityKind::Deleted,
            "Old/draft.txt",
            day_ms + 35 * HOUR_MS,
        ),
        event(ActivityKind::Read, BUDGET, day_ms + 36 * HOUR_MS),
    ];
    let mut manifest = Manifest::open(&IndexLayout::new(index_dir).manifest_path()).unwrap();
    assert_eq!(manifest.append_activity(&events).unwrap(), events.len());
}

/// `(path, score)` of a grouped search over HTTP.
fn ranking(daemon: &Daemon, body: Value) -> (Vec<(String, f64)>, Value) {
    let (status, reply) = daemon.post("/api/search", &body.to_string());
    assert_eq!(status, 200, "{reply}");
    let files = reply["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"]["path"].as_str().unwrap().to_string(),
                f["score"].as_f64().unwrap(),
            )
        })
        .collect();
    (files, reply)
}

fn question(disable: &[&str]) -> Value {
    json!({"query": QUESTION, "mode": "lexical", "explain": true, "disable_planner": disable})
}

fn day<'a>(reply: &'a Value, date: &str) -> &'a Value {
    reply["days"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["date"] == date)
        .unwrap_or_else(|| panic!("{date} in {reply}"))
}

fn kinds_of(day: &Value) -> Vec<(String, String)> {
    day["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn activity_on_the_timeline_in_search_and_as_a_signal() {
    let profile = tempfile::tempdir().unwrap();
    write_profile(profile.path());
    let index_dir = tempfile::tempdir().unwrap();
    index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    let daemon = Daemon::start(index_dir.path());

    // An empty log: the question is planned as before (the switch changes nothing).
    let (before, reply) = ranking(&daemon, question(&[]));
    let (off, _) = ranking(&daemon, question(&["activity"]));
    assert_eq!(before, off);
    assert_eq!(before[0].0, DECOY, "{reply}");
    assert!(reply.get("activity").is_none(), "{reply}");
    let notes = reply["explain"].to_string();
    assert!(notes.contains("no matching events"), "{notes}");

    append_events(index_dir.path());

    // The timeline: each day's events, by kind; a deleted file listed by path.
    let range = json!({"start": DAY, "end": DAY + 2 * 86_400});
    let (status, reply) = daemon.post("/api/timeline", &range.to_string());
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["activity_events"], 6, "{reply}");
    let tuesday = day(&reply, "2025-03-11");
    assert_eq!(
        kinds_of(tuesday),
        [
            ("modified".into(), LANTERN.into()),
            ("modified".into(), LANTERN.into()),
            ("modified".into(), BUDGET.into())
        ]
    );
    assert_eq!(tuesday["activity_counts"], json!({"modified": 3}));
    assert!(!reply.to_string().contains("outside.txt"), "{reply}");
    let wednesday = day(&reply, "2025-03-12");
    assert_eq!(
        kinds_of(wednesday)
            .iter()
            .map(|k| k.0.as_str())
            .collect::<Vec<_>>(),
        ["renamed", "deleted", "read"]
    );
    assert_eq!(wednesday["activity"][0]["old_path"], "Notes/recipes-old.md");
    let gone = wednesday["folders"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["files"].as_array().unwrap())
        .find(|f| f["path"] == "Old/draft.txt")
        .expect("the deleted file on its day");
    assert_eq!(
        (gone["units"].as_u64(), &gone["activity"]),
        (Some(0), &json!(["deleted"]))
    );
    assert!(gone["first"].is_null());
    // Excluded, or only some kinds.
    let mut only = range.clone();
    only["activity_kinds"] = json!(["deleted"]);
    let (_, reply) = daemon.post("/api/timeline", &only.to_string());
    assert_eq!(reply["activity_events"], 1, "{reply}");
    let mut without = range.clone();
    without["activity"] = json!(false);
    let (_, reply) = daemon.post("/api/timeline", &without.to_string());
    assert_eq!(reply["days"], json!([]), "{reply}");
    let (status, _) = daemon.post(
        "/api/timeline",
        &json!({"start": DAY, "end": DAY + 86_400, "activity_kinds": ["teleported"]}).to_string(),
    );
    assert_eq!(status, 400);

    // Explicit: exactly the edited files; gone files by path in the summary.
    let edited = json!({"kinds": ["edited"], "start": DAY, "end": DAY + 2 * 86_400});
    let (files, reply) = ranking(&daemon, json!({"query": "", "activity": edited}));
    let mut paths: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    paths.sort();
    assert_eq!(paths, [BUDGET, LANTERN], "{reply}");
    assert_eq!(reply["activity"]["events"], 3, "{reply}");
    let (status, reply) = daemon.post(
        "/search",
        &json!({"query": "kiln glaze", "activity": edited}).to_string(),
    );
    assert_eq!(status, 200, "{reply}");
    let results = reply["results"].as_array().unwrap();
    assert!(!results.is_empty(), "{reply}");
    assert!(
        results.iter().all(|r| r["metadata"]["file_path"] == BUDGET),
        "{reply}"
    );
    let deleted = json!({"kinds": ["deleted"], "start": DAY, "end": DAY + 2 * 86_400});
    let (files, reply) = ranking(&daemon, json!({"query": "", "activity": deleted}));
    assert!(files.is_empty(), "{reply}");
    assert_eq!(
        reply["activity"]["gone"][0]["path"], "Old/draft.txt",
        "{reply}"
    );
    assert_eq!(
        reply["activity"]["gone"][0]["last_kind"], "deleted",
        "{reply}"
    );
    let (status, _) = daemon.post(
        "/api/search",
        &json!({"query": "x", "activity": {"kinds": ["teleported"]}}).to_string(),
    );
    assert_eq!(status, 400);

    // The question about editing: the most edited file first, and explain says why.
    let (after, reply) = ranking(&daemon, question(&[]));
    assert_eq!(after[0].0, LANTERN, "{reply}");
    assert_eq!(after[1].0, BUDGET, "{reply}");
    let notes = reply["explain"].to_string();
    assert!(notes.contains("activity: question about doing"), "{notes}");
    assert!(notes.contains("3 events"), "{notes}");
    assert_eq!(
        reply["files"][0]["units"][0]["metadata"]["explain"]["prior.activity"], 2.5,
        "{reply}"
    );
    assert_eq!(reply["activity"]["origin"], "question", "{reply}");
    // Switched off: as with an empty log.
    let (off, _) = ranking(&daemon, question(&["activity"]));
    assert_eq!(off, before);

    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let mut client = daemon.client().await;
            let reply = client
                .timeline(pb::TimelineRequest {
                    range: Some(pb::TimeRange {
                        start: DAY,
                        end: DAY + 86_400,
                    }),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(reply.days.len(), 1, "{reply:?}");
            assert_eq!(reply.days[0].activity.len(), 3);
            assert_eq!(reply.days[0].activity_counts["modified"], 3);
            assert_eq!(reply.days[0].activity[0].size_delta, Some(120));
            let lantern = reply.days[0]
                .folders
                .iter()
                .flat_map(|f| &f.files)
                .find(|f| f.path == LANTERN)
                .unwrap();
            assert_eq!(
                (lantern.units, lantern.activity.clone()),
                (0, vec!["modified".to_string()])
            );

            let reply = client
                .search(pb::SearchRequest {
                    query: String::new(),
                    activity: Some(pb::ActivityFilter {
                        kinds: vec!["modified".into()],
                        range: Some(pb::TimeRange {
                            start: DAY,
                            end: DAY + 86_400,
                        }),
                        when: String::new(),
                    }),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            let mut paths: Vec<String> = reply
                .files
                .iter()
                .map(|f| f.file.as_ref().unwrap().path.clone())
                .collect();
            paths.sort();
            assert_eq!(paths, [BUDGET, LANTERN]);
            assert_eq!(reply.activity.unwrap().origin, "request");

            let reply = client
                .search(pb::SearchRequest {
                    query: QUESTION.into(),
                    mode: pb::SearchMode::Lexical as i32,
                    explain: true,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(reply.files[0].file.as_ref().unwrap().path, LANTERN);
            let notes = reply.explain.unwrap().notes.join("\n");
            assert!(notes.contains("activity: question about doing"), "{notes}");
            let error = client
                .search(pb::SearchRequest {
                    query: "x".into(),
                    activity: Some(pb::ActivityFilter {
                        kinds: vec!["teleported".into()],
                        ..Default::default()
                    }),
                    ..Default::default()
                })
                .await
                .unwrap_err();
            assert_eq!(error.code(), tonic::Code::InvalidArgument);
        });
}
