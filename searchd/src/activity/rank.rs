//! Activity in a search. The plan reads the events that answer the request (an explicit
//! [`ActivityFilter`], or a question about doing read by [`super::intent`]) and groups
//! them by file ([`ActivityPlan`]).
//!
//! - Explicit: the results are restricted to the files with matching events (their
//!   paths become the filter's path prefixes, intersected with the request's own). Files
//!   with events that are no longer in the index (deleted, renamed away) cannot have
//!   units; they are listed in the reply's activity summary (`gone`).
//! - A question about doing: the files with matching events join the candidates (their
//!   best unit for the question, else their newest unit: at the top when the question
//!   is only about doing, below every match when it also has a topic) and their units'
//!   scores are multiplied by [`ACTIVITY_BOOST`] ([`ONLY_DOING_BOOST`] when the question
//!   is only about doing). With no matching events nothing changes.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::DateTime;
use index::api::{SearchBackend, SearchSnapshot, TimeOrder, UnitKey};
use index::{ActivityEvent, ActivityKind, ActivityQuery, FileStatus};

use super::plan::{by_file, under_prefixes};
pub use super::plan::{
    ActivityPlan, ActivitySummary, FileActivity, Window, ACTIVITY_BOOST, MAX_FILTER_FILES,
    MAX_SIGNAL_FILES, ONLY_DOING_BOOST, TOPIC_FLOOR,
};
use super::{read_events, ActivityFilter};
use crate::error::SearchError;
use crate::guard::PathGuard;
use crate::plan::QueryPlan;
use crate::query::SearchParams;
use crate::question::Question;

/// The activity plan of a request: its explicit filter, else a question about doing
/// (with the `activity` switch on). `None`: neither, or a question whose window has
/// no matching events (the request is then planned exactly as without the log).
pub(crate) fn plan_activity(
    backend: &dyn SearchBackend,
    snapshot: &dyn SearchSnapshot,
    params: &SearchParams,
    question: &Question,
    notes: &mut Vec<String>,
) -> Result<Option<ActivityPlan>, SearchError> {
    let (explicit, kinds, window, verbs, only_doing) = match &params.activity {
        Some(filter) => {
            let (kinds, window) = resolve_filter(snapshot, filter, params)?;
            (true, kinds, window, Vec::new(), false)
        }
        None if !params.planner.activity => {
            notes.push("activity: off".to_string());
            return Ok(None);
        }
        None => {
            // The cheap test first: most questions are not about doing.
            let (Some(doing), Some(time)) = (
                question.doing.clone(),
                question.time.as_ref().map(|t| &t.intent),
            ) else {
                return Ok(None);
            };
            let Some(doing) = doing.at(time) else {
                return Ok(None);
            };
            let window = Window::of_intent(time);
            (false, doing.kinds, window, doing.verbs, doing.only_doing)
        }
    };
    let read = read_events(
        backend,
        &mut PathGuard::of(backend),
        ActivityQuery {
            from_ms: window.from_ms,
            to_ms: window.to_ms,
            kinds: kinds.clone(),
            ..ActivityQuery::default()
        },
    )?;
    read.notes(notes);
    let events: Vec<ActivityEvent> = read
        .events
        .into_iter()
        .filter(|e| window.matches(e.time_ms))
        .filter(|e| {
            e.path
                .as_deref()
                .is_some_and(|p| under_prefixes(p, &params.path_prefixes))
        })
        .collect();
    let mut files = by_file(&events);
    let mut guard = PathGuard::of(backend);
    for file in &mut files {
        let record = backend.file(&file.path)?;
        file.indexed =
            record.is_some_and(|r| r.status == FileStatus::Indexed) && guard.allows(&file.path);
    }
    let cap = if explicit {
        MAX_FILTER_FILES
    } else {
        MAX_SIGNAL_FILES
    };
    let boosted: HashSet<String> = files
        .iter()
        .filter(|f| f.indexed)
        .take(cap)
        .map(|f| f.path.clone())
        .collect();
    let mut counts = BTreeMap::new();
    for event in &events {
        *counts.entry(event.kind.as_str().to_string()).or_default() += 1;
    }
    let plan = ActivityPlan {
        explicit,
        only_doing,
        kinds,
        window,
        events: events.len(),
        counts,
        files,
        boosted,
    };
    if !explicit && plan.boosted.is_empty() {
        notes.push(format!(
                "activity: question about doing ({verbs:?}) in {}: no matching events in the log; no signal",
                plan.window.text
            ));
        return Ok(None);
    }
    notes.push(plan.note(&verbs));
    Ok(Some(plan))
}

