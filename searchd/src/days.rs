//! Units grouped by local day, then folder, then file (each file with its unit count
//! and first unit), and the values a timeline answers with; pure, read by the timeline
//! query and the activity log's part of it.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDateTime};
use converters::Locator;
use serde::Serialize;

use crate::planner::folder_of;

/// One unit in the range.
#[derive(Debug, Clone, Serialize)]
pub struct TimelineUnit {
    pub unit_id: String,
    pub path: String,
    /// The file's title (or name).
    pub title: String,
    pub kind: String,
    pub ordinal: u64,
    pub locator: Locator,
    /// RFC 3339 with the unit's own offset.
    pub content_time: String,
    /// Local wall-clock time (from `content_time`).
    #[serde(skip)]
    pub local: NaiveDateTime,
    /// Filled for the first unit of each file.
    pub snippet: String,
    #[serde(skip)]
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineFile {
    pub path: String,
    pub title: String,
    /// Units of the file in the range on this day (0: only activity).
    pub units: usize,
    /// The file's first unit that day (`None`: only activity).
    pub first: Option<TimelineUnit>,
    /// Kinds of the file's activity events that day, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub activity: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineFolder {
    pub folder: String,
    pub files: Vec<TimelineFile>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineDay {
    /// YYYY-MM-DD, local wall clock.
    pub date: String,
    pub units: usize,
    pub folders: Vec<TimelineFolder>,
    /// The activity log's events that day (UTC date), oldest first.
    pub activity: Vec<crate::activity::ActivityEntry>,
    /// Those events per kind.
    pub activity_counts: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineOutcome {
    pub days: Vec<TimelineDay>,
    /// The range used, as text.
    pub range: String,
    pub units_scanned: u64,
    pub units_matched: u64,
    /// More units were in the window than were scanned.
    pub truncated: bool,
    /// Activity events in the range (after the kind filter).
    pub activity_events: u64,
    pub took_ms: f64,
    pub notes: Vec<String>,
}

/// The local wall-clock time of a unit: its RFC 3339 text's own clock, else UTC.
pub fn local_time(content_time_text: &str, unix: i64) -> NaiveDateTime {
    DateTime::parse_from_rfc3339(content_time_text)
        .map(|t| t.naive_local())
        .unwrap_or_else(|_| {
            DateTime::from_timestamp(unix, 0)
                .unwrap_or_default()
                .naive_utc()
        })
}

/// Groups units by day (ascending), folder and file (in order of their first unit).
pub fn group(mut units: Vec<TimelineUnit>) -> Vec<TimelineDay> {
    units.sort_by(|a, b| (a.local, &a.path, a.ordinal).cmp(&(b.local, &b.path, b.ordinal)));
    let mut days: Vec<TimelineDay> = Vec::new();
    for unit in units {
        let date = unit.local.date().to_string();
        if days.last().is_none_or(|d| d.date != date) {
            days.push(TimelineDay {
                date,
                units: 0,
                folders: Vec::new(),
                activity: Vec::new(),
                activity_counts: BTreeMap::new(),
            });
        }
        let Some(day) = days.last_mut() else {
            continue;
        };
        day.units += 1;
        let folder = folder_of(&unit.path).to_string();
        let folder_index = match day.folders.iter().position(|f| f.folder == folder) {
            Some(i) => i,
            None => {
                day.folders.push(TimelineFolder {
                    folder,
                    files: Vec::new(),
                });
                day.folders.len() - 1
            }
        };
        let files = &mut day.folders[folder_index].files;
        match files.iter_mut().find(|f| f.path == unit.path) {
            Some(file) => file.units += 1,
            None => files.push(TimelineFile {
                path: unit.path.clone(),
                title: unit.title.clone(),
                units: 1,
                first: Some(unit),
                activity: Vec::new(),
            }),
        }
    }
    days
}
