//! FileGram behavioural traces (`events.json` of a FileGram session): a JSON array of
//! events. Every event has `event_id`, `event_type`, `timestamp` (milliseconds since the
//! epoch, possibly fractional), `session_id` and `profile_id`; file events add their own
//! fields, as FileGram's `filegram/behavior/events.py` writes them:
//!
//! | `event_type`           | kind          | path               | old path      |
//! |------------------------|---------------|--------------------|---------------|
//! | `file_read`            | read          | `file_path`        |               |
//! | `file_write`           | created (`operation: "create"`) or modified | `file_path` | |
//! | `file_edit`            | modified      | `file_path`        |               |
//! | `file_rename`          | renamed       | `new_path`         | `old_path`    |
//! | `file_move`            | moved         | `new_path`         | `old_path`    |
//! | `file_delete`          | deleted       | `file_path`        |               |
//! | `file_copy`            | copied        | `dest_path`        | `source_path` |
//! | `dir_create`           | dir_created   | `dir_path`         |               |
//! | `file_browse`          | browsed       | `directory_path`   |               |
//! | `file_search`          | searched      | none (`query` in the detail) |     |
//! | `cross_file_reference` | referenced    | `target_file` (`source_file` in the detail) | |
//!
//! (`file_path` is also accepted where FileGram writes another name.) Any other type
//! (FileGram's `tool_call`, `llm_response`, `fs_snapshot`, … or a newer one) is kept
//! under its own name, with `file_path` as its path when it has one, and counted.
//! Every other field goes into the event's detail; `after_hash` is the event's hash.
//! Paths are mapped onto the profile ([`PathMapper`]); one that cannot be placed is kept
//! as written and the event's detail says `"unmapped": true`. A malformed event is
//! reported with its position and id and skipped; the rest of the trace is imported.

use std::collections::BTreeMap;

use index::{ActivityEvent, ActivityKind, ActivitySource};
use serde_json::{Map, Value};

use super::paths::PathMapper;

/// A malformed event of a trace.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("events[{index}]{}: {reason}", .event_id.as_ref().map(|id| format!(" (event_id {id:?})")).unwrap_or_default())]
pub struct EventError {
    /// Position in the array (from 0).
    pub index: usize,
    pub event_id: Option<String>,
    pub reason: String,
}

/// A trace read into activity events.
#[derive(Debug, Default)]
pub struct TraceEvents {
    pub events: Vec<ActivityEvent>,
    /// Elements of the array.
    pub read: u64,
    /// Events of a type this importer does not know, by type (kept in `events`).
    pub unknown_types: BTreeMap<String, u64>,
    /// Events with a path that could not be placed in the profile.
    pub unmapped: u64,
    pub errors: Vec<EventError>,
}

/// Fields that must be strings when present (and not null).
const STRING_FIELDS: &[&str] = &[
    "operation",
    "query",
    "search_type",
    "edit_tool",
    "before_hash",
    "after_hash",
    "reference_type",
    "file_type",
    "diff_summary",
    "naming_pattern_change",
    "message_id",
    "model_provider",
    "model_name",
];

/// Fields that must be integers when present (and not null).
const INTEGER_FIELDS: &[&str] = &[
    "lines_added",
    "lines_deleted",
    "lines_modified",
    "content_length",
    "view_count",
    "files_matched",
    "files_listed",
    "depth",
    "directory_depth",
    "destination_directory_depth",
    "sibling_count",
    "file_age_ms",
    "interval_ms",
    "revisit_interval_ms",
];

/// Fields that must be booleans when present (and not null).
const BOOL_FIELDS: &[&str] = &["is_backup", "was_temporary"];

/// Latest accepted timestamp: the end of year 9999, in milliseconds.
const MAX_TIMESTAMP_MS: f64 = 253_402_300_799_999.0;

/// Where an event type keeps its paths.
struct Shape {
    kind: ActivityKind,
    /// Field names of the path, the first present wins.
    path: &'static [&'static str],
    path_required: bool,
    /// Field names of the old path (required when not empty).
    old_path: &'static [&'static str],
}

