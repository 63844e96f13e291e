//! Checks on decoded requests and their classification, transport by transport: every
//! string of a JSON body (at any depth) and of a gRPC message is length-limited, every
//! list is bounded, `top_k` has a ceiling; the error names the field.

use dentate_proto::v1 as pb;
use prost::Message;
use serde_json::Value;

use super::{Class, Limits, Rejection};

/// Top-level fields held to `max_query_chars` instead of `max_field_chars`.
const QUERY_FIELDS: &[&str] = &["query", "queries", "when"];
/// Top-level numbers held to `max_top_k`.
const TOP_K_FIELDS: &[&str] = &["top_k", "topk"];

fn too_long(field: &str, chars: usize, limit: usize) -> Rejection {
    Rejection::Invalid(format!(
        "{field} is longer than {limit} characters ({chars})"
    ))
}

fn check_string(field: &str, text: &str, limit: usize) -> Result<(), Rejection> {
    // Bytes bound characters from above: count only when it may matter.
    if text.len() > limit {
        let chars = text.chars().count();
        if chars > limit {
            return Err(too_long(field, chars, limit));
        }
    }
    Ok(())
}

fn check_list(field: &str, len: usize, limits: &Limits) -> Result<(), Rejection> {
    if len > limits.max_list_items {
        return Err(Rejection::Invalid(format!(
            "{field} has {len} items, more than {}",
            limits.max_list_items
        )));
    }
    Ok(())
}

fn check_top_k(field: &str, value: u64, limits: &Limits) -> Result<(), Rejection> {
    if value > limits.max_top_k as u64 {
        return Err(Rejection::Invalid(format!(
            "{field} must be at most {}",
            limits.max_top_k
        )));
    }
    Ok(())
}

