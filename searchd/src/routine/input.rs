//! What the routine is computed from, independent of the storage: units with a content
//! time, activity events and file records, each already in local wall-clock time.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;

/// A unit with a content time.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitSample {
    pub unit_id: String,
    pub path: String,
    /// Unit kind (`event`, `message`, `page`, …).
    pub kind: String,
    /// File type (`ics`, `eml`, `pdf`, `text`, …).
    pub file_type: String,
    /// Local wall-clock time (the unit's own offset).
    pub local: NaiveDateTime,
    pub title: String,
    /// The converter's fields the routine reads (people, recurrence).
    pub fields: BTreeMap<String, String>,
}

/// An event of the activity log.
#[derive(Debug, Clone, PartialEq)]
pub struct EventSample {
    pub seq: i64,
    pub path: Option<String>,
    /// `created`, `modified`, …
    pub kind: String,
    /// `observed`, `trace`, …
    pub source: String,
    /// Local wall-clock time (the routine's UTC offset).
    pub local: NaiveDateTime,
}

/// A file of the profile (attachments excluded).
#[derive(Debug, Clone, PartialEq)]
pub struct FileSample {
    pub path: String,
    /// Lower-case extension without the dot.
    pub ext: String,
}

/// The fields of a unit the routine uses; the rest are dropped when sampling.
pub const ROUTINE_FIELDS: [&str; 10] = [
    "from",
    "to",
    "cc",
    "organizer",
    "attendees",
    "rrule",
    "weekdays",
    "time_of_day",
    "exdates",
    "recurrence_id",
];

/// The folder a path is grouped under: the first folder below `base` (`base` itself,
/// shown as `.` or `base`, for files directly in it). Attachments go with their
/// containing file.
pub fn group_folder(path: &str, base: &str) -> String {
    let container = index::UnitPath::parse(path).container().to_string();
    let base = base.trim_matches('/');
    let rest = if base.is_empty() {
        container.as_str()
    } else {
        container
            .strip_prefix(base)
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(container.as_str())
    };
    match rest.split_once('/') {
        Some((first, _)) if base.is_empty() => first.to_string(),
        Some((first, _)) => format!("{base}/{first}"),
        None if base.is_empty() => ".".to_string(),
        None => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_group_one_level_below_the_base() {
        assert_eq!(group_folder("Mail/Inbox/a.eml", ""), "Mail");
        assert_eq!(group_folder("todo.txt", ""), ".");
        assert_eq!(group_folder("Mail/Inbox/a.eml", "Mail"), "Mail/Inbox");
        assert_eq!(group_folder("Mail/a.eml", "Mail/"), "Mail");
        assert_eq!(
            group_folder("Mail/Inbox/a.eml#attachment/q.pdf", "Mail"),
            "Mail/Inbox"
        );
    }
}
