//! Dentate's benchmarks, as criterion groups (one bench binary, `harness = false`):
//!
//! | group | what one iteration is | throughput |
//! |---|---|---|
//! | `convert` | every file of one converter family through `converters::convert` | bytes |
//! | `index` | `indexer::run` over a synthetic profile, lexical only (no embeddings, OCR, media): a fresh index, and a re-run over the unchanged profile | files |
//! | `embed` | MiniLM over 64 texts: `TextEncoder::embed` (the pipeline: length-sorted batches of 16) vs `embed_with(texts, 16, false)` | texts |
//! | `query` | one new query through `searchd::Engine::retrieve`, BM25 / dense / hybrid, over a unit corpus (10K units; `DENTATE_BENCH_UNITS`) | queries |
//! | `qdrant` | syncing the corpus into a fresh Qdrant collection; one query through the Qdrant backend vs the embedded one | units / queries |
//! | `media` | (opt-in) Whisper on a 14 s memo and OCR + tags on 1-fps video frames: raw models vs the whole pipeline | audio seconds / frames |
//!
//! `cargo bench -p benches` runs everything available (groups whose models or server are
//! missing print a `skipped:` line); `-- --quick` for shorter runs, `-- --test` to run each
//! benchmark once (CI), `-- query` (a criterion filter) to run only matching benchmarks.
//! `DENTATE_BENCH=query,qdrant` runs only those groups (`media` only runs when named),
//! `DENTATE_BENCH_UNITS=200000` (or `1M`) sizes the `query` and `qdrant` corpora,
//! `DENTATE_BENCH_FILES` the `index` profile (default 200 files).
//!
//! Expensive fixtures (corpora, indexes, the Qdrant server) are built lazily, on the first
//! benchmark of a group that the filter lets through, and never inside a measurement.
//! Latency groups also print p50/p99 over a fixed number of new queries (criterion itself
//! reports mean and median).

use std::cell::{OnceCell, RefCell};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use benches::{
    build_unit_corpus, env_count, generate_files, generate_profile, percentile_ms, proc_status_kib,
    query, vocabulary, CorpusSpec, CorpusStats, ProfileSpec, Rng, VOCABULARY,
};
use converters::Input;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use indexer::{IndexOptions, NoProgress};
use searchd::{Engine, Mode, SearchParams};

// ---------------------------------------------------------------------------------------
// Shared

/// Runs of `--test` (and of `cargo test --benches`, which passes no `--bench`) execute
/// each benchmark once: keep the extra p50/p99 loops short then.
fn test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench")
}

