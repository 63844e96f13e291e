//! Core benchmarks (a bench binary, `cargo bench -p benches`):
//!
//! 1. Indexing throughput on a generated profile of text formats (md, txt, csv, json,
//!    log): MB/s and units/s of the whole pipeline (walk, convert, index, commit,
//!    manifest), side by side with the raw converters on the same files, as a ratio.
//! 2. BM25 latency on a generated corpus of at least 100K units: p50/p99 of flat
//!    `retrieve` and grouped `search`, top-10, side by side.
//!
//! 3. Dense embeddings (needs `scripts/fetch-models`): embedding throughput of the
//!    indexing pipeline vs the raw model on the same texts, hybrid vs lexical query
//!    latency, and peak RSS of the indexing and the serving phase.
//!
//! 4. Media (needs the models and ffmpeg): audio real-time factor and video frames per
//!    second of the indexing pipeline, each next to the raw model inference (VAD +
//!    Whisper; OCR + tags) on the same decoded inputs.
//!
//! `DENTATE_BENCH=media,bm25` (say) runs only those sections (`indexing`, `bm25`,
//! `dense`, `media`). `DENTATE_BENCH_UNITS` overrides the unit count of (2) (default 120000).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use converters::{Input, Locator, Unit, UnitKind};
use index::{FileRecord, IndexLayout, IndexWriter};
use indexer::{IndexOptions, NoProgress};
use searchd::{Engine, SearchParams};

/// Deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Zipf-like pick in 0..n (rank r with weight ~1/r).
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary(size: usize) -> Vec<String> {
    let syllables = [
        "ka", "lo", "mi", "ren", "sto", "va", "pel", "dor", "in", "tu", "sha", "bre", "qui", "no",
        "fal", "ge",
    ];
    (0..size)
        .map(|i| {
            let mut word = String::new();
            let mut n = i + 17;
            for _ in 0..3 {
                word.push_str(syllables[n % syllables.len()]);
                n /= syllables.len();
            }
            word.push_str(&(i % 7).to_string()[..0]);
            format!(
                "{word}{}",
                if i >= 4096 {
                    (i / 4096).to_string()
                } else {
                    String::new()
                }
            )
        })
        .collect()
}

