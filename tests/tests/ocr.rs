//! OCR of images (PP-OCRv5 through ONNX Runtime) on the sample profile: text that is only
//! visible in a screenshot is found by lexical search, and a second run leaves the
//! OCR'd images alone. Skipped with a note when the models are not fetched.

use crate::harness::{age_converter, copy_tree, index_with, repo_root, result_paths, Daemon};

const SCREENSHOT: &str = "Pictures/Screenshots/Screenshot 2024-03-15 at 16.42.10.png";

#[test]
fn screenshot_text_is_searchable() {
    let models = repo_root().join("models");
    if !models.join("ocr/ppocrv5_det.onnx").exists()
        || !models.join("onnxruntime/libonnxruntime.so").exists()
    {
        eprintln!("OCR models missing: skipping (run scripts/fetch-models)");
        return;
    }
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    // Pictures with several images: the last GIF frame, the last TIFF page, a HEIC photo.
    let frames = profile.path().join("Pictures/Frames");
    copy_tree(&repo_root().join("tests/fixtures/images"), &frames);
    for name in [
        "generate.sh",
        "truncated.gif",
        "truncated.tif",
        "truncated.heic",
    ] {
        std::fs::remove_file(frames.join(name)).unwrap();
    }
    let index_dir = tempfile::tempdir().unwrap();
    let models_arg = models.to_str().unwrap();
    let first = index_with(
        profile.path(),
        index_dir.path(),
        &["--no-embed", "--models", models_arg],
    );
    assert_eq!(first["ocr"]["status"], "done", "{}", first["ocr"]);
    assert!(
        first["ocr"]["images"].as_u64().unwrap() >= 1,
        "{}",
        first["ocr"]
    );
    assert!(
        first["ocr"]["lines"].as_u64().unwrap() >= 5,
        "{}",
        first["ocr"]
    );

    let daemon = Daemon::start(index_dir.path());
    let (status, reply) = daemon.post(
        "/retrieve",
        r#"{"query": "application submitted decision expected", "top_k": 3, "mode": "lexical"}"#,
    );
    assert_eq!(status, 200, "{reply}");
    let paths = result_paths(&reply);
    assert_eq!(
        paths.first().map(String::as_str),
        Some(SCREENSHOT),
        "{reply}"
    );
    let heif = std::process::Command::new("heif-convert")
        .arg("--help")
        .output()
        .is_ok();
    for (query, expected) in [
        ("meadow charlie", Some("Pictures/Frames/animated.gif")),
        ("pepper november", Some("Pictures/Frames/pages.tif")),
        (
            "saffron oscar",
            heif.then_some("Pictures/Frames/photo.heic"),
        ),
    ] {
        let body = format!(r#"{{"query": "{query}", "top_k": 3, "mode": "lexical"}}"#);
        let (status, reply) = daemon.post("/retrieve", &body);
        assert_eq!(status, 200, "{reply}");
        let paths = result_paths(&reply);
        match expected {
            Some(path) => assert_eq!(paths.first().map(String::as_str), Some(path), "{reply}"),
            None => eprintln!("heif-convert missing: HEIC text not checked"),
        }
    }
    drop(daemon);

    // A second run: the OCR'd images are unchanged, nothing is converted again.
    let second = index_with(
        profile.path(),
        index_dir.path(),
        &["--no-embed", "--models", models_arg],
    );
    assert_eq!(second["converted"], 0, "{second}");
    assert_eq!(second["ocr"]["status"], "unused", "{}", second["ocr"]);

    // A newer image converter converts the pictures again; their bytes and the models
    // did not change, so their text and tags are carried over, not read again.
    let pictures = [
        SCREENSHOT,
        "Pictures/Frames/animated.gif",
        "Pictures/Frames/pages.tif",
    ];
    age_converter(index_dir.path(), &pictures);
    let third = index_with(
        profile.path(),
        index_dir.path(),
        &["--no-embed", "--models", models_arg],
    );
    assert_eq!(third["converted"], 3, "{third}");
    let ocr = &third["ocr"];
    assert_eq!(
        (ocr["images"].as_u64(), ocr["carried"].as_u64()),
        (Some(0), Some(3)),
        "{ocr}"
    );
    assert_eq!(ocr["status"], "done", "{ocr}");
    assert_eq!(third["units"], first["units"], "{third}");
    let daemon = Daemon::start(index_dir.path());
    for (query, path) in [
        ("application submitted decision expected", SCREENSHOT),
        ("meadow charlie", "Pictures/Frames/animated.gif"),
        ("pepper november", "Pictures/Frames/pages.tif"),
    ] {
        let body = format!(r#"{{"query": "{query}", "top_k": 3, "mode": "lexical"}}"#);
        let (status, reply) = daemon.post("/retrieve", &body);
        assert_eq!(status, 200, "{reply}");
        assert_eq!(
            result_paths(&reply).first().map(String::as_str),
            Some(path),
            "{reply}"
        );
    }
}