/// An explicit filter's kinds and window.
fn resolve_filter(
    snapshot: &dyn SearchSnapshot,
    filter: &ActivityFilter,
    params: &SearchParams,
) -> Result<(Vec<ActivityKind>, Window), SearchError> {
    let kinds = super::parse_kinds(&filter.kinds)?;
    let when = filter
        .when
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty());
    let window = match when {
        Some(when) => {
            let reference = crate::priors::reference_time(snapshot, params.reference_time)?;
            let intent = crate::timeparse::parse(when, reference);
            if intent.range.is_none() && intent.weekdays.is_empty() {
                return Err(SearchError::invalid(format!(
                        "activity: no date range understood in {when:?} (try \"yesterday\", \"last week\", \"October 2025\")"
                    )));
            }
            Window::of_intent(&intent)
        }
        None => {
            let ms = |t: Option<i64>| t.map(|t| t.saturating_mul(1000));
            let text = |t: Option<i64>| {
                t.and_then(|t| DateTime::from_timestamp(t, 0))
                    .map(|t| t.to_rfc3339())
                    .unwrap_or_default()
            };
            Window {
                from_ms: ms(filter.start),
                to_ms: ms(filter.end),
                text: format!("{}..{}", text(filter.start), text(filter.end)),
                ..Window::default()
            }
        }
    };
    Ok((kinds, window))
}

/// Adds the units of files with matching activity to a retriever's candidates
/// (`(key, score)`, best first) for a question about doing; returns how many were
/// added. `topic`: the list comes from the lexical retriever, whose scores for the
/// question are used where a file's unit matches it.
pub(crate) fn add_activity_candidates(
    snapshot: &dyn SearchSnapshot,
    plan: &QueryPlan,
    hits: &mut Vec<(UnitKey, f32)>,
    topic: bool,
) -> Result<usize, SearchError> {
    let Some(activity) = plan.activity.as_ref().filter(|a| !a.explicit) else {
        return Ok(0);
    };
    if !topic && !activity.only_doing {
        return Ok(0);
    }
    // Only doing: the files join at the top; with a topic: below every match.
    let base = if activity.only_doing {
        hits.first().map_or(1.0, |h| h.1)
    } else {
        hits.last().map_or(1.0, |h| h.1) * TOPIC_FLOOR
    };
    let mut best: HashMap<UnitKey, f32> = HashMap::new();
    let files: Vec<&FileActivity> = activity
        .indexed()
        .filter(|f| activity.boosted.contains(&f.path))
        .collect();
    for (rank, file) in files.iter().enumerate() {
        // A slightly lower floor for each file keeps the log's order among equals.
        let floor = base * (1.0 - 0.001 * rank as f32);
        let mut filter = plan.filter.clone();
        filter.path_prefixes = vec![file.path.clone()];
        let found = match (topic, plan.lexical.as_ref()) {
            (true, Some(lexical)) => snapshot.lexical(lexical, &filter, 1)?.hits,
            _ => Vec::new(),
        };
        let (key, score) = match found.first() {
            Some(&(key, score)) if !activity.only_doing => (key, score),
            Some(&(key, score)) => (key, score.max(floor)),
            None => {
                let newest = snapshot.by_time(None, &filter, 1, TimeOrder::NewestFirst)?;
                match newest.hits.first() {
                    Some(&(key, _)) => (key, floor),
                    None => continue,
                }
            }
        };
        best.insert(key, score);
    }
    let mut added = 0;
    for hit in hits.iter_mut() {
        if let Some(score) = best.remove(&hit.0) {
            hit.1 = hit.1.max(score);
        }
    }
    for (key, score) in best {
        hits.push((key, score));
        added += 1;
    }
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(added)
}
