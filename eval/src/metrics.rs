//! Per-question scores (file precision / recall / F1, hit, MRR, evidence
//! localisation) and their aggregation into a report.

use std::collections::{BTreeMap, BTreeSet};

use crate::locator::{locator_matches, parse_locator, GoldLocator};
use crate::questions::Question;
use crate::reply::{containing_file, normalize_path, RetrievedFile};

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
            GoldLocator::Message {
                message_id,
                subject,
            } => format!("message {message_id} ({subject})"),
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
#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::questions::Evidence;
    use crate::reply::UnitLoc;
    use crate::report::{is_miss, misses_table};
    use crate::test_util::{file, question, raw};

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
        let scores = crate::scores_json(&results);
        assert_eq!(scores.as_array().unwrap().len(), 2);
        assert_eq!(scores[0]["first_gold_rank"], 1);
        assert_eq!(scores[0]["precision"], 1.0);
        assert_eq!(scores[1]["first_gold_rank"], serde_json::Value::Null);
        assert_eq!(scores[1]["qa_type"], "profiling");
        assert_eq!(scores[1]["latency_ms"], 20.0);
    }
}
