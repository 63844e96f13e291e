//! Reading what the routine is computed from: the request's range and folder, the units
//! in range (bounded, newest first), the activity log and the file records, all in
//! local wall-clock time.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, Timelike};
use index::api::{SearchBackend, SearchSnapshot, TimeOrder, UnitFilter};
use index::manifest::FileStatus;
use index::{ActivityQuery, ActivitySource, StoredUnit};

use super::input::{EventSample, FileSample, UnitSample, ROUTINE_FIELDS};
use super::RoutineParams;
use crate::error::SearchError;
use crate::guard::PathGuard;

/// Slack around a wall-clock range: the widest UTC offsets.
const ZONE_SLACK: i64 = 14 * 3600;
/// The widest UTC offset accepted, in minutes.
const MAX_OFFSET_MINUTES: i32 = 14 * 60;

/// A unit in range. `clock` is false for a date without a time of day (midnight UTC:
/// dated records, all-day entries), which has a weekday but no hour; `own_time` false
/// for a unit dated only by its file's modification time (when the file was last
/// written or copied, not when its content happened).
#[derive(Debug, Clone)]
pub struct ScannedUnit {
    pub sample: UnitSample,
    pub clock: bool,
    pub own_time: bool,
    /// Unix seconds.
    pub instant: i64,
}

/// One routine request's reading state.
pub struct Scan<'a> {
    backend: &'a dyn SearchBackend,
    snapshot: &'a dyn SearchSnapshot,
    guard: PathGuard,
    /// The folder (no leading or trailing `/`; empty: everything).
    pub folder: String,
    /// A wall-clock range (`when`).
    wall: Option<(NaiveDateTime, NaiveDateTime)>,
    /// Unix seconds.
    lower: Option<i64>,
    upper: Option<i64>,
    pub range_text: String,
    /// The newest content time's date (or `reference_time`'s): where open-ended rules
    /// stop without a range end.
    pub reference_date: NaiveDate,
    /// `reference_time`'s date, when given.
    pub reference_date_given: Option<NaiveDate>,
    offset_given: Option<i32>,
    sources: Vec<String>,
    /// The UTC offset used for activity (and UTC content times), seconds.
    pub offset_seconds: i32,
    pub notes: Vec<String>,
    pub units_scanned: u64,
    pub units_in_range: u64,
    pub truncated: bool,
    pub activity_available: bool,
    /// Per file id: inside the profile, and its modification time (Unix seconds).
    allowed: HashMap<String, bool>,
    mtimes: HashMap<String, Option<i64>>,
}

/// `+HH:MM`.
pub fn offset_text(seconds: i32) -> String {
    FixedOffset::east_opt(seconds)
        .map(|o| o.to_string())
        .unwrap_or_else(|| "+00:00".into())
}

/// A folder parameter, cleaned: no leading or trailing `/`, no `.` or `..` parts.
fn clean_folder(folder: &str) -> Result<String, SearchError> {
    let folder = folder.trim().trim_matches('/');
    if folder.chars().count() > crate::query::MAX_QUERY_CHARS {
        return Err(SearchError::invalid(format!(
            "folder longer than {} characters",
            crate::query::MAX_QUERY_CHARS
        )));
    }
    if folder
        .split('/')
        .any(|part| part == ".." || part == "." || (part.is_empty() && !folder.is_empty()))
        || folder.contains('\0')
    {
        return Err(SearchError::invalid(format!(
            "folder {folder:?} is not a plain profile-relative folder (no \"..\", \".\" or empty parts)"
        )));
    }
    Ok(folder.to_string())
}

