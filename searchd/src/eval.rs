//! Retrieval-quality evaluation on HippoCamp annotation JSON (used by `dentate-eval`).
//!
//! Everything here is pure: questions and the daemon's grouped results go in, metrics
//! come out. The binary does the I/O (reading the file, querying gRPC or HTTP).
//!
//! Per question, as in HippoCamp: the retrieved set R is the distinct files of the
//! top-k grouped results (an attachment `x.eml#attachment/a.pdf` counts as its
//! containing file `x.eml`, since annotations name real files), the gold set G is
//! `file_path`. precision = |R∩G|/|R| (0 if R is empty), recall = |R∩G|/|G|, F1,
//! hit@k = [R∩G non-empty], MRR = 1/rank of the first gold file. Evidence
//! localisation counts gold evidence items (each evidence entry × each locator; an
//! entry without locators is one whole-file item) matched by a returned unit of the
//! same file. Metrics are averaged per question; localisation is the share over all
//! items of a group.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Context};
use serde::Deserialize;
use serde_json::{json, Value};

/// Slack around a gold time range when matching media units, in milliseconds.
pub const TIME_SLACK_MS: u64 = 2_000;

/// One annotated question (only the fields the evaluation needs).
#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    #[serde(deserialize_with = "id_string")]
    pub id: String,
    pub question: String,
    #[serde(default)]
    pub answer: Value,
    #[serde(rename = "QA_type", default)]
    pub qa_type: Option<String>,
    #[serde(default)]
    pub file_path: Vec<String>,
    #[serde(default)]
    pub file_modality: Vec<String>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
}

/// One gold evidence entry.
#[derive(Debug, Clone, Deserialize)]
pub struct Evidence {
    #[serde(default)]
    pub file_path: String,
    #[serde(default)]
    pub modality_type: Option<String>,
    #[serde(default)]
    pub evidence_locator: Vec<RawLocator>,
}

/// A locator as written in the annotation: `{unit, position}`.
#[derive(Debug, Clone, Deserialize)]
pub struct RawLocator {
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub position: Value,
}

fn id_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        other => other.to_string(),
    })
}

/// Parses the annotation file: a JSON array of question records.
pub fn parse_questions(text: &str) -> anyhow::Result<Vec<Question>> {
    let value: Value =
        serde_json::from_str(text).context("the questions file is not valid JSON")?;
    let Value::Array(items) = value else {
        bail!("the questions file must hold a JSON array of question records");
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item)
                .with_context(|| format!("question record #{} is malformed", i + 1))
        })
        .collect()
}

/// A gold locator, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum GoldLocator {
    /// The whole file (empty locator list, e.g. an image).
    WholeFile,
    Page(u64),
    Slide(u64),
    /// Spreadsheet rows (1-based sheet rows; cells reduced to their rows).
    SheetRows {
        sheet: String,
        rows: Vec<u64>,
    },
    /// A CSV physical line (header = line 1).
    CsvLine(u64),
    /// A SQLite row: table and rowid.
    SqliteRow {
        table: String,
        rowid: u64,
    },
    /// A 1-based inclusive line range of the raw file.
    Lines {
        start: u64,
        end: u64,
    },
    /// A calendar event.
    Event {
        uid: String,
        summary: String,
    },
    /// A media time range in milliseconds.
    Time {
        start_ms: u64,
        end_ms: u64,
    },
    /// A unit this evaluator does not know, or a known unit whose position could not be
    /// read; the string is the key it is reported under.
    Unknown(String),
}

fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn as_str(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The row of a cell reference ("B7" → 7, "$B$7" → 7).
pub fn cell_row(cell: &str) -> Option<u64> {
    let cell = cell.trim().replace('$', "");
    let digits = cell.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if digits.len() == cell.len() || digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

/// Rows named by a `rows` or `cells` entry: a number, "7", "2-5", "B7" or "B7:C9".
fn rows_of(entry: &Value, cells: bool) -> Vec<u64> {
    if let Some(n) = entry.as_u64() {
        return vec![n];
    }
    let Some(s) = entry.as_str() else {
        return Vec::new();
    };
    let one = |p: &str| {
        if cells {
            cell_row(p).or_else(|| p.trim().parse().ok())
        } else {
            p.trim().parse().ok().or_else(|| cell_row(p))
        }
    };
    let parts: Vec<&str> = s.split([':', '-', '–']).collect();
    match parts.as_slice() {
        [a] => one(a).into_iter().collect(),
        [a, b] => match (one(a), one(b)) {
            (Some(a), Some(b)) if a <= b && b - a <= 100_000 => (a..=b).collect(),
            (Some(a), Some(b)) => vec![a, b],
            (a, b) => a.into_iter().chain(b).collect(),
        },
        _ => Vec::new(),
    }
}

/// Seconds of "HH:MM:SS", "MM:SS" or "SS" (fractions allowed).
fn clock_ms(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.trim().split(':').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut total = 0.0f64;
    for p in &parts {
        let v: f64 = p.trim().parse().ok()?;
        if v.is_nan() || v < 0.0 {
            return None;
        }
        total = total * 60.0 + v;
    }
    Some((total * 1000.0).round() as u64)
}

/// Parses "HH:MM:SS–HH:MM:SS" (en dash, em dash or hyphen, spaces allowed) into
/// milliseconds; a single time is a zero-length range.
pub fn parse_time_range(s: &str) -> Option<(u64, u64)> {
    let s = s.trim();
    let (a, b) = match s.split_once(['–', '—', '-']) {
        Some((a, b)) => (clock_ms(a)?, clock_ms(b)?),
        None => {
            let t = clock_ms(s)?;
            (t, t)
        }
    };
    Some((a.min(b), a.max(b)))
}

/// Parses one annotation locator.
pub fn parse_locator(raw: &RawLocator) -> GoldLocator {
    let unit = raw.unit.trim().to_ascii_lowercase();
    let p = &raw.position;
    let bad = || GoldLocator::Unknown(format!("{unit} (unreadable position)"));
    match unit.as_str() {
        "page" => p
            .get("system_page")
            .or_else(|| p.get("page"))
            .and_then(as_u64)
            .or_else(|| as_u64(p))
            .map(GoldLocator::Page)
            .unwrap_or_else(bad),
        "slide" => p
            .get("slide")
            .and_then(as_u64)
            .or_else(|| as_u64(p))
            .map(GoldLocator::Slide)
            .unwrap_or_else(bad),
        "sheet" => {
            let sheet = p.get("sheet").and_then(as_str).unwrap_or_default();
            let mut rows = Vec::new();
            for (key, cells) in [("rows", false), ("cells", true), ("row", false)] {
                match p.get(key) {
                    Some(Value::Array(items)) => {
                        items.iter().for_each(|e| rows.extend(rows_of(e, cells)))
                    }
                    Some(v) => rows.extend(rows_of(v, cells)),
                    None => {}
                }
            }
            if rows.is_empty() {
                bad()
            } else {
                GoldLocator::SheetRows { sheet, rows }
            }
        }
        "row" => {
            if let Some(line) = p.get("line").and_then(as_u64) {
                GoldLocator::CsvLine(line)
            } else if let (Some(table), Some(rowid)) = (
                p.get("table").and_then(as_str),
                p.get("rowid").and_then(as_u64),
            ) {
                GoldLocator::SqliteRow { table, rowid }
            } else {
                bad()
            }
        }
        "line" => {
            let start = p.get("start").and_then(as_u64).or_else(|| as_u64(p));
            let end = p.get("end").and_then(as_u64);
            match start {
                Some(start) => {
                    let end = end.unwrap_or(start);
                    GoldLocator::Lines {
                        start: start.min(end),
                        end: start.max(end),
                    }
                }
                None => bad(),
            }
        }
        "event" => {
            let uid = p.get("uid").and_then(as_str).unwrap_or_default();
            let summary = p.get("summary").and_then(as_str).unwrap_or_default();
            if uid.is_empty() && summary.is_empty() {
                bad()
            } else {
                GoldLocator::Event { uid, summary }
            }
        }
        "timestamp" => {
            let range = match p {
                Value::String(s) => parse_time_range(s),
                Value::Object(_) => {
                    let get = |k: &str| p.get(k).and_then(Value::as_str).and_then(clock_ms);
                    match (get("start"), get("end")) {
                        (Some(a), Some(b)) => Some((a.min(b), a.max(b))),
                        (Some(a), None) => Some((a, a)),
                        _ => None,
                    }
                }
                _ => None,
            };
            range
                .map(|(start_ms, end_ms)| GoldLocator::Time { start_ms, end_ms })
                .unwrap_or_else(bad)
        }
        "" => GoldLocator::Unknown("(missing unit)".into()),
        other => GoldLocator::Unknown(other.to_string()),
    }
}

/// The locator of a returned unit (from gRPC or HTTP).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitLoc {
    pub page: Option<u64>,
    pub slide: Option<u64>,
    pub sheet: Option<String>,
    pub row_start: Option<u64>,
    pub row_end: Option<u64>,
    pub line_start: Option<u64>,
    pub line_end: Option<u64>,
    pub t_start_ms: Option<u64>,
    pub t_end_ms: Option<u64>,
    pub event_uid: Option<String>,
    pub title: Option<String>,
}

/// One returned file with its units, in rank order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetrievedFile {
    pub path: String,
    pub units: Vec<UnitLoc>,
}

/// Normalises a relative path for comparison ("./a\\b" → "a/b").
pub fn normalize_path(path: &str) -> String {
    let p = path.trim().replace('\\', "/");
    let mut p = p.as_str();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.trim_start_matches('/').to_string()
}

/// The real file a retrieved path belongs to (attachments count as their container).
pub fn containing_file(path: &str) -> String {
    let p = normalize_path(path);
    match p.split_once('#') {
        Some((parent, _)) => parent.to_string(),
        None => p,
    }
}

fn rows_contain(unit: &UnitLoc, row: u64) -> bool {
    match (unit.row_start, unit.row_end) {
        (Some(a), Some(b)) => a <= row && row <= b,
        (Some(a), None) => a == row,
        _ => false,
    }
}

