//! What the activity log says about a request, as values: the events that answer it
//! grouped by file ([`ActivityPlan`]), the window a question's time reads as
//! ([`Window`]), the reply's summary ([`ActivitySummary`]) and the factors the priors
//! apply. Built by [`super::rank`]; read by the plan, the priors and the reply.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Datelike, Timelike};
use index::{ActivityEvent, ActivityKind, UnitPath};
use serde::Serialize;

use crate::timeparse::TimeIntent;

/// Factor for a unit of a file with matching activity (a question about doing and a
/// topic).
pub const ACTIVITY_BOOST: f32 = 1.5;
/// Factor when the question is only about doing ("what was I working on …").
pub const ONLY_DOING_BOOST: f32 = 2.5;
/// A file with matching activity but no unit matching a question that also has a topic
/// joins the candidates at this share of the lowest candidate's score (so it trails
/// every match, boost included).
pub const TOPIC_FLOOR: f32 = 0.5;
/// Files a question about doing adds as candidates at most (most events first).
pub const MAX_SIGNAL_FILES: usize = 50;
/// Files an explicit activity filter restricts to at most (most events first).
pub const MAX_FILTER_FILES: usize = 1000;
/// Files listed as gone in a summary at most.
const MAX_GONE: usize = 100;

/// When matching events happened: a range in ms (UTC) and, from a question, weekdays
/// and hours (read on the UTC clock: the log has no time zone).
#[derive(Debug, Clone, Default)]
pub struct Window {
    pub from_ms: Option<i64>,
    pub to_ms: Option<i64>,
    pub weekdays: Vec<u32>,
    pub hours: Option<(u32, u32)>,
    /// For `explain`.
    pub text: String,
}

impl Window {
    /// The window of a time intent (its wall-clock range read as UTC).
    pub fn of_intent(intent: &TimeIntent) -> Window {
        let (from_ms, to_ms) = match intent.range {
            Some((a, b)) => (
                Some(a.and_utc().timestamp_millis()),
                Some(b.and_utc().timestamp_millis()),
            ),
            None => (None, None),
        };
        let mut text = intent
            .range
            .map(|(a, b)| format!("{a}..{b}"))
            .unwrap_or_else(|| "any date".to_string());
        if !intent.weekdays.is_empty() {
            text.push_str(&format!(", weekdays {:?}", intent.weekdays));
        }
        if let Some((from, to)) = intent.hours {
            text.push_str(&format!(", hours {from}..{to}"));
        }
        Window {
            from_ms,
            to_ms,
            weekdays: intent.weekdays.clone(),
            hours: intent.hours,
            text,
        }
    }

    /// Whether an event at `ms` falls on the window's weekdays and hours (the range is
    /// already the log query's).
    pub fn matches(&self, ms: i64) -> bool {
        let Some(when) = DateTime::from_timestamp_millis(ms) else {
            return false;
        };
        let weekday_ok = self.weekdays.is_empty()
            || self
                .weekdays
                .contains(&when.weekday().num_days_from_monday());
        let hour_ok = match self.hours {
            None => true,
            Some((from, to)) if from <= to => (from..to).contains(&when.hour()),
            Some((from, to)) => when.hour() >= from || when.hour() < to,
        };
        weekday_ok && hour_ok
    }
}

/// The matching events of one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileActivity {
    pub path: String,
    pub events: usize,
    /// Kinds, in order of first appearance.
    pub kinds: Vec<String>,
    /// The last event's kind and time (RFC 3339, UTC).
    pub last_kind: String,
    pub last_time: String,
    #[serde(skip)]
    pub last_ms: i64,
    /// The file is in the index now (else deleted or renamed away).
    pub indexed: bool,
}

/// What the activity log says about one request.
#[derive(Debug, Clone)]
pub struct ActivityPlan {
    /// From the request's `activity` (a filter) rather than the question (a signal).
    pub explicit: bool,
    pub only_doing: bool,
    pub kinds: Vec<ActivityKind>,
    pub window: Window,
    pub events: usize,
    pub counts: BTreeMap<String, u64>,
    /// Files with matching events, most events first, then most recent.
    pub files: Vec<FileActivity>,
    /// Indexed paths that get the signal's factor.
    pub(crate) boosted: HashSet<String>,
}

/// The activity part of a reply.
#[derive(Debug, Clone, Serialize)]
pub struct ActivitySummary {
    /// `request` (an explicit filter) or `question` (the planner's signal).
    pub origin: String,
    pub kinds: Vec<String>,
    pub range: String,
    pub events: usize,
    pub counts: BTreeMap<String, u64>,
    /// Files with matching events that are in the index.
    pub files: usize,
    /// Files with matching events that are no longer in the index, by path only.
    pub gone: Vec<FileActivity>,
}

impl ActivityPlan {
    /// The files with matching events that are in the index.
    pub fn indexed(&self) -> impl Iterator<Item = &FileActivity> {
        self.files.iter().filter(|f| f.indexed)
    }

    /// The signal's factor for a unit (`None`: no matching activity, or a filter).
    pub fn factor_for(&self, unit_path: &str) -> Option<f32> {
        if self.explicit {
            return None;
        }
        let file = UnitPath::parse(unit_path).container();
        (self.boosted.contains(file) || self.boosted.contains(unit_path)).then_some(
            if self.only_doing {
                ONLY_DOING_BOOST
            } else {
                ACTIVITY_BOOST
            },
        )
    }