/// Every string and list of a JSON request body, at any depth.
pub fn check_json(body: &Value, limits: &Limits) -> Result<(), Rejection> {
    fn walk(
        value: &Value,
        field: &str,
        string_limit: usize,
        limits: &Limits,
    ) -> Result<(), Rejection> {
        match value {
            Value::String(text) => check_string(field, text, string_limit),
            Value::Array(items) => {
                check_list(field, items.len(), limits)?;
                for (i, item) in items.iter().enumerate() {
                    walk(item, &format!("{field}[{i}]"), string_limit, limits)?;
                }
                Ok(())
            }
            Value::Object(map) => {
                check_list(field, map.len(), limits)?;
                for (key, item) in map {
                    check_string(&format!("a key of {field}"), key, limits.max_field_chars)?;
                    walk(
                        item,
                        &format!("{field}.{key}"),
                        limits.max_field_chars,
                        limits,
                    )?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    let Value::Object(map) = body else {
        return walk(body, "the body", limits.max_field_chars, limits);
    };
    check_list("the body", map.len(), limits)?;
    for (key, value) in map {
        check_string("a field name", key, limits.max_field_chars)?;
        let limit = if QUERY_FIELDS.contains(&key.as_str()) {
            limits.max_query_chars
        } else {
            limits.max_field_chars
        };
        // A query vector is numbers only, as many as the text model's dimension.
        if key == "vector" {
            if let Value::Array(items) = value {
                if items.len() > crate::query::MAX_VECTOR_LEN {
                    return Err(Rejection::Invalid(format!(
                        "\"vector\" has {} items, more than {}",
                        items.len(),
                        crate::query::MAX_VECTOR_LEN
                    )));
                }
                if items.iter().all(Value::is_number) {
                    continue;
                }
            }
        }
        if TOP_K_FIELDS.contains(&key.as_str()) {
            if let Some(k) = value.as_u64() {
                check_top_k(&format!("\"{key}\""), k, limits)?;
            }
        }
        walk(value, &format!("\"{key}\""), limit, limits)?;
    }
    Ok(())
}

/// The route path without a `/p/NAME` profile prefix.
pub fn route_path(path: &str) -> &str {
    match path.strip_prefix("/p/") {
        Some(rest) => rest.find('/').map_or("/", |at| &rest[at..]),
        None => path,
    }
}

fn mode_class(mode: &str) -> Class {
    match mode.trim().to_ascii_lowercase().as_str() {
        "lexical" | "bm25" => Class::Lexical,
        _ => Class::Search,
    }
}

/// The class of an HTTP request from its path and (parsed) JSON body.
pub fn http_class(path: &str, body: Option<&Value>) -> Class {
    match route_path(path) {
        "/health" => Class::Exempt,
        "/retrieve" | "/search" | "/api/search" => {
            mode_class(body.and_then(|b| b["mode"].as_str()).unwrap_or(""))
        }
        "/api/timeline" | "/api/routine" => Class::Lexical,
        "/api/embed" => Class::Search,
        "/mcp" => crate::mcp::limits_class(body),
        p if p.starts_with("/api/return_img/") => Class::Render,
        _ => Class::Files,
    }
}

/// The message of a gRPC request body (one uncompressed length-prefixed frame).
fn grpc_message(body: &[u8]) -> Option<&[u8]> {
    let (&compressed, rest) = body.split_first()?;
    let length = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    (compressed == 0).then(|| rest.get(4..4 + length)).flatten()
}

fn check_strings(field: &str, items: &[String], limits: &Limits) -> Result<(), Rejection> {
    check_list(field, items.len(), limits)?;
    for (i, item) in items.iter().enumerate() {
        check_string(&format!("{field}[{i}]"), item, limits.max_field_chars)?;
    }
    Ok(())
}

/// The class of a gRPC call from its method path, after checking its message's fields.
/// A message that does not decode is left to the service (which answers
/// INVALID_ARGUMENT or INTERNAL as tonic does).
pub fn grpc_class(path: &str, body: &[u8], limits: &Limits) -> Result<Class, Rejection> {
    let Some(method) = path.strip_prefix("/dentate.v1.Dentate/") else {
        return Ok(Class::Exempt);
    };
    let message = grpc_message(body);
    match method {
        "Search" | "Retrieve" => {
            let Some(request) = message.and_then(|m| pb::SearchRequest::decode(m).ok()) else {
                return Ok(Class::Search);
            };
            check_string("query", &request.query, limits.max_query_chars)?;
            check_top_k("top_k", u64::from(request.top_k), limits)?;
            check_strings("path_prefixes", &request.path_prefixes, limits)?;
            check_strings("modalities", &request.modalities, limits)?;
            check_strings("extensions", &request.extensions, limits)?;
            check_strings("disable_planner", &request.disable_planner, limits)?;
            if let Some(activity) = &request.activity {
                check_strings("activity.kinds", &activity.kinds, limits)?;
                check_string("activity.when", &activity.when, limits.max_query_chars)?;
            }
            Ok(
                match pb::SearchMode::try_from(request.mode).unwrap_or_default() {
                    pb::SearchMode::Lexical => Class::Lexical,
                    _ => Class::Search,
                },
            )
        }
        "Timeline" => {
            if let Some(request) = message.and_then(|m| pb::TimelineRequest::decode(m).ok()) {
                check_string("when", &request.when, limits.max_query_chars)?;
                check_string("query", &request.query, limits.max_query_chars)?;
                check_strings("activity_kinds", &request.activity_kinds, limits)?;
            }
            Ok(Class::Lexical)
        }
        "Routine" => {
            if let Some(request) = message.and_then(|m| pb::RoutineRequest::decode(m).ok()) {
                check_string("when", &request.when, limits.max_query_chars)?;
                check_string("folder", &request.folder, limits.max_field_chars)?;
                check_strings("sources", &request.sources, limits)?;
            }
            Ok(Class::Lexical)
        }
        "Render" => {
            if let Some(request) = message.and_then(|m| pb::RenderRequest::decode(m).ok()) {
                check_string("path", &request.path, limits.max_field_chars)?;
            }
            Ok(Class::Render)
        }
        "ListFiles" => {
            if let Some(request) = message.and_then(|m| pb::ListFilesRequest::decode(m).ok()) {
                check_string("pattern", &request.pattern, limits.max_field_chars)?;
            }
            Ok(Class::Files)
        }
        "GetMetadata" | "GetText" => {
            if let Some(request) = message.and_then(|m| pb::FileRequest::decode(m).ok()) {
                check_string("path", &request.path, limits.max_field_chars)?;
            }
            Ok(Class::Files)
        }
        _ => Ok(Class::Files),
    }
}
