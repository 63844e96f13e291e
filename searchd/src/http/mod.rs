//! The HTTP JSON gateway, compatible with HippoCamp's official retriever server and
//! with Search-R1's retrieval server:
//!
//! - `POST /retrieve` and `POST /search` take `{"query": str, "top_k": int}` or
//!   `{"queries": [str], "topk": int}` (optional `"rerank"`, `"mode"`, `"explain"`,
//!   `"snippets"` (false: no highlighted `snippet` in the metadata) and
//!   the filters `"path_prefixes"`, `"modalities"`, `"extensions"`, `"time_start"`,
//!   `"time_end"` in Unix seconds) and answer
//!   `{"results": [{"id", "text", "score", "metadata"}], "query", "reranked"}`; with
//!   `queries`, `results` answers the first query and `result` holds Search-R1's list
//!   of lists (`[{"document": {"id", "contents", …metadata}, "score"}]`) for every query.
//! - `POST /api/search`: grouped search (files with their best units), like the gRPC
//!   `Search`.
//! - `POST /api/timeline`: `{"start", "end"}` (Unix seconds) or `{"when": "last week"}`,
//!   optional `"query"`, `"reference_time"`, `"max_units"`, `"activity"` (false: leave
//!   the activity log out), `"activity_kinds"`: files and units in the range grouped by
//!   day and folder, with each day's activity events, like the gRPC `Timeline`.
//! - `"activity": {"kinds", "start", "end", "when"}` in `/retrieve`, `/search` and
//!   `/api/search` keeps the files with matching activity-log events (the reply's
//!   `"activity"` summarises them, with the files that are gone from the index).
//! - `"context": N` in `/retrieve`, `/search` and `/api/search` adds the N neighbouring
//!   units on each side of every hit (metadata `"context": true`).
//! - `POST /api/embed`: `{"texts": [...]}` → the profile's text model's vectors
//!   (`{"model", "dimension", "normalized", "vectors"}`); `"vector": [...]` in
//!   `/retrieve` and `/search` searches by such a vector (alone: dense only).
//! - `/mcp`: the MCP server (Streamable HTTP, stateless JSON replies; [`crate::mcp`]).
//! - `GET /health`, `GET /api/stats`.
//!   Each result's metadata holds Dentate's flat fields (`file_path`, `page`, `start`, …)
//!   and HippoCamp's nested `file_info`, `segment_info` and `chunk_meta`.
//! - `GET /api/routine?…` or `POST /api/routine` (JSON): the procedural channel (weekday ×
//!   hour grids, calendar series, people per week, folders and naming habits, with
//!   evidence), like the gRPC `Routine`; see [`crate::routine`].
//! - `GET /api/list_files?pattern=GLOB&limit=N` (Dentate's own listing, with sizes and
//!   unit counts): `{"success", "data": {"files", "truncated"}, "error"}`.
//! - HippoCamp's WebUI file API (`/api/files/list`, `/api/files`, `/api/return_txt`,
//!   `/api/return_metadata`, `/api/return_img`, `/api/return_ori`, `/api/serve_file`, …)
//!   is in [`crate::http::hippocamp`]. Paths are relative to the profile root; nothing outside
//!   it is ever served.
//!
//! Malformed requests get HTTP 400 with `{"error": message}`, never a 500: unknown
//! fields (named in the message), `"top_k": 0` (leave it out for the default; over gRPC
//! proto3 cannot tell 0 from unset, so 0 is the default there). Size, length, queue and
//! deadline limits sit in front of every route (`crate::limits`).

pub mod embed;
pub mod hippocamp;
pub mod hit_json;
pub mod host_check;
pub mod listing;
pub mod page;
pub mod ranged;
pub mod web;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Query as UrlQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::activity::plan::ActivitySummary;
use crate::engine::Engine;
use crate::http::hit_json::{Hits, SearchR1};
use crate::http::web::{run_blocking, HttpError};
use crate::query::{Mode, SearchParams};

/// Builds the router.
pub fn router(engine: Arc<Engine>) -> Router {
    router_with_output(engine, crate::http::hippocamp::OutputDir::default())
}

/// The router, with `return_img`'s images written to `output`.
pub fn router_with_output(
    engine: Arc<Engine>,
    output: crate::http::hippocamp::OutputDir,
) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/retrieve", post(retrieve))
        .route("/search", post(retrieve))
        .route("/api/search", post(grouped_search))
        .route("/api/timeline", post(timeline))
        .route(
            "/api/routine",
            get(crate::routine::http::get).post(crate::routine::http::post),
        )
        .route("/api/stats", get(stats))
        .route("/api/embed", post(embed))
        .route("/api/list_files", get(list_files))
        .route_service("/mcp", crate::mcp::http_service(engine.clone()))
        .with_state(engine.clone())
        .merge(crate::http::hippocamp::router(engine, output))
}