fn same_name(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

/// Whether a returned unit satisfies a gold locator.
pub fn locator_matches(gold: &GoldLocator, unit: &UnitLoc) -> bool {
    match gold {
        GoldLocator::WholeFile => true,
        GoldLocator::Page(n) => unit.page == Some(*n),
        GoldLocator::Slide(n) => unit.slide == Some(*n),
        GoldLocator::SheetRows { sheet, rows } => {
            let sheet_ok =
                sheet.is_empty() || unit.sheet.as_deref().is_some_and(|s| same_name(s, sheet));
            sheet_ok && rows.iter().any(|r| rows_contain(unit, *r))
        }
        GoldLocator::CsvLine(n) => rows_contain(unit, *n),
        GoldLocator::SqliteRow { table, rowid } => {
            unit.sheet.as_deref().is_some_and(|s| same_name(s, table)) && rows_contain(unit, *rowid)
        }
        GoldLocator::Lines { start, end } => match (unit.line_start, unit.line_end) {
            (Some(a), b) => {
                let b = b.unwrap_or(a);
                a <= *end && *start <= b
            }
            _ => false,
        },
        GoldLocator::Event { uid, summary } => {
            let uid_ok = !uid.is_empty() && unit.event_uid.as_deref() == Some(uid.as_str());
            let title_ok =
                !summary.is_empty() && unit.title.as_deref().is_some_and(|t| same_name(t, summary));
            uid_ok || title_ok
        }
        GoldLocator::Time { start_ms, end_ms } => match (unit.t_start_ms, unit.t_end_ms) {
            (Some(a), b) => {
                let b = b.unwrap_or(a);
                let lo = start_ms.saturating_sub(TIME_SLACK_MS);
                let hi = end_ms.saturating_add(TIME_SLACK_MS);
                a <= hi && lo <= b
            }
            _ => false,
        },
        GoldLocator::Unknown(_) => false,
    }
}

/// One gold evidence item with its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceOutcome {
    pub file_path: String,
    pub locator: GoldLocator,
    pub matched: bool,
}

impl EvidenceOutcome {
    /// A short description for the misses table.
    pub fn describe(&self) -> String {
        let what = match &self.locator {
            GoldLocator::WholeFile => "whole file".to_string(),
            GoldLocator::Page(n) => format!("page {n}"),
            GoldLocator::Slide(n) => format!("slide {n}"),
            GoldLocator::SheetRows { sheet, rows } => format!("sheet {sheet} rows {rows:?}"),
            GoldLocator::CsvLine(n) => format!("line {n}"),
            GoldLocator::SqliteRow { table, rowid } => format!("{table} rowid {rowid}"),
            GoldLocator::Lines { start, end } => format!("lines {start}-{end}"),
            GoldLocator::Event { uid, summary } => format!("event {uid} ({summary})"),
            GoldLocator::Time { start_ms, end_ms } => {
                format!("{:.0}-{:.0}s", *start_ms as f64 / 1e3, *end_ms as f64 / 1e3)
            }
            GoldLocator::Unknown(u) => format!("unknown unit {u}"),
        };
        format!("{} @ {what}", self.file_path)
    }
}

/// The outcome of one question.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionResult {
    pub id: String,
    pub question: String,
    pub qa_type: String,
    pub modalities: Vec<String>,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub hit: f64,
    pub mrr: f64,
    /// 1-based rank of the first gold file among the retrieved files.
    pub first_gold_rank: Option<usize>,
    pub missing_gold: Vec<String>,
    /// Judgeable evidence items (unknown units excluded).
    pub evidence: Vec<EvidenceOutcome>,
    /// Locator units that could not be judged, by reported key.
    pub unknown_units: BTreeMap<String, u64>,
    pub latency_ms: f64,
}

impl QuestionResult {
    pub fn evidence_matched(&self) -> usize {
        self.evidence.iter().filter(|e| e.matched).count()
    }
}

/// The modalities a question counts under: its `file_modality` plus every evidence
/// `modality_type`, lower-cased and deduplicated.
pub fn question_modalities(q: &Question) -> Vec<String> {
    let mut set = BTreeSet::new();
    for m in q
        .file_modality
        .iter()
        .chain(q.evidence.iter().filter_map(|e| e.modality_type.as_ref()))
    {
        let m = m.trim().to_lowercase();
        if !m.is_empty() {
            set.insert(m);
        }
    }
    if set.is_empty() {
        set.insert("unknown".to_string());
    }
    set.into_iter().collect()
}

