//! The gRPC forms of the activity types (`dentate.v1`).

use dentate_proto::v1 as pb;

use super::rank::{ActivitySummary, FileActivity};
use super::{ActivityEntry, ActivityFilter};

/// A request's filter (`None` when the message is absent).
pub fn filter_of(filter: Option<pb::ActivityFilter>) -> Option<ActivityFilter> {
    let filter = filter?;
    let range = filter.range.unwrap_or_default();
    Some(ActivityFilter {
        kinds: filter.kinds,
        start: (range.start != 0).then_some(range.start),
        end: (range.end != 0).then_some(range.end),
        when: (!filter.when.trim().is_empty()).then_some(filter.when),
    })
}

pub fn event_of(entry: &ActivityEntry) -> pb::ActivityEvent {
    pb::ActivityEvent {
        seq: entry.seq,
        kind: entry.kind.clone(),
        path: entry.path.clone(),
        old_path: entry.old_path.clone().unwrap_or_default(),
        time: entry.time.clone(),
        time_ms: entry.time_ms,
        source: entry.source.clone(),
        size_delta: entry.size_delta,
        session: entry.session.clone().unwrap_or_default(),
    }
}

fn file_of(file: &FileActivity) -> pb::ActivityFile {
    pb::ActivityFile {
        path: file.path.clone(),
        events: file.events as u32,
        kinds: file.kinds.clone(),
        last_kind: file.last_kind.clone(),
        last_time: file.last_time.clone(),
    }
}

pub fn summary_of(summary: Option<&ActivitySummary>) -> Option<pb::ActivitySummary> {
    let summary = summary?;
    Some(pb::ActivitySummary {
        origin: summary.origin.clone(),
        kinds: summary.kinds.clone(),
        range: summary.range.clone(),
        events: summary.events as u64,
        counts: summary.counts.clone().into_iter().collect(),
        files: summary.files as u32,
        gone: summary.gone.iter().map(file_of).collect(),
    })
}

/// The activity fields of a timeline day: its events and their counts.
pub fn day_activity(
    day: &crate::days::TimelineDay,
) -> (
    Vec<pb::ActivityEvent>,
    std::collections::HashMap<String, u64>,
) {
    (
        day.activity.iter().map(event_of).collect(),
        day.activity_counts.clone().into_iter().collect(),
    )
}
