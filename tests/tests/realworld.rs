//! Acceptance checks on the shared real-world corpus (ignored by the runner when `../shared`
//! is absent, required by `scripts/test`): malformed files fail with specific reasons, every other document and text
//! file yields units, the 3M 10-K query finds its page, and a second run on an
//! unchanged profile is nearly free.

use std::time::Instant;

use dentate_proto::v1 as pb;

use crate::harness::{index_with, result_for, result_paths, shared_corpus, Daemon};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(dentate_shared),
    ignore = "needs ../shared/corpus beside the repository"
)]
async fn realworld_corpus_acceptance() {
    let corpus = shared_corpus().expect("../shared/corpus beside the repository");
    let profile = corpus.join("realworld");
    let index_dir = tempfile::tempdir().unwrap();

    // Lexical only: embedding 8K units would dominate the test's time; dense retrieval
    // has its own tests.
    let started = Instant::now();
    let first = index_with(&profile, index_dir.path(), &["--no-embed"]);
    let first_seconds = started.elapsed().as_secs_f64();

    // Every file under Broken/ failed, each with a specific reason.
    let broken: Vec<String> = std::fs::read_dir(profile.join("Broken"))
        .unwrap()
        .map(|e| format!("Broken/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    let failures = first["failures"].as_array().unwrap();
    for path in &broken {
        let failure = failures.iter().find(|f| f["path"] == path.as_str());
        let failure = failure.unwrap_or_else(|| panic!("{path} was not reported as failed"));
        let reason = failure["reason"].as_str().unwrap();
        assert!(reason.len() > 8, "{path}: vague reason {reason:?}");
    }

    let daemon = Daemon::start(index_dir.path());
    let mut client = daemon.client().await;

    // Every other document / text file yields units.
    let listing = client
        .list_files(pb::ListFilesRequest {
            pattern: String::new(),
            limit: 100_000,
            include_failed: true,
        })
        .await
        .unwrap()
        .into_inner();
    let mut problems = Vec::new();
    for file in &listing.files {
        let top_level = file.parent_path.is_empty();
        let in_broken = file.path.starts_with("Broken/");
        let textual = file.modality == "document" || file.modality == "text";
        if top_level && !in_broken && textual && (file.status != "indexed" || file.unit_count == 0)
        {
            problems.push(format!(
                "{} ({}, {} units): {}",
                file.path, file.status, file.unit_count, file.error
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "document/text files without units:\n{}",
        problems.join("\n")
    );

    // The 3M query, in both request dialects.
    let expected = "Documents/Finance/10-K/3M_2018_10K.pdf";
    for body in [
        r#"{"query": "3M purchases of property, plant and equipment 2018", "top_k": 5}"#,
        r#"{"queries": ["3M purchases of property, plant and equipment 2018"], "topk": 5}"#,
    ] {
        let (status, reply) = daemon.post("/retrieve", body);
        assert_eq!(status, 200, "{reply}");
        let hit = result_for(&reply, expected)
            .unwrap_or_else(|| panic!("{expected} not in the top 5: {reply}"));
        assert!(hit["metadata"]["page"].as_u64().unwrap() >= 1, "{hit}");
    }

    // OCR: text printed in a scanned image is found.
    let (status, reply) = daemon.post(
        "/retrieve",
        r#"{"query": "quick brown dog jumped over the lazy fox", "top_k": 3, "mode": "lexical"}"#,
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(
        reply["results"][0]["metadata"]["file_path"], "Pictures/Scans/phototest.tif",
        "{reply}"
    );

    // OCR of an image-only (scanned) PDF page, rendered with pdftoppm.
    if first["ocr"]["pages"].as_u64().unwrap_or(0) > 0 {
        let (status, reply) = daemon.post(
            "/retrieve",
            r#"{"query": "LinnSequencer 32 Track MIDI Sequence Recorder", "top_k": 3, "mode": "lexical"}"#,
        );
        assert_eq!(status, 200, "{reply}");
        // The brochure's typed transcript in Notes/ holds the same words, so either may
        // come first; the scan's page is found by its OCR text either way.
        const SCAN: &str = "Documents/Scans/LinnSequencer brochure (scan).pdf";
        const TRANSCRIPT: &str = "Notes/LinnSequencer brochure transcript.txt";
        let hit = result_for(&reply, SCAN)
            .unwrap_or_else(|| panic!("the scanned page is not in the top 3: {reply}"));
        assert_eq!(hit["metadata"]["page"], 1, "{reply}");
        let first = &result_paths(&reply)[0];
        assert!(first == SCAN || first == TRANSCRIPT, "{reply}");
    }

    // Visual tags with WordNet's broader terms: the harbour photo shows ships.
    if first["ocr"]["tagged"].as_u64().unwrap_or(0) > 0 {
        let (status, reply) = daemon.post(
            "/retrieve",
            r#"{"query": "ship", "top_k": 3, "mode": "lexical"}"#,
        );
        assert_eq!(status, 200, "{reply}");
        assert!(
            result_paths(&reply)
                .iter()
                .any(|p| p == "Pictures/Camera/2022-08 Helsinki harbour.jpg"),
            "{reply}"
        );
    }

    // Speech and on-screen text (when ffmpeg and the models are there).
    if first["media"]["status"] == "done" {
        let (status, reply) = daemon.post(
            "/retrieve",
            r#"{"query": "ask not what your country can do for you", "top_k": 3, "mode": "lexical"}"#,
        );
        assert_eq!(status, 200, "{reply}");
        let top = &reply["results"][0];
        let path = top["metadata"]["file_path"].as_str().unwrap_or_default();
        assert!(path.starts_with("Audio/Speeches/jfk."), "{reply}");
        let text = top["text"].as_str().unwrap_or_default().to_lowercase();
        assert!(text.contains("ask not what your country"), "{reply}");
        // The phrase is spoken from about 3.5 s to 7.5 s.
        let start = top["metadata"]["start"].as_f64().unwrap();
        let end = top["metadata"]["end"].as_f64().unwrap();
        assert!(start <= 3.5 && end >= 7.5, "{reply}");

        // Whisper base is multilingual: a French memo is transcribed in French.
        let (status, reply) = daemon.post(
            "/retrieve",
            r#"{"query": "consulat conservateur des eaux et forêts", "top_k": 3, "mode": "lexical"}"#,
        );
        assert_eq!(status, 200, "{reply}");
        assert_eq!(
            reply["results"][0]["metadata"]["file_path"], "Audio/Voice Memos/french - consulat.wav",
            "{reply}"
        );

        let (status, reply) = daemon.post(
            "/retrieve",
            r#"{"query": "Photo JPEG 25 fps", "top_k": 3, "mode": "lexical"}"#,
        );
        assert_eq!(status, 200, "{reply}");
        assert_eq!(
            reply["results"][0]["metadata"]["file_path"],
            "Video/test pattern timecode (no audio).mp4",
            "{reply}"
        );
        assert!(
            reply["results"][0]["metadata"]["start"].as_f64().is_some(),
            "{reply}"
        );
    } else {
        eprintln!("note: media analysis {}", first["media"]);
    }

    // Videos: an index (moov) after a megabyte of media data is read from the file's
    // tail, and a recording position becomes a place name when the gazetteer is there.
    {
        let handle = index::IndexHandle::open(index_dir.path()).unwrap();
        let manifest = handle.manifest().unwrap();
        let first_unit = |path: &str| {
            let record = manifest.get(path).unwrap().unwrap();
            let units = handle.units_of_file(&record.file_id).unwrap();
            units.into_iter().find(|u| u.ordinal == 0).unwrap()
        };
        let narration = first_unit("Video/Xata narration with subtitles.mp4");
        assert!(narration.fields.contains_key("duration_s"), "{narration:?}");
        let stove = first_unit("Video/VID living room stove and dog.mp4");
        assert_eq!(stove.fields["gps_lat"], "54.184300", "{stove:?}");
        assert_eq!(stove.fields["gps_lon"], "-2.718900", "{stove:?}");
        let gazetteer =
            indexer::embed::default_models_dir().join(converters::places::GAZETTEER_FILE);
        if gazetteer.is_file() {
            assert!(stove.fields.contains_key("place"), "{stove:?}");
            assert!(stove.text.contains("Place: "), "{stove:?}");
        }
    }

    // Second run on the unchanged profile: under 5% of the first run's time.
    let started = Instant::now();
    let second = index_with(&profile, index_dir.path(), &["--no-embed"]);
    let second_seconds = started.elapsed().as_secs_f64();
    assert_eq!(second["converted"], 0, "{second}");
    assert!(
        second_seconds < first_seconds * 0.05,
        "second run took {second_seconds:.3} s, first {first_seconds:.3} s"
    );
}
