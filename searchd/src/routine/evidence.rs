//! Evidence: the files, units and activity events behind a figure, so an answer built
//! on the routine can cite them.

use chrono::NaiveDateTime;
use serde::Serialize;

/// One piece of evidence: a unit of a file, a file, or an activity event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// Profile-relative path (empty for an activity event about no single file).
    pub path: String,
    /// The unit behind a content figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit_id: Option<String>,
    /// The activity-log position behind an activity figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<i64>,
    /// Local wall-clock time (`YYYY-MM-DDTHH:MM`), when the figure is about time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

impl Evidence {
    pub fn unit(path: &str, unit_id: &str, local: NaiveDateTime) -> Evidence {
        Evidence {
            path: path.to_string(),
            unit_id: Some(unit_id.to_string()),
            seq: None,
            time: Some(minute_text(local)),
        }
    }

    pub fn event(path: Option<&str>, seq: i64, local: NaiveDateTime) -> Evidence {
        Evidence {
            path: path.unwrap_or_default().to_string(),
            unit_id: None,
            seq: Some(seq),
            time: Some(minute_text(local)),
        }
    }

    pub fn file(path: &str) -> Evidence {
        Evidence {
            path: path.to_string(),
            unit_id: None,
            seq: None,
            time: None,
        }
    }
}

/// `YYYY-MM-DDTHH:MM`.
pub fn minute_text(local: NaiveDateTime) -> String {
    local.format("%Y-%m-%dT%H:%M").to_string()
}

/// A capped list of evidence with one entry per file and time (several units of one
/// file at one moment, such as the pages of a PDF dated by its file, say no more than
/// one).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct EvidenceList(pub Vec<Evidence>);

impl EvidenceList {
    pub fn push(&mut self, evidence: Evidence, cap: usize) {
        if self.0.len() >= cap {
            return;
        }
        let repeated = !evidence.path.is_empty()
            && self
                .0
                .iter()
                .any(|e| e.path == evidence.path && e.time == evidence.time);
        if !repeated {
            self.0.push(evidence);
        }
    }

    pub fn items(&self) -> &[Evidence] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_file_and_time_up_to_the_cap() {
        let t = chrono::NaiveDate::from_ymd_opt(2025, 10, 1)
            .unwrap()
            .and_hms_opt(18, 5, 0)
            .unwrap();
        let mut list = EvidenceList::default();
        let later = t + chrono::Duration::hours(1);
        list.push(Evidence::unit("a.ics", "u1", t), 3);
        list.push(Evidence::unit("a.ics", "u2", t), 3);
        list.push(Evidence::unit("a.ics", "u3", later), 3);
        list.push(Evidence::event(None, 7, t), 3);
        list.push(Evidence::unit("b.ics", "u4", t), 3);
        let ids: Vec<_> = list
            .items()
            .iter()
            .map(|e| (e.path.as_str(), e.unit_id.clone(), e.seq))
            .collect();
        assert_eq!(
            ids,
            vec![
                ("a.ics", Some("u1".to_string()), None),
                ("a.ics", Some("u3".to_string()), None),
                ("", None, Some(7))
            ]
        );
        assert_eq!(list.items()[0].time.as_deref(), Some("2025-10-01T18:05"));
    }
}
