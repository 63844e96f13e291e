//! The `query` and `qdrant` groups.

use super::*;

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

/// Over an int8 corpus, the engines compared with the default one: float32 rows, and
/// every int8 row scored (no sign pass).
type Others = (Engine, Engine);

fn units() -> usize {
    env_count("DENTATE_BENCH_UNITS").unwrap_or(10_000)
}

pub(crate) fn query_group(c: &mut Criterion) {
    if !wanted("query") {
        return;
    }
    let units = units();
    let models = models();
    if models.is_none() {
        println!("query/dense, query/hybrid: skipped: no MiniLM model (run scripts/fetch-models)");
    }
    // Beyond `QUANTIZE_ABOVE` vectors the daemon scans sign bits, then int8 rows, then
    // rescores; two more engines over the same corpus keep float32 rows (for the
    // side-by-side and recall) and score every int8 row (the scan before the sign pass).
    let quantized = models.is_some() && units > index::embedded::quantize_above();
    let fixture: OnceCell<(Corpus, Engine, Option<Others>)> = OnceCell::new();
    let setup = || {
        let corpus = Corpus::build(units, models.is_some());
        let engine = Engine::open_with_models(corpus.dir.path(), models.as_deref()).unwrap();
        let open_with = |var: &str, value: &str| {
            std::env::set_var(var, value);
            let engine = Engine::open_with_models(corpus.dir.path(), models.as_deref()).unwrap();
            std::env::remove_var(var);
            engine
        };
        let others = quantized.then(|| {
            (
                open_with("DENTATE_QUANTIZE_ABOVE", &usize::MAX.to_string()),
                open_with("DENTATE_SIGN_PASS", "off"),
            )
        });
        (corpus, engine, others)
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
            let (_, engine, _) = fixture.get_or_init(setup);
            b.iter_batched(
                || query(&mut rng.borrow_mut(), &vocab),
                |q| retrieve(engine, q, mode),
                BatchSize::SmallInput,
            )
        });
    }
    if quantized {
        for (name, pick) in [("dense_f32", 0), ("dense_int8_all_rows", 1)] {
            group.bench_function(BenchmarkId::new(name, units), |b| {
                let (_, _, others) = fixture.get_or_init(setup);
                let (exact, all_rows) = others.as_ref().expect("the other engines");
                let engine = if pick == 0 { exact } else { all_rows };
                b.iter_batched(
                    || query(&mut rng.borrow_mut(), &vocab),
                    |q| retrieve(engine, q, Mode::Dense),
                    BatchSize::SmallInput,
                )
            });
        }
    }
    group.finish();

    if let Some((corpus, _, Some((exact, all_rows)))) = fixture.get() {
        let engine = &fixture.get().expect("fixture").1;
        let mut rng = Rng::new(0x7777);
        let (mut found, mut wanted) = (0usize, 0usize);
        let (mut found_hybrid, mut wanted_hybrid) = (0usize, 0usize);
        let (mut kept, mut all) = (0usize, 0usize);
        let top_in = |engine: &Engine, q: &str, mode: Mode| -> Vec<String> {
            engine
                .retrieve(SearchParams {
                    query: q.to_string(),
                    top_k: 10,
                    mode,
                    ..SearchParams::default()
                })
                .expect("retrieve")
                .units
                .into_iter()
                .map(|u| u.unit.unit_id)
                .collect()
        };
        let top = |engine: &Engine, q: &str| top_in(engine, q, Mode::Dense);
        for _ in 0..latency_queries() {
            let q = query(&mut rng, &vocab);
            let want = top(exact, &q);
            let got = top(engine, &q);
            wanted += want.len();
            found += want.iter().filter(|id| got.contains(id)).count();
            // Hybrid: the fusion depth's lower dense ranks keep int8 scores.
            let want = top_in(exact, &q, Mode::Hybrid);
            let got = top_in(engine, &q, Mode::Hybrid);
            wanted_hybrid += want.len();
            found_hybrid += want.iter().filter(|id| got.contains(id)).count();
            // The sign pass against every int8 row: what it loses before rescoring.
            let want = top(all_rows, &q);
            let got = top(engine, &q);
            all += want.len();
            kept += want.iter().filter(|id| got.contains(id)).count();
        }
        let (p50, p99) = latency(latency_queries(), &mut Rng::new(0x5152), &vocab, |q| {
            retrieve(exact, q, Mode::Dense);
        });
        let (all_p50, all_p99) = latency(latency_queries(), &mut Rng::new(0x5152), &vocab, |q| {
            retrieve(all_rows, q, Mode::Dense);
        });
        println!(
            "query, {} units: sign bits + int8 rows + exact rescoring vs float32 rows: recall@10 {:.4} (hybrid {:.4}) over {} queries; vs every int8 row + exact rescoring: {:.4}; float32 dense p50 {p50:.2} ms p99 {p99:.2} ms; every int8 row: dense p50 {all_p50:.2} ms p99 {all_p99:.2} ms",
            corpus.stats.units,
            found as f64 / wanted.max(1) as f64,
            found_hybrid as f64 / wanted_hybrid.max(1) as f64,
            latency_queries(),
            kept as f64 / all.max(1) as f64,
        );
    }

    if let Some((corpus, engine, _)) = fixture.get() {
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
            "qdrant: first sync of {} units in {:.1} s ({:.0} units/s; HNSW indexing paused: {}); server RSS {}",
            summary.units_written,
            summary.elapsed.as_secs_f64(),
            summary.units_written as f64 / summary.elapsed.as_secs_f64(),
            summary.indexing_paused,
            rss_line(server.pid())
        );
        // Queries are measured on a collection whose indexes are built.
        let started = Instant::now();
        let green = dentate_qdrant::wait_indexed(&config, Duration::from_secs(3600)).unwrap();
        println!(
            "qdrant: indexes built {:.1} s after the sync (green: {green}); sync + indexing {:.0} units/s; server RSS {}",
            started.elapsed().as_secs_f64(),
            summary.units_written as f64
                / (summary.elapsed + started.elapsed()).as_secs_f64(),
            rss_line(server.pid())
        );
        let embedded = Engine::open_with_models(corpus.dir.path(), models).unwrap();
        let backend = dentate_qdrant::QdrantBackend::open(&config).unwrap();
        let remote = Engine::with_backend(Box::new(backend), models);
        let (runtime, client) = dentate_qdrant::testing::client(&server.url);
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

pub(crate) fn qdrant(c: &mut Criterion) {
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
    // Criterion repeats a benchmark at least ten times: beyond 200K units the first
    // sync's line (printed by the setup) is the measurement.
    if units <= 200_000 {
        group.bench_function(BenchmarkId::new("sync", units), |b| {
            let fixture = fixture.get_or_init(setup).as_ref().expect("qdrant server");
            b.iter_custom(|iters| (0..iters).map(|_| fixture.timed_sync()).sum())
        });
    } else {
        println!("qdrant/sync/{units}: measured once, by the first sync (see its line)");
    }
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
