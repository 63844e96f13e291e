//! Bring-your-own CLIP: the tiny fixture model of `tests/fixtures/clip` (see its
//! `generate.py`: a real pair of ONNX towers whose space is "mean colour") is given to
//! `dentate-index --clip` and `dentate-searchd --clip`; a colour word then finds the
//! picture of that colour, which no text or file name mentions. Skipped with a note when
//! the models (ONNX Runtime, MiniLM for hybrid search) are not fetched.

use crate::harness::{index_with, qdrant_args, repo_root, result_paths, Daemon};

#[test]
fn colour_words_find_pictures_through_the_clip_towers() {
    let models = repo_root().join("models");
    if !models.join("onnxruntime/libonnxruntime.so").exists()
        || !models.join("minilm/model.onnx").exists()
    {
        eprintln!("models missing: skipping (run scripts/fetch-models)");
        return;
    }
    let profile = tempfile::tempdir().unwrap();
    let colours = [
        ("IMG_0001.png", [220, 30, 30]),
        ("IMG_0002.png", [30, 200, 40]),
        ("IMG_0003.png", [20, 40, 230]),
    ];
    for (name, rgb) in colours {
        image::RgbImage::from_pixel(64, 48, image::Rgb(rgb))
            .save(profile.path().join(name))
            .unwrap();
    }
    std::fs::write(
        profile.path().join("notes.txt"),
        "Shopping list: bread, milk, eggs.\n",
    )
    .unwrap();
    let clip = repo_root().join("tests/fixtures/clip");
    let index_dir = tempfile::tempdir().unwrap();
    let clip_arg = clip.to_str().unwrap();
    let models_arg = models.to_str().unwrap();
    let args = [
        "--no-embed",
        "--no-ocr",
        "--no-media",
        "--models",
        models_arg,
        "--clip",
        clip_arg,
    ];
    let first = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(first["clip"]["status"], "done", "{}", first["clip"]);
    assert_eq!(first["clip"]["images"], 3, "{}", first["clip"]);
    assert_eq!(first["clip"]["model"], "clip:clip", "{}", first["clip"]);

    let daemon = Daemon::start_with(
        index_dir.path(),
        &["--models", models_arg, "--clip", clip_arg],
    );
    colours_find_their_pictures(&daemon);
    // Lexically, nothing says "green".
    let (_, reply) = daemon.post(
        "/retrieve",
        r#"{"query": "green", "top_k": 3, "mode": "lexical"}"#,
    );
    assert!(
        !result_paths(&reply).iter().any(|p| p == "IMG_0002.png"),
        "{reply}"
    );
    drop(daemon);

    // Unchanged images are not embedded again.
    let second = index_with(profile.path(), index_dir.path(), &args);
    assert_eq!(second["clip"]["images"], 0, "{}", second["clip"]);

    // The same through the Qdrant backend: the image vectors are synced as a named vector
    // of the model, and the daemon's CLIP list reads them from there.
    // Required in CI (`DENTATE_REQUIRE_QDRANT`); elsewhere only with a server at hand.
    if !cfg!(dentate_qdrant) {
        return;
    }
    let server = dentate_qdrant::testing::require_server();
    let collection = format!("clip_{}", std::process::id());
    let backend = qdrant_args(&server.url, &collection);
    let synced = index_with(
        profile.path(),
        index_dir.path(),
        &[&args[..], &backend].concat(),
    );
    assert_eq!(synced["qdrant"]["changed"], 4, "{}", synced["qdrant"]);
    let mut served = vec!["--models", models_arg, "--clip", clip_arg];
    served.extend(backend);
    let remote = Daemon::start_with(index_dir.path(), &served);
    let (_, stats) = remote.get("/api/stats");
    assert_eq!(stats["backend"], "qdrant", "{stats}");
    colours_find_their_pictures(&remote);
}

/// Colour words find the picture of that colour, through the CLIP list.
fn colours_find_their_pictures(daemon: &Daemon) {
    for (word, expected) in [
        ("green", "IMG_0002.png"),
        ("red", "IMG_0001.png"),
        ("a blue one", "IMG_0003.png"),
    ] {
        let body =
            serde_json::json!({"query": word, "top_k": 3, "mode": "hybrid", "explain": true});
        let (status, reply) = daemon.post("/retrieve", &body.to_string());
        assert_eq!(status, 200, "{reply}");
        let top = &reply["results"][0]["metadata"];
        assert_eq!(top["file_path"], expected, "{word}: {reply}");
        assert_eq!(top["explain"]["clip.rank"], 1.0, "{word}: {reply}");
    }
}
