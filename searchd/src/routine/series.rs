//! Recurring calendar series: events with a recurrence rule (`rrule`), and events with
//! the same title at the same weekday and hour at least [`MIN_REPEATS`] times.

use std::collections::BTreeMap;

use chrono::{Datelike, Duration, NaiveDate, Timelike};
use serde::Serialize;

use super::evidence::{Evidence, EvidenceList};
use super::grid::WEEKDAYS;
use super::input::UnitSample;

/// Occurrences of one title at one weekday and hour that make a series.
pub const MIN_REPEATS: usize = 3;
/// Days an `rrule` is expanded over at most (× 7) and occurrences counted at most.
const MAX_EXPANSION: u64 = 5000;

/// One recurring series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub title: String,
    /// `rrule` (a recurrence rule) or `repeated` (separate events).
    pub source: &'static str,
    /// Lower-case weekday names.
    pub weekdays: Vec<String>,
    /// Local `HH:MM`.
    pub local_time: String,
    /// Occurrences (`None`: an open-ended or unsupported rule).
    pub count: Option<u64>,
    /// First date (YYYY-MM-DD).
    pub first: String,
    /// Last date (`None`: open-ended).
    pub last: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rrule: Option<String>,
    pub evidence: EvidenceList,
}

/// The series among `units` (calendar events; other units are ignored). Units with a
/// rule are series of their own; the others are grouped by title, weekday and hour.
pub fn series(units: &[&UnitSample], cap: usize) -> Vec<Series> {
    let mut found = Vec::new();
    let mut repeated: BTreeMap<(String, usize, u32), Vec<&UnitSample>> = BTreeMap::new();
    for unit in units.iter().filter(|u| u.kind == "event") {
        match unit.fields.get("rrule").filter(|r| !r.trim().is_empty()) {
            Some(rule) => found.push(rule_series(unit, rule, cap)),
            None => {
                let key = (
                    unit.title.trim().to_lowercase(),
                    unit.local.weekday().num_days_from_monday() as usize,
                    unit.local.hour(),
                );
                repeated.entry(key).or_default().push(unit);
            }
        }
    }
    for ((_, day, _), mut group) in repeated {
        if group.len() < MIN_REPEATS || group[0].title.trim().is_empty() {
            continue;
        }
        group.sort_by(|a, b| (a.local, &a.path).cmp(&(b.local, &b.path)));
        let mut times: BTreeMap<String, usize> = BTreeMap::new();
        let mut evidence = EvidenceList::default();
        for unit in &group {
            *times
                .entry(unit.local.format("%H:%M").to_string())
                .or_default() += 1;
            evidence.push(Evidence::unit(&unit.path, &unit.unit_id, unit.local), cap);
        }
        // The most common time (the earliest of equals).
        let local_time = times
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(t, _)| t.clone())
            .unwrap_or_default();
        found.push(Series {
            title: group[0].title.trim().to_string(),
            source: "repeated",
            weekdays: vec![WEEKDAYS[day].to_string()],
            local_time,
            count: Some(group.len() as u64),
            first: group[0].local.date().to_string(),
            last: group.last().map(|u| u.local.date().to_string()),
            rrule: None,
            evidence,
        });
    }
    found.sort_by(|a, b| {
        b.count
            .unwrap_or(0)
            .cmp(&a.count.unwrap_or(0))
            .then_with(|| a.title.cmp(&b.title))
            .then_with(|| a.first.cmp(&b.first))
    });
    found
}

/// A recurrence rule read from an event unit (daily and weekly rules are expanded;
/// other frequencies are only described).
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    start: NaiveDate,
    /// `Some(true)` weekly, `Some(false)` daily, `None` another frequency.
    weekly: Option<bool>,
    interval: i64,
    /// 0 = Monday.
    weekdays: Vec<usize>,
    until: Option<NaiveDate>,
    count: Option<u64>,
    exdates: Vec<NaiveDate>,
}

