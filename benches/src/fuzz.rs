//! The daemon's fuzz targets with what they need from the indexer: the HTTP target
//! serves an index of the sample profile, which `searchd` (it does not index) cannot
//! build itself.

use std::path::Path;

use converters::fuzz::{Budget, Report};

/// A lexical index of the repository's sample profile, in a temporary folder (the
/// index is its `index/`).
pub fn sample_index(repo: &Path) -> anyhow::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    let mut options = indexer::IndexOptions::new(
        searchd::fuzz::sample_profile(repo),
        dir.path().join("index"),
    );
    options.embed = false;
    options.ocr = false;
    options.media = false;
    indexer::run(&options, &indexer::NoProgress)?;
    Ok(dir)
}

/// Runs one of the daemon's targets (`searchd::fuzz::TARGETS`), indexing the sample
/// profile first for the HTTP target.
pub fn run_daemon_target(name: &str, repo: &Path, budget: &Budget) -> anyhow::Result<Report> {
    if name == "http" {
        let dir = sample_index(repo)?;
        searchd::fuzz::run_target(name, Some(&dir.path().join("index")), budget)
    } else {
        searchd::fuzz::run_target(name, None, budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HTTP target's short run in CI: no crash allowed.
    #[test]
    fn the_http_target_survives_a_short_fuzz_run() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let report = run_daemon_target("http", &repo, &Budget::iterations(3_000)).unwrap();
        eprintln!("{}", report.summary());
        assert!(
            report.iterations > report.seeds as u64,
            "{}",
            report.summary()
        );
        let crashes: Vec<&String> = report.crashes.iter().map(|c| &c.message).collect();
        assert!(crashes.is_empty(), "{crashes:#?}");
    }
}
