//! The activity signal on a real (lexical) index, through the engine's library API: an indexed temporary profile, events
//! appended to its manifest, the engine asked before and after.

use std::path::Path;

use index::{ActivityEvent, ActivityKind, ActivitySource, IndexLayout, Manifest};

use searchd::activity::plan::{ACTIVITY_BOOST, ONLY_DOING_BOOST};
use searchd::query::{Mode, SearchParams};
use searchd::Engine;

/// 2025-03-11T00:00:00Z.
const DAY_MS: i64 = 1_741_651_200_000;
const HOUR_MS: i64 = 3_600_000;

fn indexed_profile() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    for (path, text) in [
        (
            "Projects/lantern.txt",
            "Lantern shop plan: stock, lighting, shelves.",
        ),
        (
            "Notes/budget.md",
            "Kiln budget: kiln clay, kiln glaze and kiln firing costs.",
        ),
        (
            "Notes/kiln log.md",
            "Kiln firing log: cones, kiln shelves and stilts.",
        ),
        (
            "Notes/checklist.md",
            "Editing checklist for 11 March 2025: edit headings, edit captions.",
        ),
    ] {
        let file = profile.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let index = dir.path().join("index");
    let mut options = indexer::IndexOptions::new(&profile, index.clone());
    options.embed = false;
    options.ocr = false;
    options.media = false;
    indexer::run(&options, &indexer::NoProgress).unwrap();
    (dir, index)
}

fn append(index: &Path, events: &[(ActivityKind, &str, i64)]) {
    let events: Vec<ActivityEvent> = events
        .iter()
        .map(|(kind, path, hour)| {
            ActivityEvent::new(
                kind.clone(),
                ActivitySource::Observed,
                Some(path),
                DAY_MS + hour * HOUR_MS,
            )
        })
        .collect();
    let mut manifest = Manifest::open(&IndexLayout::new(index).manifest_path()).unwrap();
    manifest.append_activity(&events).unwrap();
}

/// `(path, score, prior.activity)` of each file.
fn ranking(engine: &Engine, query: &str, disable: &[&str]) -> Vec<(String, f32, Option<f64>)> {
    let disabled: Vec<String> = disable.iter().map(|s| s.to_string()).collect();
    let outcome = engine
        .search(SearchParams {
            query: query.to_string(),
            mode: Mode::Lexical,
            explain: true,
            planner: searchd::query::planner_switches(&disabled).unwrap(),
            ..SearchParams::default()
        })
        .unwrap();
    outcome
        .files
        .iter()
        .map(|f| {
            (
                f.file.path.clone(),
                f.score,
                f.units[0].signals.get("prior.activity").copied(),
            )
        })
        .collect()
}

#[test]
fn matching_activity_raises_files_and_an_empty_log_changes_nothing() {
    let (_dir, index) = indexed_profile();
    let engine = Engine::open(&index).unwrap();
    let only_doing = "Which files did I edit on 11 March 2025?";
    let topic = "What did I edit about the kiln on 11 March 2025?";
    let before = ranking(&engine, only_doing, &[]);
    assert_eq!(before, ranking(&engine, only_doing, &["activity"]));
    assert_eq!(before[0].0, "Notes/checklist.md");
    let topic_before = ranking(&engine, topic, &[]);
    let at = |ranking: &[(String, f32, Option<f64>)], path: &str| {
        ranking.iter().position(|f| f.0 == path)
    };
    assert!(
        at(&topic_before, "Notes/kiln log.md") < at(&topic_before, "Notes/budget.md"),
        "{topic_before:?}"
    );

    append(
        &index,
        &[
            (ActivityKind::Modified, "Projects/lantern.txt", 19),
            (ActivityKind::Modified, "Projects/lantern.txt", 20),
            (ActivityKind::Modified, "Notes/budget.md", 21),
            // Another day, another kind: no effect.
            (ActivityKind::Modified, "Notes/kiln log.md", 30),
            (ActivityKind::Read, "Notes/kiln log.md", 22),
        ],
    );
    let after = ranking(&engine, only_doing, &[]);
    let paths: Vec<&str> = after.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        paths[..2],
        ["Projects/lantern.txt", "Notes/budget.md"],
        "{after:?}"
    );
    assert_eq!(after[0].2, Some(f64::from(ONLY_DOING_BOOST)));
    let unchanged = after.iter().find(|f| f.0 == "Notes/checklist.md").unwrap();
    assert_eq!(unchanged.2, None);
    // A topic and doing: the edited file about the topic rises above the unedited one,
    // the edited file off the topic stays below the topic's best match.
    let topic_after = ranking(&engine, topic, &[]);
    let budget = at(&topic_after, "Notes/budget.md");
    let kiln_log = at(&topic_after, "Notes/kiln log.md");
    assert!(budget < kiln_log, "{topic_after:?}");
    assert_eq!(
        topic_after[budget.unwrap()].2,
        Some(f64::from(ACTIVITY_BOOST))
    );
    assert!(
        kiln_log < at(&topic_after, "Projects/lantern.txt"),
        "{topic_after:?}"
    );
    // Switched off: as before the events.
    assert_eq!(ranking(&engine, only_doing, &["activity"]), before);
    // Not a question about doing: untouched.
    assert_eq!(
        ranking(&engine, "kiln shelves", &[]),
        ranking(&engine, "kiln shelves", &["activity"])
    );
}
