//! Audio and video content (ffmpeg decoding, Silero VAD, Whisper tiny.en, frame OCR) on
//! the committed fixtures of `tests/fixtures/media` (see its `generate.sh`): spoken facts
//! are found with a time window around the sentence, on-screen text with the seconds it
//! is shown, the same memo attached to an e-mail is heard like the file on disk, a
//! truncated video is reported with ffmpeg's reason, and a second run does no work.
//! Skipped with a note when the models are not fetched.

use serde_json::Value;

use crate::harness::{age_converter, copy_tree, index_with, repo_root, result_for, Daemon};

pub(crate) fn models_ready() -> bool {
    let models = repo_root().join("models");
    let ready = [
        "onnxruntime/libonnxruntime.so",
        "vad/silero_vad.onnx",
        "whisper-base/encoder.onnx",
        "whisper-base/decoder.onnx",
        "ocr/ppocrv5_det.onnx",
    ]
    .iter()
    .all(|f| models.join(f).exists());
    if !ready {
        eprintln!("media models missing: skipping (run scripts/fetch-models)");
    }
    ready
}

/// The top lexical hit for `query` among the files under `Media/` (the attached copy of
/// the memo ties with it): (file path, start s, end s).
fn top_hit(daemon: &Daemon, query: &str) -> (String, f64, f64, Value) {
    let body = serde_json::json!({"query": query, "top_k": 5, "mode": "lexical"}).to_string();
    let (status, mut reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    if let Some(results) = reply["results"].as_array_mut() {
        results.retain(|r| {
            !r["metadata"]["file_path"]
                .as_str()
                .unwrap_or("")
                .starts_with("Mail/")
        });
    }
    let meta = &reply["results"][0]["metadata"];
    (
        meta["file_path"].as_str().unwrap_or_default().to_string(),
        meta["start"].as_f64().unwrap_or(-1.0),
        meta["end"].as_f64().unwrap_or(-1.0),
        reply,
    )
}

#[test]
fn speech_and_screen_text_are_found_with_times() {
    if !models_ready() {
        return;
    }
    let profile = tempfile::tempdir().unwrap();
    let fixtures = repo_root().join("tests/fixtures/media");
    copy_tree(&fixtures, &profile.path().join("Media"));
    std::fs::remove_file(profile.path().join("Media/generate.sh")).unwrap();
    // The memo again, as an e-mail attachment.
    let memo = std::fs::read(fixtures.join("memo.mp3")).unwrap();
    let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &memo);
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(76)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let mail = format!(
        "From: Sam <sam@example.org>\r\nTo: me@example.org\r\nSubject: voicemail\r\n\
         Date: Mon, 3 Mar 2025 10:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\n\
         Content-Type: text/plain\r\n\r\nThe voicemail, attached.\r\n--b\r\n\
         Content-Type: audio/mpeg; name=\"voicemail.mp3\"\r\n\
         Content-Disposition: attachment; filename=\"voicemail.mp3\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{}\r\n--b--\r\n",
        lines.join("\r\n")
    );
    std::fs::create_dir_all(profile.path().join("Mail")).unwrap();
    std::fs::write(profile.path().join("Mail/voicemail.eml"), mail).unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let models = repo_root().join("models");
    let args = ["--no-embed", "--models", models.to_str().unwrap()];
    let first = index_with(profile.path(), index_dir.path(), &args);
    let media = &first["media"];
    assert_eq!(media["status"], "done", "{media}");
    // truncated.mp4 fails in the converter already (its header is cut); the attached
    // memo counts.
    assert_eq!(media["files"], 3, "{media}");
    assert!(media["speech_units"].as_u64().unwrap() >= 2, "{media}");
    assert!(media["screen_units"].as_u64().unwrap() >= 2, "{media}");
    // 8 frames, two pictures: near-duplicates are not read again.
    assert!(media["frames_ocr"].as_u64().unwrap() < 8, "{media}");

    // The truncated video is reported with a reason.
    let failure = first["failures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "Media/truncated.mp4")
        .unwrap_or_else(|| panic!("truncated.mp4 not reported: {first}"));
    assert!(failure["reason"].as_str().unwrap().len() > 10, "{failure}");

    let daemon = Daemon::start(index_dir.path());
    let heard = |daemon: &Daemon| -> Vec<(String, f64, f64)> {
        [
            "storage unit gate code",
            "plumber water heater Thursday",
            "projected overrun",
        ]
        .into_iter()
        .map(|query| {
            let (path, start, end, _) = top_hit(daemon, query);
            (path, start, end)
        })
        .collect()
    };
    let heard_first = heard(&daemon);
    // Spoken at ~0–4 s.
    let (path, start, end, reply) = top_hit(&daemon, "storage unit gate code");
    assert_eq!(path, "Media/memo.mp3", "{reply}");
    assert!(start <= 1.0 && (2.5..=6.0).contains(&end), "{reply}");
    let text = reply["results"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    assert!(text.contains("gate code"), "{reply}");
    // Spoken at ~8–14 s, after 4 s of silence.
    let (path, start, end, reply) = top_hit(&daemon, "plumber water heater Thursday");
    assert_eq!(path, "Media/memo.mp3", "{reply}");
    assert!((6.0..=10.0).contains(&start) && end >= 11.0, "{reply}");
    // The attachment is a copy of the memo on disk, so it folds into it (copies count
    // once)…
    let attachment = "Mail/voicemail.eml#attachment/voicemail.mp3";
    let body = r#"{"query": "plumber water heater Thursday", "top_k": 10, "mode": "lexical"}"#;
    let (status, reply) = daemon.post("/retrieve", body);
    assert_eq!(status, 200, "{reply}");
    assert!(result_for(&reply, attachment).is_none(), "{reply}");
    assert!(result_for(&reply, "Media/memo.mp3").is_some(), "{reply}");
    // …and, with copies switched off, its speech is found with its times under the
    // attachment's path.
    let body = r#"{"query": "plumber water heater Thursday", "top_k": 10, "mode": "lexical",
                   "disable_planner": ["copies"]}"#;
    let (status, reply) = daemon.post("/retrieve", body);
    assert_eq!(status, 200, "{reply}");
    let attached = result_for(&reply, attachment)
        .unwrap_or_else(|| panic!("the attached memo is not heard: {reply}"));
    let start = attached["metadata"]["start"].as_f64().unwrap_or(-1.0);
    assert!((6.0..=10.0).contains(&start), "{attached}");
    // Shown from 4 s to the end (8 s).
    let (path, start, end, reply) = top_hit(&daemon, "projected overrun");
    assert_eq!(path, "Media/screen.mp4", "{reply}");
    assert!(
        (3.0..=5.0).contains(&start) && (7.0..=9.0).contains(&end),
        "{reply}"
    );
    // Shown from 0 s: some unit starting at 0 carries it.
    let (path, start, _, reply) = top_hit(&daemon, "quarterly budget review");
    assert_eq!(path, "Media/screen.mp4", "{reply}");
    assert!(start <= 4.0, "{reply}");
    drop(daemon);

    // Nothing changed: nothing is decoded again.
    let second = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(second["converted"], 0, "{second}");
    assert_eq!(second["media"]["files"], 0, "{second}");

    // A newer audio/video converter converts the recordings again, but their bytes and
    // the models did not change: the speech and screen units are carried over, not
    // recognised again, and found as before.
    age_converter(
        index_dir.path(),
        &["Media/memo.mp3", "Media/screen.mp4", attachment],
    );
    let third = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(third["converted"], 4, "{third}");
    let media = &third["media"];
    assert_eq!(media["files"], 0, "{media}");
    assert_eq!(media["carried"], 3, "{media}");
    assert_eq!(media["audio_seconds"], 0.0, "{media}");
    assert_eq!(media["status"], "done", "{media}");
    assert_eq!(third["units"], first["units"], "{third}");
    let daemon = Daemon::start(index_dir.path());
    assert_eq!(heard(&daemon), heard_first);
    drop(daemon);

    // A run with OCR off keeps the frames read before: nothing is analysed again.
    let no_ocr_args = [
        "--no-embed",
        "--no-ocr",
        "--models",
        models.to_str().unwrap(),
    ];
    let off = index_with(profile.path(), index_dir.path(), &no_ocr_args);
    assert_eq!(off["media"]["files"], 0, "{off}");

    // With OCR off, a video's frames are simply not read: the file is not "damaged".
    let no_ocr_index = tempfile::tempdir().unwrap();
    let no_ocr = index_with(profile.path(), no_ocr_index.path(), &no_ocr_args);
    let failures = no_ocr["failures"].as_array().unwrap();
    assert!(
        !failures.iter().any(|f| f["path"] == "Media/screen.mp4"),
        "{no_ocr}"
    );
    assert_eq!(no_ocr["media"]["screen_units"], 0, "{no_ocr}");
    // OCR switched on later reads the video's frames: the video is analysed again, and
    // only it (the memo's speech is what this run would hear), and its screen text is
    // found.
    let on = index_with(profile.path(), no_ocr_index.path(), &args);
    assert_eq!(on["media"]["files"], 1, "{on}");
    assert!(on["media"]["screen_units"].as_u64().unwrap() >= 2, "{on}");
    let daemon = Daemon::start(no_ocr_index.path());
    let (path, _, _, reply) = top_hit(&daemon, "projected overrun");
    assert_eq!(path, "Media/screen.mp4", "{reply}");
}

/// The media scale set of `benches/media-set` (espeak-ng memos in mp3, m4a and wav, a
/// screen recording with a spoken track): generated, indexed with the real models and
/// scored against its known words by the set's own scorer. The thresholds are wide (the
/// voices are synthetic; whisper base hears them with a word error rate near 0.15): they
/// catch a pipeline that loses speech or screen text, and a scorer that cannot tell.
#[test]
fn the_media_scale_set_is_scored_against_its_known_words() {
    if !models_ready() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let set = repo_root().join("benches/media-set");
    let run = std::process::Command::new("python3")
        .arg(set.join("run"))
        .arg(out.path())
        .args(["--minutes", "0.6", "--json", "--bin"])
        .arg(crate::harness::bin_dir())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: Value = serde_json::from_slice(&run.stdout).unwrap();
    let wer = report["wer"].as_f64().unwrap();
    assert!(report["words"].as_u64().unwrap() > 40, "{report}");
    assert!(wer < 0.4, "word error rate {wer}: {report}");
    assert!(
        report["lines_found"].as_f64().unwrap() >= 0.9,
        "on-screen lines: {report}"
    );
    let timing = &report["timing"];
    assert!(timing["x_real_time"].as_f64().unwrap() > 0.0, "{report}");
    assert!(
        timing["stages"]["Whisper decoder"]["seconds"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    // Every recording was heard or read: none scored empty.
    for (path, file) in report["files"].as_object().unwrap() {
        if let Some(wer) = file["wer"].as_f64() {
            assert!(wer < 0.8, "{path}: {file}");
        }
    }
}

/// The sample profile speaks (`samples/generate.py`, `make_speech`): its voice memo and
/// its screen recording are heard and read, so `scripts/demo` shows speech and screen
/// search on a fresh machine; its documents are committed before the recordings are heard.
#[test]
fn the_sample_profile_speaks() {
    if !models_ready() {
        return;
    }
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    let index_dir = tempfile::tempdir().unwrap();
    let summary = index_with(profile.path(), index_dir.path(), &["--no-embed"]);
    // Recordings come last: the documents were committed before any was heard.
    let searchable = summary["documents_searchable_seconds"].as_f64().unwrap();
    let heard = summary["media"]["asr_encoder_seconds"].as_f64().unwrap();
    assert!(heard > 0.0, "{summary}");
    assert!(
        searchable + heard <= summary["seconds"].as_f64().unwrap(),
        "documents searchable after {searchable} s: {summary}"
    );
    let daemon = Daemon::start(index_dir.path());
    let ask = |query: &str| {
        let body = serde_json::json!({"query": query, "top_k": 3, "mode": "lexical"}).to_string();
        let (status, reply) = daemon.post("/retrieve", &body);
        assert_eq!(status, 200, "{reply}");
        reply["results"][0].clone()
    };
    let memo = ask("how wide and deep is the alcove");
    assert_eq!(
        memo["metadata"]["file_path"], "Voice Memos/2024-03-08 shelf measurements.wav",
        "{memo}"
    );
    let text = memo["text"].as_str().unwrap().to_lowercase();
    assert!(text.contains("wide") && text.contains("deep"), "{memo}");
    assert!(memo["metadata"]["end"].as_f64().unwrap() > 1.0, "{memo}");
    let second = ask("shelves to match the counter");
    assert!(
        second["metadata"]["start"].as_f64().unwrap() >= 5.0,
        "the memo's second sentence, later in it: {second}"
    );
    let screen = ask("sales upload to Severn at 23.15");
    assert_eq!(
        screen["metadata"]["file_path"], "Videos/2024-03-20 till sync walkthrough.mp4",
        "{screen}"
    );
    assert!(
        screen["text"].as_str().unwrap().starts_with("On screen:"),
        "{screen}"
    );
    let spoken = ask("run the backup script by hand router");
    assert_eq!(
        spoken["metadata"]["file_path"], "Videos/2024-03-20 till sync walkthrough.mp4",
        "{spoken}"
    );
}

/// Windows of several files decoded together (the speech queue the indexer fills ahead
/// of the media stage) say what each file says when it is heard alone, each under its
/// own file, whatever the order the files were added in.
#[test]
fn files_heard_together_say_what_each_says_alone() {
    use indexer::media::{decode::Ffmpeg, speech::SpeechQueue, AsrModel, MediaSummary, Speech};
    if !models_ready() {
        return;
    }
    let root = repo_root();
    let files = [
        root.join("tests/fixtures/media/memo.mp3"),
        root.join("samples/profile/Voice Memos/2024-03-08 shelf measurements.wav"),
        root.join("samples/profile/Videos/2024-03-20 till sync walkthrough.mp4"),
    ];
    let ffmpeg = Ffmpeg::new(std::time::Duration::from_secs(60));
    let audio: Vec<Vec<i16>> = files
        .iter()
        .map(|f| ffmpeg.audio(f, 600).unwrap())
        .collect();
    let mut speech = Speech::load(&root.join("models"), AsrModel::Base, 2).unwrap();
    let words = |segments: &[indexer::media::whisper::Segment]| {
        segments
            .iter()
            .map(|s| s.text.to_lowercase())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let alone: Vec<String> = audio
        .iter()
        .map(|samples| {
            words(
                &speech
                    .transcribe(samples.clone(), &mut MediaSummary::default())
                    .unwrap(),
            )
        })
        .collect();
    assert!(
        alone.iter().all(|w| w.split_whitespace().count() >= 5),
        "{alone:?}"
    );
    assert_ne!(alone[0], alone[1]);
    for order in [[0usize, 1, 2], [2, 0, 1]] {
        let mut queue = SpeechQueue::default();
        let mut heard = Vec::new();
        for &i in &order {
            heard.extend(speech.add(&mut queue, i, audio[i].clone(), MediaSummary::default()));
        }
        assert!(queue.waiting() >= 3, "every file queued its windows");
        while queue.waiting() > 0 {
            heard.extend(speech.hear(&mut queue));
        }
        assert_eq!(heard.len(), 3);
        for (i, segments, work) in heard {
            let together = words(&segments.unwrap());
            // The same words (a batch may round a near tie the other way, no more).
            let same = together
                .split_whitespace()
                .zip(alone[i].split_whitespace())
                .filter(|(a, b)| a == b)
                .count();
            let total = alone[i].split_whitespace().count();
            assert!(
                same * 20 >= total * 19,
                "file {i} together: {together:?}\nalone: {:?}",
                alone[i]
            );
            assert!(work.asr_windows >= 1 && work.asr_decoder_seconds > 0.0);
        }
    }
}
