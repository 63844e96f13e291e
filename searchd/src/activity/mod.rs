//! The activity log (`index::activity`) as a query channel: the Timeline shows the
//! events of each day next to the content times ([`timeline`]); a search can ask for
//! files by what happened to them ([`ActivityFilter`], explicit) and first-person
//! questions about doing ("which files did I edit yesterday") use the matching events as
//! a ranking signal ([`intent`], [`rank`]).
//!
//! Event paths are profile-relative text. They are never resolved on disk: an event
//! whose path is absolute or climbs out of the profile (`..`) is dropped (and counted),
//! and a file that left the index (deleted, renamed away) is reported by path only.

pub mod intent;
pub mod plan;
pub mod rank;
pub mod timeline;
pub mod wire;

use std::collections::BTreeMap;

use chrono::DateTime;
use index::api::SearchBackend;
use index::{ActivityEvent, ActivityKind, ActivityQuery};
use serde::{Deserialize, Serialize};

use crate::error::SearchError;
use crate::guard::PathGuard;

/// Events read for one request at most (the newest are dropped beyond it, with a note).
pub const MAX_ACTIVITY_EVENTS: usize = 20_000;

/// An explicit activity condition of a search: only files with events of these kinds in
/// this range. Kinds by name (`created`, `modified` or `edited`, `renamed`, `moved`,
/// `deleted`, `read` or `opened`, `copied`, …; empty: every kind); the range as
/// `start`/`end` (Unix seconds) or `when` (a time expression), or neither (all time).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActivityFilter {
    #[serde(default)]
    pub kinds: Vec<String>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub when: Option<String>,
}

/// The names a request may use for a kind: the log's own names and a few verbs.
pub fn kind_of_name(name: &str) -> Option<ActivityKind> {
    let name = name.trim().to_ascii_lowercase();
    let kind = match name.as_str() {
        "edited" | "edit" | "modify" | "changed" => ActivityKind::Modified,
        "create" | "new" => ActivityKind::Created,
        "rename" => ActivityKind::Renamed,
        "move" => ActivityKind::Moved,
        "delete" | "removed" => ActivityKind::Deleted,
        "opened" | "open" | "viewed" => ActivityKind::Read,
        "copy" => ActivityKind::Copied,
        other => ActivityKind::parse(other),
    };
    (!matches!(kind, ActivityKind::Other(_))).then_some(kind)
}

/// Kinds by name; an unknown name is the caller's error.
pub fn parse_kinds(names: &[String]) -> Result<Vec<ActivityKind>, SearchError> {
    let mut kinds = Vec::new();
    for name in names {
        let kind = kind_of_name(name).ok_or_else(|| {
            SearchError::invalid(format!(
                "unknown activity kind {name:?} (expected {}, or edited, opened)",
                ActivityKind::KNOWN
                    .map(|k| k.as_str().to_string())
                    .join(", ")
            ))
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

/// One event as served (Timeline days, search summaries).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActivityEntry {
    pub seq: i64,
    pub kind: String,
    /// Profile-relative (empty: an event about no file, e.g. a search).
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// RFC 3339, UTC.
    pub time: String,
    pub time_ms: i64,
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_delta: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl ActivityEntry {
    pub fn of(event: &ActivityEvent) -> ActivityEntry {
        ActivityEntry {
            seq: event.seq,
            kind: event.kind.as_str().to_string(),
            path: event.path.clone().unwrap_or_default(),
            old_path: event.old_path.clone(),
            time: rfc3339_of_ms(event.time_ms),
            time_ms: event.time_ms,
            source: event.source.as_str().to_string(),
            size_delta: event.size_delta,
            session: event.session.clone(),
        }
    }
}

/// RFC 3339 (UTC, seconds) of a time in milliseconds.
pub fn rfc3339_of_ms(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// Events read from the log, with what was left out.
#[derive(Debug, Default)]
pub struct ReadEvents {
    pub events: Vec<ActivityEvent>,
    /// Dropped: a path outside the profile.
    pub outside: usize,
    /// The log had more than [`MAX_ACTIVITY_EVENTS`] in the range.
    pub truncated: bool,
}

impl ReadEvents {
    /// Notes for `explain` about what was left out.
    pub fn notes(&self, notes: &mut Vec<String>) {
        if self.outside > 0 {
            notes.push(format!(
                "activity: {} events with a path outside the profile ignored",
                self.outside
            ));
        }
        if self.truncated {
            notes.push(format!(
                "activity: more than {MAX_ACTIVITY_EVENTS} events in the range; the earliest {MAX_ACTIVITY_EVENTS} read"
            ));
        }
    }

    /// Events per kind.
    pub fn counts(&self) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        for event in &self.events {
            *counts.entry(event.kind.as_str().to_string()).or_default() += 1;
        }
        counts
    }
}

/// Reads the events matching `query` (oldest first), keeping only those whose paths
/// stay inside the profile: profile-relative, and not resolving outside the root on disk
/// now (`guard`: a folder replaced by a link since the event).
pub fn read_events(
    backend: &dyn SearchBackend,
    guard: &mut PathGuard,
    mut query: ActivityQuery,
) -> Result<ReadEvents, SearchError> {
    query.limit = MAX_ACTIVITY_EVENTS + 1;
    let mut events = backend.activity(&query)?;
    let truncated = events.len() > MAX_ACTIVITY_EVENTS;
    events.truncate(MAX_ACTIVITY_EVENTS);
    let before = events.len();
    // Never a path outside the profile: foreign paths a trace could not map, paths that
    // lead out of it now.
    events.retain(|e| {
        e.in_profile()
            && e.path.as_deref().is_none_or(|p| guard.allows(p))
            && e.old_path.as_deref().is_none_or(|p| guard.allows(p))
    });
    Ok(ReadEvents {
        outside: before - events.len(),
        events,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_name_and_alias_and_unknown_names_refused() {
        let kinds = parse_kinds(&["edited".into(), "Created".into(), "modified".into()]).unwrap();
        assert_eq!(kinds, [ActivityKind::Modified, ActivityKind::Created]);
        assert_eq!(kind_of_name("opened"), Some(ActivityKind::Read));
        assert_eq!(kind_of_name("dir_created"), Some(ActivityKind::DirCreated));
        let error = parse_kinds(&["teleported".into()]).unwrap_err();
        assert!(error.to_string().contains("teleported"), "{error}");
    }

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339_of_ms(86_400_000), "1970-01-02T00:00:00Z");
    }
}