fn bad_request(message: impl Into<String>) -> HttpError {
    HttpError(StatusCode::BAD_REQUEST, message.into())
}

/// The retrieve request in both dialects. Unknown fields are refused (400 naming the
/// field); the fields HippoCamp's retriever server accepts (`query`, `top_k`,
/// `queries`, `topk`, `rerank`, all nullable but `top_k`) and Search-R1's
/// `return_scores` are all known.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RetrieveBody {
    query: Option<String>,
    queries: Option<Vec<String>>,
    top_k: Option<u32>,
    topk: Option<u32>,
    #[serde(default)]
    rerank: Option<bool>,
    #[serde(default)]
    return_scores: Option<bool>,
    mode: Option<String>,
    #[serde(default)]
    explain: bool,
    #[serde(default)]
    units_per_file: Option<u32>,
    #[serde(default)]
    path_prefixes: Vec<String>,
    #[serde(default)]
    modalities: Vec<String>,
    #[serde(default)]
    extensions: Vec<String>,
    time_start: Option<i64>,
    time_end: Option<i64>,
    /// `dbsf` (default), `rrf` (default when `rrf_k` is given) or `weighted` (default
    /// when `lexical_weight` is given).
    fusion: Option<String>,
    /// Planner priors to switch off: "time", "whose", "folders", "people",
    /// "weekday_sense", "activity", "diversify", "copies", "event_context", "record_kinds", "all".
    #[serde(default)]
    disable_planner: Vec<String>,
    reference_time: Option<i64>,
    /// Neighbouring units returned around each hit.
    #[serde(default)]
    context: u32,
    rrf_k: Option<f32>,
    lexical_weight: Option<f32>,
    /// Cut the files after the first large score break (`true`) or the N-th (`N`).
    autocut: Option<crate::cutoff::AutocutOption>,
    min_score: Option<f32>,
    /// Only files with matching activity-log events: `{"kinds", "start", "end", "when"}`.
    activity: Option<crate::activity::ActivityFilter>,
    /// `false`: no highlighted `snippet` in the results' metadata (`/retrieve` and
    /// `/search`; their `text` is whole either way; `/api/search` refuses it).
    snippets: Option<bool>,
    /// A query vector (the text model's dimension, `POST /api/embed`): searched
    /// instead of the embedded `query`; alone, a dense-only search.
    vector: Option<Vec<f32>>,
}

impl RetrieveBody {
    fn parse(body: &Bytes) -> Result<RetrieveBody, HttpError> {
        if body.is_empty() {
            return Err(bad_request(
                "request body is empty; expected JSON with \"query\" or \"queries\"",
            ));
        }
        serde_json::from_slice(body).map_err(|e| bad_request(format!("invalid request JSON: {e}")))
    }

    fn queries(&self) -> Result<Vec<String>, HttpError> {
        let queries = match (&self.query, &self.queries) {
            (Some(q), None) => vec![q.clone()],
            (None, None) if self.vector.is_some() => vec![String::new()],
            (None, Some(qs)) if !qs.is_empty() => qs.clone(),
            (None, Some(_)) => return Err(bad_request("\"queries\" is empty")),
            (Some(_), Some(_)) => {
                return Err(bad_request(
                    "give either \"query\" or \"queries\", not both",
                ))
            }
            (None, None) => return Err(bad_request("missing \"query\" (or \"queries\")")),
        };
        if self.vector.is_some() && self.queries.is_some() {
            return Err(bad_request(
                "\"vector\" goes with a single \"query\" (or none), not with \"queries\"",
            ));
        }
        if queries.len() > 64 {
            return Err(bad_request("at most 64 queries per request"));
        }
        Ok(queries)
    }

