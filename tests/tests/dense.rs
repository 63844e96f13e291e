//! Dense and hybrid retrieval end to end: a query with no words in common with its
//! answer, and crash safety of the embedding phase.

use std::process::Command;
use std::time::{Duration, Instant};

use index::Manifest;

use crate::harness::{binary, index, index_with, qdrant_args, result_paths, write, Daemon};

fn retrieve(daemon: &Daemon, query: &str, mode: &str) -> Vec<String> {
    let body = serde_json::json!({ "query": query, "top_k": 3, "mode": mode }).to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    result_paths(&reply)
}

/// Runs a future (a gRPC call) to its end on a runtime of its own.
fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// A note that shares no word with the question that finds it ("dog playing fetch
/// outdoors").
const PUPPY: &str =
    "The puppy chased the tennis ball around the garden until it collapsed, happy and exhausted.\n";

const BUDGET: &str = "Quarterly revenue grew four percent while operating costs stayed flat.\n";
const BAKING: &str = "Whisk the eggs with sugar, fold in flour and bake at 180 degrees.\n";

/// A temporary profile holding `files`, and a temporary index folder.
fn profile_with(files: &[(&str, &str)]) -> (tempfile::TempDir, tempfile::TempDir) {
    let profile = tempfile::tempdir().unwrap();
    for (path, text) in files {
        write(profile.path(), path, text);
    }
    (profile, tempfile::tempdir().unwrap())
}

