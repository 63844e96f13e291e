//! The daemon's fuzz targets, on the engine of `converters::fuzz`: the time parser, the
//! path normaliser (with the profile guard behind it) and the HTTP request decoding
//! (every route of the app the daemon serves, limits included, over a small real
//! index, in process).
//!
//! A target returns a crash for a panic, a broken invariant, or (HTTP) a 5xx reply other
//! than 503/504: bad input must always get a clear 4xx.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDateTime;
use converters::fuzz::{signature, Budget, Report, Verdict};

use crate::engine::Engine;

/// The daemon's targets, by name.
pub const TARGETS: &[&str] = &["timeparse", "path", "http"];

/// Time expressions people type, plus the edges of the grammar.
const TIME_SEEDS: &[&str] = &[
    "last week",
    "the week of 6 October",
    "March 2024",
    "between 3 March and 9 April 2023",
    "every Wednesday evening",
    "on Thursday mornings",
    "weekends in summer 2022",
    "yesterday at 9pm",
    "from 2019 to 2021",
    "in the last 3 days",
    "12/31/1999",
    "2024-02-29",
    "31 February 2023",
    "Q3 2021",
    "the first week of January",
    "two years ago",
    "spring",
    "before Christmas",
    "after 5pm on weekdays",
    "9999",
    "year 0",
    "-1 days ago",
    "99999999999 weeks ago",
];

/// A fixed reference date (Monday 6 October 2025, noon).
fn reference() -> NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2025, 10, 6)
        .and_then(|d| d.and_hms_opt(12, 0, 0))
        .expect("valid date")
}

/// `timeparse::parse` on any text: no panic, ranges not reversed, weekdays and hours
/// in bounds.
pub fn check_timeparse(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let intent = crate::timeparse::parse(&text, reference());
    if let Some((a, b)) = intent.range {
        if a > b {
            return Verdict::Crash(format!("reversed range {a}..{b}"));
        }
    }
    if let Some(day) = intent.weekdays.iter().find(|d| **d > 6) {
        return Verdict::Crash(format!("weekday {day} out of range"));
    }
    if let Some((from, to)) = intent.hours {
        if from > 24 || to > 24 {
            return Verdict::Crash(format!("hours {from}..{to} out of range"));
        }
    }
    Verdict::Ok(signature((
        intent.range.is_some(),
        intent.weekdays.len(),
        intent.hours,
        intent.recurring,
        intent.phrases.len().min(8),
    )))
}

const PATH_SEEDS: &[&str] = &[
    "Documents/report.pdf",
    "./Documents//notes.md",
    "Mail/x.eml#attachment/report.pdf",
    "Mail/x.eml#attachment/inner.eml#attachment/a b.txt",
    "../etc/passwd",
    "Documents/../../secret",
    "/etc/passwd",
    "C:\\Windows\\win.ini",
    "a\\..\\..\\b",
    "%2e%2e/x",
    "Docs/\0/x",
    "x#attachment/../../y",
    ".",
    "",
];

/// `files::normalize_path` on any text: a normalised path is relative, has no `..`
/// part, is not empty, and normalises to itself; the guard judges it without panicking
/// and never allows a path that leaves the root.
pub fn check_path(input: &[u8], root: &Path) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let normal = match crate::files::normalize_path(&text) {
        Ok(normal) => normal,
        Err(_) => return Verdict::Ok(0),
    };
    let container = index::UnitPath::parse(&normal).container().to_string();
    if normal.is_empty() || container.is_empty() {
        return Verdict::Crash(format!("{text:?} normalised to an empty path {normal:?}"));
    }
    if normal.starts_with('/') || container.split(['/', '\\']).any(|p| p == "..") {
        return Verdict::Crash(format!(
            "{text:?} normalised to {normal:?}, outside the root"
        ));
    }
    match crate::files::normalize_path(&normal) {
        Ok(again) if again == normal => {}
        other => {
            return Verdict::Crash(format!(
                "{text:?} → {normal:?} does not normalise to itself: {other:?}"
            ))
        }
    }
    let allowed = crate::guard::PathGuard::new(root).allows(&normal);
    Verdict::Ok(signature((
        allowed,
        normal.contains(index::path::ATTACHMENT_MARKER),
        normal.matches('/').count().min(8),
    )))
}