    fn params(&self, query: String) -> Result<SearchParams, HttpError> {
        let planner = crate::query::planner_switches(&self.disable_planner)?;
        Ok(SearchParams {
            planner,
            reference_time: self.reference_time,
            context: self.context as usize,
            query,
            top_k: match self.top_k.or(self.topk) {
                None => crate::query::DEFAULT_TOP_K,
                Some(0) => {
                    return Err(bad_request(format!(
                        "top_k must be at least 1 (leave it out for the default, {})",
                        crate::query::DEFAULT_TOP_K
                    )))
                }
                Some(k) => k as usize,
            },
            units_per_file: self
                .units_per_file
                .map_or(crate::query::DEFAULT_UNITS_PER_FILE, |n| n as usize),
            path_prefixes: self.path_prefixes.clone(),
            modalities: self.modalities.clone(),
            extensions: self.extensions.clone(),
            time_start: self.time_start,
            time_end: self.time_end,
            mode: Mode::parse(self.mode.as_deref().unwrap_or(""))?,
            fusion: match self.fusion.as_deref().map_or(
                Some(crate::query::FusionKind::unnamed(
                    self.rrf_k,
                    self.lexical_weight,
                )),
                crate::query::FusionKind::parse,
            ) {
                Some(kind) => crate::query::fusion_of(kind, self.rrf_k, self.lexical_weight),
                None => {
                    return Err(bad_request(format!(
                        "unknown fusion {:?} (expected rrf, weighted or dbsf)",
                        self.fusion.as_deref().unwrap_or_default()
                    )))
                }
            },
            explain: self.explain,
            cutoff: crate::cutoff::Cutoff {
                autocut: self.autocut.map_or(0, |a| a.jumps()),
                min_score: self.min_score,
            },
            activity: self.activity.clone(),
            rerank: self.rerank == Some(true),
            snippets: self.snippets != Some(false),
            vector: self.vector.clone().map(std::sync::Arc::new),
        })
    }
}

/// The reply of `/retrieve` and `/search`.
#[derive(Serialize)]
struct RetrieveReply<'a> {
    results: Hits<'a>,
    query: &'a str,
    reranked: bool,
    took_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    explain: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    activity: Option<&'a ActivitySummary>,
    /// Search-R1's lists, one per query (with `queries`).
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Vec<SearchR1<'a>>>,
}

async fn retrieve(State(engine): State<Arc<Engine>>, body: Bytes) -> Result<Response, HttpError> {
    let request = RetrieveBody::parse(&body)?;
    let queries = request.queries()?;
    let mut all_params = Vec::new();
    for query in &queries {
        all_params.push(request.params(query.clone())?);
    }
    let outcomes = run_blocking(&engine, move |e| {
        all_params
            .into_iter()
            .map(|p| e.retrieve(p))
            .collect::<Result<Vec<_>, _>>()
    })
    .await?;
    let first = &outcomes[0];
    let with_scores = request.return_scores.unwrap_or(true);
    let reply = RetrieveReply {
        results: Hits(&first.units),
        query: &queries[0],
        reranked: first.reranked,
        took_ms: first.took_ms,
        note: (request.rerank == Some(true) && !first.reranked).then_some(
            "rerank requested but not applied (no text model, or an empty question); results are in retrieval order",
        ),
        explain: &first.notes,
        activity: first.activity.as_ref(),
        result: request.queries.is_some().then(|| {
            outcomes
                .iter()
                .map(|o| SearchR1 {
                    hits: &o.units,
                    with_scores,
                })
                .collect()
        }),
    };
    Ok(Json(reply).into_response())
}

/// The reply of `/api/search`: files with their best units.
#[derive(Serialize)]
struct GroupedReply<'a> {
    files: Vec<GroupedFile<'a>>,
    query: &'a str,
    total_units: u64,
    took_ms: f64,
    explain: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    activity: Option<&'a ActivitySummary>,
}

#[derive(Serialize)]
struct GroupedFile<'a> {
    file: &'a index::FileRecord,
    score: f32,
    units: Hits<'a>,
}

async fn grouped_search(
    State(engine): State<Arc<Engine>>,
    body: Bytes,
) -> Result<Response, HttpError> {
    let request = RetrieveBody::parse(&body)?;
    let queries = request.queries()?;
    if queries.len() != 1 {
        return Err(bad_request("/api/search takes a single \"query\""));
    }
    if request.snippets == Some(false) {
        return Err(bad_request(
            "\"snippets\": false applies to /retrieve and /search; /api/search always has snippets",
        ));
    }
    let params = request.params(queries[0].clone())?;
    let outcome = run_blocking(&engine, move |e| e.search(params)).await?;
    Ok(Json(grouped_reply(&queries[0], &outcome)).into_response())
}