/// `DENTATE_BENCH=a,b` selects groups; unset, every group but `media`.
fn wanted(group: &str) -> bool {
    match std::env::var("DENTATE_BENCH") {
        Ok(only) if !only.trim().is_empty() => only.split(',').any(|s| s.trim() == group),
        _ => group != "media",
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The models folder when MiniLM is in it (`scripts/fetch-models`).
fn models() -> Option<PathBuf> {
    [indexer::embed::default_models_dir(), repo().join("models")]
        .into_iter()
        .find(|dir| dir.join("minilm/model.onnx").is_file())
}

fn seconds(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// p50/p99 of `n` calls of `run`, each with a new query, in ms.
fn latency(n: usize, rng: &mut Rng, vocab: &[String], mut run: impl FnMut(String)) -> (f64, f64) {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let q = query(rng, vocab);
            let started = Instant::now();
            run(q);
            started.elapsed()
        })
        .collect();
    times.sort();
    (percentile_ms(&times, 0.5), percentile_ms(&times, 0.99))
}

fn retrieve(engine: &Engine, query: String, mode: Mode) -> usize {
    let outcome = engine
        .retrieve(SearchParams {
            query,
            top_k: 10,
            mode,
            ..SearchParams::default()
        })
        .expect("retrieve");
    outcome.units.len()
}

const MODES: [(&str, Mode); 3] = [
    ("bm25", Mode::Lexical),
    ("dense", Mode::Dense),
    ("hybrid", Mode::Hybrid),
];

/// Queries timed for the printed p50/p99.
fn latency_queries() -> usize {
    if test_mode() {
        20
    } else {
        200
    }
}

// ---------------------------------------------------------------------------------------
// convert

/// (relative name, bytes) of the inputs of one family.
type Files = Vec<(String, Vec<u8>)>;

fn convert(c: &mut Criterion) {
    if !wanted("convert") {
        return;
    }
    let (generated, _) = generate_files(&ProfileSpec::files(200, 11));
    let of_ext = |exts: &[&str]| -> Files {
        generated
            .iter()
            .filter(|(name, _)| exts.iter().any(|e| name.ends_with(&format!(".{e}"))))
            .cloned()
            .collect()
    };
    let samples = repo().join("samples/profile");
    let sample_files = |ext: &str| -> Files {
        let mut out = Vec::new();
        let mut stack = vec![samples.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == ext) {
                    let name = path.strip_prefix(&samples).unwrap().to_string_lossy();
                    out.push((name.to_string(), std::fs::read(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    };
    // Generated: text (txt + md), mail, calendar, csv; committed samples: pdf and office.
    let families: Vec<(&str, Files)> = vec![
        ("text", of_ext(&["txt", "md"])),
        ("eml", of_ext(&["eml"])),
        ("ics", of_ext(&["ics"])),
        ("csv", of_ext(&["csv"])),
        ("pdf", sample_files("pdf")),
        ("docx", sample_files("docx")),
        ("xlsx", sample_files("xlsx")),
        ("pptx", sample_files("pptx")),
    ];

    let mut group = c.benchmark_group("convert");
    group
        .sample_size(20)
        .warm_up_time(seconds(0.5))
        .measurement_time(seconds(2.0));
    for (family, files) in &families {
        if files.is_empty() {
            println!("convert/{family}: skipped: no files");
            continue;
        }
        // Every input must convert: a benchmark of error paths would measure nothing.
        for (name, bytes) in files {
            let conversion = converters::convert(&Input::detect(name, bytes))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!conversion.units.is_empty(), "{name}: no units");
        }
        let bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(*family, |b| {
            b.iter(|| {
                for (name, data) in files {
                    black_box(converters::convert(&Input::detect(name, data)).unwrap());
                }
            })
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------
// index

fn lexical_options(profile: &Path, index: &Path) -> IndexOptions {
    let mut options = IndexOptions::new(profile, index);
    options.embed = false;
    options.ocr = false;
    options.media = false;
    options
}

fn index(c: &mut Criterion) {
    if !wanted("index") {
        return;
    }
    let files = env_count("DENTATE_BENCH_FILES").unwrap_or(200);
    let profile = tempfile::tempdir().unwrap();
    let stats = generate_profile(profile.path(), &ProfileSpec::files(files, 21)).unwrap();
    println!(
        "index: synthetic profile of {} files, {:.2} MB, {} units (seed 21)",
        stats.files,
        stats.bytes as f64 / 1e6,
        stats.units
    );
    let indexed: OnceCell<tempfile::TempDir> = OnceCell::new();

    let mut group = c.benchmark_group("index");
    group
        .sample_size(10)
        .warm_up_time(seconds(1.0))
        .measurement_time(seconds(5.0))
        .throughput(Throughput::Elements(stats.files as u64));
    group.bench_function("full_lexical", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap(),
            |dir| {
                let options = lexical_options(profile.path(), &dir.path().join("index"));
                let summary = indexer::run(&options, &NoProgress).unwrap();
                assert_eq!(summary.converted, stats.files as u64);
                dir // dropped (deleted) outside the measurement
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("rerun_unchanged", |b| {
        let dir = indexed.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let options = lexical_options(profile.path(), &dir.path().join("index"));
            indexer::run(&options, &NoProgress).unwrap();
            dir
        });
        let options = lexical_options(profile.path(), &dir.path().join("index"));
        b.iter(|| {
            let summary = indexer::run(&options, &NoProgress).unwrap();
            assert_eq!(summary.converted, 0);
        })
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------
// embed

fn embed(c: &mut Criterion) {
    if !wanted("embed") {
        return;
    }
    let Some(models) = models() else {
        println!("embed: skipped: no MiniLM model (run scripts/fetch-models)");
        return;
    };
    let encoder = match indexer::embed::TextEncoder::load(&models, 2) {
        Ok(encoder) => RefCell::new(encoder),
        Err(error) => {
            println!("embed: skipped: {error}");
            return;
        }
    };
    // English-looking texts of 5 to 250 words: the spread of lengths is what sorting by
    // length saves padding on.
    let words: Vec<String> = "the river garden budget invoice meeting school doctor running race pottery glaze bread oven flight hotel rent loan tax report draft final cost estimate culvert storm water plan volunteer pantry shift concert choir rehearsal photo camera beach trail"
        .split(' ')
        .map(str::to_string)
        .collect();
    let mut rng = Rng::new(0xd15c);
    let texts: Vec<String> = (0..64)
        .map(|_| {
            let n = 5 + rng.zipf(246);
            benches::sentence(&mut rng, &words, n)
        })
        .collect();
    let batch = indexer::embed::ENCODER_BATCH;

    let mut group = c.benchmark_group("embed");
    group
        .sample_size(10)
        .warm_up_time(seconds(1.0))
        .measurement_time(seconds(5.0))
        .throughput(Throughput::Elements(texts.len() as u64));
    group.bench_function(BenchmarkId::new("pipeline_by_length", batch), |b| {
        b.iter(|| black_box(encoder.borrow_mut().embed(&texts).unwrap()))
    });
    group.bench_function(BenchmarkId::new("unsorted", batch), |b| {
        b.iter(|| {
            black_box(
                encoder
                    .borrow_mut()
                    .embed_with(&texts, batch, false)
                    .unwrap(),
            )
        })
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------
// query

struct Corpus {
    _profile: tempfile::TempDir,
    dir: tempfile::TempDir,
    stats: CorpusStats,
}

impl Corpus {
    fn build(units: usize, vectors: bool) -> Corpus {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut spec = CorpusSpec::new(units, 0xfeed);
        spec.vectors = vectors;
        let stats = build_unit_corpus(dir.path(), profile.path(), &spec).unwrap();
        println!(
            "corpus: {} units in {} files, {} random unit vectors; built in {:.1} s (+{:.1} s vectors)",
            stats.units, stats.files, stats.vectors, stats.lexical_seconds, stats.vector_seconds
        );
        Corpus {
            _profile: profile,
            dir,
            stats,
        }
    }
}

fn units() -> usize {
    env_count("DENTATE_BENCH_UNITS").unwrap_or(10_000)
}

fn query_group(c: &mut Criterion) {
    if !wanted("query") {
        return;
    }
    let units = units();
    let models = models();
    if models.is_none() {
        println!("query/dense, query/hybrid: skipped: no MiniLM model (run scripts/fetch-models)");
    }
    let fixture: OnceCell<(Corpus, Engine)> = OnceCell::new();
    let setup = || {
        let corpus = Corpus::build(units, models.is_some());
        let engine = Engine::open_with_models(corpus.dir.path(), models.as_deref()).unwrap();
        (corpus, engine)
    };
    let vocab = vocabulary(VOCABULARY);
    let rng = RefCell::new(Rng::new(0xabcdef));

    let mut group = c.benchmark_group("query");
    group
        .sample_size(20)
        .warm_up_time(seconds(1.0))
        .measurement_time(seconds(3.0))
        .throughput(Throughput::Elements(1));
    for (name, mode) in MODES {
        if mode != Mode::Lexical && models.is_none() {
            continue;
        }
        group.bench_function(BenchmarkId::new(name, units), |b| {
            let (_, engine) = fixture.get_or_init(setup);
            b.iter_batched(
                || query(&mut rng.borrow_mut(), &vocab),
                |q| retrieve(engine, q, mode),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();

    if let Some((corpus, engine)) = fixture.get() {
        let n = latency_queries();
        let mut rng = Rng::new(0x5151);
        let mut line = format!(
            "query latency, {} units, {n} new queries of 2-5 words, top-10 units:",
            corpus.stats.units
        );
        for (name, mode) in MODES {
            if mode != Mode::Lexical && models.is_none() {
                continue;
            }
            let (p50, p99) = latency(n, &mut rng, &vocab, |q| {
                retrieve(engine, q, mode);
            });
            line.push_str(&format!(" {name} p50 {p50:.2} ms p99 {p99:.2} ms;"));
        }
        println!("{}", line.trim_end_matches(';'));
    }
}

// ---------------------------------------------------------------------------------------
// qdrant

struct QdrantFixture {
    server: dentate_qdrant::testing::Server,
    corpus: Corpus,
    config: dentate_qdrant::QdrantConfig,
    embedded: Engine,
    remote: Engine,
    runtime: tokio::runtime::Runtime,
    client: qdrant_client::Qdrant,
    serial: std::cell::Cell<u32>,
}

impl QdrantFixture {
    fn start(units: usize, models: Option<&Path>) -> Option<QdrantFixture> {
        let server = dentate_qdrant::testing::server()?; // prints `skipped:` itself
        let corpus = Corpus::build(units, models.is_some());
        let root = corpus._profile.path().to_string_lossy().to_string();
        let mut config = dentate_qdrant::QdrantConfig::new(&server.url, &root);
        config.collection = "bench".to_string();
        let handle = index::IndexHandle::open(corpus.dir.path()).unwrap();
        let summary = dentate_qdrant::sync(&handle, &config, |_| {}).unwrap();
        println!(
            "qdrant: first sync of {} units in {:.1} s ({:.0} units/s); server RSS {}",
            summary.units_written,
            summary.elapsed.as_secs_f64(),
            summary.units_written as f64 / summary.elapsed.as_secs_f64(),
            rss_line(server.pid())
        );
        let embedded = Engine::open_with_models(corpus.dir.path(), models).unwrap();
        let backend = dentate_qdrant::QdrantBackend::open(&config).unwrap();
        let remote = Engine::with_backend(Box::new(backend), models);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = {
            let _guard = runtime.enter();
            qdrant_client::Qdrant::from_url(&server.url)
                .skip_compatibility_check()
                .build()
                .unwrap()
        };
        Some(QdrantFixture {
            server,
            corpus,
            config,
            embedded,
            remote,
            runtime,
            client,
            serial: std::cell::Cell::new(0),
        })
    }

    /// One timed sync of the whole corpus into a new collection (deleted afterwards,
    /// untimed).
    fn timed_sync(&self) -> Duration {
        let serial = self.serial.get() + 1;
        self.serial.set(serial);
        let mut config = self.config.clone();
        config.collection = format!("bench-sync-{serial}");
        let handle = index::IndexHandle::open(self.corpus.dir.path()).unwrap();
        let started = Instant::now();
        let summary = dentate_qdrant::sync(&handle, &config, |_| {}).unwrap();
        let elapsed = started.elapsed();
        assert_eq!(summary.units_written, self.corpus.stats.units);
        self.runtime
            .block_on(self.client.delete_collection(config.collection.as_str()))
            .unwrap();
        elapsed
    }
}

fn rss_line(pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!(
            "{:.0} MiB (peak {:.0} MiB)",
            proc_status_kib(Some(pid), "VmRSS").unwrap_or(0) as f64 / 1024.0,
            proc_status_kib(Some(pid), "VmHWM").unwrap_or(0) as f64 / 1024.0
        ),
        None => "unknown (external server)".to_string(),
    }
}

fn qdrant(c: &mut Criterion) {
    if !wanted("qdrant") {
        return;
    }
    if std::env::var_os("DENTATE_QDRANT_URL").is_none()
        && dentate_qdrant::testing::qdrant_binary().is_none()
    {
        println!("qdrant: skipped: no Qdrant server (no ../shared/bin/qdrant beside the repository, DENTATE_QDRANT_URL unset)");
        return;
    }
    let units = units();
    let models = models();
    let fixture: OnceCell<Option<QdrantFixture>> = OnceCell::new();
    let setup = || QdrantFixture::start(units, models.as_deref());
    let vocab = vocabulary(VOCABULARY);
    let rng = RefCell::new(Rng::new(0xabcdef));

    let mut group = c.benchmark_group("qdrant");
    group
        .sample_size(10)
        .warm_up_time(seconds(0.5))
        .measurement_time(seconds(3.0))
        .throughput(Throughput::Elements(units as u64));
    group.bench_function(BenchmarkId::new("sync", units), |b| {
        let fixture = fixture.get_or_init(setup).as_ref().expect("qdrant server");
        b.iter_custom(|iters| (0..iters).map(|_| fixture.timed_sync()).sum())
    });
    group.throughput(Throughput::Elements(1));
    for (name, mode) in MODES {
        if mode != Mode::Lexical && models.is_none() {
            continue;
        }
        for backend in ["embedded", "qdrant"] {
            group.bench_function(BenchmarkId::new(format!("{name}/{backend}"), units), |b| {
                let fixture = fixture.get_or_init(setup).as_ref().expect("qdrant server");
                let engine = match backend {
                    "embedded" => &fixture.embedded,
                    _ => &fixture.remote,
                };
                b.iter_batched(
                    || query(&mut rng.borrow_mut(), &vocab),
                    |q| retrieve(engine, q, mode),
                    BatchSize::SmallInput,
                )
            });
        }
    }
    group.finish();

    if let Some(Some(fixture)) = fixture.get() {
        let n = latency_queries();
        let mut line = format!(
            "qdrant latency, {} units, {n} new queries, top-10 units (embedded vs qdrant):",
            fixture.corpus.stats.units
        );
        for (i, (name, mode)) in MODES.into_iter().enumerate() {
            if mode != Mode::Lexical && models.is_none() {
                continue;
            }
            // The same new queries for both backends (each engine caches query
            // embeddings of its own), other queries for each mode.
            for (backend, engine) in [("embedded", &fixture.embedded), ("qdrant", &fixture.remote)]
            {
                let mut rng = Rng::new(0x5151 + i as u64);
                let (p50, p99) = latency(n, &mut rng, &vocab, |q| {
                    retrieve(engine, q, mode);
                });
                line.push_str(&format!(
                    " {name}/{backend} p50 {p50:.2} ms p99 {p99:.2} ms;"
                ));
            }
        }
        println!("{}", line.trim_end_matches(';'));
        println!("qdrant: server RSS {}", rss_line(fixture.server.pid()));
    }
}

// ---------------------------------------------------------------------------------------
// media (opt-in: DENTATE_BENCH=media)

fn media(c: &mut Criterion) {
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
                    .transcribe(&samples, &mut stats)
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

criterion_group! {
    name = groups;
    config = Criterion::default();
    targets = convert, index, embed, query_group, qdrant, media
}
criterion_main!(groups);