    pub fn summary(&self) -> ActivitySummary {
        ActivitySummary {
            origin: if self.explicit { "request" } else { "question" }.to_string(),
            kinds: self.kinds.iter().map(|k| k.as_str().to_string()).collect(),
            range: self.window.text.clone(),
            events: self.events,
            counts: self.counts.clone(),
            files: self.indexed().count(),
            gone: self
                .files
                .iter()
                .filter(|f| !f.indexed)
                .take(MAX_GONE)
                .cloned()
                .collect(),
        }
    }

    /// The `explain` line.
    pub fn note(&self, verbs: &[String]) -> String {
        let head = if self.explicit {
            "activity (request filter)".to_string()
        } else {
            format!(
                "activity: question about doing ({verbs:?}{}) → signal ×{}",
                if self.only_doing { ", only doing" } else { "" },
                if self.only_doing {
                    ONLY_DOING_BOOST
                } else {
                    ACTIVITY_BOOST
                }
            )
        };
        let top: Vec<String> = self
            .indexed()
            .take(5)
            .map(|f| format!("{} ({} {})", f.path, f.events, f.kinds.join("/")))
            .collect();
        format!(
            "{head}; kinds {:?} in {}: {} events {:?} on {} files ({} in the index, {} gone); top: {}",
            self.kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
            self.window.text,
            self.events,
            self.counts,
            self.files.len(),
            self.indexed().count(),
            self.files.iter().filter(|f| !f.indexed).count(),
            top.join("; ")
        )
    }
}

/// Whether `path` lies under one of `prefixes` (or equals one); no prefixes: yes.
pub(crate) fn under_prefixes(path: &str, prefixes: &[String]) -> bool {
    prefixes.is_empty()
        || prefixes.iter().any(|prefix| {
            let prefix = prefix.trim_matches('/');
            prefix.is_empty()
                || path == prefix
                || path
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('#'))
        })
}

/// Events grouped by file path, most events first, then most recent.
pub(crate) fn by_file(events: &[ActivityEvent]) -> Vec<FileActivity> {
    let mut files: HashMap<&str, FileActivity> = HashMap::new();
    for event in events {
        let Some(path) = event.path.as_deref() else {
            continue;
        };
        let entry = files.entry(path).or_insert_with(|| FileActivity {
            path: path.to_string(),
            events: 0,
            kinds: Vec::new(),
            last_kind: String::new(),
            last_time: String::new(),
            last_ms: i64::MIN,
            indexed: false,
        });
        entry.events += 1;
        let kind = event.kind.as_str();
        if !entry.kinds.iter().any(|k| k == kind) {
            entry.kinds.push(kind.to_string());
        }
        if event.time_ms >= entry.last_ms {
            entry.last_ms = event.time_ms;
            entry.last_kind = kind.to_string();
            entry.last_time = super::rfc3339_of_ms(event.time_ms);
        }
    }
    let mut files: Vec<FileActivity> = files.into_values().collect();
    files.sort_by(|a, b| (b.events, b.last_ms, &a.path).cmp(&(a.events, a.last_ms, &b.path)));
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use index::ActivitySource;

    fn event(kind: ActivityKind, path: &str, ms: i64) -> ActivityEvent {
        ActivityEvent::new(kind, ActivitySource::Observed, Some(path), ms)
    }

    #[test]
    fn events_group_by_file_most_events_first() {
        let files = by_file(&[
            event(ActivityKind::Created, "a.txt", 1_000),
            event(ActivityKind::Modified, "b.txt", 2_000),
            event(ActivityKind::Modified, "a.txt", 3_000),
            event(ActivityKind::Deleted, "c.txt", 4_000),
        ]);
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a.txt", "c.txt", "b.txt"]);
        assert_eq!(files[0].kinds, ["created", "modified"]);
        assert_eq!(files[0].last_kind, "modified");
        assert_eq!(files[1].last_time, "1970-01-01T00:00:04Z");
    }

    #[test]
    fn windows_match_weekdays_and_hours_on_the_utc_clock() {
        // 2025-11-11 is a Tuesday.
        let at = |h: u32| {
            chrono::NaiveDate::from_ymd_opt(2025, 11, 11)
                .unwrap()
                .and_hms_opt(h, 0, 0)
                .unwrap()
                .and_utc()
                .timestamp_millis()
        };
        let evening = Window {
            weekdays: vec![1],
            hours: Some((17, 22)),
            ..Window::default()
        };
        assert!(evening.matches(at(19)));
        assert!(!evening.matches(at(9)));
        let night = Window {
            hours: Some((22, 5)),
            ..Window::default()
        };
        assert!(night.matches(at(23)) && night.matches(at(2)) && !night.matches(at(12)));
        assert!(under_prefixes("Docs/a.txt", &["Docs/".into()]));
        assert!(under_prefixes(
            "Mail/x.eml#attachment/a.pdf",
            &["Mail/x.eml".into()]
        ));
        assert!(!under_prefixes("Docsy/a.txt", &["Docs".into()]));
        assert!(under_prefixes("a.txt", &[]));
    }
}