/// The reply of `/api/search` (also what `dentate search --index` prints with `--json`).
pub fn grouped_reply(query: &str, outcome: &crate::engine::SearchOutcome) -> Value {
    let reply = GroupedReply {
        files: outcome
            .files
            .iter()
            .map(|f| GroupedFile {
                file: &f.file,
                score: f.score,
                units: Hits(&f.units),
            })
            .collect(),
        query,
        total_units: outcome.total_units,
        took_ms: outcome.took_ms,
        explain: &outcome.notes,
        activity: outcome.activity.as_ref(),
    };
    serde_json::to_value(reply).unwrap_or_default()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimelineBody {
    start: Option<i64>,
    end: Option<i64>,
    when: Option<String>,
    #[serde(default)]
    query: String,
    reference_time: Option<i64>,
    #[serde(default)]
    max_units: usize,
    /// Include the activity log's events (default true).
    activity: Option<bool>,
    #[serde(default)]
    activity_kinds: Vec<String>,
}

async fn timeline(
    State(engine): State<Arc<Engine>>,
    body: Bytes,
) -> Result<Json<Value>, HttpError> {
    if body.is_empty() {
        return Err(bad_request(
            "request body is empty; expected JSON with \"start\" and \"end\" or \"when\"",
        ));
    }
    let request: TimelineBody = serde_json::from_slice(&body)
        .map_err(|e| bad_request(format!("invalid request JSON: {e}")))?;
    let params = crate::timeline::TimelineParams {
        start: request.start,
        end: request.end,
        when: request.when,
        query: request.query,
        reference_time: request.reference_time,
        max_units: request.max_units,
        activity: request.activity.unwrap_or(true),
        activity_kinds: request.activity_kinds,
    };
    let outcome = run_blocking(&engine, move |e| e.timeline(params)).await?;
    let mut reply = serde_json::to_value(&outcome).unwrap_or_default();
    if let Some(object) = reply.as_object_mut() {
        let notes = object.remove("notes").unwrap_or_default();
        object.insert("explain".into(), notes);
    }
    Ok(Json(reply))
}

async fn health(State(engine): State<Arc<Engine>>) -> Result<Json<Value>, HttpError> {
    let stats = run_blocking(&engine, |e| e.stats()).await?;
    Ok(Json(json!({
        "status": "ok",
        "files": stats.totals.indexed,
        "units": stats.totals.units,
        "embedding_coverage": stats.embedding_coverage,
        "dense": stats.dense_status.as_deref().unwrap_or("ok"),
    })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EmbedBody {
    texts: Vec<String>,
}

/// `POST /api/embed`: `{"texts": [...]}` → `{"model", "dimension", "normalized", "vectors"}`.
async fn embed(State(engine): State<Arc<Engine>>, body: Bytes) -> Result<Json<Value>, HttpError> {
    let request: EmbedBody = serde_json::from_slice(&body).map_err(|e| {
        bad_request(format!(
            "invalid request JSON: {e}; expected {{\"texts\": [\"...\"]}}"
        ))
    })?;
    crate::http::embed::check(&request.texts)?;
    let embedded = run_blocking(&engine, move |e| {
        crate::http::embed::embed(e, &request.texts)
    })
    .await?;
    Ok(Json(serde_json::to_value(embedded).unwrap_or_default()))
}

async fn stats(State(engine): State<Arc<Engine>>) -> Result<Json<Value>, HttpError> {
    let stats = run_blocking(&engine, |e| e.stats()).await?;
    Ok(Json(serde_json::to_value(stats).unwrap_or_default()))
}

/// A file-tool reply in HippoCamp's envelope.
fn tool_reply(result: Result<Value, HttpError>) -> Response {
    match result {
        Ok(data) => Json(json!({ "success": true, "data": data, "error": null })).into_response(),
        Err(HttpError(status, message)) => (
            status,
            Json(json!({ "success": false, "data": null, "error": message })),
        )
            .into_response(),
    }
}

#[derive(Debug, Deserialize)]
struct ListParams {
    #[serde(default)]
    pattern: String,
    limit: Option<usize>,
}

async fn list_files(
    State(engine): State<Arc<Engine>>,
    UrlQuery(params): UrlQuery<ListParams>,
) -> Response {
    let result = run_blocking(&engine, move |e| {
        e.list_files(&params.pattern, params.limit.unwrap_or(0), false)
    })
    .await
    .map(|outcome| {
        json!({
            "files": outcome.files.iter().map(|f| json!({
                "file_path": f.path, "file_name": f.name(), "file_type": f.ext,
                "modality": f.modality_name(), "size": f.size, "units": f.unit_count,
            })).collect::<Vec<_>>(),
            "truncated": outcome.truncated,
        })
    });
    tool_reply(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: &str) -> RetrieveBody {
        RetrieveBody::parse(&Bytes::from(json.to_string())).unwrap()
    }

    #[test]
    fn both_dialects_translate_to_the_same_request() {
        let hippocamp = body(r#"{"query": "q", "top_k": 7, "rerank": null}"#);
        assert_eq!(hippocamp.queries().unwrap(), ["q"]);
        let search_r1 = body(r#"{"queries": ["q", "r"], "topk": 7, "return_scores": true}"#);
        assert_eq!(search_r1.queries().unwrap(), ["q", "r"]);
        for request in [hippocamp, search_r1] {
            let params = request.params("q".into()).unwrap();
            assert_eq!(params.top_k, 7);
            assert_eq!(params.units_per_file, crate::query::DEFAULT_UNITS_PER_FILE);
            assert_eq!(params.mode, Mode::Hybrid);
        }
        let defaults = body(r#"{"query": "q"}"#).params("q".into()).unwrap();
        assert_eq!(defaults.top_k, crate::query::DEFAULT_TOP_K);
        assert!(defaults.snippets);
        let snippets = |json: &str| body(json).params("q".into()).unwrap().snippets;
        assert!(!snippets(r#"{"query": "q", "snippets": false}"#));
        assert!(snippets(r#"{"query": "q", "snippets": true}"#));
        assert!(snippets(r#"{"query": "q", "snippets": null}"#));
    }

    #[test]
    fn fusion_is_dbsf_unless_named_or_implied_by_its_parameter() {
        use crate::fusion::Fusion;
        let fusion = |json: &str| body(json).params("q".into()).unwrap().fusion;
        assert_eq!(fusion(r#"{"query": "q"}"#), Fusion::Dbsf);
        assert_eq!(
            fusion(r#"{"query": "q", "rrf_k": 20}"#),
            Fusion::Rrf { k: 20.0 }
        );
        assert_eq!(
            fusion(r#"{"query": "q", "lexical_weight": 0.3}"#),
            Fusion::Weighted {
                lexical_weight: 0.3
            }
        );
        assert_eq!(
            fusion(r#"{"query": "q", "fusion": "rrf"}"#),
            Fusion::Rrf {
                k: crate::fusion::DEFAULT_RRF_K
            }
        );
        assert_eq!(
            fusion(r#"{"query": "q", "fusion": "dbsf", "rrf_k": 20}"#),
            Fusion::Dbsf
        );
    }

    #[test]
    fn malformed_requests_are_400() {
        for bad in [
            "",
            "{",
            r#"{"query": 3}"#,
            r#"{}"#,
            r#"{"query": "x", "queries": ["y"]}"#,
            r#"{"queries": []}"#,
        ] {
            let parsed = RetrieveBody::parse(&Bytes::from(bad.to_string()));
            let error = parsed.and_then(|b| b.queries().map(|_| ())).unwrap_err();
            assert_eq!(error.0, StatusCode::BAD_REQUEST, "{bad}");
        }
        for bad in [
            r#"{"query": "x", "top_k": 0}"#,
            r#"{"queries": ["x"], "topk": 0}"#,
            r#"{"query": "x", "mode": "semantic"}"#,
            r#"{"query": "x", "fusion": "borda"}"#,
            r#"{"query": "x", "disable_planner": ["weather"]}"#,
        ] {
            let error = body(bad).params("x".into()).unwrap_err();
            assert_eq!(error.0, StatusCode::BAD_REQUEST, "{bad}");
        }
    }

    /// Unknown fields are a 400 naming the field; every field HippoCamp's and
    /// Search-R1's clients send is known.
    #[test]
    fn unknown_fields_are_refused_by_name() {
        for (bad, field) in [
            (r#"{"query": "x", "topK": 5}"#, "topK"),
            (r#"{"query": "x", "filters": {}}"#, "filters"),
        ] {
            let error = RetrieveBody::parse(&Bytes::from(bad)).unwrap_err();
            assert_eq!(error.0, StatusCode::BAD_REQUEST, "{bad}");
            assert!(error.1.contains(field), "{}", error.1);
        }
        for hippocamp in [
            r#"{"query": "x", "top_k": 5}"#,
            r#"{"query": "x", "top_k": 5, "queries": null, "topk": null, "rerank": null}"#,
            r#"{"queries": ["x"], "topk": 3, "return_scores": true}"#,
        ] {
            let request = body(hippocamp);
            assert!(request.params("x".into()).is_ok(), "{hippocamp}");
        }
        let error = serde_json::from_str::<TimelineBody>(r#"{"when": "x", "whn": 1}"#).unwrap_err();
        assert!(error.to_string().contains("whn"), "{error}");
    }
}
