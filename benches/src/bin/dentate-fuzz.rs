//! Long fuzz runs on stable Rust (the engine of `converters::fuzz`): every converter
//! family, the time parser, the path normaliser and the HTTP request decoding, one target
//! after the other, each for `--seconds` (default `$DENTATE_FUZZ_SECONDS`, else 60).
//!
//! Usage: `dentate-fuzz [TARGET…] [--seconds S] [--seed N] [--crashes DIR]`
//! (`dentate-fuzz --list` names the targets). Crashing inputs are written to DIR
//! (default `fuzz-crashes/`); one line of JSON per target is printed on stdout.
//! A hang (one input running over 60 s) ends the process with status 3 after saving
//! the input. Exit status 1 when a target crashed.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use converters::fuzz::{Budget, Family, Report, FAMILIES};

fn targets() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .map(|f| f.name)
        .chain(searchd::fuzz::TARGETS.iter().copied())
        .collect()
}

fn run(name: &str, repo: &Path, budget: &Budget) -> anyhow::Result<Report> {
    match Family::by_name(name) {
        Some(family) => Ok(converters::fuzz::run_family(family, repo, budget)),
        None => benches::fuzz::run_daemon_target(name, repo, budget),
    }
}

fn main() -> anyhow::Result<()> {
    let mut budget = Budget::from_env(60.0);
    budget.crash_dir = Some(PathBuf::from("fuzz-crashes"));
    let mut chosen: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--seconds" => {
                let seconds: f64 = value("--seconds")?.parse().context("--seconds")?;
                budget.time = std::time::Duration::from_secs_f64(seconds.max(0.0));
            }
            "--seed" => budget.seed = value("--seed")?.parse().context("--seed")?,
            "--crashes" => budget.crash_dir = Some(PathBuf::from(value("--crashes")?)),
            "--list" => {
                println!("{}", targets().join("\n"));
                return Ok(());
            }
            other if other.starts_with('-') => bail!("unknown option {other}"),
            other => chosen.push(other.to_string()),
        }
    }
    let all = targets();
    if chosen.is_empty() {
        chosen = all.iter().map(|t| t.to_string()).collect();
    }
    if let Some(unknown) = chosen.iter().find(|c| !all.contains(&c.as_str())) {
        bail!("unknown target {unknown:?}; targets: {}", all.join(", "));
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut crashed = false;
    for name in &chosen {
        let report = run(name, &repo, &budget)?;
        eprintln!("{}", report.summary());
        crashed |= report.crash_count > 0;
        println!(
            "{}",
            serde_json::json!({
                "target": report.target,
                "seconds": (report.seconds * 10.0).round() / 10.0,
                "iterations": report.iterations,
                "seeds": report.seeds,
                "behaviours": report.behaviours,
                "slowest_ms": report.slowest_ms,
                "crashes": report.crash_count,
                "distinct_crashes": report.crashes.iter().map(|c| &c.message).collect::<Vec<_>>(),
            })
        );
    }
    if crashed {
        std::process::exit(1);
    }
    Ok(())
}
