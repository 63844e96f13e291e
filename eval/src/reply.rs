//! What the daemon returned: files with their units' locators, read from an HTTP
//! `/api/search` or `/retrieve` reply or a gRPC `SearchResponse`, and how their paths
//! compare with the annotations'.

use serde_json::Value;

use crate::Error;

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
    /// The lines a unit gathers from across its file (a log's records of one kind);
    /// when present, `line_start..line_end` is not a run of lines.
    pub lines: Vec<u64>,
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
    // The separator is the whole marker: real names may contain `#`.
    match p.split_once("#attachment/") {
        Some((parent, _)) => parent.to_string(),
        None => p,
    }
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

/// The locator of one HTTP hit's `metadata` (`/api/search` units and `/retrieve`
/// results carry the same fields).
fn unit_loc(m: &Value) -> UnitLoc {
    let u = |k: &str| m.get(k).and_then(as_u64);
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let ms = |k: &str| {
        m.get(k)
            .and_then(Value::as_f64)
            .map(|secs| (secs * 1000.0).round().max(0.0) as u64)
    };
    UnitLoc {
        page: u("page"),
        slide: u("slide"),
        sheet: s("sheet"),
        row_start: u("row_start"),
        row_end: u("row_end"),
        line_start: u("line_start"),
        line_end: u("line_end"),
        lines: m
            .get("lines")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default(),
        t_start_ms: ms("start"),
        t_end_ms: ms("end"),
        event_uid: s("event_uid"),
        title: s("title").filter(|t| !t.is_empty()),
    }
}

/// The files of an HTTP `/retrieve` reply with their units: results grouped by their
/// containing file (attachments count as it) in first-seen order, as HippoCamp's
/// clients read the flat list.
pub fn retrieved_from_retrieve_reply(reply: &Value) -> Vec<RetrievedFile> {
    let mut files: Vec<RetrievedFile> = Vec::new();
    for result in reply["results"].as_array().into_iter().flatten() {
        let metadata = result.get("metadata").unwrap_or(&Value::Null);
        let Some(path) = metadata.get("file_path").and_then(Value::as_str) else {
            continue;
        };
        let file = containing_file(path);
        if file.is_empty() {
            continue;
        }
        let unit = unit_loc(metadata);
        match files.iter_mut().find(|f| f.path == file) {
            Some(known) => known.units.push(unit),
            None => files.push(RetrievedFile {
                path: file,
                units: vec![unit],
            }),
        }
    }
    files
}

/// Reads the files of an HTTP `/api/search` reply.
pub fn files_from_http_reply(reply: &Value) -> Result<Vec<RetrievedFile>, Error> {
    let Some(files) = reply.get("files").and_then(Value::as_array) else {
        return Err(Error::ReplyWithoutFiles);
    };
    files
        .iter()
        .map(|f| {
            let path = f
                .pointer("/file/path")
                .and_then(Value::as_str)
                .ok_or(Error::ReplyFileWithoutPath)?
                .to_string();
            let units = f
                .get("units")
                .and_then(Value::as_array)
                .map(|units| {
                    units
                        .iter()
                        .map(|unit| unit_loc(unit.get("metadata").unwrap_or(&Value::Null)))
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
                        lines: l.lines,
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

/// A JSON number (or a number written as a string) as a non-negative integer.
pub(crate) fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{parse_questions, score_question};

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
