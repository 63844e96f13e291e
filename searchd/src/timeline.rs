//! The timeline: units in a time range grouped by local day, then by folder, then by
//! file (each file with its unit count and its first unit). The grouping is pure; the
//! engine scans the index and fills in snippets.

use chrono::{DateTime, NaiveDateTime};
use converters::Locator;
use serde::Serialize;

use crate::planner::folder_of;

/// Units a timeline scans at most.
pub const MAX_TIMELINE_UNITS: usize = 5000;

/// A timeline request, independent of the transport.
#[derive(Debug, Clone, Default)]
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
}

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
    /// Units of the file in the range on this day.
    pub units: usize,
    pub first: TimelineUnit,
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
                first: unit,
            }),
        }
    }
    days
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!((notes.units, notes.first.ordinal), (2, 0));
        assert_eq!(days[1].date, "2024-03-05");
        assert_eq!(days[1].folders[0].files[0].path, "Mail/Inbox/b.eml");
    }
}
