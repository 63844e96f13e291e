//! `GET /api/routine?when=last+month&folder=Notes` and `POST /api/routine` with the same
//! fields as JSON (an empty body or no query string: the whole profile, all time).
//! Unknown fields are a 400 naming the field.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::Value;

use super::RoutineParams;
use crate::engine::Engine;
use crate::http::web::{run_blocking, HttpError};

/// The request fields (see [`RoutineParams`]).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutineBody {
    start: Option<i64>,
    end: Option<i64>,
    when: Option<String>,
    reference_time: Option<i64>,
    #[serde(default)]
    folder: String,
    #[serde(default)]
    max_units: usize,
    #[serde(default)]
    max_events: usize,
    #[serde(default)]
    evidence: usize,
    #[serde(default)]
    top: usize,
    utc_offset_minutes: Option<i32>,
    /// A list, or one comma-separated string (a query string's form).
    #[serde(default)]
    sources: Sources,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Sources {
    List(Vec<String>),
    Text(String),
}

impl Default for Sources {
    fn default() -> Sources {
        Sources::List(Vec::new())
    }
}

impl Sources {
    fn names(self) -> Vec<String> {
        match self {
            Sources::List(names) => names,
            Sources::Text(text) => text
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        }
    }
}

impl From<RoutineBody> for RoutineParams {
    fn from(body: RoutineBody) -> RoutineParams {
        RoutineParams {
            start: body.start,
            end: body.end,
            when: body.when,
            reference_time: body.reference_time,
            folder: body.folder,
            max_units: body.max_units,
            max_events: body.max_events,
            evidence: body.evidence,
            top: body.top,
            utc_offset_minutes: body.utc_offset_minutes,
            sources: body.sources.names(),
        }
    }
}

fn bad_request(message: String) -> HttpError {
    HttpError(StatusCode::BAD_REQUEST, message)
}

async fn answer(engine: Arc<Engine>, body: RoutineBody) -> Result<Json<Value>, HttpError> {
    let params = RoutineParams::from(body);
    let outcome = run_blocking(&engine, move |e| e.routine(params)).await?;
    let mut reply = serde_json::to_value(&outcome).unwrap_or_default();
    if let Some(object) = reply.as_object_mut() {
        let notes = object.remove("notes").unwrap_or_default();
        object.insert("explain".into(), notes);
    }
    Ok(Json(reply))
}

pub async fn get(
    State(engine): State<Arc<Engine>>,
    query: Result<Query<RoutineBody>, QueryRejection>,
) -> Result<Json<Value>, HttpError> {
    let Query(body) =
        query.map_err(|e| bad_request(format!("invalid query string: {}", e.body_text())))?;
    answer(engine, body).await
}

pub async fn post(
    State(engine): State<Arc<Engine>>,
    body: Bytes,
) -> Result<Json<Value>, HttpError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        RoutineBody::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| bad_request(format!("invalid request JSON: {e}")))?
    };
    answer(engine, body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_named() {
        let error =
            serde_json::from_str::<RoutineBody>(r#"{"when": "x", "folders": "a"}"#).unwrap_err();
        assert!(error.to_string().contains("folders"), "{error}");
        let body: RoutineBody = serde_json::from_str(
            r#"{"folder": "Notes", "evidence": 5, "utc_offset_minutes": -420}"#,
        )
        .unwrap();
        let params = RoutineParams::from(body);
        assert_eq!((params.folder.as_str(), params.evidence), ("Notes", 5));
        assert_eq!(params.utc_offset_minutes, Some(-420));
        for sources in [
            r#"{"sources": ["trace", "watch"]}"#,
            r#"{"sources": "trace, watch"}"#,
        ] {
            let body: RoutineBody = serde_json::from_str(sources).unwrap();
            assert_eq!(RoutineParams::from(body).sources, vec!["trace", "watch"]);
        }
    }
}