/// Scores one question against the daemon's ranked files (only the first `k` count).
pub fn score_question(
    q: &Question,
    retrieved: &[RetrievedFile],
    k: usize,
    latency_ms: f64,
) -> QuestionResult {
    let top = &retrieved[..retrieved.len().min(k)];
    // R, in rank order, distinct by containing file.
    let mut ranked: Vec<String> = Vec::new();
    for f in top {
        let p = containing_file(&f.path);
        if !ranked.contains(&p) {
            ranked.push(p);
        }
    }
    let gold: BTreeSet<String> = q
        .file_path
        .iter()
        .map(|p| normalize_path(p))
        .filter(|p| !p.is_empty())
        .collect();
    let inter = ranked.iter().filter(|p| gold.contains(*p)).count();
    let precision = if ranked.is_empty() {
        0.0
    } else {
        inter as f64 / ranked.len() as f64
    };
    let recall = if gold.is_empty() {
        0.0
    } else {
        inter as f64 / gold.len() as f64
    };
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    let first_gold_rank = ranked.iter().position(|p| gold.contains(p)).map(|i| i + 1);
    let missing_gold = gold
        .iter()
        .filter(|g| !ranked.contains(g))
        .cloned()
        .collect();

    let mut evidence = Vec::new();
    let mut unknown_units = BTreeMap::new();
    for ev in &q.evidence {
        let path = normalize_path(&ev.file_path);
        let locators: Vec<GoldLocator> = if ev.evidence_locator.is_empty() {
            vec![GoldLocator::WholeFile]
        } else {
            ev.evidence_locator.iter().map(parse_locator).collect()
        };
        for locator in locators {
            if let GoldLocator::Unknown(key) = &locator {
                *unknown_units.entry(key.clone()).or_insert(0) += 1;
                continue;
            }
            let matched = top
                .iter()
                .filter(|f| normalize_path(&f.path) == path)
                .flat_map(|f| f.units.iter())
                .any(|u| locator_matches(&locator, u))
                || (locator == GoldLocator::WholeFile
                    && top.iter().any(|f| normalize_path(&f.path) == path));
            evidence.push(EvidenceOutcome {
                file_path: path.clone(),
                locator,
                matched,
            });
        }
    }

    QuestionResult {
        id: q.id.clone(),
        question: q.question.clone(),
        qa_type: q
            .qa_type
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| "unknown".into()),
        modalities: question_modalities(q),
        precision,
        recall,
        f1,
        hit: if inter > 0 { 1.0 } else { 0.0 },
        mrr: first_gold_rank.map_or(0.0, |r| 1.0 / r as f64),
        first_gold_rank,
        missing_gold,
        evidence,
        unknown_units,
        latency_ms,
    }
}

/// Nearest-rank percentile (`p` in 0..=100) of unsorted values; 0 for none.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Metrics of a group of questions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupMetrics {
    pub questions: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub hit: f64,
    pub mrr: f64,
    pub evidence_items: usize,
    pub evidence_matched: usize,
    pub latency_p50_ms: f64,
    pub latency_p95_ms: f64,
}

impl GroupMetrics {
    /// Share of evidence items localised (0 when there are none).
    pub fn localisation(&self) -> f64 {
        if self.evidence_items == 0 {
            0.0
        } else {
            self.evidence_matched as f64 / self.evidence_items as f64
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "questions": self.questions,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "hit": self.hit,
            "mrr": self.mrr,
            "evidence_items": self.evidence_items,
            "evidence_localised": self.evidence_matched,
            "localisation": self.localisation(),
            "latency_p50_ms": self.latency_p50_ms,
            "latency_p95_ms": self.latency_p95_ms,
        })
    }
}

/// Averages a group of question results.
pub fn aggregate<'a>(results: impl IntoIterator<Item = &'a QuestionResult>) -> GroupMetrics {
    let results: Vec<&QuestionResult> = results.into_iter().collect();
    let n = results.len();
    if n == 0 {
        return GroupMetrics::default();
    }
    let mean = |f: fn(&QuestionResult) -> f64| results.iter().map(|r| f(r)).sum::<f64>() / n as f64;
    let latencies: Vec<f64> = results.iter().map(|r| r.latency_ms).collect();
    GroupMetrics {
        questions: n,
        precision: mean(|r| r.precision),
        recall: mean(|r| r.recall),
        f1: mean(|r| r.f1),
        hit: mean(|r| r.hit),
        mrr: mean(|r| r.mrr),
        evidence_items: results.iter().map(|r| r.evidence.len()).sum(),
        evidence_matched: results.iter().map(|r| r.evidence_matched()).sum(),
        latency_p50_ms: percentile(&latencies, 50.0),
        latency_p95_ms: percentile(&latencies, 95.0),
    }
}

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub overall: GroupMetrics,
    pub by_qa_type: BTreeMap<String, GroupMetrics>,
    pub by_modality: BTreeMap<String, GroupMetrics>,
    pub unknown_locator_units: BTreeMap<String, u64>,
    pub questions: usize,
    pub k: usize,
    pub mode: String,
}

/// Builds the report from per-question results.
pub fn build_report(results: &[QuestionResult], k: usize, mode: &str) -> Report {
    let mut qa_types: BTreeSet<&str> = BTreeSet::new();
    let mut modalities: BTreeSet<&str> = BTreeSet::new();
    let mut unknown = BTreeMap::new();
    for r in results {
        qa_types.insert(&r.qa_type);
        modalities.extend(r.modalities.iter().map(String::as_str));
        for (key, n) in &r.unknown_units {
            *unknown.entry(key.clone()).or_insert(0) += n;
        }
    }
    Report {
        overall: aggregate(results),
        by_qa_type: qa_types
            .into_iter()
            .map(|t| {
                (
                    t.to_string(),
                    aggregate(results.iter().filter(|r| r.qa_type == t)),
                )
            })
            .collect(),
        by_modality: modalities
            .into_iter()
            .map(|m| {
                let group = results
                    .iter()
                    .filter(|r| r.modalities.iter().any(|x| x == m));
                (m.to_string(), aggregate(group))
            })
            .collect(),
        unknown_locator_units: unknown,
        questions: results.len(),
        k,
        mode: mode.to_string(),
    }
}

