//! The routine summary (`/api/routine`, gRPC `Routine`) on a fixture profile of its own
//! (`tests/fixtures/routine`: a weekly choir rehearsal with a recurrence rule, three
//! separate Saturday tennis events, three mails, dated standup notes), with activity
//! events appended to the index's log as an importer would. Exact figures, each with
//! its evidence.

use std::path::Path;
use std::time::{Duration, SystemTime};

use dentate_proto::v1 as pb;
use index::{ActivityEvent, ActivityKind, ActivitySource};
use serde_json::Value;

use crate::harness::{copy_tree, index_with, repo_root, Daemon};

/// 2025-10-06 00:00 at UTC-07:00 (a Monday), and a week later.
const WEEK_START: i64 = 1_759_734_000;
const WEEK_END: i64 = WEEK_START + 7 * 86_400;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Sets a file's modification time (the notes carry no date of their own: they count
/// as files of a week, not as content of an hour).
fn set_mtime(path: &Path, rfc3339: &str) {
    let seconds = chrono_free_unix(rfc3339);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds))
        .unwrap();
}

/// Unix seconds of `YYYY-MM-DDTHH:MMZ` (UTC), without a date library.
fn chrono_free_unix(text: &str) -> u64 {
    let number = |range: std::ops::Range<usize>| text[range].parse::<i64>().unwrap();
    let (y, m, d) = (number(0..4), number(5..7), number(8..10));
    // Days from civil (Howard Hinnant).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    (days * 86_400 + number(11..13) * 3600 + number(14..16) * 60) as u64
}

fn event(kind: ActivityKind, path: &str, utc: &str, key: &str) -> ActivityEvent {
    let mut event = ActivityEvent::new(
        kind,
        ActivitySource::Trace,
        Some(path),
        chrono_free_unix(utc) as i64 * 1000,
    );
    event.dedup_key = Some(key.to_string());
    event
}

/// `(weekday, hour, count, evidence paths)` of a grid's cells (HTTP reply).
fn cells(grid: &Value) -> Vec<(String, u64, u64, Vec<String>)> {
    grid["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["weekday"].as_str().unwrap().to_string(),
                c["hour"].as_u64().unwrap(),
                c["count"].as_u64().unwrap(),
                c["evidence"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["path"].as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// One text field of each evidence entry of a figure.
fn evidence_of<'a>(figure: &'a Value, field: &str) -> Vec<&'a str> {
    figure["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e[field].as_str().unwrap())
        .collect()
}

/// `(name, count)` of a list of objects: `name` and `count` are JSON pointers.
fn pairs<'a>(list: &'a Value, name: &str, count: &str) -> Vec<(&'a str, u64)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item.pointer(name).and_then(Value::as_str).unwrap(),
                item.pointer(count).and_then(Value::as_u64).unwrap(),
            )
        })
        .collect()
}

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|s| s.to_string()).collect()
}

const ANA_MAIL: &str = "Mail/Inbox/2025-10-01 Ana - Choir music.eml";
const BO_MAIL: &str = "Mail/Inbox/2025-10-02 Bo - Budget.eml";
const CARL_MAIL: &str = "Mail/Sent/2025-10-06 To Carl - Tennis.eml";

