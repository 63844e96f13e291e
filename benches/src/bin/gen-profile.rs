//! Writes a synthetic profile (text notes, markdown, `.eml` mail, `.ics` calendars,
//! `.csv` sheets; see `benches::generate_profile`), deterministic from a seed, so anyone
//! can index the same files the benchmarks use.
//!
//! Usage: `gen-profile OUT_DIR [--files N] [--units U] [--seed S]`
//! (default 1000 files, seed 1; with `--units`, files are added until the converters make
//! at least U units of them, `--files` then being an upper bound).
//!
//! `gen-profile OUT_DIR --index INDEX_DIR --units U` writes instead the benches' unit
//! corpus (`benches::build_unit_corpus`: U made-up PDF pages in files of 100, each with
//! a random unit-length text vector) straight into a new index at INDEX_DIR, with
//! OUT_DIR as its (empty) profile folder: an index of any size in seconds, to sync into
//! Qdrant or serve, without converting or embedding anything.

use std::path::PathBuf;

use anyhow::{bail, Context};
use benches::{build_unit_corpus, generate_profile, CorpusSpec, ProfileSpec};

fn main() -> anyhow::Result<()> {
    let mut out: Option<PathBuf> = None;
    let mut files: Option<usize> = None;
    let mut units: Option<usize> = None;
    let mut seed = 1u64;
    let mut index: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> anyhow::Result<u64> {
            let v = args
                .next()
                .with_context(|| format!("{name} needs a value"))?;
            v.parse()
                .with_context(|| format!("{name}: not a number: {v}"))
        };
        match arg.as_str() {
            "--files" => files = Some(value("--files")? as usize),
            "--units" => units = Some(value("--units")? as usize),
            "--seed" => seed = value("--seed")?,
            "--index" => {
                index = Some(PathBuf::from(
                    args.next().context("--index needs a folder")?,
                ))
            }
            "-h" | "--help" => {
                println!("usage: gen-profile OUT_DIR [--files N] [--units U] [--seed S] [--index INDEX_DIR]");
                return Ok(());
            }
            other if other.starts_with('-') => bail!("unknown option {other}"),
            other => {
                if out.replace(PathBuf::from(other)).is_some() {
                    bail!("one OUT_DIR only");
                }
            }
        }
    }
    let Some(out) = out else {
        bail!("usage: gen-profile OUT_DIR [--files N] [--units U] [--seed S] [--index INDEX_DIR]");
    };
    if let Some(index) = index {
        let units = units.context("--index needs --units")?;
        std::fs::create_dir_all(&out)?;
        let stats = build_unit_corpus(&index, &out, &CorpusSpec::new(units, seed))?;
        println!(
            "wrote a unit corpus of {} units in {} files (random vectors, seed {seed}) to {}",
            stats.units,
            stats.files,
            index.display()
        );
        return Ok(());
    }
    let spec = match units {
        Some(units) => ProfileSpec {
            files: files.unwrap_or(usize::MAX),
            target_units: Some(units),
            seed,
        },
        None => ProfileSpec::files(files.unwrap_or(1000), seed),
    };
    let stats = generate_profile(&out, &spec)?;
    println!(
        "wrote {} files, {:.2} MB, {} units (seed {seed}) to {}",
        stats.files,
        stats.bytes as f64 / 1e6,
        stats.units,
        out.display()
    );
    for (ext, (files, bytes, units)) in &stats.by_family {
        println!("  .{ext}: {files} files, {bytes} bytes, {units} units");
    }
    Ok(())
}
