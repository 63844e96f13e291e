//! Activity on the timeline: each day lists its events (oldest first) and counts them by
//! kind; each event's file is listed under its folder with the kinds it had that day,
//! with no units when only its activity falls on that day (a deleted file is listed so
//! too: by path, never looked up on disk). Events are placed on days by their UTC date
//! (the log has no time zone).

use index::{ActivityEvent, UnitPath};

use super::ActivityEntry;
use crate::days::{TimelineDay, TimelineFile, TimelineFolder};
use crate::planner::folder_of;

/// The UTC date (YYYY-MM-DD) of a time in milliseconds.
fn date_of(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.date_naive().to_string())
        .unwrap_or_default()
}

/// The day for `date`, inserted in order when missing.
fn day_for<'a>(days: &'a mut Vec<TimelineDay>, date: &str) -> &'a mut TimelineDay {
    let at = match days.binary_search_by(|d| d.date.as_str().cmp(date)) {
        Ok(at) => at,
        Err(at) => {
            days.insert(
                at,
                TimelineDay {
                    date: date.to_string(),
                    units: 0,
                    folders: Vec::new(),
                    activity: Vec::new(),
                    activity_counts: Default::default(),
                },
            );
            at
        }
    };
    &mut days[at]
}

/// Adds `events` (oldest first) to `days` (ascending by date).
pub fn add_activity(days: &mut Vec<TimelineDay>, events: &[ActivityEvent]) {
    for event in events {
        let day = day_for(days, &date_of(event.time_ms));
        let kind = event.kind.as_str();
        day.activity.push(ActivityEntry::of(event));
        *day.activity_counts.entry(kind.to_string()).or_default() += 1;
        let Some(path) = event.path.as_deref() else {
            continue;
        };
        let folder = folder_of(path);
        let folder_index = match day.folders.iter().position(|f| f.folder == folder) {
            Some(i) => i,
            None => {
                day.folders.push(TimelineFolder {
                    folder: folder.to_string(),
                    files: Vec::new(),
                });
                day.folders.len() - 1
            }
        };
        let files = &mut day.folders[folder_index].files;
        match files.iter_mut().find(|f| f.path == path) {
            Some(file) => {
                if !file.activity.iter().any(|k| k == kind) {
                    file.activity.push(kind.to_string());
                }
            }
            None => files.push(TimelineFile {
                path: path.to_string(),
                title: UnitPath::parse(path).name().to_string(),
                units: 0,
                first: None,
                activity: vec![kind.to_string()],
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::days::{group, local_time, TimelineUnit};
    use index::{ActivityKind, ActivitySource};

    fn ms(text: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    #[test]
    fn events_join_their_days_folders_and_files() {
        let time = "2024-03-05T09:00:00+00:00";
        let unit = TimelineUnit {
            unit_id: "n:0".into(),
            path: "Notes/x.md".into(),
            title: "x".into(),
            kind: "span".into(),
            ordinal: 0,
            locator: Default::default(),
            content_time: time.into(),
            local: local_time(time, 0),
            snippet: String::new(),
            text: String::new(),
        };
        let mut days = group(vec![unit]);
        let mut renamed = ActivityEvent::new(
            ActivityKind::Renamed,
            ActivitySource::Watch,
            Some("Notes/x.md"),
            ms("2024-03-05T10:00:00Z"),
        );
        renamed.old_path = Some("Notes/draft.md".into());
        let events = vec![
            ActivityEvent::new(
                ActivityKind::Deleted,
                ActivitySource::Observed,
                Some("Old/gone.txt"),
                ms("2024-03-04T23:00:00Z"),
            ),
            renamed,
            ActivityEvent::new(
                ActivityKind::Modified,
                ActivitySource::Watch,
                Some("Notes/x.md"),
                ms("2024-03-05T11:00:00Z"),
            ),
            ActivityEvent::new(
                ActivityKind::Searched,
                ActivitySource::Trace,
                None,
                ms("2024-03-06T08:00:00Z"),
            ),
        ];
        add_activity(&mut days, &events);
        let dates: Vec<&str> = days.iter().map(|d| d.date.as_str()).collect();
        assert_eq!(dates, ["2024-03-04", "2024-03-05", "2024-03-06"]);
        // A deleted file: listed by path, no units.
        let gone = &days[0].folders[0].files[0];
        assert_eq!((gone.path.as_str(), gone.units), ("Old/gone.txt", 0));
        assert!(gone.first.is_none());
        assert_eq!(gone.activity, ["deleted"]);
        // A file with units and activity the same day: one entry, both.
        let tuesday = &days[1];
        assert_eq!(tuesday.folders.len(), 1);
        let file = &tuesday.folders[0].files[0];
        assert_eq!(file.units, 1);
        assert_eq!(file.activity, ["renamed", "modified"]);
        assert_eq!(
            tuesday.activity[0].old_path.as_deref(),
            Some("Notes/draft.md")
        );
        assert_eq!(tuesday.activity_counts["modified"], 1);
        // An event about no file: counted, no file.
        assert!(days[2].folders.is_empty());
        assert_eq!(days[2].activity[0].kind, "searched");
    }
}
