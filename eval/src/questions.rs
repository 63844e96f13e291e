//! The annotation file: HippoCamp question records and their gold evidence.

use serde::Deserialize;
use serde_json::Value;

use crate::Error;

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
pub fn parse_questions(text: &str) -> Result<Vec<Question>, Error> {
    let value: Value = serde_json::from_str(text).map_err(Error::QuestionsNotJson)?;
    let Value::Array(items) = value else {
        return Err(Error::QuestionsNotArray);
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item).map_err(|source| Error::MalformedQuestion {
                number: i + 1,
                source,
            })
        })
        .collect()
}
