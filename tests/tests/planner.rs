//! Structure- and time-aware planning on the sample profile: the Timeline RPC and route,
//! neighbouring units as context, and people named in a query (lexical only:
//! `--no-embed`).

use dentate_proto::v1 as pb;
use serde_json::Value;

use crate::harness::{copy_tree, index_with, repo_root, result_for, result_paths, write, Daemon};

const PLAN: &str = "Documents/Shop/Lantern Business Plan 2024-2026.pdf";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Paths of a timeline day (HTTP reply).
fn day_paths(day: &Value) -> Vec<String> {
    day["folders"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["files"].as_array().unwrap().iter())
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

/// POSTs a lexical request with `explain` (the JSON fields `fields`) to `route`, with the
/// planner features in `disable` (JSON strings, comma-separated) switched off.
fn post_switched_off(daemon: &Daemon, route: &str, fields: &str, disable: &str) -> Value {
    let body = format!(
        r#"{{{fields}, "mode": "lexical", "explain": true, "disable_planner": [{disable}]}}"#
    );
    let (status, reply) = daemon.post(route, &body);
    assert_eq!(status, 200, "{reply}");
    reply
}

#[test]
fn timeline_context_and_people() {
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    let index_dir = tempfile::tempdir().unwrap();
    index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    let daemon = Daemon::start(index_dir.path());

    // Timeline over HTTP: a week, grouped by local day then folder.
    let (status, reply) = daemon.post("/api/timeline", r#"{"when": "the week of 4 March 2024"}"#);
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["truncated"], false, "{reply}");
    assert!(
        reply["range"].as_str().unwrap().starts_with("2024-03-04"),
        "{reply}"
    );
    let days = reply["days"].as_array().unwrap();
    let dates: Vec<&str> = days.iter().map(|d| d["date"].as_str().unwrap()).collect();
    let mut sorted = dates.clone();
    sorted.sort();
    assert_eq!(dates, sorted, "days in order");
    assert!(
        dates
            .iter()
            .all(|d| ("2024-03-04"..="2024-03-10").contains(d)),
        "{dates:?}"
    );
    // A routine question spreads /retrieve over files and days; switched off, it does not.
    let routine = |disable: &str| {
        let reply = post_switched_off(
            &daemon,
            "/retrieve",
            r#""query": "what do I usually do every week", "top_k": 6"#,
            disable,
        );
        let notes = reply["explain"].to_string();
        let files: std::collections::BTreeSet<String> = reply["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["metadata"]["file_path"].as_str().unwrap().to_string())
            .collect();
        (notes.contains("diversify"), files.len())
    };
    let (spread, spread_files) = routine("");
    let (plain, plain_files) = routine(r#""diversify""#);
    assert!(spread && !plain, "the diversify note follows the switch");
    assert!(
        spread_files >= plain_files,
        "{spread_files} < {plain_files} files"
    );
    let day = |date: &str| days.iter().find(|d| d["date"] == date).expect(date);
    let monday = day_paths(day("2024-03-04"));
    assert!(
        monday.contains(&"Mail/Sent/2024-03-04 Cafe or childrens corner.eml".to_string()),
        "{monday:?}"
    );
    assert!(
        monday.contains(&"Calendar/Ros.ics".to_string()),
        "{monday:?}"
    );
    let tuesday = day("2024-03-05");
    assert!(day_paths(tuesday)
        .contains(&"Mail/Inbox/2024-03-05 Gareth - Re Cafe or childrens corner.eml".to_string()));
    let inbox = tuesday["folders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["folder"] == "Mail/Inbox")
        .expect("Mail/Inbox folder group");
    let gareth = &inbox["files"][0];
    assert!(gareth["units"].as_u64().unwrap() >= 1);
    assert!(!gareth["first"]["snippet"].as_str().unwrap().is_empty());
    // A query narrows it; a bad request is a 400.
    let (status, reply) = daemon.post(
        "/api/timeline",
        r#"{"when": "the week of 4 March 2024", "query": "VAT"}"#,
    );
    assert_eq!(status, 200, "{reply}");
    let all: Vec<String> = reply["days"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(day_paths)
        .collect();
    assert!(!all.iter().any(|p| p.starts_with("Voice Memos")), "{all:?}");
    assert!(all.iter().any(|p| p.contains("Gareth")), "{all:?}");
    let (status, _) = daemon.post("/api/timeline", r#"{"when": "banana"}"#);
    assert_eq!(status, 400);

    runtime().block_on(async {
        let mut client = daemon.client().await;
        // Timeline over gRPC: one day in Unix seconds.
        let reply = client
            .timeline(pb::TimelineRequest {
                range: Some(pb::TimeRange {
                    start: 1_709_596_800,
                    end: 1_709_596_800 + 86_400,
                }),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(reply.days.len(), 1, "{reply:?}");
        assert_eq!(reply.days[0].date, "2024-03-05");
        assert!(reply.days[0]
            .folders
            .iter()
            .flat_map(|f| &f.files)
            .any(|f| f.path.contains("Gareth") && f.locator.is_some()));

        // Context: a hit on a PDF page brings its neighbour pages, flagged.
        let reply = client
            .search(pb::SearchRequest {
                query: "shop turnover last year in the business plan summary".into(),
                top_k: 3,
                units_per_file: 1,
                context: 1,
                mode: pb::SearchMode::Lexical as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let plan = reply
            .files
            .iter()
            .find(|f| f.file.as_ref().unwrap().path == PLAN)
            .expect("business plan found");
        let hit = &plan.units[0];
        assert!(!hit.is_context);
        let page = hit.locator.as_ref().unwrap().page.unwrap();
        let context: Vec<u32> = plan
            .units
            .iter()
            .filter(|u| u.is_context)
            .map(|u| u.locator.as_ref().unwrap().page.unwrap())
            .collect();
        assert_eq!(context, vec![page - 1, page + 1], "{:?}", plan.units);
        assert_eq!(plan.units.len(), 3);

        // People: the participant's mail first, and explain says why.
        let reply = client
            .search(pb::SearchRequest {
                query: "what did Gareth say about the VAT return".into(),
                top_k: 3,
                explain: true,
                mode: pb::SearchMode::Lexical as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let first = reply.files[0].file.as_ref().unwrap();
        assert!(first.path.starts_with("Mail/"), "{:?}", reply.files);
        let notes = reply.explain.unwrap().notes;
        assert!(
            notes.iter().any(|n| n.starts_with("people: [\"Gareth\"]")),
            "{notes:?}"
        );
        // A capitalised word that names no participant (a place here) is not boosted.
        let place = client
            .search(pb::SearchRequest {
                query: "what did Gareth say about the shop in Bristol".into(),
                explain: true,
                mode: pb::SearchMode::Lexical as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let notes = place.explain.unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("people: [\"Bristol\"] names no sender")),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("people: [\"Gareth\"] →")),
            "{notes:?}"
        );
        let off = client
            .search(pb::SearchRequest {
                query: "what did Gareth say about the VAT return".into(),
                explain: true,
                disable_planner: vec!["people".into()],
                mode: pb::SearchMode::Lexical as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(off
            .explain
            .unwrap()
            .notes
            .contains(&"people: off".to_string()));

        // A weekday that is the topic is no time: no weekday prior, and explain says so;
        // with weekday_sense off it is read as a time again.
        let topic = |disable: Vec<String>| pb::SearchRequest {
            query: "why Aoife could not work her Saturday shift".into(),
            top_k: 3,
            explain: true,
            disable_planner: disable,
            mode: pb::SearchMode::Lexical as i32,
            ..Default::default()
        };
        let reply = client.search(topic(Vec::new())).await.unwrap().into_inner();
        let notes = reply.explain.unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains("weekday read as the topic") && n.contains("saturday shift")),
            "{notes:?}"
        );
        assert!(
            !notes.iter().any(|n| n.contains("weekdays [5]")),
            "{notes:?}"
        );
        let first = reply.files[0].file.as_ref().unwrap();
        assert!(
            first.path.contains("Aoife - Saturday swap"),
            "{:?}",
            reply.files
        );
        let blunt = client
            .search(topic(vec!["weekday_sense".into()]))
            .await
            .unwrap()
            .into_inner();
        let notes = blunt.explain.unwrap().notes;
        assert!(
            notes.iter().any(|n| n.contains("weekdays [5]")),
            "{notes:?}"
        );

        // The confident cut-off over gRPC: never more than without it, a prefix of the
        // same ranking, explained; min_score above every score leaves nothing.
        let request = |autocut: u32, min_score: Option<f32>| pb::SearchRequest {
            query: "Hartcliffe invoice balance due after deposit".into(),
            top_k: 10,
            explain: true,
            autocut,
            min_score,
            mode: pb::SearchMode::Lexical as i32,
            ..Default::default()
        };
        let paths = |reply: &pb::SearchResponse| -> Vec<String> {
            reply
                .files
                .iter()
                .map(|f| f.file.as_ref().unwrap().path.clone())
                .collect()
        };
        let full = client.search(request(0, None)).await.unwrap().into_inner();
        let cut = client.search(request(1, None)).await.unwrap().into_inner();
        assert!(!cut.files.is_empty() && cut.files.len() <= full.files.len());
        assert_eq!(paths(&cut), paths(&full)[..cut.files.len()]);
        let notes = cut.explain.unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("cutoff (autocut 1): kept")),
            "{notes:?}"
        );
        let none = client
            .search(request(0, Some(1e9)))
            .await
            .unwrap()
            .into_inner();
        assert!(none.files.is_empty());
        let units = client
            .retrieve(request(1, None))
            .await
            .unwrap()
            .into_inner()
            .units;
        assert!(!units.is_empty() && units.len() <= 10);
        assert_eq!(units[0].file_path, paths(&full)[0]);
    });

    // /retrieve with context: neighbours follow their hit, flagged in metadata.
    let (status, reply) = daemon.post(
        "/retrieve",
        r#"{"query": "shop turnover last year in the business plan summary", "top_k": 1, "context": 1, "mode": "lexical"}"#,
    );
    assert_eq!(status, 200, "{reply}");
    let results = reply["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{reply}");
    assert!(results[0]["metadata"].get("context").is_none());
    assert!(results[1..]
        .iter()
        .all(|r| r["metadata"]["context"] == true));
}

/// Copies of one file (a saved copy and its "- copy") take one place in an answer, under
/// the original's name; with `copies` switched off both are listed.
#[test]
fn copies_of_one_file_count_once() {
    let profile = tempfile::tempdir().unwrap();
    let plan = std::fs::read(repo_root().join("samples/profile").join(PLAN)).unwrap();
    for path in ["Docs/Lantern plan.pdf", "Desktop/Lantern plan - copy.pdf"] {
        write(profile.path(), path, &plan);
    }
    write(
        profile.path(),
        "notes.txt",
        "A business plan needs a budget. Ask the bank about the lantern loan.\n",
    );
    let index_dir = tempfile::tempdir().unwrap();
    index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    let daemon = Daemon::start(index_dir.path());
    let files = |disable: &str| {
        let reply = post_switched_off(
            &daemon,
            "/api/search",
            r#""query": "lantern business plan budget", "top_k": 5"#,
            disable,
        );
        let paths: Vec<String> = reply["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file"]["path"].as_str().unwrap().to_string())
            .collect();
        (paths, reply["explain"].to_string())
    };
    let (folded, notes) = files("");
    assert!(
        folded.contains(&"Docs/Lantern plan.pdf".to_string()),
        "{folded:?}"
    );
    assert!(
        !folded.iter().any(|p| p.contains("copy")),
        "{folded:?} {notes}"
    );
    assert!(notes.contains("copies: "), "{notes}");
    let (both, notes) = files(r#""copies""#);
    assert!(
        both.contains(&"Desktop/Lantern plan - copy.pdf".to_string()),
        "{both:?}"
    );
    assert!(
        both.contains(&"Docs/Lantern plan.pdf".to_string()),
        "{both:?}"
    );
    assert!(notes.contains("copies: off"), "{notes}");
}

/// A calendar event is the occasion of a question that does not ask when, where, who or
/// how often: its units count ×0.75 there, and not under a question about the schedule
/// or with `event_context` switched off.
#[test]
fn events_are_the_occasion_unless_the_schedule_is_asked() {
    let profile = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| write(profile.path(), path, text);
    write(
        "Calendar/Pets.ics",
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Dentate tests//EN\r\nBEGIN:VEVENT\r\n\
         UID:vet-1@example.org\r\nDTSTAMP:20251001T090000Z\r\nSUMMARY:Biscuit vet visit\r\n\
         DTSTART:20251003T154000Z\r\nDTEND:20251003T162000Z\r\n\
         LOCATION:Belmont Animal Clinic\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    );
    write(
        "Documents/Pets/Belmont invoice.txt",
        "Biscuit vet visit invoice. Weight at this visit: 28.4 lb; Biscuit did weigh more than \
         last year.\n",
    );
    let index_dir = tempfile::tempdir().unwrap();
    index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    let daemon = Daemon::start(index_dir.path());
    // (paths best first, the event unit's score and event_context factor, notes)
    let ask = |query: &str, disable: &str| {
        let fields = format!(r#""query": "{query}", "top_k": 5"#);
        let reply = post_switched_off(&daemon, "/retrieve", &fields, disable);
        let event = result_for(&reply, "Calendar/Pets.ics")
            .unwrap_or_else(|| panic!("no event in {reply}"));
        let score = event["score"].as_f64().unwrap();
        let factor = event["metadata"]["explain"]["prior.event_context"].as_f64();
        (
            result_paths(&reply),
            score,
            factor,
            reply["explain"].to_string(),
        )
    };
    let weight = "How much did Biscuit weigh at his vet visit?";
    let (paths, on, factor, notes) = ask(weight, "");
    assert_eq!(factor, Some(0.75), "{notes}");
    assert!(
        notes.contains("event_context: the question does not ask"),
        "{notes}"
    );
    assert_eq!(paths[0], "Documents/Pets/Belmont invoice.txt", "{paths:?}");
    // Switched off, the event's title match puts it first again.
    let (paths, off, factor, notes) = ask(weight, r#""event_context""#);
    assert_eq!(factor, None, "{notes}");
    assert_eq!(paths[0], "Calendar/Pets.ics", "{paths:?}");
    assert!(notes.contains("event_context: off"), "{notes}");
    assert!((on - 0.75 * off).abs() < 1e-3 * off, "{on} vs {off}");
    // Asking when: the event is the answer and keeps its score.
    let (_, _, factor, notes) = ask("When is Biscuit's vet visit?", "");
    assert_eq!(factor, None, "{notes}");
    assert!(!notes.contains("event_context"), "{notes}");
}

/// A log whose ranked spans tie (a question about the log as a whole) also shows its
/// records of one kind and its errors as context units listing their lines; a question
/// that singles out one place, or the switch `record_kinds` off, shows the ranked units
/// alone.
#[test]
fn a_log_with_tied_spans_shows_its_records_of_one_kind() {
    let profile = tempfile::tempdir().unwrap();
    let mut log = String::new();
    let mut daily = Vec::new();
    for day in 1..=10 {
        for hour in 1..=24 {
            if day == 5 && hour == 14 {
                log.push_str("2025-03-05 14:00:05 ERROR pump: pressure alarm, motor stopped\n");
            }
            log.push_str(&format!(
                "2025-03-{day:02} {:02}:00:00 INFO  pump: hour={hour:02} flow_l={} pressure_kpa={}\n",
                hour % 24,
                10 + (day * hour) % 7,
                200 + (day + hour) % 13
            ));
        }
        log.push_str(&format!(
            "2025-03-{:02} 00:00:01 INFO  pump: DAILY date=2025-03-{day:02} volume_l={}\n",
            day + 1,
            240 + day * 3
        ));
        daily.push(log.lines().count() as u64);
    }
    write(profile.path(), "Garden/pump.log", &log);
    let index_dir = tempfile::tempdir().unwrap();
    index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    let daemon = Daemon::start(index_dir.path());
    // (the log's units as (context, lines), notes)
    let ask = |query: &str, disable: &str| {
        let fields = format!(r#""query": "{query}", "top_k": 3, "units_per_file": 2"#);
        let reply = post_switched_off(&daemon, "/api/search", &fields, disable);
        let file = reply["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"]["path"] == "Garden/pump.log")
            .unwrap_or_else(|| panic!("no log in {reply}"))
            .clone();
        let units: Vec<(bool, Vec<u64>)> = file["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                let lines = u["metadata"]["lines"]
                    .as_array()
                    .map(|lines| lines.iter().map(|n| n.as_u64().unwrap()).collect());
                (u["metadata"]["context"] == true, lines.unwrap_or_default())
            })
            .collect();
        (units, reply["explain"].to_string())
    };
    let alarm = log
        .lines()
        .position(|line| line.contains("ERROR"))
        .map(|i| i as u64 + 1)
        .unwrap();
    let whole = "How does the pump log record the water flow?";
    let (units, notes) = ask(whole, "");
    // The two ranked spans, then the daily totals and the log's one error, which share
    // the word "pump" with the question.
    assert_eq!(units.len(), 4, "{units:?} {notes}");
    assert!(units[..2]
        .iter()
        .all(|(context, lines)| !context && lines.is_empty()));
    assert_eq!(units[2], (true, daily.clone()), "{notes}");
    assert_eq!(units[3], (true, vec![alarm]), "{notes}");
    assert!(
        notes.contains("record_kinds: \\\"Garden/pump.log\\\""),
        "{notes}"
    );
    // With `context`, the neighbours are the ranked spans', not the record kinds'.
    let fields = format!(r#""query": "{whole}", "top_k": 3, "units_per_file": 2, "context": 1"#);
    let reply = post_switched_off(&daemon, "/api/search", &fields, "");
    let units = reply["files"][0]["units"].as_array().unwrap();
    let ordinal = |u: &Value| -> i64 {
        let id = u["id"].as_str().unwrap();
        id.rsplit(':').next().unwrap().parse().unwrap()
    };
    let ranked: Vec<i64> = units
        .iter()
        .filter(|u| u["metadata"]["context"] != true)
        .map(ordinal)
        .collect();
    assert_eq!(ranked.len(), 2, "{reply}");
    for unit in units.iter().filter(|u| u["metadata"]["context"] == true) {
        let gathered = unit["metadata"]["lines"].is_array();
        let near = ranked.iter().any(|r| (r - ordinal(unit)).abs() == 1);
        assert!(gathered || near, "a neighbour of no ranked unit: {unit}");
    }
    // Switched off: the two ranked spans alone.
    let (units, notes) = ask(whole, r#""record_kinds""#);
    assert_eq!(units.len(), 2, "{units:?}");
    assert!(units.iter().all(|(context, _)| !context));
    assert!(notes.contains("record_kinds: off"), "{notes}");
    // The alarm stands out (the unit of the log's errors first): nothing was left to
    // chance, nothing is added.
    let (units, notes) = ask("pressure alarm motor stopped", "");
    assert_eq!(units.len(), 2, "{units:?} {notes}");
    assert_eq!(units[0], (false, vec![alarm]), "{notes}");
    assert!(!notes.contains("record_kinds"), "{notes}");
}