fn sentence(rng: &mut Rng, vocab: &[String], words: usize) -> String {
    (0..words)
        .map(|_| vocab[rng.zipf(vocab.len())].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn write_text_profile(root: &Path, rng: &mut Rng, vocab: &[String]) -> u64 {
    let mut bytes = 0u64;
    let mut write = |rel: String, text: String| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        bytes += text.len() as u64;
        std::fs::write(path, text).unwrap();
    };
    for i in 0..300 {
        let body: Vec<String> = (0..60).map(|_| sentence(rng, vocab, 12)).collect();
        write(
            format!("Notes/{}/note-{i}.md", i % 10),
            format!("# Note {i}\n\n{}\n", body.join(".\n")),
        );
    }
    for i in 0..100 {
        let mut csv = String::from("date,amount,category,description\n");
        for row in 0..300 {
            csv.push_str(&format!(
                "2025-{:02}-{:02},{}.{:02},{},{}\n",
                row % 12 + 1,
                row % 28 + 1,
                rng.next() % 500,
                rng.next() % 100,
                vocab[rng.zipf(200)],
                sentence(rng, vocab, 5)
            ));
        }
        write(format!("Finance/statement-{i}.csv"), csv);
    }
    for i in 0..100 {
        let lines: Vec<String> = (0..400)
            .map(|n| {
                format!(
                    "2025-10-{:02}T10:{:02}:00 INFO {}",
                    n % 28 + 1,
                    n % 60,
                    sentence(rng, vocab, 8)
                )
            })
            .collect();
        write(format!("Code/logs/app-{i}.log"), lines.join("\n"));
        let items: Vec<String> = (0..80)
            .map(|n| {
                format!(
                    "  {{\"id\": {n}, \"note\": \"{}\"}}",
                    sentence(rng, vocab, 10)
                )
            })
            .collect();
        write(
            format!("Code/data/items-{i}.json"),
            format!("[\n{}\n]\n", items.join(",\n")),
        );
    }
    bytes
}

fn bench_indexing() {
    let mut rng = Rng(0x5eed);
    let vocab = vocabulary(20_000);
    let profile = tempfile::tempdir().unwrap();
    let bytes = write_text_profile(profile.path(), &mut rng, &vocab);
    let mb = bytes as f64 / 1e6;

    // Raw converters, same files, same thread count as the pipeline.
    let files: Vec<(String, Vec<u8>)> = walk_files(profile.path());
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let started = Instant::now();
    let chunk = files.len().div_ceil(threads);
    let units: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(name, data)| {
                            converters::convert(&Input::detect(name, data))
                                .map(|c| c.units.len())
                                .unwrap_or(0)
                        })
                        .sum::<usize>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let raw = started.elapsed().as_secs_f64();

    let index_dir = tempfile::tempdir().unwrap();
    let mut options = IndexOptions::new(profile.path(), index_dir.path().join("index"));
    options.embed = false; // lexical throughput; embeddings are measured below
    options.ocr = false;
    let started = Instant::now();
    let summary = indexer::run(&options, &NoProgress).unwrap();
    let full = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let again = indexer::run(&options, &NoProgress).unwrap();
    let rerun = started.elapsed().as_secs_f64();
    assert_eq!(again.converted, 0);

    println!(
        "## indexing: {} text files, {mb:.1} MB, {} units ({threads} threads)",
        files.len(),
        summary.units
    );
    println!("| stage | seconds | MB/s | units/s |");
    println!("|---|---|---|---|");
    println!(
        "| converters only | {raw:.2} | {:.1} | {:.0} |",
        mb / raw,
        units as f64 / raw
    );
    println!(
        "| full pipeline (walk+convert+tantivy+manifest) | {full:.2} | {:.1} | {:.0} |",
        mb / full,
        summary.units as f64 / full
    );
    println!("| re-run, unchanged profile | {rerun:.3} | | |");
    println!(
        "pipeline / converters throughput ratio: {:.2}; re-run / first run time: {:.3}",
        raw / full,
        rerun / full
    );
}

