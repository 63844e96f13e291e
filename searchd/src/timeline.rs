//! The timeline: units in a time range grouped by local day, then by folder, then by
//! file (each file with its unit count and its first unit), and the activity log's
//! events of each day (`crate::activity::timeline`). The grouping is pure; the engine
//! scans the index and fills in snippets.

use std::collections::HashMap;
use std::time::Instant;

use index::api::{Matches, SearchBackend, TimeOrder, UnitFilter};

use crate::error::SearchError;
use crate::guard::PathGuard;
use crate::query::lexical_query;
use crate::snippets::snippet_of;

/// Units a timeline scans at most.
pub const MAX_TIMELINE_UNITS: usize = 5000;

/// A timeline request, independent of the transport.
#[derive(Debug, Clone)]
pub struct TimelineParams {
    /// Unix seconds, inclusive (open when `None`).
    pub start: Option<i64>,
    /// Unix seconds, exclusive (open when `None`).
    pub end: Option<i64>,
    /// A time expression ("last week", "the week of 6 October"), instead of start/end.
    pub when: Option<String>,
    /// Only units matching this text lexically (empty: all units).
    pub query: String,
    /// Unix seconds that relative expressions refer to.
    pub reference_time: Option<i64>,
    /// Units scanned at most (0: [`MAX_TIMELINE_UNITS`]).
    pub max_units: usize,
    /// Include the activity log's events (default true).
    pub activity: bool,
    /// Only events of these kinds (names as in `crate::activity::parse_kinds`; empty:
    /// all).
    pub activity_kinds: Vec<String>,
}

impl Default for TimelineParams {
    fn default() -> Self {
        TimelineParams {
            start: None,
            end: None,
            when: None,
            query: String::new(),
            reference_time: None,
            max_units: 0,
            activity: true,
            activity_kinds: Vec::new(),
        }
    }
}

pub use crate::days::{
    group, local_time, TimelineDay, TimelineFile, TimelineFolder, TimelineOutcome, TimelineUnit,
};

