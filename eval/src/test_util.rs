//! Builders shared by the unit tests.

use serde_json::Value;

use crate::questions::{Evidence, Question, RawLocator};
use crate::reply::{RetrievedFile, UnitLoc};

pub(crate) fn raw(unit: &str, position: Value) -> RawLocator {
    RawLocator {
        unit: unit.into(),
        position,
    }
}

pub(crate) fn question(gold: &[&str], evidence: Vec<Evidence>) -> Question {
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

pub(crate) fn file(path: &str, units: Vec<UnitLoc>) -> RetrievedFile {
    RetrievedFile {
        path: path.into(),
        units,
    }
}
