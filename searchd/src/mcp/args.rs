//! The tools' arguments: what an agent may send, as plain values with JSON schemas.
//! Unknown fields are refused, so a misspelt filter is an error, not a silent no-op.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

use crate::error::SearchError;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The question or keywords.
    pub query: String,
    /// Files to return (default 10, at most 100).
    pub top_k: Option<u32>,
    /// `hybrid` (default), `lexical` or `dense`.
    pub mode: Option<String>,
    /// Only files under these folders (profile-relative, e.g. `Documents/Tax`).
    #[serde(default)]
    pub path_prefixes: Vec<String>,
    /// Only these modalities: text, image, audio, video.
    #[serde(default)]
    pub modalities: Vec<String>,
    /// Only content dated in this period ("last week", "March 2024").
    pub when: Option<String>,
    /// Only content dated on or after this day (YYYY-MM-DD or RFC 3339).
    pub after: Option<String>,
    /// Only content dated before this day (YYYY-MM-DD or RFC 3339).
    pub before: Option<String>,
    /// Drop the files after the first large score gap.
    pub autocut: Option<bool>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetTextArgs {
    /// File path as `search` or `list_files` gave it.
    pub path: String,
    /// Only this page (PDF, document) or slide.
    pub page: Option<u32>,
    /// Only units overlapping these lines (1-based, inclusive).
    pub line_start: Option<u64>,
    pub line_end: Option<u64>,
    /// Only units of a recording overlapping these seconds.
    pub second_start: Option<f64>,
    pub second_end: Option<f64>,
    /// Characters returned at most (default 20000).
    pub max_chars: Option<u32>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// Glob over profile-relative paths (`*` within a folder, `**` across folders; a
    /// pattern without `/` matches file names anywhere). Empty: all files.
    pub pattern: Option<String>,
    /// Files returned at most (default 100, at most 1000).
    pub limit: Option<u32>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    /// File path as `search` or `list_files` gave it.
    pub path: String,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderArgs {
    /// A PDF, a picture or a video.
    pub path: String,
    /// PDF page (1-based; default 1).
    pub page: Option<u32>,
    /// Video second (default 0).
    pub second: Option<f64>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineArgs {
    /// The period ("last week", "the week of 6 October", "March 2024"), or after/before.
    pub when: Option<String>,
    /// Start day (YYYY-MM-DD or RFC 3339).
    pub after: Option<String>,
    /// End day, exclusive (YYYY-MM-DD or RFC 3339).
    pub before: Option<String>,
    /// Only units matching these words.
    pub query: Option<String>,
    /// Units scanned at most (default 500).
    pub max_units: Option<u32>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutineArgs {
    /// The period ("last month", "autumn 2025"); default: all time.
    pub when: Option<String>,
    /// Only this folder (profile-relative).
    pub folder: Option<String>,
    /// Entries per list (default 10).
    pub top: Option<u32>,
}

/// Parses a tool's arguments, naming the tool and the problem.
pub fn parse<T: serde::de::DeserializeOwned>(
    tool: &str,
    arguments: serde_json::Value,
) -> Result<T, SearchError> {
    serde_json::from_value(arguments)
        .map_err(|e| SearchError::invalid(format!("{tool}: bad arguments: {e}")))
}

/// Unix seconds of a day (`YYYY-MM-DD`, midnight UTC) or an RFC 3339 time.
pub fn unix_time(field: &str, text: &str) -> Result<i64, SearchError> {
    let text = text.trim();
    if let Ok(time) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(time.timestamp());
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|day| day.and_time(chrono::NaiveTime::MIN).and_utc().timestamp())
        .map_err(|_| {
            SearchError::invalid(format!(
                "{field}: {text:?} is not a day (YYYY-MM-DD) or an RFC 3339 time"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_and_wrong_types_are_refused() {
        let error = parse::<SearchArgs>("search", json!({"query": "x", "topk": 3})).unwrap_err();
        assert!(error.to_string().contains("topk"), "{error}");
        assert!(parse::<SearchArgs>("search", json!({"query": 3})).is_err());
        assert!(parse::<SearchArgs>("search", json!({})).is_err());
        let args: SearchArgs = parse("search", json!({"query": "vet", "top_k": 3})).unwrap();
        assert_eq!((args.query.as_str(), args.top_k), ("vet", Some(3)));
    }

    #[test]
    fn days_and_times_are_read() {
        assert_eq!(unix_time("after", "1970-01-02").unwrap(), 86_400);
        assert_eq!(unix_time("after", "1970-01-01T01:00:00+01:00").unwrap(), 0);
        assert!(unix_time("after", "yesterday").is_err());
    }
}
