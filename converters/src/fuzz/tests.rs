//! Tests of the fuzzing engine and the converter families.
use super::*;

/// Inputs per family in CI's short run: a few seconds of each on this project's
/// 2-core machines, seeds included (a PDF input costs ~0.3 s unoptimised, an e-mail
/// under 1 ms).
fn ci_iterations(family: &str) -> u64 {
    match family {
        "pdf" => 30,
        "office" => 200,
        "sqlite" => 300,
        "sheet" => 400,
        "image" | "text" => 1_500,
        _ => 3_000,
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The short run in CI: the same [`ci_iterations`] inputs per family on every
/// machine (`DENTATE_FUZZ_ITERATIONS` for more); no crash allowed.
#[test]
fn every_converter_family_survives_a_short_fuzz_run() {
    let mut failures = Vec::new();
    for family in FAMILIES {
        let budget = Budget::iterations(ci_iterations(family.name));
        let report = run_family(family, &repo(), &budget);
        eprintln!("{}", report.summary());
        assert!(
            report.seeds > 0 && report.iterations > 0,
            "{}",
            report.summary()
        );
        for crash in &report.crashes {
            failures.push(format!("{}: {}", family.name, crash.message));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Inputs that once crashed a converter (`converters/fuzz-regressions/`, named
/// `<family>-<what>.bin`, kept from long runs) convert without a crash now.
#[test]
fn kept_crashes_stay_fixed() {
    let dir = repo().join("converters/fuzz-regressions");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(family) = name.split('-').next().and_then(Family::by_name) else {
            continue;
        };
        let input = std::fs::read(&path).unwrap();
        match family.check(&input) {
            Verdict::Ok(_) => checked += 1,
            Verdict::Crash(message) => panic!("{name}: {message}"),
        }
    }
    assert!(checked > 0, "no regression inputs in {}", dir.display());
}

#[test]
fn an_iteration_budget_checks_the_same_inputs_whatever_the_time() {
    let budget = Budget {
        iterations: Some(500),
        ..Budget::from_env(0.0)
    };
    let mut first = Vec::new();
    let report = run("toy", &[b"abc".to_vec()], &budget, |input| {
        first.push(input.to_vec());
        Verdict::Ok(signature(input))
    });
    assert_eq!(report.iterations, 501);
    let mut second = Vec::new();
    run("toy", &[b"abc".to_vec()], &budget, |input| {
        second.push(input.to_vec());
        Verdict::Ok(signature(input))
    });
    assert_eq!(first, second);
}

#[test]
fn the_engine_reports_panics_and_keeps_new_behaviours() {
    let budget = Budget {
        time: Duration::from_millis(200),
        ..Budget::from_env(0.2)
    };
    let report = run("toy", &[b"abc".to_vec()], &budget, |input| {
        if input.len() > 64 {
            panic!("too long");
        }
        Verdict::Ok(signature(input.len()))
    });
    assert!(report.iterations > 10);
    assert!(report.behaviours > 1);
    assert_eq!(report.crashes.len(), 1, "{:?}", report.crashes);
    assert!(report.crashes[0].message.contains("too long"));
    assert!(report.crashes[0].input.len() > 64);
}

#[test]
fn zip_members_are_damaged_inside_a_valid_archive() {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    writer
        .start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
    writer.write_all(b"<w:document>text</w:document>").unwrap();
    let bytes = writer.finish().unwrap().into_inner();
    let mut rng = Rng(7);
    let damaged = mutate_zip_member(&mut rng, &bytes).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(damaged)).unwrap();
    assert_eq!(archive.len(), 1);
    let mut content = Vec::new();
    archive
        .by_index(0)
        .unwrap()
        .read_to_end(&mut content)
        .unwrap();
    assert_ne!(content, b"<w:document>text</w:document>");
    assert!(mutate_zip_member(&mut rng, b"not a zip").is_none());
}
