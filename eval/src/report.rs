//! The report as JSON and markdown tables, and the misses list.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::metrics::{EvidenceOutcome, GroupMetrics, QuestionResult, Report};

impl GroupMetrics {
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

/// Every question's scores as JSON (for `--json --per-question`): a change that moves
/// one question's precision (an autocut keeping one file more) shows here even when
/// nothing is missed.
pub fn scores_json(results: &[QuestionResult]) -> Value {
    Value::Array(
        results
            .iter()
            .map(|r| {
                json!({
                    "id": r.id,
                    "qa_type": r.qa_type,
                    "precision": r.precision,
                    "recall": r.recall,
                    "f1": r.f1,
                    "first_gold_rank": r.first_gold_rank,
                    "evidence_items": r.evidence.len(),
                    "evidence_localised": r.evidence_matched(),
                    "latency_ms": r.latency_ms,
                })
            })
            .collect(),
    )
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
