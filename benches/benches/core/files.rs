//! The `convert`, `index` and `embed` groups.

use super::*;

pub(crate) fn convert(c: &mut Criterion) {
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

pub(crate) fn index(c: &mut Criterion) {
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

pub(crate) fn embed(c: &mut Criterion) {
    if !wanted("embed") {
        return;
    }
    let Some(models) = models() else {
        println!("embed: skipped: no MiniLM model (run scripts/fetch-models)");
        return;
    };
    use indexer::embed::{TextEncoder, TextModel};
    // The form texts are embedded with, and the packaged graph beside it when that is
    // another (the two forms side by side in one run).
    let mut encoders = Vec::new();
    for form in [TextModel::for_texts(&models), TextModel::PACKAGED] {
        if encoders.iter().any(|(f, _)| *f == form) {
            continue;
        }
        match TextEncoder::load_model(&models, form, 2) {
            Ok(encoder) => encoders.push((form, RefCell::new(encoder))),
            Err(error) => {
                println!("embed: skipped: {error}");
                return;
            }
        }
    }
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

    let mut group = c.benchmark_group("embed");
    group
        .sample_size(10)
        .warm_up_time(seconds(1.0))
        .measurement_time(seconds(5.0))
        .throughput(Throughput::Elements(texts.len() as u64));
    for (form, encoder) in &encoders {
        group.bench_function(BenchmarkId::new("pipeline_by_length", form.name), |b| {
            b.iter(|| black_box(encoder.borrow_mut().embed(&texts).unwrap()))
        });
        if form.batch > 1 {
            // What sorting by length saves where a model batch pads.
            group.bench_function(BenchmarkId::new("unsorted", form.name), |b| {
                b.iter(|| {
                    black_box(
                        encoder
                            .borrow_mut()
                            .embed_with(&texts, form.batch, false)
                            .unwrap(),
                    )
                })
            });
        }
    }
    group.finish();
}