fn walk_files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn build_unit_corpus(index_root: &Path, profile: &Path, units: usize, vocab: &[String]) {
    let mut rng = Rng(0xfeed);
    let layout = IndexLayout::new(index_root);
    let mut writer = IndexWriter::open(&layout, profile, 2, 200_000_000).unwrap();
    let units_per_file = 100;
    let mtime = chrono::DateTime::parse_from_rfc3339("2025-10-01T12:00:00+00:00").unwrap();
    for file in 0..units.div_ceil(units_per_file) {
        let path = format!("Folder{}/doc-{file}.pdf", file % 37);
        let record = FileRecord {
            size: 1,
            converter_version: converters::converter_version(converters::FileType::Pdf),
            file_type: Some(converters::FileType::Pdf),
            modality: Some(converters::Modality::Document),
            ext: "pdf".into(),
            unit_count: units_per_file as u32,
            units_by_kind: BTreeMap::from([("page".to_string(), units_per_file as u64)]),
            ..FileRecord::new(&path)
        };
        let pages: Vec<Unit> = (0..units_per_file)
            .map(|page| {
                Unit::new(
                    UnitKind::Page,
                    Locator::page(page as u32 + 1),
                    sentence(&mut rng, vocab, 60),
                )
            })
            .collect();
        writer.add_file(record, &pages, mtime).unwrap();
    }
    let (_, _, manifest) = writer.finish().unwrap();
    manifest.set_info("last_commit", "bench").unwrap();
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

fn bench_bm25() {
    let units: usize = std::env::var("DENTATE_BENCH_UNITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120_000);
    let vocab = vocabulary(20_000);
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    build_unit_corpus(index_dir.path(), profile.path(), units, &vocab);
    let build = started.elapsed().as_secs_f64();
    let engine = Engine::open(index_dir.path()).unwrap();

    let mut rng = Rng(0xabcdef);
    let queries: Vec<String> = (0..400)
        .map(|_| {
            let n = 2 + (rng.next() % 4) as usize;
            (0..n)
                .map(|_| vocab[50 + rng.zipf(vocab.len() - 50)].clone())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let measure = |grouped: bool| {
        let mut times = Vec::with_capacity(queries.len());
        for query in &queries {
            let params = SearchParams {
                query: query.clone(),
                top_k: 10,
                ..SearchParams::default()
            };
            let started = Instant::now();
            if grouped {
                engine.search(params).unwrap();
            } else {
                engine.retrieve(params).unwrap();
            }
            times.push(started.elapsed());
        }
        times.sort();
        times
    };
    measure(false); // warm-up
    let flat = measure(false);
    let grouped = measure(true);
    println!(
        "## BM25 latency: {units} units (built in {build:.1} s), {} queries of 2-5 terms, top-10",
        queries.len()
    );
    println!("| request | p50 ms | p99 ms |");
    println!("|---|---|---|");
    println!(
        "| Retrieve (flat units) | {:.2} | {:.2} |",
        percentile(&flat, 0.5),
        percentile(&flat, 0.99)
    );
    println!(
        "| Search (grouped by file, 3 units/file) | {:.2} | {:.2} |",
        percentile(&grouped, 0.5),
        percentile(&grouped, 0.99)
    );
    println!(
        "grouped / flat p50 ratio: {:.2}",
        percentile(&grouped, 0.5) / percentile(&flat, 0.5)
    );
}

/// Peak resident set size of this process (VmHWM), in MiB.
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<f64>().ok())
            })
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// Resets the peak RSS counter (Linux: writing 5 to clear_refs).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn bench_dense() {
    let models = indexer::embed::default_models_dir();
    let models = if models.join("minilm").is_dir() {
        models
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")
    };
    let Ok(mut encoder) = indexer::embed::TextEncoder::load(&models, 2) else {
        println!("## dense: skipped (run scripts/fetch-models)");
        return;
    };
    let mut rng = Rng(0xd15c);
    let vocab: Vec<String> = "the river garden budget invoice meeting school doctor running race pottery glaze bread oven flight hotel rent loan tax report draft final cost estimate culvert storm water plan volunteer pantry shift concert choir rehearsal photo camera beach trail"
        .split(' ')
        .map(str::to_string)
        .collect();
    let texts: Vec<String> = (0..300).map(|_| sentence(&mut rng, &vocab, 120)).collect();

    // Raw model on the same texts (batches of 64, as the pipeline does).
    let started = Instant::now();
    for chunk in texts.chunks(64) {
        encoder.embed(chunk).unwrap();
    }
    let raw = started.elapsed().as_secs_f64();
    drop(encoder);

    // The pipeline: one file per text, embedding phase timed by the indexer itself.
    let profile = tempfile::tempdir().unwrap();
    for (i, text) in texts.iter().enumerate() {
        std::fs::write(profile.path().join(format!("note-{i:03}.txt")), text).unwrap();
    }
    let index_dir = tempfile::tempdir().unwrap();
    let mut options = IndexOptions::new(profile.path(), index_dir.path().join("index"));
    options.models_dir = models.clone();
    reset_peak_rss();
    let summary = indexer::run(&options, &NoProgress).unwrap();
    let indexer_rss = peak_rss_mib();
    let pipeline = summary.embedding.seconds;

    reset_peak_rss();
    let engine = Engine::open_with_models(&index_dir.path().join("index"), Some(&models)).unwrap();
    let queries: Vec<String> = (0..200).map(|_| sentence(&mut rng, &vocab, 4)).collect();
    let measure = |mode: searchd::Mode| {
        let mut times = Vec::new();
        for query in &queries {
            let params = SearchParams {
                query: query.clone(),
                top_k: 10,
                mode,
                ..SearchParams::default()
            };
            let started = Instant::now();
            engine.search(params).unwrap();
            times.push(started.elapsed());
        }
        times.sort();
        times
    };
    let lexical = measure(searchd::Mode::Lexical);
    let hybrid_cold = measure(searchd::Mode::Hybrid);
    let hybrid_cached = measure(searchd::Mode::Hybrid);
    let daemon_rss = peak_rss_mib();

    println!(
        "## dense: {} texts of 120 words, {} units embedded",
        texts.len(),
        summary.embedding.units_embedded
    );
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| raw model, seconds | {raw:.2} ({:.1} texts/s) |",
        texts.len() as f64 / raw
    );
    println!(
        "| indexing pipeline embedding phase, seconds | {pipeline:.2} ({:.1} texts/s) |",
        texts.len() as f64 / pipeline
    );
    println!("| pipeline / raw throughput | {:.2} |", raw / pipeline);
    println!("| Search p50 lexical / hybrid (new query) / hybrid (cached query embedding), ms | {:.2} / {:.2} / {:.2} |",
        percentile(&lexical, 0.5), percentile(&hybrid_cold, 0.5), percentile(&hybrid_cached, 0.5));
    println!(
        "| hybrid / lexical p50 ratio (new query; cached) | {:.1}; {:.1} |",
        percentile(&hybrid_cold, 0.5) / percentile(&lexical, 0.5),
        percentile(&hybrid_cached, 0.5) / percentile(&lexical, 0.5)
    );
    println!("| peak RSS: indexing / serving, MiB | {indexer_rss:.0} / {daemon_rss:.0} |");
}