fn shape(event_type: &str, fields: &Map<String, Value>) -> Shape {
    let (kind, path, old_path): (
        ActivityKind,
        &'static [&'static str],
        &'static [&'static str],
    ) = match event_type {
        "file_read" => (ActivityKind::Read, &["file_path"], &[]),
        "file_write" => {
            let created = fields.get("operation").and_then(Value::as_str) == Some("create");
            let kind = if created {
                ActivityKind::Created
            } else {
                ActivityKind::Modified
            };
            (kind, &["file_path"], &[])
        }
        "file_edit" => (ActivityKind::Modified, &["file_path"], &[]),
        "file_rename" => (ActivityKind::Renamed, &["new_path"], &["old_path"]),
        "file_move" => (ActivityKind::Moved, &["new_path"], &["old_path"]),
        "file_delete" => (ActivityKind::Deleted, &["file_path"], &[]),
        "file_copy" => (ActivityKind::Copied, &["dest_path"], &["source_path"]),
        "dir_create" => (ActivityKind::DirCreated, &["dir_path", "file_path"], &[]),
        "file_browse" => (
            ActivityKind::Browsed,
            &["directory_path", "dir_path", "file_path"],
            &[],
        ),
        "file_search" => (ActivityKind::Searched, &[], &[]),
        "cross_file_reference" => (ActivityKind::Referenced, &["target_file", "file_path"], &[]),
        other => {
            return Shape {
                kind: ActivityKind::Other(other.to_string()),
                path: &["file_path"],
                path_required: false,
                old_path: &[],
            }
        }
    };
    Shape {
        path_required: !path.is_empty(),
        kind,
        path,
        old_path,
    }
}