impl Rule {
    /// The rule of an event unit with an `rrule` field.
    pub fn of(unit: &UnitSample) -> Option<Rule> {
        let text = unit.fields.get("rrule").filter(|r| !r.trim().is_empty())?;
        let parts = converters::rrule::rule_parts(text);
        let mut weekdays: Vec<usize> = converters::rrule::bydays(&parts)
            .into_iter()
            .map(|(_, day)| day.num_days_from_monday() as usize)
            .collect();
        if weekdays.is_empty() {
            weekdays.push(unit.local.weekday().num_days_from_monday() as usize);
        }
        weekdays.sort_unstable();
        weekdays.dedup();
        Some(Rule {
            start: unit.local.date(),
            weekly: match parts.get("FREQ").map(String::as_str) {
                Some("WEEKLY") => Some(true),
                Some("DAILY") => Some(false),
                _ => None,
            },
            interval: parts
                .get("INTERVAL")
                .and_then(|i| i.parse::<i64>().ok())
                .filter(|&i| i > 0)
                .unwrap_or(1),
            weekdays,
            until: parts.get("UNTIL").and_then(|u| until_date(u)),
            count: parts.get("COUNT").and_then(|c| c.parse::<u64>().ok()),
            exdates: unit
                .fields
                .get("exdates")
                .map(|d| {
                    d.split(',')
                        .filter_map(|d| NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d").ok())
                        .collect()
                })
                .unwrap_or_default(),
        })
    }

    /// Occurrence dates from the start up to `stop` (inclusive; `None`: the rule's own
    /// end), at most `limit`; only the first date for a rule that is not daily or weekly.
    pub fn dates(&self, stop: Option<NaiveDate>, limit: usize) -> Vec<NaiveDate> {
        let Some(weekly) = self.weekly else {
            return vec![self.start];
        };
        let monday =
            |d: NaiveDate| d - Duration::days(i64::from(d.weekday().num_days_from_monday()));
        let mut dates = Vec::new();
        let mut day = self.start;
        // COUNT counts excluded dates too (RFC 5545); they are not occurrences.
        let mut generated = 0;
        for _ in 0..MAX_EXPANSION * 7 {
            let past = |end: Option<NaiveDate>| end.is_some_and(|end| day > end);
            if past(self.until) || past(stop) || self.count.is_some_and(|c| generated >= c) {
                break;
            }
            if dates.len() >= limit {
                break;
            }
            let on = if weekly {
                (monday(day) - monday(self.start)).num_days() / 7 % self.interval == 0
                    && self
                        .weekdays
                        .contains(&(day.weekday().num_days_from_monday() as usize))
            } else {
                (day - self.start).num_days() % self.interval == 0
            };
            if on {
                generated += 1;
                if !self.exdates.contains(&day) {
                    dates.push(day);
                }
            }
            day += Duration::days(1);
        }
        dates
    }

    /// Whether the rule ends (`COUNT` or `UNTIL`).
    pub fn ends(&self) -> bool {
        self.count.is_some() || self.until.is_some()
    }

    /// Occurrences and last date; `None` for an open-ended rule, and the rule's own
    /// figures for one that is not expanded.
    fn extent(&self) -> (Option<u64>, Option<NaiveDate>) {
        if !self.ends() {
            return (None, None);
        }
        if self.weekly.is_none() {
            return (self.count, self.until);
        }
        let dates = self.dates(None, MAX_EXPANSION as usize);
        (Some(dates.len() as u64), dates.last().copied())
    }
}

fn rule_series(unit: &UnitSample, text: &str, cap: usize) -> Series {
    let rule = Rule::of(unit);
    let (count, last) = rule.as_ref().map(Rule::extent).unwrap_or((None, None));
    let mut evidence = EvidenceList::default();
    evidence.push(Evidence::unit(&unit.path, &unit.unit_id, unit.local), cap);
    Series {
        title: unit.title.trim().to_string(),
        source: "rrule",
        weekdays: rule
            .map(|r| {
                r.weekdays
                    .iter()
                    .map(|&d| WEEKDAYS[d].to_string())
                    .collect()
            })
            .unwrap_or_default(),
        local_time: unit
            .fields
            .get("time_of_day")
            .cloned()
            .unwrap_or_else(|| unit.local.format("%H:%M").to_string()),
        count,
        first: unit.local.date().to_string(),
        last: last.map(|d| d.to_string()),
        rrule: Some(text.to_string()),
        evidence,
    }
}

/// The date of an `UNTIL` value (`20251217T075959Z` or `20251217`), as written (a UTC
/// instant late in the day stays on its date for zones west of UTC, which is the
/// common case; east of UTC it may be a day late).
fn until_date(value: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(value.get(..8)?, "%Y%m%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn local_of(text: &str) -> chrono::NaiveDateTime {
        crate::timeline::local_time(text, 0)
    }

    fn event(id: &str, title: &str, time: &str, fields: &[(&str, &str)]) -> UnitSample {
        UnitSample {
            unit_id: id.to_string(),
            path: format!("Calendar/{id}.ics"),
            kind: "event".to_string(),
            file_type: "ics".to_string(),
            local: local_of(time),
            title: title.to_string(),
            fields: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn weekly_rule_with_until_and_exdate() {
        let choir = event(
            "choir",
            "Choir rehearsal",
            "2025-10-01T18:00:00-07:00",
            &[
                ("rrule", "FREQ=WEEKLY;BYDAY=WE;UNTIL=20251217T075959Z"),
                ("time_of_day", "18:00"),
                ("exdates", "2025-11-26"),
            ],
        );
        let found = series(&[&choir], 5);
        assert_eq!(found.len(), 1);
        let s = &found[0];
        assert_eq!(s.source, "rrule");
        assert_eq!(s.weekdays, vec!["wednesday"]);
        assert_eq!(s.local_time, "18:00");
        // 1 Oct … 17 Dec is 12 Wednesdays, less 26 Nov.
        assert_eq!(s.count, Some(11));
        assert_eq!(
            (s.first.as_str(), s.last.as_deref()),
            ("2025-10-01", Some("2025-12-17"))
        );
        assert_eq!(s.evidence.items()[0].unit_id.as_deref(), Some("choir"));
    }

    #[test]
    fn count_rules_interval_and_open_ended() {
        let standup = event(
            "standup",
            "Standup",
            "2025-10-06T09:15:00+02:00",
            &[("rrule", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=5")],
        );
        let open = event(
            "gym",
            "Gym",
            "2025-10-07T07:00:00+02:00",
            &[("rrule", "FREQ=WEEKLY")],
        );
        let found = series(&[&standup, &open], 5);
        let standup = found.iter().find(|s| s.title == "Standup").unwrap();
        // 6, 9, 20, 23 Oct and 3 Nov.
        assert_eq!(standup.count, Some(5));
        assert_eq!(standup.last.as_deref(), Some("2025-11-03"));
        assert_eq!(standup.weekdays, vec!["monday", "thursday"]);
        assert_eq!(standup.local_time, "09:15");
        let gym = found.iter().find(|s| s.title == "Gym").unwrap();
        assert_eq!((gym.count, gym.last.as_deref()), (None, None));
        assert_eq!(gym.weekdays, vec!["tuesday"]);
    }

    #[test]
    fn rule_dates_stop_at_the_range_and_skip_exdates() {
        // Every other week on Monday and Thursday, starting on a Thursday: weeks are
        // counted Monday to Sunday.
        let unit = event(
            "x",
            "X",
            "2025-10-09T08:00:00+00:00",
            &[
                ("rrule", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH"),
                ("exdates", "2025-10-23"),
            ],
        );
        let rule = Rule::of(&unit).unwrap();
        assert!(!rule.ends());
        let stop = NaiveDate::from_ymd_opt(2025, 11, 6);
        let dates: Vec<String> = rule
            .dates(stop, 100)
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(
            dates,
            vec!["2025-10-09", "2025-10-20", "2025-11-03", "2025-11-06"]
        );
        assert_eq!(rule.dates(stop, 2).len(), 2);
        let monthly = event(
            "m",
            "M",
            "2025-10-09T08:00:00+00:00",
            &[("rrule", "FREQ=MONTHLY;COUNT=3")],
        );
        let rule = Rule::of(&monthly).unwrap();
        assert_eq!(rule.dates(stop, 100).len(), 1);
        assert_eq!(series(&[&monthly], 1)[0].count, Some(3));
    }

    #[test]
    fn three_same_slot_events_make_a_series_two_do_not() {
        let units = [
            event("a", "Piano lesson", "2025-10-02T17:00:00+01:00", &[]),
            event("b", "piano lesson ", "2025-10-09T17:30:00+01:00", &[]),
            event("c", "Piano lesson", "2025-10-16T17:00:00+01:00", &[]),
            event("d", "Dentist", "2025-10-02T17:00:00+01:00", &[]),
            event("e", "Dentist", "2025-10-09T17:00:00+01:00", &[]),
            // Same title, another weekday: not in the Thursday series.
            event("f", "Piano lesson", "2025-10-18T17:00:00+01:00", &[]),
        ];
        let refs: Vec<&UnitSample> = units.iter().collect();
        let found = series(&refs, 2);
        assert_eq!(found.len(), 1, "{found:?}");
        let piano = &found[0];
        assert_eq!(piano.source, "repeated");
        assert_eq!(piano.title, "Piano lesson");
        assert_eq!(piano.weekdays, vec!["thursday"]);
        assert_eq!(piano.local_time, "17:00");
        assert_eq!(piano.count, Some(3));
        assert_eq!(
            (piano.first.as_str(), piano.last.as_deref()),
            ("2025-10-02", Some("2025-10-16"))
        );
        assert_eq!(piano.evidence.items().len(), 2);
    }
}