impl Report {
    pub fn to_json(&self) -> Value {
        let map = |m: &BTreeMap<String, GroupMetrics>| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect::<serde_json::Map<_, _>>()
        };
        json!({
            "overall": self.overall.to_json(),
            "by_qa_type": map(&self.by_qa_type),
            "by_modality": map(&self.by_modality),
            "unknown_locator_units": self.unknown_locator_units,
            "questions": self.questions,
            "k": self.k,
            "mode": self.mode,
        })
    }

    /// A markdown table: overall, then per QA type, then per modality.
    pub fn to_table(&self) -> String {
        let mut out = format!(
            "questions: {}  k: {}  mode: {}\n\n| group | n | P | R | F1 | hit@{} | MRR | evidence loc. | p50 ms | p95 ms |\n|---|---|---|---|---|---|---|---|---|---|\n",
            self.questions, self.k, self.mode, self.k
        );
        let mut row = |name: &str, g: &GroupMetrics| {
            out.push_str(&format!(
                "| {name} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} ({}/{}) | {:.1} | {:.1} |\n",
                g.questions,
                g.precision,
                g.recall,
                g.f1,
                g.hit,
                g.mrr,
                g.localisation(),
                g.evidence_matched,
                g.evidence_items,
                g.latency_p50_ms,
                g.latency_p95_ms
            ));
        };
        row("overall", &self.overall);
        for (t, g) in &self.by_qa_type {
            row(&format!("qa_type: {t}"), g);
        }
        for (m, g) in &self.by_modality {
            row(&format!("modality: {m}"), g);
        }
        if !self.unknown_locator_units.is_empty() {
            out.push_str("\nunknown or unreadable locator units (not judged): ");
            let parts: Vec<String> = self
                .unknown_locator_units
                .iter()
                .map(|(k, n)| format!("{k} ×{n}"))
                .collect();
            out.push_str(&parts.join(", "));
            out.push('\n');
        }
        out
    }
}

/// Whether a question missed something (a gold file or an evidence item).
pub fn is_miss(r: &QuestionResult) -> bool {
    !r.missing_gold.is_empty() || r.evidence.iter().any(|e| !e.matched)
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A markdown table of the questions that missed a gold file or an evidence item.
pub fn misses_table(results: &[QuestionResult]) -> String {
    let mut out = String::from(
        "| id | question | gold files not retrieved | first gold rank | evidence not localised |\n|---|---|---|---|---|\n",
    );
    for r in results.iter().filter(|r| is_miss(r)) {
        let unlocalised: Vec<String> = r
            .evidence
            .iter()
            .filter(|e| !e.matched)
            .map(EvidenceOutcome::describe)
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(&r.id),
            cell(&r.question),
            cell(&r.missing_gold.join("; ")),
            r.first_gold_rank
                .map_or_else(|| "-".to_string(), |n| n.to_string()),
            cell(&unlocalised.join("; ")),
        ));
    }
    out
}

