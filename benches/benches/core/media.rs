//! The `media` group (opt-in).

use super::*;

pub(crate) fn media(c: &mut Criterion) {
    if !wanted("media") {
        return;
    }
    let models = [indexer::embed::default_models_dir(), repo().join("models")]
        .into_iter()
        .find(|dir| dir.join("whisper-base").is_dir());
    let Some(models) = models else {
        println!("media: skipped: no Whisper model (run scripts/fetch-models)");
        return;
    };
    let threads = 2;
    let (Ok(speech), Ok(ocr)) = (
        indexer::media::Speech::load(&models, indexer::media::AsrModel::default(), threads),
        indexer::ocr::OcrEngine::load(&models, threads),
    ) else {
        println!("media: skipped: the speech or OCR models do not load (run scripts/fetch-models)");
        return;
    };
    let (speech, ocr) = (RefCell::new(speech), RefCell::new(ocr));
    let tagger = RefCell::new(indexer::tags::Tagger::load(&models, threads).ok());
    let ffmpeg = indexer::media::decode::Ffmpeg::new(Duration::from_secs(600));
    if !ffmpeg.available() {
        println!("media: skipped: ffmpeg missing");
        return;
    }
    let fixtures = repo().join("tests/fixtures/media");

    // Audio: one 14 s memo. Video: a 10 s test pattern whose every second differs (no
    // pHash shortcut), read at 1 fps.
    let audio_profile = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixtures.join("memo.mp3"),
        audio_profile.path().join("memo.mp3"),
    )
    .unwrap();
    let samples = ffmpeg.audio(&fixtures.join("memo.mp3"), 3600).unwrap();
    let audio_seconds = samples.len() as f64 / 16_000.0;
    let video_profile = tempfile::tempdir().unwrap();
    let video = video_profile.path().join("pattern.mp4");
    let status = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
        .arg("testsrc=size=1280x720:rate=25:duration=10")
        .args(["-pix_fmt", "yuv420p"])
        .arg(&video)
        .status()
        .unwrap();
    assert!(status.success());
    let mut frames = Vec::new();
    ffmpeg
        .frames(&video, 3600, |_, frame| {
            frames.push(image::DynamicImage::ImageRgb8(frame));
            true
        })
        .unwrap();

    let pipeline = |profile: &Path| {
        let dir = tempfile::tempdir().unwrap();
        let mut options = IndexOptions::new(profile, dir.path().join("index"));
        options.models_dir = models.clone();
        options.threads = threads;
        options.embed = false;
        let summary = indexer::run(&options, &NoProgress).unwrap();
        assert_eq!(summary.media.status, indexer::StageStatus::Done);
        dir
    };

    let mut group = c.benchmark_group("media");
    group
        .sample_size(10)
        .warm_up_time(seconds(0.5))
        .measurement_time(seconds(10.0));
    // Elements: seconds of audio (throughput = 1 / real-time factor).
    group.throughput(Throughput::Elements(audio_seconds.round() as u64));
    group.bench_function("audio/raw_vad_whisper", |b| {
        b.iter(|| {
            let mut stats = indexer::media::MediaSummary::default();
            black_box(
                speech
                    .borrow_mut()
                    .transcribe(samples.clone(), &mut stats)
                    .unwrap(),
            )
        })
    });
    group.bench_function("audio/pipeline", |b| {
        b.iter_with_large_drop(|| pipeline(audio_profile.path()))
    });
    // Elements: video frames (at 1 fps).
    group.throughput(Throughput::Elements(frames.len() as u64));
    group.bench_function("video/raw_ocr_tags", |b| {
        b.iter(|| {
            for frame in &frames {
                black_box(ocr.borrow_mut().recognize(frame).unwrap());
                if let Some(tagger) = tagger.borrow_mut().as_mut() {
                    black_box(tagger.tag(frame).unwrap());
                }
            }
        })
    });
    group.bench_function("video/pipeline", |b| {
        b.iter_with_large_drop(|| pipeline(video_profile.path()))
    });
    group.finish();
}