impl<'a> Scan<'a> {
    /// Checks the request and resolves its range.
    pub fn new(
        backend: &'a dyn SearchBackend,
        snapshot: &'a dyn SearchSnapshot,
        params: &RoutineParams,
    ) -> Result<Scan<'a>, SearchError> {
        let folder = clean_folder(&params.folder)?;
        if let Some(minutes) = params.utc_offset_minutes {
            if minutes.abs() > MAX_OFFSET_MINUTES {
                return Err(SearchError::invalid(format!(
                    "utc_offset_minutes {minutes} is outside -{MAX_OFFSET_MINUTES}..{MAX_OFFSET_MINUTES}"
                )));
            }
        }
        let reference_date = crate::priors::reference_time(snapshot, params.reference_time)?.date();
        let mut scan = Scan {
            reference_date,
            reference_date_given: params
                .reference_time
                .and_then(|t| DateTime::from_timestamp(t, 0))
                .map(|t| t.date_naive()),
            backend,
            snapshot,
            guard: PathGuard::of(backend),
            folder,
            wall: None,
            lower: params.start,
            upper: params.end,
            range_text: "all time".into(),
            offset_given: params.utc_offset_minutes.map(|m| m * 60),
            sources: params.sources.clone(),
            offset_seconds: 0,
            notes: Vec::new(),
            units_scanned: 0,
            units_in_range: 0,
            truncated: false,
            activity_available: true,
            allowed: HashMap::new(),
            mtimes: HashMap::new(),
        };
        let when = params
            .when
            .as_deref()
            .map(str::trim)
            .filter(|w| !w.is_empty());
        if let Some(when) = when {
            if when.chars().count() > crate::query::MAX_QUERY_CHARS {
                return Err(SearchError::invalid(format!(
                    "when longer than {} characters",
                    crate::query::MAX_QUERY_CHARS
                )));
            }
            if params.start.is_some() || params.end.is_some() {
                return Err(SearchError::invalid(
                    "give either start/end or when, not both",
                ));
            }
            let reference = crate::priors::reference_time(snapshot, params.reference_time)?;
            let intent = crate::timeparse::parse(when, reference);
            let Some((a, b)) = intent.range else {
                return Err(SearchError::invalid(format!(
                    "no date range understood in {when:?} (try \"last month\", \"the week of 6 October\", \"2025\")"
                )));
            };
            scan.notes.push(format!(
                "when: {:?} (reference {}) → {a}..{b} (local wall clock)",
                intent.phrases,
                reference.date()
            ));
            scan.wall = Some((a, b));
            scan.lower = Some(a.and_utc().timestamp() - ZONE_SLACK);
            scan.upper = Some(b.and_utc().timestamp() + ZONE_SLACK);
            scan.range_text = format!("{a}..{b}");
        } else if params.start.is_some() || params.end.is_some() {
            if let (Some(a), Some(b)) = (params.start, params.end) {
                if a >= b {
                    return Err(SearchError::invalid("time range is empty (start >= end)"));
                }
            }
            let text = |t: Option<i64>| {
                t.and_then(|t| DateTime::from_timestamp(t, 0))
                    .map(|t| t.to_rfc3339())
                    .unwrap_or_default()
            };
            scan.range_text = format!("{}..{}", text(params.start), text(params.end));
        }
        Ok(scan)
    }

    /// Whether a time is in range: its wall clock for `when`, else its instant.
    fn in_range(&self, local: NaiveDateTime, unix: i64) -> bool {
        match self.wall {
            Some((a, b)) => (a..b).contains(&local),
            None => self.lower.is_none_or(|l| unix >= l) && self.upper.is_none_or(|u| unix < u),
        }
    }

    /// A UTC instant in the routine's offset.
    fn shifted(&self, unix: i64) -> NaiveDateTime {
        DateTime::from_timestamp(unix + i64::from(self.offset_seconds), 0)
            .unwrap_or_default()
            .naive_utc()
    }

    /// The folder as a unit filter.
    fn folder_filter(&self) -> UnitFilter {
        UnitFilter {
            path_prefixes: if self.folder.is_empty() {
                Vec::new()
            } else {
                vec![self.folder.clone()]
            },
            ..UnitFilter::default()
        }
    }

    /// Reads units inside the profile with their times, and whether each has a time
    /// of its own.
    fn read(
        &mut self,
        hits: Vec<(index::api::UnitKey, f32)>,
    ) -> Result<Vec<(StoredUnit, DateTime<FixedOffset>, bool)>, SearchError> {
        let mut read = Vec::new();
        for (key, _) in hits {
            let unit = self.snapshot.unit(key)?;
            let guard = &mut self.guard;
            if !*self
                .allowed
                .entry(unit.file_id.clone())
                .or_insert_with(|| guard.allows(&unit.path))
            {
                continue;
            }
            let time = DateTime::parse_from_rfc3339(&unit.content_time_text).unwrap_or_else(|_| {
                DateTime::from_timestamp(unit.content_time, 0)
                    .unwrap_or_default()
                    .fixed_offset()
            });
            let mtime = match self.mtimes.get(&unit.file_id) {
                Some(mtime) => *mtime,
                None => {
                    let record = self.backend.file_by_id(&unit.file_id)?;
                    let mtime = record.map(|r| r.mtime_ns.div_euclid(1_000_000_000));
                    self.mtimes.insert(unit.file_id.clone(), mtime);
                    mtime
                }
            };
            let own_time = mtime != Some(unit.content_time);
            read.push((unit, time, own_time));
        }
        Ok(read)
    }

    /// A unit as the routine sees it: in local wall-clock time (a UTC time with a time
    /// of day in the routine's offset), with the fields it reads.
    fn scanned(
        &self,
        unit: StoredUnit,
        time: DateTime<FixedOffset>,
        own_time: bool,
    ) -> ScannedUnit {
        let utc = time.offset().local_minus_utc() == 0;
        let midnight = time.time().num_seconds_from_midnight() == 0;
        let local = if utc && !midnight {
            self.shifted(time.timestamp())
        } else {
            time.naive_local()
        };
        let fields = unit
            .fields
            .into_iter()
            .filter(|(k, _)| ROUTINE_FIELDS.contains(&k.as_str()))
            .collect();
        ScannedUnit {
            sample: UnitSample {
                unit_id: unit.unit_id,
                path: unit.path,
                kind: unit.kind.as_str().to_string(),
                file_type: unit.file_type.as_str().to_string(),
                local,
                // The first line: the unit's own title (the file's may follow).
                title: unit
                    .title
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
                fields,
            },
            clock: !(utc && midnight),
            own_time,
            instant: time.timestamp(),
        }
    }

    /// The units in range (the newest `max` when there are more), oldest first; sets the
    /// UTC offset.
    pub fn units(&mut self, max: usize) -> Result<Vec<ScannedUnit>, SearchError> {
        let filter = UnitFilter {
            time_start: self.lower,
            time_end: self.upper,
            ..self.folder_filter()
        };
        let matches = self
            .snapshot
            .by_time(None, &filter, max, TimeOrder::NewestFirst)?;
        self.units_scanned = matches.hits.len() as u64;
        self.units_in_range = matches.total;
        if matches.total > self.units_scanned {
            self.truncated = true;
            self.notes.push(format!(
                "truncated: {} units in range, the newest {} scanned",
                matches.total, self.units_scanned
            ));
        }
        let read = self.read(matches.hits)?;
        let mut offsets: BTreeMap<i32, u64> = BTreeMap::new();
        for (_, time, own_time) in &read {
            let offset = time.offset().local_minus_utc();
            if offset != 0 && *own_time {
                *offsets.entry(offset).or_default() += 1;
            }
        }
        self.offset_seconds = match self.offset_given {
            Some(seconds) => seconds,
            None => {
                let common = offsets
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map_or(0, |(offset, _)| *offset);
                self.notes.push(format!(
                    "activity and UTC content times shown at UTC{} (the offset most dated content carries; set utc_offset_minutes to change)",
                    offset_text(common)
                ));
                common
            }
        };
        let mut units: Vec<ScannedUnit> = read
            .into_iter()
            .map(|(unit, time, own_time)| self.scanned(unit, time, own_time))
            .filter(|u| self.in_range(u.sample.local, u.instant))
            .collect();
        units.sort_by(|a, b| {
            (a.sample.local, &a.sample.path, &a.sample.unit_id).cmp(&(
                b.sample.local,
                &b.sample.path,
                &b.sample.unit_id,
            ))
        });
        Ok(units)
    }

    /// Calendar events with a recurrence rule starting before the range ends, whenever
    /// they start (a weekly rule begun last year recurs in this month), the newest `max`.
    pub fn rule_events(&mut self, max: usize) -> Result<Vec<ScannedUnit>, SearchError> {
        let filter = UnitFilter {
            kinds: vec!["event".to_string()],
            time_end: self.upper,
            ..self.folder_filter()
        };
        self.newest(&filter, max, |unit| {
            unit.fields
                .get("rrule")
                .is_some_and(|r| !r.trim().is_empty())
        })
    }

    /// The newest `max` units matching `filter`, those that `keep`.
    fn newest(
        &mut self,
        filter: &UnitFilter,
        max: usize,
        keep: impl Fn(&StoredUnit) -> bool,
    ) -> Result<Vec<ScannedUnit>, SearchError> {
        let matches = self
            .snapshot
            .by_time(None, filter, max, TimeOrder::NewestFirst)?;
        let read = self.read(matches.hits)?;
        Ok(read
            .into_iter()
            .filter(|(unit, ..)| keep(unit))
            .map(|(unit, time, own_time)| self.scanned(unit, time, own_time))
            .collect())
    }

    /// The profile's newest `max` messages, whatever the range or folder.
    pub fn messages(&mut self, max: usize) -> Result<Vec<ScannedUnit>, SearchError> {
        let filter = UnitFilter {
            kinds: vec!["message".to_string()],
            ..UnitFilter::default()
        };
        self.newest(&filter, max, |_| true)
    }

    /// The local dates the range covers (`None`: open), for expanding rules.
    pub fn date_range(&self) -> (Option<NaiveDate>, Option<NaiveDate>) {
        match self.wall {
            Some((a, b)) => (
                Some(a.date()),
                Some((b - chrono::Duration::seconds(1)).date()),
            ),
            None => (
                self.lower.map(|t| self.shifted(t).date()),
                self.upper.map(|t| self.shifted(t - 1).date()),
            ),
        }
    }

    /// Whether a local time is in range (for times with no instant of their own, such
    /// as occurrences of a rule: their instant is taken in the routine's offset).
    pub fn local_in_range(&self, local: NaiveDateTime) -> bool {
        let unix = local.and_utc().timestamp() - i64::from(self.offset_seconds);
        self.in_range(local, unix)
    }

    /// Activity events in range, oldest first, at most `max`.
    pub fn events(&mut self, max: usize) -> Result<Vec<EventSample>, SearchError> {
        let mut sources = Vec::new();
        for name in &self.sources {
            sources.push(ActivitySource::parse(name.trim()).ok_or_else(|| {
                SearchError::invalid(format!(
                    "unknown activity source {name:?} (expected observed, watch, birth, mtime, xbel or trace)"
                ))
            })?);
        }
        let query = ActivityQuery {
            sources,
            from_ms: self.lower.map(|t| t.saturating_mul(1000)),
            to_ms: self.upper.map(|t| t.saturating_mul(1000)),
            path_prefix: (!self.folder.is_empty()).then(|| self.folder.clone()),
            limit: max + 1,
            ..ActivityQuery::default()
        };
        // Only the embedded index keeps the activity log (in its manifest); other
        // backends answer no events.
        if self.backend.name() != "embedded" {
            self.activity_available = false;
            self.notes.push(format!(
                "the {} backend keeps no activity log (it lives in the embedded index folder): activity figures are empty",
                self.backend.name()
            ));
            return Ok(Vec::new());
        }
        let mut events = self.backend.activity(&query)?;
        if events.len() > max {
            events.truncate(max);
            self.truncated = true;
            self.notes.push(format!(
                "truncated: more than {max} activity events in range, the oldest {max} read"
            ));
        }
        let mut samples = Vec::new();
        // Never a path outside the profile: foreign paths a trace could not map.
        for event in events.into_iter().filter(index::ActivityEvent::in_profile) {
            let unix = event.time_ms.div_euclid(1000);
            let local = self.shifted(unix);
            if !self.in_range(local, unix) {
                continue;
            }
            if let Some(path) = &event.path {
                if !self.guard.allows(path) {
                    continue;
                }
            }
            samples.push(EventSample {
                seq: event.seq,
                path: event.path,
                kind: event.kind.as_str().to_string(),
                source: event.source.as_str().to_string(),
                local,
            });
        }
        Ok(samples)
    }

    /// The profile's files (not attachments, not skipped) under the folder whose
    /// modification time is in range, by path.
    pub fn files(&mut self) -> Result<Vec<FileSample>, SearchError> {
        let prefix = format!("{}/", self.folder);
        let mut files = Vec::new();
        for record in self.backend.files()? {
            if record.parent_path.is_some() || record.status == FileStatus::Skipped {
                continue;
            }
            if !self.folder.is_empty() && !record.path.starts_with(&prefix) {
                continue;
            }
            let unix = record.mtime_ns.div_euclid(1_000_000_000);
            if !self.in_range(self.shifted(unix), unix) || !self.guard.allows(&record.path) {
                continue;
            }
            files.push(FileSample {
                ext: record.ext.to_lowercase(),
                path: record.path,
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_plain_relative_paths() {
        assert_eq!(clean_folder(" /Mail/Inbox/ ").unwrap(), "Mail/Inbox");
        assert_eq!(clean_folder("").unwrap(), "");
        for bad in ["../etc", "Mail/../..", "Mail//Inbox", "./Mail"] {
            assert!(clean_folder(bad).is_err(), "{bad}");
        }
        assert_eq!(offset_text(-7 * 3600), "-07:00");
        assert_eq!(offset_text(19800), "+05:30");
    }
}