#[test]
fn a_query_without_shared_words_finds_its_file_semantically() {
    let (profile, index_dir) = profile_with(&[
        ("Notes/afternoon.md", PUPPY),
        ("Notes/budget.md", BUDGET),
        ("Notes/baking.md", BAKING),
    ]);
    let root = profile.path();
    let summary = index(root, index_dir.path());
    assert_eq!(summary["embedding"]["status"], "done", "{summary}");
    assert_eq!(summary["embedding"]["coverage"], 1.0, "{summary}");

    let daemon = Daemon::start(index_dir.path());
    let query = "dog playing fetch outdoors";
    assert!(!retrieve(&daemon, query, "lexical").contains(&"Notes/afternoon.md".to_string()));
    assert_eq!(retrieve(&daemon, query, "dense")[0], "Notes/afternoon.md");
    assert_eq!(retrieve(&daemon, query, "hybrid")[0], "Notes/afternoon.md");

    // explain shows both signals in hybrid mode.
    let body = serde_json::json!({ "query": "puppy garden", "top_k": 1, "mode": "hybrid", "explain": true }).to_string();
    let (_, reply) = daemon.post("/retrieve", &body);
    let explain = &reply["results"][0]["metadata"]["explain"];
    for key in ["bm25.rank", "dense.rank", "dense.cosine", "fused"] {
        assert!(explain.get(key).is_some(), "{key} missing: {reply}");
    }

    // gRPC without a mode gets the server's default, hybrid, as the proto says.
    block_on(async {
        let mut client = daemon.client().await;
        let reply = client
            .search(dentate_proto::v1::SearchRequest {
                query: query.into(),
                top_k: 1,
                explain: true,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            reply.files[0].file.as_ref().unwrap().path,
            "Notes/afternoon.md"
        );
        let notes = reply.explain.unwrap().notes;
        assert!(notes.iter().any(|n| n == "mode: hybrid"), "{notes:?}");
    });
}

/// A budget memo of nine sentences, one of which is about a dog at play.
const MEMO_WITH_ONE_DOG_SENTENCE: &str = "Quarterly revenue grew four percent on the year. \
Operating costs stayed flat across every department. The board approved the new pricing. \
Marketing spend moved from print to online channels. The puppy chased the tennis ball \
around the garden until it collapsed, happy and exhausted. Cash reserves cover nine months \
of payroll. Two suppliers raised their prices in the spring. The audit found no material \
issues. Next quarter's forecast assumes steady demand.\n";

#[test]
fn rerank_scores_units_by_their_best_sentence() {
    let (profile, index_dir) = profile_with(&[
        ("Notes/memo.md", MEMO_WITH_ONE_DOG_SENTENCE),
        ("Notes/budget.md", BUDGET),
        ("Notes/baking.md", BAKING),
    ]);
    let summary = index(profile.path(), index_dir.path());
    assert_eq!(summary["embedding"]["coverage"], 1.0, "{summary}");
    let daemon = Daemon::start(index_dir.path());
    let query = "dog playing fetch outdoors";
    let body = |rerank: bool| {
        serde_json::json!({ "query": query, "top_k": 3, "mode": "hybrid", "explain": true, "rerank": rerank })
            .to_string()
    };
    let (status, plain) = daemon.post("/retrieve", &body(false));
    assert_eq!(status, 200, "{plain}");
    assert_eq!(plain["reranked"], false);
    let (status, reranked) = daemon.post("/retrieve", &body(true));
    assert_eq!(status, 200, "{reranked}");
    assert_eq!(reranked["reranked"], true, "{reranked}");
    assert!(reranked.get("note").is_none(), "{reranked}");
    let notes = reranked["explain"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("rerank: the first 3 units")),
        "{notes:?}"
    );
    // The same units, in the order of the combined score, with the scores still sorted.
    let mut before = result_paths(&plain);
    let after = result_paths(&reranked);
    let mut sorted_after = after.clone();
    before.sort();
    sorted_after.sort();
    assert_eq!(before, sorted_after);
    let results = reranked["results"].as_array().unwrap();
    let signal = |i: usize, key: &str| {
        results[i]["metadata"]["explain"][key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} missing: {}", results[i]))
    };
    for i in 1..results.len() {
        assert!(signal(i - 1, "rerank.score") >= signal(i, "rerank.score"));
        assert!(results[i - 1]["score"].as_f64() >= results[i]["score"].as_f64());
    }
    // The memo's one sentence about a dog at play is closer to the question than the
    // memo as a whole (its vector is mostly budget), and the closest sentence of all.
    let memo = after.iter().position(|p| p == "Notes/memo.md").unwrap();
    assert!(
        signal(memo, "rerank.sentence") > signal(memo, "dense.cosine") + 0.1,
        "{}",
        results[memo]
    );
    for i in (0..results.len()).filter(|i| *i != memo) {
        assert!(signal(memo, "rerank.sentence") > signal(i, "rerank.sentence"));
    }
    // Each combined score is the retrieval score plus the sentence score, both mapped
    // onto [0, 1] over the candidates.
    let on_unit_range = |key: &str| -> Vec<f64> {
        let values: Vec<f64> = (0..results.len()).map(|i| signal(i, key)).collect();
        let (low, high) = values
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
        values.iter().map(|v| (v - low) / (high - low)).collect()
    };
    let (retrieval, sentence) = (
        on_unit_range("retrieval.score"),
        on_unit_range("rerank.sentence"),
    );
    for i in 0..results.len() {
        // searchd::rerank::WEIGHT: equal weights.
        let expected = retrieval[i] + sentence[i];
        assert!(
            (signal(i, "rerank.score") - expected).abs() < 1e-4,
            "{}",
            results[i]
        );
    }
    // Asked for one unit, the stage still reorders the first ten: the one returned is
    // the best by the combined score, wherever retrieval put it.
    let one = serde_json::json!({ "query": query, "top_k": 1, "mode": "hybrid", "rerank": true })
        .to_string();
    let (_, reply) = daemon.post("/retrieve", &one);
    assert_eq!(result_paths(&reply), vec![after[0].clone()]);

    // gRPC Retrieve says so too.
    block_on(async {
        let mut client = daemon.client().await;
        let reply = client
            .retrieve(dentate_proto::v1::SearchRequest {
                query: query.into(),
                top_k: 3,
                rerank: true,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(reply.reranked);
        assert_eq!(reply.units.len(), 3);
    });
}

/// A report of numbered findings about soil samples (one span of the chunker, longer
/// than the text model's window), whose last lines are about something else: a dog at
/// play.
fn long_report() -> String {
    let mut text = String::from("# Soil survey, north field\n\n");
    for i in 1..=13 {
        text.push_str(&format!(
            "Sample {i} held {} percent clay and a pH of {}.{}; nitrogen was within the usual range. ",
            20 + i % 17,
            5 + i % 3,
            i % 10
        ));
    }
    text.push_str(
        "\nAfterwards the puppy chased the tennis ball around the garden until it collapsed, \
         happy and exhausted.\n",
    );
    text
}

#[test]
fn a_long_unit_is_found_by_a_phrase_from_its_last_window() {
    let report = long_report();
    let (profile, index_dir) = profile_with(&[
        ("Notes/survey.md", report.as_str()),
        ("Notes/budget.md", BUDGET),
        ("Notes/baking.md", BAKING),
    ]);
    let summary = index(profile.path(), index_dir.path());
    assert_eq!(summary["embedding"]["status"], "done", "{summary}");
    let windows = summary["embedding"]["windows_embedded"].as_u64().unwrap();
    let units = summary["embedding"]["units_embedded"].as_u64().unwrap();
    assert!(windows > units, "{summary}");
    // The survey is one unit of several windows, stored one after another, and the dog
    // is only in the last of them.
    let stored = vectors(index_dir.path());
    assert_eq!(stored.len(), 3, "one unit per file");
    let longest = stored.iter().map(|(_, _, v)| v.len()).max().unwrap();
    assert!(longest >= 2 * index::vector::TEXT_DIM, "{longest}");
    assert!(stored
        .iter()
        .all(|(_, _, v)| v.len() % index::vector::TEXT_DIM == 0));
    let daemon = Daemon::start(index_dir.path());
    let body = serde_json::json!({
        "query": "dog playing fetch outdoors", "top_k": 3, "mode": "dense", "explain": true
    })
    .to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    assert_eq!(result_paths(&reply)[0], "Notes/survey.md", "{reply}");
    // The unit's windows, cut from what the indexer embeds: its folder and file name, its
    // title and its text.
    let unit = &reply["results"][0];
    let text = unit["text"].as_str().unwrap();
    assert_eq!(text.trim(), report.trim(), "{reply}");
    let unit_text = index::vector::unit_embedding_text(
        "Notes/survey.md",
        unit["metadata"]["title"].as_str().unwrap_or_default(),
        text,
    );
    assert!(unit_text.starts_with("Notes / survey\n"), "{unit_text}");
    let mut encoder =
        indexer::embed::TextEncoder::load(&indexer::embed::default_models_dir(), 1).unwrap();
    let windows = encoder.windower().window_texts(&unit_text);
    assert!(windows.len() >= 2, "{windows:?}");
    assert!(!windows[0].contains("puppy"), "{windows:?}");
    assert!(windows.last().unwrap().contains("puppy"), "{windows:?}");
    // It scores by its last window: the first alone is far from the question.
    let cosine = reply["results"][0]["metadata"]["explain"]["dense.cosine"]
        .as_f64()
        .unwrap();
    let vectors = encoder
        .embed(&["dog playing fetch outdoors".to_string(), windows[0].clone()])
        .unwrap();
    let first: f32 = vectors[0].iter().zip(&vectors[1]).map(|(a, b)| a * b).sum();
    assert!(
        cosine > f64::from(first) + 0.05,
        "{cosine} vs {first}: {reply}"
    );
    // With no question word in it, its snippet is that window, not its beginning.
    let snippet = reply["results"][0]["metadata"]["snippet"].as_str().unwrap();
    let last = windows.last().unwrap();
    assert!(snippet.starts_with('…'), "{snippet}");
    assert!(
        last.starts_with(snippet.trim_start_matches('…').trim_end_matches('…')),
        "{snippet} / {last}"
    );
    // Over Qdrant, whose MaxSim does not say which window scored, the same window is
    // the snippet.
    // Required in CI (`DENTATE_REQUIRE_QDRANT`); elsewhere only with a server at hand.
    if cfg!(dentate_qdrant) {
        let server = dentate_qdrant::testing::require_server();
        let collection = format!("windows_{}", std::process::id());
        let backend = qdrant_args(&server.url, &collection);
        let synced = index_with(profile.path(), index_dir.path(), &backend);
        assert_eq!(synced["qdrant"]["files"], 3, "{synced}");
        let remote = Daemon::start_with(index_dir.path(), &backend);
        let (status, served) = remote.post("/retrieve", &body);
        assert_eq!(status, 200, "{served}");
        assert_eq!(result_paths(&served)[0], "Notes/survey.md", "{served}");
        assert_eq!(
            served["results"][0]["metadata"]["snippet"], reply["results"][0]["metadata"]["snippet"],
            "{served}"
        );
    }

    // A second run reuses every vector, windows and all.
    let again = index(profile.path(), index_dir.path());
    assert_eq!(again["embedding"]["units_embedded"], 0, "{again}");
    drop(daemon);

    // One window per text: only the long unit is embedded again, as its first window,
    // and the dog is no longer found by meaning in it; back to the default, the same.
    let first_only = index_with(profile.path(), index_dir.path(), &["--text-windows", "1"]);
    let embedding = &first_only["embedding"];
    assert_eq!(
        (&embedding["units_embedded"], &embedding["windows_embedded"]),
        (&1.into(), &1.into()),
        "{first_only}"
    );
    assert_eq!(embedding["units_reused"], 2, "{first_only}");
    // Not another model's vectors (the count is left out when it is 0).
    assert_eq!(
        embedding["files_of_another_model"].as_u64().unwrap_or(0),
        0,
        "{first_only}"
    );
    let longest = self::vectors(index_dir.path())
        .iter()
        .map(|(_, _, v)| v.len())
        .max()
        .unwrap();
    assert_eq!(longest, index::vector::TEXT_DIM);
    let daemon = Daemon::start(index_dir.path());
    let (_, reply) = daemon.post("/retrieve", &body);
    let survey = reply["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metadata"]["file_path"] == "Notes/survey.md");
    if let Some(survey) = survey {
        let cosine = survey["metadata"]["explain"]["dense.cosine"]
            .as_f64()
            .unwrap();
        assert!(
            (cosine - f64::from(first)).abs() < 0.01,
            "{cosine} vs {first}: {reply}"
        );
    }
    drop(daemon);
    let unchanged = index_with(profile.path(), index_dir.path(), &["--text-windows", "1"]);
    assert_eq!(unchanged["embedding"]["units_embedded"], 0, "{unchanged}");
    let back = index(profile.path(), index_dir.path());
    assert_eq!(back["embedding"]["units_embedded"], 1, "{back}");
    assert_eq!(
        back["embedding"]["windows_embedded"].as_u64().unwrap(),
        windows.len() as u64,
        "{back}"
    );
}

#[test]
fn an_index_embedded_before_file_names_keeps_dense_search_until_it_is_embedded_again() {
    let (profile, index_dir) =
        profile_with(&[("Notes/afternoon.md", PUPPY), ("Notes/baking.md", BAKING)]);
    let first = index(profile.path(), index_dir.path());
    assert_eq!(first["embedding"]["units_embedded"], 2, "{first}");
    let model = first["embedding"]["model"].as_str().unwrap().to_string();

    // Made into an index of before: each vector keyed by the hash of its unit's title and
    // text alone, each file's marker without `+named`.
    let units: Vec<index::StoredUnit> = {
        let handle = index::IndexHandle::open(index_dir.path()).unwrap();
        ["Notes/afternoon.md", "Notes/baking.md"]
            .iter()
            .flat_map(|path| handle.units_of_file(&index::file_id_for(path)).unwrap())
            .collect()
    };
    {
        let mut manifest = Manifest::open(&index_dir.path().join("manifest.sqlite")).unwrap();
        let stored = manifest.all_vectors().unwrap();
        for path in ["Notes/afternoon.md", "Notes/baking.md"] {
            let record = manifest.get(path).unwrap().unwrap();
            let rows: Vec<(String, String, Vec<u8>)> = units
                .iter()
                .filter(|unit| unit.path == path)
                .map(|unit| {
                    let (_, _, _, bytes) = stored.iter().find(|v| v.0 == unit.unit_id).unwrap();
                    let plain = index::vector::embedding_text(&unit.title, &unit.text);
                    (
                        unit.unit_id.clone(),
                        index::vector::text_hash(&plain),
                        bytes.clone(),
                    )
                })
                .collect();
            assert_eq!(rows.len(), 1, "{path}");
            let hash = record.hash.clone().unwrap_or_default();
            manifest
                .replace_file_vectors(path, &record.file_id, &hash, &model, 16, &rows)
                .unwrap();
            let mut before = manifest.get(path).unwrap().unwrap();
            let marker = before.embedded.take().unwrap();
            before.embedded = Some(
                marker
                    .trim_end_matches(index::vector::NAMED_MARK)
                    .to_string(),
            );
            manifest.apply(&[before], &[]).unwrap();
        }
    }

    // A daemon of today still searches those vectors by meaning.
    let daemon = Daemon::start(index_dir.path());
    let query = "dog playing fetch outdoors";
    assert_eq!(
        retrieve(&daemon, query, "dense")
            .first()
            .map(String::as_str),
        Some("Notes/afternoon.md"),
        "the vectors of before are not served"
    );
    drop(daemon);

    // The next run embeds both files again, under their names, not as another model's;
    // the one after, nothing.
    let second = index(profile.path(), index_dir.path());
    let embedding = &second["embedding"];
    assert_eq!(embedding["units_embedded"], 2, "{second}");
    assert_eq!(
        embedding["files_of_another_model"].as_u64().unwrap_or(0),
        0,
        "{second}"
    );
    let handle = index::IndexHandle::open(index_dir.path()).unwrap();
    for (unit_id, hash, _) in vectors(index_dir.path()) {
        let file_id = unit_id.split(':').next().unwrap();
        let unit = handle
            .units_of_file(file_id)
            .unwrap()
            .into_iter()
            .find(|u| u.unit_id == unit_id)
            .unwrap();
        let headed = index::vector::unit_embedding_text(&unit.path, &unit.title, &unit.text);
        assert!(headed.starts_with("Notes / "), "{headed}");
        assert_eq!(hash, index::vector::text_hash(&headed), "{unit_id}");
    }
    let third = index(profile.path(), index_dir.path());
    assert_eq!(third["embedding"]["units_embedded"], 0, "{third}");
    let daemon = Daemon::start(index_dir.path());
    assert_eq!(retrieve(&daemon, query, "dense")[0], "Notes/afternoon.md");
}

fn vectors(index_dir: &std::path::Path) -> Vec<(String, String, Vec<f32>)> {
    let manifest = Manifest::open_existing(&index_dir.join("manifest.sqlite")).unwrap();
    manifest
        .all_vectors()
        .unwrap()
        .into_iter()
        .map(|(unit, _, hash, bytes)| (unit, hash, index::vector::from_bytes(&bytes).unwrap()))
        .collect()
}

#[test]
fn sigkill_during_embedding_then_rerun_gives_the_vectors_of_a_clean_run() {
    let profile = tempfile::tempdir().unwrap();
    let words = [
        "river", "granite", "lantern", "orchard", "violin", "harbour", "meadow", "copper",
        "sparrow", "glacier",
    ];
    // Enough files for two groups of texts (256 each, written file by file once the
    // group is embedded), so that a kill issued as soon as the first vectors are written
    // lands while later ones are still to come.
    const FILES: usize = 400;
    for i in 0..FILES {
        let paragraph: Vec<String> = (0..20)
            .map(|j| {
                format!(
                    "{} {} {}",
                    words[(i + j) % 10],
                    words[(i * 7 + j * 3) % 10],
                    i * 31 + j
                )
            })
            .collect();
        write(
            profile.path(),
            &format!("notes/n{i:03}.txt"),
            &paragraph.join(" "),
        );
    }
    let clean = tempfile::tempdir().unwrap();
    index(profile.path(), clean.path());
    let expected = vectors(clean.path());
    assert_eq!(expected.len(), FILES);

    // Kill -9 as soon as some (not all) vectors are written.
    let crashed = tempfile::tempdir().unwrap();
    let mut child = Command::new(binary("dentate-index"))
        .arg(profile.path())
        .arg("--index")
        .arg(crashed.path())
        .spawn()
        .unwrap();
    let manifest_path = crashed.path().join("manifest.sqlite");
    let started = Instant::now();
    let mut written = 0;
    while started.elapsed() < Duration::from_secs(120) {
        if manifest_path.exists() {
            if let Ok(manifest) = Manifest::open_existing(&manifest_path) {
                written = manifest.all_vectors().map(|v| v.len()).unwrap_or(0);
            }
        }
        if written > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let partial = vectors(crashed.path()).len();
    assert!(
        partial > 0 && partial < FILES,
        "kill landed outside the embedding phase: {partial} vectors"
    );

    let resumed = index(profile.path(), crashed.path());
    assert_eq!(resumed["embedding"]["coverage"], 1.0, "{resumed}");
    let actual = vectors(crashed.path());
    assert_eq!(actual.len(), expected.len());
    for ((unit_a, hash_a, vec_a), (unit_b, hash_b, vec_b)) in expected.iter().zip(&actual) {
        assert_eq!((unit_a, hash_a), (unit_b, hash_b));
        let diff = vec_a
            .iter()
            .zip(vec_b)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(diff < 1e-4, "{unit_a}: vectors differ by {diff}");
    }
}

#[test]
fn a_moved_file_keeps_its_vectors_and_a_renamed_one_is_embedded_under_its_new_name() {
    let (profile, index_dir) =
        profile_with(&[("Notes/afternoon.md", PUPPY), ("Notes/baking.md", BAKING)]);
    let root = profile.path();
    let first = index(root, index_dir.path());
    assert_eq!(first["embedding"]["units_embedded"], 2, "{first}");
    // A daemon that runs through the moves follows the moved vectors.
    let daemon = Daemon::start(index_dir.path());
    let query = "dog playing fetch outdoors";
    assert_eq!(retrieve(&daemon, query, "dense")[0], "Notes/afternoon.md");
    let found_at = |path: &str| {
        crate::harness::eventually(Duration::from_secs(15), || {
            retrieve(&daemon, query, "dense")
                .first()
                .map(String::as_str)
                == Some(path)
        })
    };

    // Into another "Notes" folder under the same name: what the vectors were made under
    // ("Notes / afternoon", `index::vector::file_context`) is unchanged, so they move
    // with the file and nothing is embedded.
    // Each move: one file moved, none converted.
    let moved = |from: &str, to: &str| {
        std::fs::rename(root.join(from), root.join(to)).unwrap();
        let summary = index(root, index_dir.path());
        assert_eq!(
            (&summary["moved"], &summary["converted"]),
            (&serde_json::json!(1), &serde_json::json!(0)),
            "{summary}"
        );
        summary
    };
    std::fs::create_dir_all(root.join("Archive/Notes")).unwrap();
    let second = moved("Notes/afternoon.md", "Archive/Notes/afternoon.md");
    assert_eq!(second["embedding"]["units_embedded"], 0, "{second}");
    assert_eq!(second["embedding"]["coverage"], 1.0, "{second}");
    assert_eq!(second["activity"]["moved"], 1, "{second}");
    assert!(
        found_at("Archive/Notes/afternoon.md"),
        "dense search still finds {:?}",
        retrieve(&daemon, query, "dense")
    );

    // Renamed: moved without converting, and its one unit embedded again under the new
    // name; dense search finds it there.
    let third = moved("Archive/Notes/afternoon.md", "Archive/Notes/dog-day.md");
    assert_eq!(third["embedding"]["units_embedded"], 1, "{third}");
    assert_eq!(third["embedding"]["coverage"], 1.0, "{third}");
    assert!(
        found_at("Archive/Notes/dog-day.md"),
        "dense search still finds {:?}",
        retrieve(&daemon, query, "dense")
    );
}

#[test]
fn an_index_of_the_packaged_graph_is_searched_then_embedded_again_with_the_fast_graph() {
    let (profile, index_dir) =
        profile_with(&[("Notes/afternoon.md", PUPPY), ("Notes/budget.md", BUDGET)]);
    let root = profile.path();
    if !indexer::embed::default_models_dir()
        .join("minilm")
        .join(indexer::embed::FAST_GRAPH)
        .is_file()
    {
        eprintln!("skipped: no fast MiniLM graph (run scripts/fetch-models)");
        return;
    }
    // A model asked for by name whose graph is missing: a clear error, nothing done.
    let missing = Command::new(binary("dentate-index"))
        .arg(root)
        .arg("--index")
        .arg(index_dir.path())
        .args(["--text-model", "minilm-q8", "--models"])
        .arg(index_dir.path().join("no-models"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(!missing.status.success(), "{missing:?}");
    assert!(
        stderr.contains("--text-model minilm-q8") && stderr.contains("scripts/fetch-models"),
        "{stderr}"
    );
    assert!(!index_dir.path().join("manifest.sqlite").exists());

    // An index made before the fast graph: the packaged graph's vectors
    // (`--text-model minilm`, as `DENTATE_TEXT_GRAPH=packaged` did before it).
    let output = Command::new(binary("dentate-index"))
        .arg(root)
        .arg("--index")
        .arg(index_dir.path())
        .args(["--json", "--text-model", "minilm"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let old: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(old["embedding"]["model"], "all-MiniLM-L6-v2-int8", "{old}");
    assert_eq!(old["embedding"]["units_embedded"], 2, "{old}");
    let before = vectors(index_dir.path());

    // Today's daemon (fast question graph) searches those vectors as they are.
    let query = "dog playing fetch outdoors";
    {
        let daemon = Daemon::start(index_dir.path());
        assert_eq!(retrieve(&daemon, query, "dense")[0], "Notes/afternoon.md");
    }

    // The next run embeds every unit again with the fast graph, though no text changed.
    let new = index(root, index_dir.path());
    assert_eq!(new["embedding"]["model"], "all-MiniLM-L6-v2-q8", "{new}");
    assert_eq!(new["embedding"]["units_embedded"], 2, "{new}");
    assert_eq!(new["embedding"]["units_reused"], 0, "{new}");
    assert_eq!(new["embedding"]["files_of_another_model"], 2, "{new}");
    assert_eq!(new["embedding"]["coverage"], 1.0, "{new}");
    let after = vectors(index_dir.path());
    assert_eq!(before.len(), after.len());
    for ((unit_a, hash_a, a), (unit_b, hash_b, b)) in before.iter().zip(&after) {
        assert_eq!((unit_a, hash_a), (unit_b, hash_b));
        let cosine: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        assert!(a != b && cosine > 0.99, "{unit_a}: cosine {cosine}");
    }
    let again = index(root, index_dir.path());
    assert_eq!(again["embedding"]["units_embedded"], 0, "{again}");
    assert!(
        again["embedding"].get("files_of_another_model").is_none(),
        "{again}"
    );
    let daemon = Daemon::start(index_dir.path());
    assert_eq!(retrieve(&daemon, query, "dense")[0], "Notes/afternoon.md");
}
