//! The `reload` group: the daemon's text-vector store after one file's vectors changed,
//! loaded again in full (what every change cost before the vector log) vs updated from
//! the log (`ExactStore::updated`: that file's rows re-read, the others copied).

use super::*;

use index::embedded::ExactStore;

pub(crate) fn reload(c: &mut Criterion) {
    if !wanted("reload") {
        return;
    }
    let units = env_count("DENTATE_BENCH_UNITS").unwrap_or(10_000);
    let fixture = OnceCell::new();
    let setup = || {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut spec = CorpusSpec::new(units, 0xfeed);
        spec.vectors = true;
        build_unit_corpus(dir.path(), profile.path(), &spec).unwrap();
        let path = index::IndexLayout::new(dir.path()).manifest_path();
        let mut manifest = index::Manifest::open(&path).unwrap();
        let store = ExactStore::load(&manifest).unwrap();
        // One file's vectors written again, as an embedding pass does.
        let since = manifest.vectors_generation().unwrap();
        let record = manifest
            .all()
            .unwrap()
            .into_iter()
            .find(|r| r.unit_count > 0)
            .expect("a file with units");
        let rows: Vec<(String, String, Vec<u8>)> = manifest
            .vectors_of_file(&record.file_id)
            .unwrap()
            .into_iter()
            .map(|(unit, (hash, bytes))| (unit, hash, bytes))
            .collect();
        let hash = record.hash.clone().unwrap_or_default();
        manifest
            .replace_file_vectors(
                &record.path,
                &record.file_id,
                &hash,
                index::vector::LEGACY_TEXT_MODEL,
                index::vector::DEFAULT_TEXT_WINDOWS,
                &rows,
            )
            .unwrap();
        let changed = manifest
            .vector_changes_since(since)
            .unwrap()
            .expect("logged");
        println!(
            "reload: {} vectors ({}), {} changed file(s) with {} vectors",
            store.len(),
            if store.is_quantized() {
                "int8"
            } else {
                "float32"
            },
            changed.len(),
            rows.len()
        );
        (profile, dir, manifest, store, changed)
    };
    let mut group = c.benchmark_group("reload");
    group
        .sample_size(10)
        .warm_up_time(seconds(1.0))
        .measurement_time(seconds(5.0))
        .throughput(Throughput::Elements(units as u64));
    group.bench_function(BenchmarkId::new("full", units), |b| {
        let (_, _, manifest, _, _) = fixture.get_or_init(setup);
        b.iter(|| ExactStore::load(manifest).unwrap().len())
    });
    group.bench_function(BenchmarkId::new("one_file", units), |b| {
        let (_, _, manifest, store, changed) = fixture.get_or_init(setup);
        b.iter(|| {
            store
                .updated(manifest, changed)
                .unwrap()
                .expect("updated")
                .len()
        })
    });
    group.finish();
}
