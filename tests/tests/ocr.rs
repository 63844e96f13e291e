//! OCR of images (PP-OCRv5 through ONNX Runtime) on the sample profile: text that is only
//! visible in a screenshot is found by lexical search, and a second run leaves the
//! OCR'd images alone. Skipped with a note when the models are not fetched.

use crate::harness::{copy_tree, index_with, repo_root, result_paths, Daemon};

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
    drop(daemon);

    // A second run: the OCR'd images are unchanged, nothing is converted again.
    let second = index_with(
        profile.path(),
        index_dir.path(),
        &["--no-embed", "--models", models_arg],
    );
    assert_eq!(second["converted"], 0, "{second}");
    assert_eq!(second["ocr"]["status"], "unused", "{}", second["ocr"]);
}