/// Media throughput: audio real-time factor and video frames per second of the indexing
/// pipeline (ffmpeg decode + VAD + Whisper; 1-fps frames + pHash + OCR + tags, two files
/// at a time), each next to the raw model inference on the same decoded inputs.
fn bench_media() {
    let models = indexer::embed::default_models_dir();
    let models = if models.join("whisper-base").is_dir() {
        models
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")
    };
    let threads = 2;
    let (Ok(mut speech), Ok(mut ocr)) = (
        indexer::media::Speech::load(&models, indexer::media::AsrModel::default(), threads),
        indexer::ocr::OcrEngine::load(&models, threads),
    ) else {
        println!("## media: skipped (run scripts/fetch-models)");
        return;
    };
    let mut tagger = indexer::tags::Tagger::load(&models, threads).ok();
    let ffmpeg = indexer::media::decode::Ffmpeg::new(Duration::from_secs(600));
    if !ffmpeg.available() {
        println!("## media: skipped (ffmpeg missing)");
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/media");
    let copies = 8;

    // Audio: 8 copies of a 14 s memo.
    let audio_profile = tempfile::tempdir().unwrap();
    for i in 0..copies {
        std::fs::copy(
            fixtures.join("memo.mp3"),
            audio_profile.path().join(format!("memo-{i}.mp3")),
        )
        .unwrap();
    }
    let samples = ffmpeg.audio(&fixtures.join("memo.mp3"), 3600).unwrap();
    let mut stats = indexer::media::MediaSummary::default();
    let started = Instant::now();
    for _ in 0..copies {
        speech.transcribe(&samples, &mut stats).unwrap();
    }
    let raw_audio = started.elapsed().as_secs_f64();
    let audio_seconds = copies as f64 * samples.len() as f64 / 16_000.0;

    // Video: a 20 s test pattern whose every second differs (no pHash shortcut).
    let video_profile = tempfile::tempdir().unwrap();
    let video = video_profile.path().join("pattern-0.mp4");
    let status = std::process::Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=1280x720:rate=25:duration=20",
            "-pix_fmt",
            "yuv420p",
        ])
        .arg(&video)
        .status()
        .unwrap();
    assert!(status.success());
    let video_copies = 4;
    for i in 1..video_copies {
        std::fs::copy(
            &video,
            video_profile.path().join(format!("pattern-{i}.mp4")),
        )
        .unwrap();
    }
    let mut frames = Vec::new();
    ffmpeg
        .frames(&video, 3600, |_, frame| {
            frames.push(image::DynamicImage::ImageRgb8(frame));
            true
        })
        .unwrap();
    let started = Instant::now();
    for _ in 0..video_copies {
        for frame in &frames {
            ocr.recognize(frame).unwrap();
            if let Some(tagger) = tagger.as_mut() {
                tagger.tag(frame).unwrap();
            }
        }
    }
    let raw_video = started.elapsed().as_secs_f64();
    let video_frames = (video_copies * frames.len()) as f64;
    drop((speech, ocr, tagger));

    let run = |profile: &Path| {
        let index_dir = tempfile::tempdir().unwrap();
        let mut options = IndexOptions::new(profile, index_dir.path().join("index"));
        options.models_dir = models.clone();
        options.threads = threads;
        options.embed = false;
        let started = Instant::now();
        let summary = indexer::run(&options, &NoProgress).unwrap();
        assert_eq!(
            summary.media.status,
            indexer::StageStatus::Done,
            "{:?}",
            summary.media
        );
        (started.elapsed().as_secs_f64(), summary.media)
    };
    let (pipeline_audio, audio_stats) = run(audio_profile.path());
    let (pipeline_video, video_stats) = run(video_profile.path());

    println!(
        "## media: {copies} × 14 s speech ({audio_seconds:.0} s), {video_copies} × 20 s 1280×720 video ({video_frames:.0} frames at 1 fps)"
    );
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| audio real-time factor: raw VAD + Whisper / whole pipeline | {:.3} / {:.3} |",
        raw_audio / audio_seconds,
        pipeline_audio / audio_seconds
    );
    println!(
        "| audio pipeline / raw models time | {:.2} |",
        pipeline_audio / raw_audio
    );
    println!(
        "| pipeline audio worker time: decode / VAD / Whisper encoder / decoder, s | {:.1} / {:.1} / {:.1} / {:.1} |",
        audio_stats.decode_seconds,
        audio_stats.vad_seconds,
        audio_stats.asr_encoder_seconds,
        audio_stats.asr_decoder_seconds
    );
    println!(
        "| video frames/s: raw OCR + tags / whole pipeline | {:.2} / {:.2} |",
        video_frames / raw_video,
        video_frames / pipeline_video
    );
    println!(
        "| video pipeline / raw models time | {:.2} |",
        pipeline_video / raw_video
    );
    println!(
        "| pipeline video worker time: decode / OCR / tags, s (frames read: {}) | {:.1} / {:.1} / {:.1} |",
        video_stats.frames_ocr,
        video_stats.decode_seconds,
        video_stats.ocr_seconds,
        video_stats.tag_seconds
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us with no such flag
    // and only a smoke run is wanted then.
    let is_bench = std::env::args().any(|a| a == "--bench");
    if !is_bench {
        println!("benches: run with `cargo bench -p benches` for figures");
        return;
    }
    // DENTATE_BENCH=media,dense (say) runs only those sections.
    let only = std::env::var("DENTATE_BENCH").unwrap_or_default();
    let wanted = |name: &str| only.is_empty() || only.split(',').any(|s| s.trim() == name);
    if wanted("indexing") {
        bench_indexing();
    }
    if wanted("bm25") {
        bench_bm25();
    }
    if wanted("dense") {
        bench_dense();
    }
    if wanted("media") {
        bench_media();
    }
}