/// Files and units in a time range, grouped by local day, folder and file.
pub fn timeline(
    backend: &dyn SearchBackend,
    params: TimelineParams,
) -> Result<TimelineOutcome, SearchError> {
    /// Slack around a wall-clock range: the widest UTC offsets.
    const ZONE_SLACK: i64 = 14 * 3600;
    let started = Instant::now();
    let snapshot = backend.snapshot()?;
    let snapshot = &*snapshot;
    let mut notes = Vec::new();
    for (name, text) in [
        ("when", params.when.as_deref().unwrap_or("")),
        ("query", &params.query),
    ] {
        if text.chars().count() > crate::query::MAX_QUERY_CHARS {
            return Err(SearchError::invalid(format!(
                "{name} longer than {} characters",
                crate::query::MAX_QUERY_CHARS
            )));
        }
    }
    let when = params
        .when
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty());
    let has_bounds = params.start.is_some() || params.end.is_some();
    let activity_kinds = crate::activity::parse_kinds(&params.activity_kinds)?;
    let (wall, lower, upper, range_text) = match (when, has_bounds) {
        (Some(_), true) => {
            return Err(SearchError::invalid(
                "give either start/end or when, not both",
            ))
        }
        (None, false) => {
            return Err(SearchError::invalid(
                "give a time range: start and end (Unix seconds) or when (e.g. \"last week\")",
            ))
        }
        (Some(when), false) => {
            let reference = crate::priors::reference_time(snapshot, params.reference_time)?;
            let intent = crate::timeparse::parse(when, reference);
            let Some((a, b)) = intent.range else {
                return Err(SearchError::invalid(format!(
                        "no date range understood in {when:?} (try \"last week\", \"the week of 6 October\", \"March 2024\")"
                    )));
            };
            notes.push(format!(
                "when: {:?} (reference {}) → {a}..{b} (local wall clock)",
                intent.phrases,
                reference.date()
            ));
            (
                Some((a, b)),
                Some(a.and_utc().timestamp() - ZONE_SLACK),
                Some(b.and_utc().timestamp() + ZONE_SLACK),
                format!("{a}..{b}"),
            )
        }
        (None, true) => {
            if let (Some(a), Some(b)) = (params.start, params.end) {
                if a >= b {
                    return Err(SearchError::invalid("time range is empty (start >= end)"));
                }
            }
            let text = |t: Option<i64>| {
                t.and_then(|t| chrono::DateTime::from_timestamp(t, 0))
                    .map(|t| t.to_rfc3339())
                    .unwrap_or_default()
            };
            (
                None,
                params.start,
                params.end,
                format!("{}..{}", text(params.start), text(params.end)),
            )
        }
    };
    let filter = UnitFilter {
        time_start: lower,
        time_end: upper,
        ..UnitFilter::default()
    };
    let lexical = if params.query.trim().is_empty() {
        None
    } else {
        let lexical = lexical_query(&params.query).ok_or_else(|| {
            SearchError::invalid("query has no searchable terms (only stop words or punctuation)")
        })?;
        notes.push(format!("terms: {}", lexical.terms().join(" ")));
        Some(lexical)
    };
    let max = match params.max_units {
        0 => MAX_TIMELINE_UNITS,
        n => n.min(MAX_TIMELINE_UNITS),
    };
    let Matches { hits, total: count } =
        snapshot.by_time(lexical.as_ref(), &filter, max, TimeOrder::OldestFirst)?;
    let scanned = hits.len() as u64;
    let truncated = count > scanned;
    if truncated {
        notes.push(format!(
            "truncated: {count} units in the window, the earliest {scanned} scanned"
        ));
    }
    let mut titles: HashMap<String, String> = HashMap::new();
    let mut units = Vec::new();
    let mut guard = PathGuard::of(backend);
    let mut allowed: HashMap<String, bool> = HashMap::new();
    for (key, _) in hits {
        let unit = snapshot.unit(key)?;
        let inside = *allowed
            .entry(unit.file_id.clone())
            .or_insert_with(|| guard.allows(&unit.path));
        if !inside {
            continue;
        }
        let local = local_time(&unit.content_time_text, unit.content_time);
        if let Some((a, b)) = wall {
            if !(a..b).contains(&local) {
                continue;
            }
        }
        let title = match titles.get(&unit.file_id) {
            Some(title) => title.clone(),
            None => {
                let record = backend.file_by_id(&unit.file_id)?;
                let title = record
                    .and_then(|r| r.title.clone().filter(|t| !t.is_empty()))
                    .or_else(|| (!unit.title.is_empty()).then(|| unit.title.clone()))
                    .unwrap_or_else(|| index::UnitPath::parse(&unit.path).name().to_string());
                titles.insert(unit.file_id.clone(), title.clone());
                title
            }
        };
        units.push(TimelineUnit {
            unit_id: unit.unit_id,
            path: unit.path,
            title,
            kind: unit.kind.as_str().to_string(),
            ordinal: unit.ordinal,
            locator: unit.locator,
            content_time: unit.content_time_text,
            local,
            snippet: String::new(),
            text: unit.text,
        });
    }
    let matched = units.len() as u64;
    // With a text query, only the matching files' activity is shown.
    let matching_files: Option<std::collections::HashSet<String>> =
        (!params.query.trim().is_empty()).then(|| {
            units
                .iter()
                .map(|u| index::UnitPath::parse(&u.path).container().to_string())
                .collect()
        });
    let mut days = group(units);
    let snippets = crate::hits::snippet_generator(snapshot, lexical.as_ref())?;
    for first in days
        .iter_mut()
        .flat_map(|d| d.folders.iter_mut())
        .flat_map(|f| f.files.iter_mut())
        .filter_map(|f| f.first.as_mut())
    {
        first.snippet = snippet_of(snippets.as_ref(), &first.text);
    }
    let mut activity_events = 0;
    if params.activity {
        // The log's times are UTC: a wall-clock range is read as UTC.
        let (from_ms, to_ms) = match wall {
            Some((a, b)) => (
                Some(a.and_utc().timestamp_millis()),
                Some(b.and_utc().timestamp_millis()),
            ),
            None => (
                params.start.map(|t| t.saturating_mul(1000)),
                params.end.map(|t| t.saturating_mul(1000)),
            ),
        };
        let read = crate::activity::read_events(
            backend,
            &mut PathGuard::of(backend),
            index::ActivityQuery {
                from_ms,
                to_ms,
                kinds: activity_kinds,
                ..index::ActivityQuery::default()
            },
        )?;
        read.notes(&mut notes);
        let mut events = read.events;
        if let Some(files) = &matching_files {
            events.retain(|e| e.path.as_deref().is_some_and(|p| files.contains(p)));
            notes.push("activity: only of the files matching the query".to_string());
        }
        activity_events = events.len() as u64;
        crate::activity::timeline::add_activity(&mut days, &events);
    } else {
        notes.push("activity: excluded".to_string());
    }
    Ok(TimelineOutcome {
        days,
        range: range_text,
        units_scanned: scanned,
        units_matched: matched,
        truncated,
        activity_events,
        took_ms: started.elapsed().as_secs_f64() * 1000.0,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use converters::Locator;

    fn unit(path: &str, ordinal: u64, time: &str) -> TimelineUnit {
        TimelineUnit {
            unit_id: format!("{path}:{ordinal}"),
            path: path.to_string(),
            title: path.to_string(),
            kind: "span".to_string(),
            ordinal,
            locator: Locator::default(),
            content_time: time.to_string(),
            local: local_time(time, 0),
            snippet: String::new(),
            text: String::new(),
        }
    }

    #[test]
    fn groups_by_local_day_then_folder_then_file() {
        let days = group(vec![
            unit("Mail/Inbox/b.eml", 0, "2024-03-05T09:00:00+00:00"),
            unit("Notes/x.md", 1, "2024-03-04T10:00:00+00:00"),
            unit("Notes/x.md", 0, "2024-03-04T10:00:00+00:00"),
            unit("Mail/Inbox/a.eml", 0, "2024-03-04T08:00:00+00:00"),
            // 23:30 in UTC-08:00 is the 4th locally (the 5th in UTC).
            unit("Mail/Inbox/c.eml", 0, "2024-03-04T23:30:00-08:00"),
            unit(
                "Mail/Inbox/a.eml#attachment/q.pdf",
                2,
                "2024-03-04T08:00:00+00:00",
            ),
        ]);
        assert_eq!(days.len(), 2);
        assert_eq!(days[0].date, "2024-03-04");
        assert_eq!(days[0].units, 5);
        let folders: Vec<&str> = days[0].folders.iter().map(|f| f.folder.as_str()).collect();
        assert_eq!(folders, vec!["Mail/Inbox", "Notes"]);
        let inbox: Vec<&str> = days[0].folders[0]
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(
            inbox,
            vec![
                "Mail/Inbox/a.eml",
                "Mail/Inbox/a.eml#attachment/q.pdf",
                "Mail/Inbox/c.eml"
            ]
        );
        let notes = &days[0].folders[1].files[0];
        assert_eq!((notes.units, notes.first.as_ref().unwrap().ordinal), (2, 0));
        assert_eq!(days[1].date, "2024-03-05");
        assert_eq!(days[1].folders[0].files[0].path, "Mail/Inbox/b.eml");
    }
}