/// An event that passed the checks, its paths not mapped yet.
struct Checked {
    event_id: Option<String>,
    profile_id: String,
    kind: ActivityKind,
    time_ms: i64,
    session: Option<String>,
    /// `(field, path as written)`.
    path: Option<(&'static str, String)>,
    old_path: Option<(&'static str, String)>,
    fields: Map<String, Value>,
    /// Hash of the event's JSON: its identity when it has no `event_id`.
    content_hash: Option<String>,
}

/// Reads a trace's events (`array`: the parsed file) into activity events, mapping paths
/// with `mapper` (which learns this trace's prefixes first).
pub fn read_trace(array: Vec<Value>, mapper: &mut PathMapper, observed_ms: i64) -> TraceEvents {
    let mut out = TraceEvents {
        read: array.len() as u64,
        ..TraceEvents::default()
    };
    let mut checked = Vec::with_capacity(array.len());
    for (index, value) in array.into_iter().enumerate() {
        match check(value) {
            Ok(event) => checked.push(event),
            Err((event_id, reason)) => out.errors.push(EventError {
                index,
                event_id,
                reason,
            }),
        }
    }
    mapper.learn(checked.iter().flat_map(raw_paths));
    for event in checked {
        if let ActivityKind::Other(name) = &event.kind {
            *out.unknown_types.entry(name.clone()).or_default() += 1;
        }
        let activity = to_activity(event, mapper, observed_ms);
        if activity.detail.contains_key("unmapped") {
            out.unmapped += 1;
        }
        out.events.push(activity);
    }
    out
}

/// Every path an event mentions, as written.
fn raw_paths(event: &Checked) -> Vec<&str> {
    let mut paths: Vec<&str> = [&event.path, &event.old_path]
        .into_iter()
        .flatten()
        .map(|(_, path)| path.as_str())
        .collect();
    if let Some(source) = event.fields.get("source_file").and_then(Value::as_str) {
        paths.push(source);
    }
    if let Some(Value::Array(opened)) = event.fields.get("files_opened_after") {
        paths.extend(opened.iter().filter_map(Value::as_str));
    }
    paths
}

type Rejection = (Option<String>, String);

/// Checks one element of the array; on failure the event's id (when readable) and why.
fn check(value: Value) -> Result<Checked, Rejection> {
    let content_hash = value
        .get("event_id")
        .is_none_or(Value::is_null)
        .then(|| blake3::hash(value.to_string().as_bytes()).to_hex()[..32].to_string());
    let Value::Object(mut fields) = value else {
        return Err((None, format!("not a JSON object but {}", type_name(&value))));
    };
    let event_id = match fields.remove("event_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) if id.trim().is_empty() => {
            return Err((None, "event_id is empty".into()));
        }
        Some(Value::String(id)) => Some(id),
        Some(Value::Number(id)) => Some(id.to_string()),
        Some(other) => {
            return Err((
                None,
                format!("event_id must be a string, not {}", type_name(&other)),
            ))
        }
    };
    let fail = |reason: String| Err((event_id.clone(), reason));
    let event_type = match fields.get("event_type") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_string(),
        Some(Value::String(_)) => return fail("event_type is empty".into()),
        None | Some(Value::Null) => return fail("event_type is missing".into()),
        Some(other) => {
            return fail(format!(
                "event_type must be a string, not {}",
                type_name(other)
            ))
        }
    };
    let time_ms = match fields.remove("timestamp") {
        Some(Value::Number(number)) => match number.as_f64() {
            Some(ms) if (0.0..=MAX_TIMESTAMP_MS).contains(&ms) => ms.floor() as i64,
            _ => return fail(format!("timestamp {number} is out of range")),
        },
        None | Some(Value::Null) => return fail("timestamp is missing".into()),
        Some(other) => {
            return fail(format!(
                "timestamp must be milliseconds since the epoch (a number), not {}",
                type_name(&other)
            ))
        }
    };
    let session =
        optional_string(&mut fields, "session_id").map_err(|reason| (event_id.clone(), reason))?;
    let profile_id = match fields.get("profile_id") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(id)) => id.clone(),
        Some(other) => {
            return fail(format!(
                "profile_id must be a string, not {}",
                type_name(other)
            ))
        }
    };
    for (names, expected, ok) in [
        (
            STRING_FIELDS,
            "a string",
            Value::is_string as fn(&Value) -> bool,
        ),
        (INTEGER_FIELDS, "an integer", |v: &Value| {
            v.is_i64() || v.is_u64()
        }),
        (BOOL_FIELDS, "a boolean", Value::is_boolean),
    ] {
        for name in names {
            match fields.get(*name) {
                Some(value) if !value.is_null() && !ok(value) => {
                    return fail(format!(
                        "{name} must be {expected}, not {}",
                        type_name(value)
                    ))
                }
                _ => {}
            }
        }
    }
    let shape = shape(&event_type, &fields);
    let path = take_path(&mut fields, shape.path).map_err(|reason| (event_id.clone(), reason))?;
    if path.is_none() && shape.path_required {
        return fail(format!("{event_type} needs {}", shape.path.join(" or ")));
    }
    let old_path =
        take_path(&mut fields, shape.old_path).map_err(|reason| (event_id.clone(), reason))?;
    if old_path.is_none() && !shape.old_path.is_empty() {
        return fail(format!(
            "{event_type} needs {}",
            shape.old_path.join(" or ")
        ));
    }
    match fields.get("source_file") {
        None | Some(Value::Null) | Some(Value::String(_)) => {}
        Some(other) => {
            return fail(format!(
                "source_file must be a string, not {}",
                type_name(other)
            ))
        }
    }
    match fields.get("files_opened_after") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
        Some(_) => return fail("files_opened_after must be an array of strings".into()),
    }
    Ok(Checked {
        event_id,
        profile_id,
        kind: shape.kind,
        time_ms,
        session,
        path,
        old_path,
        fields,
        content_hash,
    })
}

fn optional_string(fields: &mut Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match fields.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(format!(
            "{name} must be a string, not {}",
            type_name(&other)
        )),
    }
}

