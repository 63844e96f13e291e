//! Dentate's benchmarks, as criterion groups (one bench binary, `harness = false`):
//!
//! | group | what one iteration is | throughput |
//! |---|---|---|
//! | `convert` | every file of one converter family through `converters::convert` | bytes |
//! | `index` | `indexer::run` over a synthetic profile, lexical only (no embeddings, OCR, media): a fresh index, and a re-run over the unchanged profile | files |
//! | `embed` | MiniLM over 64 texts: `TextEncoder::embed` (the pipeline: length-sorted batches of 16) vs `embed_with(texts, 16, false)` | texts |
//! | `query` | one new query through `searchd::Engine::retrieve`, BM25 / dense / hybrid, over a unit corpus (10K units; `DENTATE_BENCH_UNITS`) | queries |
//! | `reload` | the daemon's text-vector store after one file's vectors changed: loaded in full vs updated from the vector log (10K vectors; `DENTATE_BENCH_UNITS`) | vectors |
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

mod files;
mod media;
mod reload;
mod search;

criterion_group! {
    name = groups;
    config = Criterion::default();
    targets = files::convert, files::index, files::embed, search::query_group, reload::reload, search::qdrant, media::media
}
criterion_main!(groups);