/// The misses as JSON (for `--json --per-question`).
pub fn misses_json(results: &[QuestionResult]) -> Value {
    Value::Array(
        results
            .iter()
            .filter(|r| is_miss(r))
            .map(|r| {
                json!({
                    "id": r.id,
                    "question": r.question,
                    "missing_gold": r.missing_gold,
                    "first_gold_rank": r.first_gold_rank,
                    "evidence_not_localised": r.evidence.iter().filter(|e| !e.matched)
                        .map(EvidenceOutcome::describe).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// The files of an HTTP `/retrieve` reply as this scorer counts them: each result's
/// flat `metadata.file_path`, attachments as their containing file, first occurrence
/// kept, in rank order.
pub fn files_from_retrieve_reply(reply: &Value) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for result in reply["results"].as_array().into_iter().flatten() {
        if let Some(path) = result
            .pointer("/metadata/file_path")
            .and_then(Value::as_str)
        {
            let file = containing_file(path);
            if !file.is_empty() && !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// Reads the files of an HTTP `/api/search` reply.
pub fn files_from_http_reply(reply: &Value) -> anyhow::Result<Vec<RetrievedFile>> {
    let Some(files) = reply.get("files").and_then(Value::as_array) else {
        bail!("the HTTP reply has no \"files\" array");
    };
    let u = |m: &Value, k: &str| m.get(k).and_then(as_u64);
    let s = |m: &Value, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let ms = |m: &Value, k: &str| {
        m.get(k)
            .and_then(Value::as_f64)
            .map(|secs| (secs * 1000.0).round().max(0.0) as u64)
    };
    files
        .iter()
        .map(|f| {
            let path = f
                .pointer("/file/path")
                .and_then(Value::as_str)
                .context("a file in the HTTP reply has no file.path")?
                .to_string();
            let units = f
                .get("units")
                .and_then(Value::as_array)
                .map(|units| {
                    units
                        .iter()
                        .map(|unit| {
                            let m = unit.get("metadata").unwrap_or(&Value::Null);
                            UnitLoc {
                                page: u(m, "page"),
                                slide: u(m, "slide"),
                                sheet: s(m, "sheet"),
                                row_start: u(m, "row_start"),
                                row_end: u(m, "row_end"),
                                line_start: u(m, "line_start"),
                                line_end: u(m, "line_end"),
                                t_start_ms: ms(m, "start"),
                                t_end_ms: ms(m, "end"),
                                event_uid: s(m, "event_uid"),
                                title: s(m, "title").filter(|t| !t.is_empty()),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            Ok(RetrievedFile { path, units })
        })
        .collect()
}

/// Converts a gRPC `SearchResponse` to retrieved files.
pub fn files_from_grpc(response: &dentate_proto::v1::SearchResponse) -> Vec<RetrievedFile> {
    response
        .files
        .iter()
        .map(|f| RetrievedFile {
            path: f.file.as_ref().map(|i| i.path.clone()).unwrap_or_default(),
            units: f
                .units
                .iter()
                .map(|u| {
                    let l = u.locator.clone().unwrap_or_default();
                    UnitLoc {
                        page: l.page.map(u64::from),
                        slide: l.slide.map(u64::from),
                        sheet: l.sheet,
                        row_start: l.row_start,
                        row_end: l.row_end,
                        line_start: l.line_start,
                        line_end: l.line_end,
                        t_start_ms: l.t_start_ms,
                        t_end_ms: l.t_end_ms,
                        event_uid: l.event_uid,
                        title: Some(u.title.clone()).filter(|t| !t.is_empty()),
                    }
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(unit: &str, position: Value) -> RawLocator {
        RawLocator {
            unit: unit.into(),
            position,
        }
    }

    fn question(gold: &[&str], evidence: Vec<Evidence>) -> Question {
        Question {
            id: "q".into(),
            question: "?".into(),
            answer: Value::Null,
            qa_type: Some("factual_retention".into()),
            file_path: gold.iter().map(|s| s.to_string()).collect(),
            file_modality: vec!["document".into()],
            evidence,
        }
    }

    fn file(path: &str, units: Vec<UnitLoc>) -> RetrievedFile {
        RetrievedFile {
            path: path.into(),
            units,
        }
    }

    #[test]
    fn timestamp_parsing() {
        assert_eq!(
            parse_time_range("00:00:11–00:00:20"),
            Some((11_000, 20_000))
        );
        assert_eq!(
            parse_time_range("00:01:05 - 00:01:10"),
            Some((65_000, 70_000))
        );
        assert_eq!(
            parse_time_range("01:02:03—01:02:04.5"),
            Some((3_723_000, 3_724_500))
        );
        assert_eq!(parse_time_range("1:30–2:00"), Some((90_000, 120_000)));
        assert_eq!(parse_time_range("00:00:07"), Some((7_000, 7_000)));
        assert_eq!(parse_time_range("soon–later"), None);
        assert_eq!(parse_time_range(""), None);
    }

    #[test]
    fn locator_parsing() {
        assert_eq!(
            parse_locator(&raw("page", json!({"system_page": 7}))),
            GoldLocator::Page(7)
        );
        assert_eq!(
            parse_locator(&raw("slide", json!({"slide": 7, "part": "notes"}))),
            GoldLocator::Slide(7)
        );
        assert_eq!(
            parse_locator(&raw("sheet", json!({"sheet": "Mileage", "rows": [2, 3]}))),
            GoldLocator::SheetRows {
                sheet: "Mileage".into(),
                rows: vec![2, 3]
            }
        );
        assert_eq!(
            parse_locator(&raw(
                "sheet",
                json!({"sheet": "S", "cells": ["B7", "C9:C10"]})
            )),
            GoldLocator::SheetRows {
                sheet: "S".into(),
                rows: vec![7, 9, 10]
            }
        );
        assert_eq!(
            parse_locator(&raw("row", json!({"line": 17}))),
            GoldLocator::CsvLine(17)
        );
        assert_eq!(
            parse_locator(&raw("row", json!({"table": "books", "rowid": 7}))),
            GoldLocator::SqliteRow {
                table: "books".into(),
                rowid: 7
            }
        );
        assert_eq!(
            parse_locator(&raw("line", json!({"start": 19, "end": 21}))),
            GoldLocator::Lines { start: 19, end: 21 }
        );
        assert_eq!(
            parse_locator(&raw("event", json!({"uid": "u@x", "summary": "S"}))),
            GoldLocator::Event {
                uid: "u@x".into(),
                summary: "S".into()
            }
        );
        assert_eq!(
            parse_locator(&raw("timestamp", json!("00:00:11–00:00:20"))),
            GoldLocator::Time {
                start_ms: 11_000,
                end_ms: 20_000
            }
        );
        assert_eq!(
            parse_locator(&raw("bbox", json!([1, 2, 3, 4]))),
            GoldLocator::Unknown("bbox".into())
        );
        assert_eq!(
            parse_locator(&raw("page", json!({"nope": 1}))),
            GoldLocator::Unknown("page (unreadable position)".into())
        );
        assert_eq!(cell_row("$AB$12"), Some(12));
        assert_eq!(cell_row("AB"), None);
    }

    #[test]
    fn locator_matching_every_unit() {
        let page = UnitLoc {
            page: Some(7),
            ..Default::default()
        };
        assert!(locator_matches(&GoldLocator::Page(7), &page));
        assert!(!locator_matches(&GoldLocator::Page(6), &page));
        assert!(locator_matches(&GoldLocator::WholeFile, &page));

        let slide = UnitLoc {
            slide: Some(3),
            ..Default::default()
        };
        assert!(locator_matches(&GoldLocator::Slide(3), &slide));
        assert!(!locator_matches(&GoldLocator::Slide(4), &slide));
        assert!(!locator_matches(&GoldLocator::Page(3), &slide));

        let rows = UnitLoc {
            sheet: Some("Mileage".into()),
            row_start: Some(1),
            row_end: Some(2),
            ..Default::default()
        };
        let sheet = |name: &str, rows: Vec<u64>| GoldLocator::SheetRows {
            sheet: name.into(),
            rows,
        };
        assert!(locator_matches(&sheet("mileage", vec![2, 3]), &rows));
        assert!(!locator_matches(&sheet("mileage", vec![3]), &rows));
        assert!(!locator_matches(&sheet("Hotel", vec![2]), &rows));

        let csv = UnitLoc {
            row_start: Some(10),
            row_end: Some(20),
            ..Default::default()
        };
        assert!(locator_matches(&GoldLocator::CsvLine(17), &csv));
        assert!(!locator_matches(&GoldLocator::CsvLine(21), &csv));

        let sqlite = UnitLoc {
            sheet: Some("books".into()),
            row_start: Some(1),
            row_end: Some(8),
            ..Default::default()
        };
        let row = |table: &str, rowid| GoldLocator::SqliteRow {
            table: table.into(),
            rowid,
        };
        assert!(locator_matches(&row("Books", 7), &sqlite));
        assert!(!locator_matches(&row("books", 9), &sqlite));
        assert!(!locator_matches(&row("authors", 7), &sqlite));

        let lines = UnitLoc {
            line_start: Some(10),
            line_end: Some(19),
            ..Default::default()
        };
        let range = |start, end| GoldLocator::Lines { start, end };
        assert!(locator_matches(&range(19, 25), &lines));
        assert!(locator_matches(&range(1, 10), &lines));
        assert!(!locator_matches(&range(20, 25), &lines));
        assert!(!locator_matches(&range(1, 1), &UnitLoc::default()));

        let event = UnitLoc {
            event_uid: Some("u@x".into()),
            title: Some("Clay Loft – Wheel Throwing II".into()),
            ..Default::default()
        };
        let ev = |uid: &str, summary: &str| GoldLocator::Event {
            uid: uid.into(),
            summary: summary.into(),
        };
        assert!(locator_matches(&ev("u@x", "other"), &event));
        assert!(locator_matches(
            &ev("v@x", "Clay Loft – Wheel Throwing II"),
            &event
        ));
        assert!(!locator_matches(&ev("v@x", "other"), &event));

        let media = UnitLoc {
            t_start_ms: Some(21_000),
            t_end_ms: Some(30_000),
            ..Default::default()
        };
        let t = |start_ms, end_ms| GoldLocator::Time { start_ms, end_ms };
        assert!(locator_matches(&t(11_000, 20_000), &media)); // within the 2 s slack
        assert!(!locator_matches(&t(11_000, 18_000), &media));
        assert!(locator_matches(&t(31_500, 40_000), &media));
        assert!(!locator_matches(&t(11_000, 20_000), &UnitLoc::default()));

        assert!(!locator_matches(
            &GoldLocator::Unknown("bbox".into()),
            &page
        ));
    }

    #[test]
    fn file_metrics() {
        let ev = |path: &str| Evidence {
            file_path: path.into(),
            modality_type: Some("text".into()),
            evidence_locator: vec![],
        };
        let q = question(&["a.pdf", "b.txt"], vec![ev("a.pdf"), ev("b.txt")]);
        let retrieved = vec![
            file("x.pdf", vec![]),
            file("a.pdf", vec![UnitLoc::default()]),
            file("y.pdf", vec![]),
            file("z.pdf", vec![]),
        ];
        let r = score_question(&q, &retrieved, 10, 5.0);
        assert!((r.precision - 0.25).abs() < 1e-9);
        assert!((r.recall - 0.5).abs() < 1e-9);
        assert!((r.f1 - (2.0 * 0.25 * 0.5 / 0.75)).abs() < 1e-9);
        assert_eq!(r.hit, 1.0);
        assert!((r.mrr - 0.5).abs() < 1e-9);
        assert_eq!(r.first_gold_rank, Some(2));
        assert_eq!(r.missing_gold, vec!["b.txt".to_string()]);
        assert_eq!(r.evidence.len(), 2);
        assert_eq!(r.evidence_matched(), 1);
        assert_eq!(
            r.modalities,
            vec!["document".to_string(), "text".to_string()]
        );

        // k cuts the list: with k = 1 the gold file at rank 2 is not retrieved.
        let r = score_question(&q, &retrieved, 1, 5.0);
        assert_eq!((r.precision, r.recall, r.hit, r.mrr), (0.0, 0.0, 0.0, 0.0));
        assert_eq!(r.evidence_matched(), 0);

        // Nothing retrieved.
        let r = score_question(&q, &[], 10, 1.0);
        assert_eq!(
            (r.precision, r.recall, r.f1, r.hit, r.mrr),
            (0.0, 0.0, 0.0, 0.0, 0.0)
        );

        // Attachments count as their container; duplicates collapse.
        let q = question(&["./Mail/x.eml"], vec![]);
        let retrieved = vec![
            file("Mail/x.eml#attachment/a.pdf", vec![]),
            file("Mail/x.eml", vec![]),
        ];
        let r = score_question(&q, &retrieved, 10, 1.0);
        assert_eq!(
            (r.precision, r.recall, r.f1, r.hit, r.mrr),
            (1.0, 1.0, 1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn evidence_localisation_and_unknown_units() {
        let q = question(
            &["r.pdf"],
            vec![Evidence {
                file_path: "r.pdf".into(),
                modality_type: Some("document".into()),
                evidence_locator: vec![
                    raw("page", json!({"system_page": 7})),
                    raw("page", json!({"system_page": 9})),
                    raw("bbox", json!([0, 0, 1, 1])),
                ],
            }],
        );
        let page = |n| UnitLoc {
            page: Some(n),
            ..Default::default()
        };
        // Page 9 only matches in another file, which does not count.
        let retrieved = vec![
            file("other.pdf", vec![page(9)]),
            file("r.pdf", vec![page(3), page(7)]),
        ];
        let r = score_question(&q, &retrieved, 10, 1.0);
        assert_eq!(r.evidence.len(), 2);
        assert_eq!(r.evidence_matched(), 1);
        assert_eq!(r.unknown_units.get("bbox"), Some(&1));
        assert!(is_miss(&r));

        let report = build_report(&[r.clone(), r], 10, "lexical");
        assert_eq!(report.overall.evidence_items, 4);
        assert_eq!(report.overall.evidence_matched, 2);
        assert!((report.overall.localisation() - 0.5).abs() < 1e-9);
        assert_eq!(report.unknown_locator_units.get("bbox"), Some(&2));
        let js = report.to_json();
        assert_eq!(js["questions"], 2);
        assert_eq!(js["by_qa_type"]["factual_retention"]["questions"], 2);
        assert_eq!(js["by_modality"]["document"]["questions"], 2);
        assert!(report.to_table().contains("| overall | 2 |"));
    }

    #[test]
    fn aggregation_and_percentiles() {
        assert_eq!(percentile(&[], 50.0), 0.0);
        assert_eq!(percentile(&[3.0, 1.0, 2.0, 4.0], 50.0), 2.0);
        assert_eq!(percentile(&[3.0, 1.0, 2.0, 4.0], 95.0), 4.0);
        let q1 = question(&["a"], vec![]);
        let mut q2 = question(&["b"], vec![]);
        q2.qa_type = Some("profiling".into());
        let retrieved = vec![file("a", vec![])];
        let results = vec![
            score_question(&q1, &retrieved, 10, 10.0),
            score_question(&q2, &retrieved, 10, 20.0),
        ];
        let report = build_report(&results, 10, "hybrid");
        assert!((report.overall.hit - 0.5).abs() < 1e-9);
        assert_eq!(report.by_qa_type["profiling"].hit, 0.0);
        assert_eq!(report.by_qa_type["factual_retention"].hit, 1.0);
        assert_eq!(report.overall.latency_p95_ms, 20.0);
        assert!(misses_table(&results).contains("| q | ? | b | - |"));
    }

    #[test]
    fn parses_questions_and_replies() {
        let text = r#"[{"id": 3, "question": "q", "answer": "a", "QA_type": "profiling",
            "file_path": ["a.csv"], "evidence": [{"file_path": "a.csv", "modality_type": "text",
            "evidence_locator": [{"unit": "row", "position": {"line": 4}}]}]}]"#;
        let qs = parse_questions(text).unwrap();
        assert_eq!(qs[0].id, "3");
        assert!(parse_questions("{}").is_err());
        assert!(parse_questions("[{\"id\": 1}]").is_err());
        let reply = json!({"files": [{"file": {"path": "a.csv"}, "units": [
            {"metadata": {"sheet": "a", "row_start": 2, "row_end": 5, "start": 1.5, "end": 2.0}}]}]});
        let files = files_from_http_reply(&reply).unwrap();
        assert_eq!(files[0].units[0].row_end, Some(5));
        assert_eq!(files[0].units[0].t_start_ms, Some(1500));
        let r = score_question(&qs[0], &files, 10, 1.0);
        assert_eq!(r.evidence_matched(), 1);
        assert!(files_from_http_reply(&json!({"error": "x"})).is_err());
    }
}