/// Removes the first present field of `names` (a non-empty string).
fn take_path(
    fields: &mut Map<String, Value>,
    names: &'static [&'static str],
) -> Result<Option<(&'static str, String)>, String> {
    for name in names {
        match fields.get(*name) {
            None | Some(Value::Null) => continue,
            Some(Value::String(path)) if !path.trim().is_empty() => {
                let path = path.clone();
                fields.remove(*name);
                return Ok(Some((name, path)));
            }
            Some(Value::String(_)) => return Err(format!("{name} is empty")),
            Some(other) => {
                return Err(format!("{name} must be a string, not {}", type_name(other)))
            }
        }
    }
    Ok(None)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn to_activity(event: Checked, mapper: &PathMapper, observed_ms: i64) -> ActivityEvent {
    let mut unmapped = false;
    let mut place = |path: &str| {
        mapper.map(path).unwrap_or_else(|| {
            unmapped = true;
            path.to_string()
        })
    };
    let path = event.path.as_ref().map(|(_, path)| place(path));
    let old_path = event.old_path.as_ref().map(|(_, path)| place(path));
    let mut detail: BTreeMap<String, Value> = BTreeMap::new();
    for (name, value) in event.fields {
        let value = match (name.as_str(), value) {
            (_, Value::Null) => continue,
            ("source_file", Value::String(source)) => Value::String(place(&source)),
            ("files_opened_after", Value::Array(opened)) => Value::Array(
                opened
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|p| Value::String(place(p)))
                    .collect(),
            ),
            (_, value) => value,
        };
        detail.insert(name, value);
    }
    if unmapped {
        detail.insert("unmapped".into(), Value::Bool(true));
    }
    let hash = detail
        .get("after_hash")
        .and_then(Value::as_str)
        .map(str::to_string);
    let size_delta = (event.kind == ActivityKind::Created)
        .then(|| detail.get("content_length").and_then(Value::as_i64))
        .flatten();
    let identity = event
        .event_id
        .or_else(|| Some(format!("sha:{}", event.content_hash?)))
        .unwrap_or_default();
    ActivityEvent {
        seq: 0,
        time_ms: event.time_ms,
        observed_ms,
        kind: event.kind,
        source: ActivitySource::Trace,
        path,
        old_path,
        size_delta,
        hash,
        session: event.session,
        detail,
        dedup_key: Some(format!("trace:{}:{identity}", event.profile_id)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn mapper() -> PathMapper {
        PathMapper::new("/home/me", ["Docs/plan.md", "Docs/budget.csv"])
    }

    fn read(events: Value) -> TraceEvents {
        let Value::Array(array) = events else {
            panic!("test input is an array")
        };
        read_trace(array, &mut mapper(), 1)
    }

    #[test]
    fn file_events_map_to_kinds_paths_and_details() {
        let trace = read(json!([
            {"event_id": "a", "event_type": "file_write", "timestamp": 1000.7,
             "session_id": "s1", "profile_id": "p1", "file_path": "/ws/Docs/notes.md",
             "operation": "create", "content_length": 120, "after_hash": "h1",
             "before_hash": null},
            {"event_id": "b", "event_type": "file_edit", "timestamp": 2000,
             "session_id": "s1", "profile_id": "p1", "file_path": "/ws/Docs/plan.md",
             "lines_added": 3, "lines_deleted": 1},
            {"event_id": "c", "event_type": "file_copy", "timestamp": 3000,
             "profile_id": "p1", "source_path": "/ws/Docs/plan.md",
             "dest_path": "/ws/Docs/plan_v2.md", "is_backup": true},
            {"event_id": "d", "event_type": "file_search", "timestamp": 4000,
             "profile_id": "p1", "query": "budget", "files_opened_after": ["/ws/Docs/budget.csv"]},
            {"event_id": "e", "event_type": "cross_file_reference", "timestamp": 5000,
             "profile_id": "p1", "source_file": "/ws/Docs/budget.csv",
             "target_file": "/elsewhere/x.md", "reference_type": "read_then_edit"},
        ]));
        assert!(trace.errors.is_empty(), "{:?}", trace.errors);
        let [write, edit, copy, search, reference] = &trace.events[..] else {
            panic!("{:?}", trace.events)
        };
        assert_eq!(write.kind, ActivityKind::Created);
        assert_eq!(write.time_ms, 1000);
        // `/ws` learned from the known files.
        assert_eq!(write.path.as_deref(), Some("Docs/notes.md"));
        assert_eq!(write.size_delta, Some(120));
        assert_eq!(write.hash.as_deref(), Some("h1"));
        assert_eq!(write.session.as_deref(), Some("s1"));
        assert_eq!(write.dedup_key.as_deref(), Some("trace:p1:a"));
        assert!(!write.detail.contains_key("before_hash"));
        assert!(!write.detail.contains_key("file_path"));
        assert_eq!(write.detail["event_type"], "file_write");
        assert_eq!(edit.kind, ActivityKind::Modified);
        assert_eq!(edit.detail["lines_added"], 3);
        assert_eq!(copy.kind, ActivityKind::Copied);
        assert_eq!(copy.old_path.as_deref(), Some("Docs/plan.md"));
        assert_eq!(copy.path.as_deref(), Some("Docs/plan_v2.md"));
        assert_eq!(search.path, None);
        assert_eq!(search.detail["query"], "budget");
        assert_eq!(
            search.detail["files_opened_after"],
            json!(["Docs/budget.csv"])
        );
        assert_eq!(reference.kind, ActivityKind::Referenced);
        assert_eq!(reference.path.as_deref(), Some("/elsewhere/x.md"));
        assert_eq!(reference.detail["source_file"], "Docs/budget.csv");
        assert_eq!(reference.detail["unmapped"], true);
        assert_eq!(trace.unmapped, 1);
    }

    #[test]
    fn malformed_events_are_reported_and_the_rest_imported() {
        let trace = read(json!([
            "not an event",
            {"event_id": "x1", "event_type": "file_read"},
            {"event_id": "x2", "event_type": "file_read", "timestamp": "yesterday"},
            {"event_id": "x3", "timestamp": 5},
            {"event_id": "x4", "event_type": "file_rename", "timestamp": 5, "new_path": "a"},
            {"event_id": "x5", "event_type": "file_edit", "timestamp": 5,
             "file_path": "a", "lines_added": "three"},
            {"event_id": "x6", "event_type": "file_read", "timestamp": -1, "file_path": "a"},
            {"event_id": ["x"], "event_type": "file_read", "timestamp": 5, "file_path": "a"},
            {"event_id": " ", "event_type": "file_read", "timestamp": 5, "file_path": "a"},
            {"event_id": "ok", "event_type": "tool_call", "timestamp": 7, "tool_name": "grep"},
            {"event_type": "file_read", "timestamp": 8, "file_path": "Docs/plan.md"},
        ]));
        let messages: Vec<String> = trace.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "events[0]: not a JSON object but a string",
                "events[1] (event_id \"x1\"): timestamp is missing",
                "events[2] (event_id \"x2\"): timestamp must be milliseconds since the epoch (a number), not a string",
                "events[3] (event_id \"x3\"): event_type is missing",
                "events[4] (event_id \"x4\"): file_rename needs old_path",
                "events[5] (event_id \"x5\"): lines_added must be an integer, not a string",
                "events[6] (event_id \"x6\"): timestamp -1 is out of range",
                "events[7]: event_id must be a string, not an array",
                "events[8]: event_id is empty",
            ]
        );
        assert_eq!(trace.read, 11);
        assert_eq!(trace.events.len(), 2);
        assert_eq!(
            trace.unknown_types,
            BTreeMap::from([("tool_call".into(), 1)])
        );
        assert_eq!(
            trace.events[0].kind,
            ActivityKind::Other("tool_call".into())
        );
        assert_eq!(trace.events[0].path, None);
        assert_eq!(trace.events[0].detail["tool_name"], "grep");
        // No event_id: the key is the event's content hash, stable across runs.
        let key = trace.events[1].dedup_key.clone().unwrap();
        assert!(key.starts_with("trace::sha:"), "{key}");
        let again = read(json!([
            {"event_type": "file_read", "timestamp": 8, "file_path": "Docs/plan.md"}
        ]));
        assert_eq!(again.events[0].dedup_key.as_deref(), Some(key.as_str()));
    }
}