/// The HTTP target: the app the daemon serves over an index of the repository's sample
/// profile (built by the caller: this crate does not index).
pub struct HttpTarget {
    app: axum::Router,
    runtime: tokio::runtime::Runtime,
    /// Requests over every route, on files of the sample index.
    pub seeds: Vec<Vec<u8>>,
}

impl HttpTarget {
    /// Builds the app the daemon serves over `index` (a lexical index of the sample
    /// profile is enough), with `limits`.
    pub fn new(index: &Path, limits: crate::limits::Limits) -> anyhow::Result<HttpTarget> {
        let engine = Arc::new(Engine::open(index)?);
        let files = engine.list_files("", 1000, false)?.files;
        let mut seeds: Vec<String> = HTTP_SEEDS.iter().map(|s| s.to_string()).collect();
        for (i, file) in files
            .iter()
            .step_by(files.len().div_ceil(8).max(1))
            .enumerate()
        {
            let path = url_encode_path(&file.path);
            let route = [
                "return_txt",
                "return_txt_full",
                "return_metadata",
                "return_ori",
                "serve_file",
            ][i % 5];
            seeds.push(format!("GET /api/{route}/{path}?preview=1&max_chars=200\n"));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let app = crate::server::http_app(engine, crate::limits::Admission::new(limits));
        Ok(HttpTarget {
            app,
            runtime,
            seeds: seeds.into_iter().map(String::into_bytes).collect(),
        })
    }

    /// One request, `METHOD TARGET\nBODY`: answered, and never with a 5xx other than
    /// 503/504.
    pub fn check(&self, input: &[u8]) -> Verdict {
        use tower::ServiceExt;
        let (head, body) = match input.iter().position(|b| *b == b'\n') {
            Some(at) => (&input[..at], &input[at + 1..]),
            None => (input, &[][..]),
        };
        let head = String::from_utf8_lossy(head);
        let (method, target) = head.split_once(' ').unwrap_or(("GET", &head));
        let request = axum::http::Request::builder()
            .method(method.trim())
            .uri(target.trim())
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_vec()));
        let Ok(request) = request else {
            // Not an HTTP request at all (hyper refuses it before any route).
            return Verdict::Ok(1);
        };
        let response = self
            .runtime
            .block_on(self.app.clone().oneshot(request))
            .unwrap_or_else(|never| match never {});
        let status = response.status().as_u16();
        if status >= 500 && status != 503 && status != 504 {
            let body = self
                .runtime
                .block_on(axum::body::to_bytes(response.into_body(), 64 * 1024))
                .unwrap_or_default();
            return Verdict::Crash(format!(
                "{method} {}: {status} {}",
                route_of(target),
                String::from_utf8_lossy(&body)
            ));
        }
        Verdict::Ok(signature((method, route_of(target), status)))
    }
}

/// A route's name for messages and signatures: its first two path segments.
fn route_of(target: &str) -> String {
    let path = target.split('?').next().unwrap_or(target);
    path.split('/').take(3).collect::<Vec<_>>().join("/")
}

/// Percent-encodes a profile-relative path for a URL, keeping `/`.
pub fn url_encode_path(path: &str) -> String {
    path.split('/')
        .map(crate::http::hippocamp::url_encode)
        .collect::<Vec<_>>()
        .join("/")
}

