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

/// The questions of one part (`tuning` or `test`) of a split file
/// (`{"tuning": [ids], "test": [ids]}`, see `scripts/split-questions`), in the
/// questions' order. Errors when the part is missing or names an unknown id.
pub fn select_part(
    questions: Vec<Question>,
    split_text: &str,
    part: &str,
) -> Result<Vec<Question>, Error> {
    let split: Value = serde_json::from_str(split_text).map_err(Error::QuestionsNotJson)?;
    let ids: Vec<String> = split
        .get(part)
        .and_then(Value::as_array)
        .ok_or_else(|| Error::SplitWithoutPart(part.to_string()))?
        .iter()
        .map(|id| match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    if let Some(unknown) = ids
        .iter()
        .find(|id| !questions.iter().any(|q| &q.id == *id))
    {
        return Err(Error::SplitUnknownId(unknown.clone()));
    }
    Ok(questions
        .into_iter()
        .filter(|q| ids.contains(&q.id))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_part_keeps_its_questions_in_order() {
        let questions = parse_questions(
            r#"[{"id": "a", "question": "one"}, {"id": 2, "question": "two"},
                {"id": "c", "question": "three"}]"#,
        )
        .unwrap();
        let split = r#"{"tuning": ["c", "a"], "test": ["2"]}"#;
        let tuning = select_part(questions.clone(), split, "tuning").unwrap();
        let ids: Vec<&str> = tuning.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["a", "c"]);
        assert_eq!(
            select_part(questions.clone(), split, "test").unwrap().len(),
            1
        );
        assert!(select_part(questions.clone(), split, "dev").is_err());
        let bad = r#"{"test": ["zz"]}"#;
        assert!(select_part(questions, bad, "test").is_err());
    }
}