#[test]
fn routine_grids_series_people_and_habits_with_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("home");
    copy_tree(&repo_root().join("tests/fixtures/routine"), &profile);
    for (name, time) in [
        ("2025-09-29_standup.md", "2025-09-29T16:30Z"),
        ("2025-10-06_standup.md", "2025-10-06T16:30Z"),
        ("2025-10-13_standup.md", "2025-10-13T16:30Z"),
        // Wednesday 1 October, 21:10 at UTC-07:00.
        ("ideas_v2.txt", "2025-10-02T04:10Z"),
    ] {
        set_mtime(&profile.join("Notes").join(name), time);
    }
    let index_dir = dir.path().join("index");
    index_with(&profile, &index_dir, &["--no-embed"]);
    // A second profile: the mail alone.
    let mail_profile = dir.path().join("mail");
    copy_tree(&profile.join("Mail"), &mail_profile.join("Mail"));
    let mail_index = dir.path().join("mail-index");
    index_with(&mail_profile, &mail_index, &["--no-embed"]);

    // Activity as a trace importer records it (UTC; the evening of Wednesday 8 October
    // at UTC-07:00 is early Thursday in UTC).
    let mut manifest = index::manifest::Manifest::open(&index_dir.join("manifest.sqlite")).unwrap();
    let events = [
        event(
            ActivityKind::Modified,
            "Notes/2025-10-06_standup.md",
            "2025-10-06T16:40Z",
            "t1",
        ),
        event(
            ActivityKind::Modified,
            "Notes/ideas_v2.txt",
            "2025-10-09T02:30Z",
            "t2",
        ),
        event(ActivityKind::Read, BO_MAIL, "2025-10-09T02:50Z", "t3"),
        event(
            ActivityKind::Renamed,
            "Notes/ideas_v2.txt",
            "2025-10-09T03:05Z",
            "t4",
        ),
        event(
            ActivityKind::Modified,
            "Notes/2025-10-13_standup.md",
            "2025-10-13T16:45Z",
            "t5",
        ),
    ];
    assert_eq!(manifest.append_activity(&events).unwrap(), 5);
    let seq_of = |key: &str| {
        manifest
            .activity(&index::ActivityQuery::default())
            .unwrap()
            .into_iter()
            .find(|e| e.dedup_key.as_deref() == Some(key))
            .unwrap()
            .seq
    };
    let (seq2, seq3) = (seq_of("t2"), seq_of("t3"));
    drop(manifest);

    let home_arg = format!("home={}", index_dir.display());
    let mail_arg = format!("mail={}", mail_index.display());
    let daemon = Daemon::spawn(
        &["--profile", &home_arg, "--profile", &mail_arg, "--no-dense"],
        &[],
    );

    // The whole profile, all time (GET without parameters).
    let (status, all) = daemon.get("/api/routine");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["range"], "all time");
    assert_eq!(all["utc_offset"], "-07:00", "{all}");
    assert_eq!(all["truncated"], false);
    assert_eq!(all["units_scanned"], 12, "{all}");
    assert_eq!(all["files_scanned"], 9);
    // Content: 4 calendar events plus the choir's first, 3 mails, and the 3 stand-up
    // notes dated by their names (a day, no time of day); `ideas_v2.txt` is dated by its
    // file only.
    assert_eq!(all["units_dated_by_file"], 1);
    assert_eq!(all["content"]["total"], 8);
    assert_eq!(
        all["content"]["by_weekday"],
        serde_json::json!([1, 1, 2, 1, 0, 3, 0])
    );
    // Busiest first, then by weekday and hour; Bo's mail, sent at 21:00 UTC, is shown
    // at 14:00 in the profile's offset.
    assert_eq!(
        cells(&all["content"]),
        vec![
            (
                "saturday".into(),
                10,
                3,
                strings(&["Calendar/personal.ics"; 3])
            ),
            ("monday".into(), 20, 1, strings(&[CARL_MAIL])),
            ("tuesday".into(), 15, 1, strings(&["Calendar/personal.ics"])),
            ("wednesday".into(), 9, 1, strings(&[ANA_MAIL])),
            ("wednesday".into(), 18, 1, strings(&["Calendar/choir.ics"])),
            ("thursday".into(), 14, 1, strings(&[BO_MAIL])),
        ]
    );
    // The calendar: the choir at each of its 8 Wednesdays, the tennis matches, the dentist.
    assert_eq!(all["calendar"]["total"], 12, "{}", all["calendar"]);
    let choir_cell = &all["calendar"]["cells"][0];
    assert_eq!(
        (
            choir_cell["weekday"].as_str(),
            choir_cell["hour"].as_u64(),
            choir_cell["count"].as_u64()
        ),
        (Some("wednesday"), Some(18), Some(8))
    );
    let choir_times = evidence_of(choir_cell, "time");
    assert_eq!(
        choir_times,
        vec!["2025-10-01T18:30", "2025-10-08T18:30", "2025-10-15T18:30"]
    );
    let unit_ids = evidence_of(&all["content"]["cells"][0], "unit_id");
    assert_eq!(unit_ids.len(), 3);
    assert!(unit_ids.windows(2).all(|w| w[0] != w[1]), "{unit_ids:?}");
    let folders = pairs(&all["by_folder"], "/folder", "/content/total");
    assert!(
        folders.contains(&("Calendar", 5)) && folders.contains(&("Mail", 3)),
        "{folders:?}"
    );
    let types = pairs(&all["content_by_type"], "/name", "/grid/total");
    assert_eq!(types, vec![("ics", 5), ("eml", 3)]);

    // Series: the rule (8 Wednesdays) and the three separate Saturday matches.
    let series = all["series"].as_array().unwrap();
    assert_eq!(series.len(), 2, "{series:?}");
    assert_eq!(series[0]["title"], "Choir rehearsal");
    assert_eq!(series[0]["source"], "rrule");
    assert_eq!(series[0]["weekdays"], serde_json::json!(["wednesday"]));
    assert_eq!(series[0]["local_time"], "18:30");
    assert_eq!(series[0]["count"], 8);
    assert_eq!(
        (series[0]["first"].as_str(), series[0]["last"].as_str()),
        (Some("2025-10-01"), Some("2025-11-19"))
    );
    assert_eq!(series[0]["evidence"][0]["path"], "Calendar/choir.ics");
    assert_eq!(series[1]["title"], "Tennis with Carl");
    assert_eq!(series[1]["source"], "repeated");
    assert_eq!(series[1]["weekdays"], serde_json::json!(["saturday"]));
    assert_eq!(series[1]["local_time"], "10:00");
    assert_eq!(series[1]["count"], 3);
    assert_eq!(
        (series[1]["first"].as_str(), series[1]["last"].as_str()),
        (Some("2025-10-04"), Some("2025-10-18"))
    );
    let times = evidence_of(&series[1], "time");
    assert_eq!(
        times,
        vec!["2025-10-04T10:00", "2025-10-11T10:00", "2025-10-18T10:00"]
    );

    // People: the owner is on every mail and left out; per ISO week.
    let people = &all["people"];
    assert_eq!(people["owner"], "me@home.example");
    let overall = pairs(&people["overall"], "/name", "/count");
    assert_eq!(
        overall,
        vec![("Carl Diaz", 4), ("Ana Silva", 3), ("Bo Chen", 2)]
    );
    /// `(week, units, [(address, count)])`.
    type Week<'a> = (&'a str, u64, Vec<(&'a str, u64)>);
    let weeks: Vec<Week> = people["weeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["week"].as_str().unwrap(),
                w["units"].as_u64().unwrap(),
                w["people"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p["address"].as_str().unwrap(), p["count"].as_u64().unwrap()))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        weeks,
        vec![
            (
                "2025-W40",
                4,
                vec![
                    ("ana@routine.example", 3),
                    ("bo@routine.example", 2),
                    ("carl@routine.example", 1)
                ]
            ),
            ("2025-W41", 2, vec![("carl@routine.example", 2)]),
            ("2025-W42", 1, vec![("carl@routine.example", 1)]),
        ]
    );
    let ana = &people["weeks"][0]["people"][0];
    assert_eq!(
        ana["roles"],
        serde_json::json!({"cc": 1, "from": 1, "organizer": 1})
    );
    let ana_evidence = evidence_of(ana, "path");
    assert_eq!(ana_evidence, vec![ANA_MAIL, "Calendar/choir.ics", BO_MAIL]);

    // Habits: folders by files, date prefixes, version suffixes.
    let habits = &all["habits"];
    assert_eq!(habits["files"], 9);
    let by_files = pairs(&habits["folders_by_files"], "/folder", "/count");
    assert_eq!(
        by_files,
        vec![
            ("Notes", 4),
            ("Calendar", 2),
            ("Mail/Inbox", 2),
            ("Mail/Sent", 1)
        ]
    );
    assert_eq!(
        habits["folders_by_files"][0]["breakdown"][0],
        serde_json::json!({"name": "md", "count": 3})
    );
    let habit = |name: &str, value: &str| {
        habits["naming"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["habit"] == name && h["value"] == value)
            .unwrap_or_else(|| panic!("{name} {value}: {habits}"))
            .clone()
    };
    let dated = habit("date_prefix", "YYYY-MM-DD_");
    assert_eq!(dated["count"], 3);
    assert_eq!(dated["evidence"][0]["path"], "Notes/2025-09-29_standup.md");
    assert_eq!(habit("date_prefix", "YYYY-MM-DD ")["count"], 3);
    assert_eq!(
        habit("version", "_vN")["evidence"][0]["path"],
        "Notes/ideas_v2.txt"
    );

    // One week by its wall clock: exactly the appended activity of that week (only the
    // trace's events: the indexer may record its own).
    let (status, week) = daemon.post(
        "/api/routine",
        r#"{"when": "the week of 6 October 2025", "reference_time": 1760000000, "sources": ["trace"]}"#,
    );
    assert_eq!(status, 200, "{week}");
    assert_eq!(
        week["range"], "2025-10-06 00:00:00..2025-10-13 00:00:00",
        "{week}"
    );
    assert_eq!(week["activity"]["total"], 4, "{week}");
    assert_eq!(week["activity_sources"], serde_json::json!({"trace": 4}));
    assert_eq!(
        cells(&week["activity"]),
        vec![
            (
                "wednesday".into(),
                19,
                2,
                strings(&["Notes/ideas_v2.txt", BO_MAIL])
            ),
            (
                "monday".into(),
                9,
                1,
                strings(&["Notes/2025-10-06_standup.md"])
            ),
            ("wednesday".into(), 20, 1, strings(&["Notes/ideas_v2.txt"])),
        ]
    );
    let seqs: Vec<i64> = week["activity"]["cells"][0]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, vec![seq2, seq3]);
    let kinds = pairs(&week["activity_by_kind"], "/name", "/grid/total");
    assert_eq!(kinds, vec![("modified", 2), ("read", 1), ("renamed", 1)]);
    // Content that week: Carl's mail, the dentist, one tennis match.
    assert_eq!(week["content"]["total"], 3, "{week}");
    // Files of that week (by modification time): the week's standup note.
    assert_eq!(week["habits"]["files"], 1, "{week}");
    let active = pairs(&week["habits"]["folders_by_activity"], "/folder", "/count");
    assert_eq!(active, vec![("Notes", 3), ("Mail/Inbox", 1)]);

    // A folder, by query string; evidence capped.
    let (status, notes) = daemon.get(
        "/api/routine?folder=Notes&evidence=1&sources=trace&when=the+week+of+6+October+2025&reference_time=1760000000",
    );
    assert_eq!(status, 200, "{notes}");
    assert_eq!(notes["folder"], "Notes");
    assert_eq!(
        (
            notes["content"]["total"].as_u64(),
            notes["activity"]["total"].as_u64()
        ),
        (Some(0), Some(3))
    );
    let (status, calendar) = daemon.get("/api/routine?folder=Calendar&evidence=1");
    assert_eq!(status, 200, "{calendar}");
    assert_eq!(calendar["content"]["total"], 5);
    assert_eq!(calendar["content"]["cells"][0]["count"], 3);
    assert_eq!(
        calendar["content"]["cells"][0]["evidence"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // The other profile, by its prefix.
    let (status, other) = daemon.get("/p/mail/api/routine");
    assert_eq!(status, 200, "{other}");
    assert_eq!(other["content"]["total"], 3, "{other}");
    assert_eq!(other["folder"], "");

    // Bad requests say why.
    for (path, body, needle) in [
        ("/api/routine", r#"{"when": "banana"}"#, "no date range"),
        ("/api/routine", r#"{"folder": "../etc"}"#, "folder"),
        ("/api/routine", r#"{"folders": "Notes"}"#, "folders"),
        ("/api/routine", r#"{"start": 5, "end": 5}"#, "empty"),
        (
            "/api/routine",
            r#"{"when": "last week", "start": 5}"#,
            "either",
        ),
        (
            "/api/routine",
            r#"{"utc_offset_minutes": 10000}"#,
            "utc_offset_minutes",
        ),
        ("/api/routine", r#"{"sources": ["diary"]}"#, "diary"),
    ] {
        let (status, reply) = daemon.post(path, body);
        assert_eq!(status, 400, "{body}: {reply}");
        assert!(
            reply["error"].as_str().unwrap().contains(needle),
            "{body}: {reply}"
        );
    }
    let (status, reply) = daemon.get("/api/routine?top=many");
    assert_eq!(status, 400, "{reply}");

    // gRPC over loopback: the same week in Unix seconds, shown in UTC.
    runtime().block_on(async {
        let mut client = daemon.client().await;
        let reply = client
            .routine(pb::RoutineRequest {
                range: Some(pb::TimeRange {
                    start: WEEK_START,
                    end: WEEK_END,
                }),
                utc_offset_minutes: Some(0),
                sources: vec!["trace".into()],
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(reply.utc_offset, "+00:00");
        let activity = reply.activity.unwrap();
        assert_eq!(activity.total, 4);
        assert_eq!(activity.counts.len(), 168);
        // Thursday (3) 02:00 UTC: two events.
        assert_eq!(activity.counts[3 * 24 + 2], 2);
        let cells: Vec<(&str, u32, u64)> = activity
            .cells
            .iter()
            .map(|c| (c.weekday.as_str(), c.hour, c.count))
            .collect();
        assert_eq!(
            cells,
            vec![("thursday", 2, 2), ("monday", 16, 1), ("thursday", 3, 1)]
        );
        assert_eq!(
            activity.cells[0]
                .evidence
                .iter()
                .map(|e| e.seq)
                .collect::<Vec<_>>(),
            vec![seq2, seq3]
        );
        // The tennis series has one match this week: no series; the choir's rule,
        // begun the week before, recurs this week.
        let titles: Vec<&str> = reply.series.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, vec!["Choir rehearsal"]);
        let calendar = reply.calendar.unwrap();
        assert_eq!(calendar.total, 3);
        // Content keeps its own wall clock (only times given in UTC are shifted):
        // Wednesday 8 October, 18:30.
        assert_eq!(calendar.counts[2 * 24 + 18], 1);
        let people = reply.people.unwrap();
        assert_eq!(people.weeks.len(), 1);
        assert_eq!(people.weeks[0].week, "2025-W41");
        assert_eq!(people.weeks[0].people[0].name, "Carl Diaz");
        assert_eq!(people.weeks[0].people[0].count, 2);
        // The owner is found over the whole profile's mail, not this week's one message.
        assert_eq!(people.owner, "me@home.example");
        assert_eq!(people.weeks[0].people.len(), 1, "{people:?}");
        assert!(!people.weeks[0].people[0].evidence[0].unit_id.is_empty());
        assert!(reply.activity_available);
        assert_eq!(reply.events_scanned, 4);

        // All time over gRPC matches the HTTP figures.
        let all_time = client
            .routine(pb::RoutineRequest::default())
            .await
            .unwrap()
            .into_inner();
        assert_eq!(all_time.content.unwrap().total, 8);
        assert_eq!(all_time.series.len(), 2);
        assert_eq!(all_time.series[0].count, Some(8));

        // The second profile by metadata; bad requests are INVALID_ARGUMENT.
        let mut request = tonic::Request::new(pb::RoutineRequest::default());
        request
            .metadata_mut()
            .insert("x-dentate-profile", "mail".parse().unwrap());
        let mail = client.routine(request).await.unwrap().into_inner();
        assert_eq!(mail.content.unwrap().total, 3);
        let error = client
            .routine(pb::RoutineRequest {
                folder: "../etc".into(),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(error.code(), tonic::Code::InvalidArgument);
    });
}