const HTTP_SEEDS: &[&str] = &[
    "POST /retrieve\n{\"query\": \"budget meeting\", \"top_k\": 5}",
    "POST /search\n{\"queries\": [\"choir\", \"invoice\"], \"topk\": 3, \"return_scores\": true}",
    "POST /api/search\n{\"query\": \"invoice\", \"mode\": \"lexical\", \"path_prefixes\": [\"Documents\"], \"modalities\": [\"document\"], \"extensions\": [\"pdf\"], \"time_start\": 0, \"time_end\": 2000000000, \"explain\": true, \"context\": 1, \"units_per_file\": 2}",
    "POST /retrieve\n{\"query\": \"photos from last week\", \"fusion\": \"weighted\", \"lexical_weight\": 0.3, \"disable_planner\": [\"time\"], \"reference_time\": 1700000000, \"rerank\": true}",
    "POST /retrieve\n{\"query\": \"x\", \"fusion\": \"rrf\", \"rrf_k\": 10, \"mode\": \"bm25\"}",
    "POST /api/timeline\n{\"when\": \"last week\", \"query\": \"choir\", \"max_units\": 10}",
    "POST /api/timeline\n{\"start\": 0, \"end\": 2000000000, \"reference_time\": 1700000000}",
    "GET /api/routine?when=last+month&folder=Documents&evidence=5&top=3&sources=trace,watch\n",
    "POST /api/routine\n{\"start\": 0, \"end\": 2000000000, \"utc_offset_minutes\": -420, \"max_units\": 50, \"max_events\": 10}",
    "GET /health\n",
    "GET /api/stats\n",
    "GET /api/list_files?pattern=**/*.pdf&limit=5\n",
    "GET /api/files/list?pattern=Documents/\n",
    "GET /api/files/list?pattern=*.md\n",
    "GET /api/files?path=Documents\n",
    "GET /api/return_txt/..%2f..%2fetc/passwd\n",
    "GET /api/serve_image/x.jpg\n",
];

/// Runs one of [`TARGETS`] for the budget. The HTTP target needs `sample_index`, an
/// index of the repository's sample profile (`benches::fuzz` builds one).
pub fn run_target(
    name: &str,
    sample_index: Option<&Path>,
    budget: &Budget,
) -> anyhow::Result<Report> {
    let strings =
        |seeds: &[&str]| -> Vec<Vec<u8>> { seeds.iter().map(|s| s.as_bytes().to_vec()).collect() };
    Ok(match name {
        "timeparse" => converters::fuzz::run(name, &strings(TIME_SEEDS), budget, check_timeparse),
        "path" => {
            let root = tempfile::tempdir()?;
            std::fs::create_dir_all(root.path().join("Documents"))?;
            std::fs::write(root.path().join("Documents/report.pdf"), b"x")?;
            converters::fuzz::run(name, &strings(PATH_SEEDS), budget, |input| {
                check_path(input, root.path())
            })
        }
        "http" => {
            let Some(index) = sample_index else {
                anyhow::bail!(
                    "the http target needs an index of samples/profile (dentate-index samples/profile --index DIR --no-embed)"
                );
            };
            let target = HttpTarget::new(index, crate::limits::Limits::default())?;
            converters::fuzz::run(name, &target.seeds, budget, |input| target.check(input))
        }
        other => anyhow::bail!("unknown fuzz target {other:?} (expected one of {TARGETS:?})"),
    })
}

/// The repository's sample profile.
pub fn sample_profile(repo: &Path) -> PathBuf {
    repo.join("samples/profile")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short run in CI: a few seconds per target (`DENTATE_FUZZ_SECONDS` for a long
    /// run); no crash allowed. (The HTTP target, which needs an index, is run by
    /// `benches::fuzz`'s test.)
    #[test]
    fn the_daemons_targets_survive_a_short_fuzz_run() {
        // The same inputs on every machine (`DENTATE_FUZZ_ITERATIONS` for more).
        let budget = Budget::iterations(3_000);
        let mut failures = Vec::new();
        for name in TARGETS.iter().filter(|n| **n != "http") {
            let report = run_target(name, None, &budget).unwrap();
            eprintln!("{}", report.summary());
            assert!(
                report.iterations > report.seeds as u64,
                "{}",
                report.summary()
            );
            failures.extend(
                report
                    .crashes
                    .iter()
                    .map(|c| format!("{name}: {}", c.message)),
            );
        }
        assert!(failures.is_empty(), "{failures:#?}");
        assert!(run_target("http", None, &budget).is_err());
    }
}
