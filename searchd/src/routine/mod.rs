//! The routine: the procedural channel of a profile. When the person's content is dated
//! and when they act on files (weekday × hour grids, overall, per folder and per kind),
//! the calendar series they keep, the people each week involves, and the folders and
//! naming habits they use. Every figure carries evidence (paths with unit ids or
//! activity-log positions) so an answer built on it can cite files.
//!
//! The aggregation is pure ([`grid`], [`series`], [`people`], [`habits`] over the
//! samples of [`input`]); [`routine`] scans the index (bounded), the activity
//! log and the file records, and [`http`] and [`proto`] translate the outcome.

pub mod evidence;
pub mod grid;
pub mod habits;
pub mod http;
pub mod input;
pub mod people;
pub mod proto;
pub mod sample;
pub mod series;

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use crate::error::SearchError;
use index::api::SearchBackend;

use grid::{Grid, GridBuilder, GridSet};
use habits::Habits;
use people::People;
use series::Series;

/// Units scanned at most (the default and the ceiling of `max_units`).
pub const MAX_ROUTINE_UNITS: usize = 20_000;
/// Activity events read at most (the default and the ceiling of `max_events`).
pub const MAX_ROUTINE_EVENTS: usize = 50_000;
/// Evidence entries per figure: default and ceiling.
pub const DEFAULT_EVIDENCE: usize = 3;
pub const MAX_EVIDENCE: usize = 5;
/// Entries per list (folders, kinds, people, habit values): default and ceiling.
pub const DEFAULT_TOP: usize = 8;
pub const MAX_TOP: usize = 50;
/// ISO weeks listed at most (the newest).
pub const MAX_WEEKS: usize = 53;
/// Messages read at most (the newest of the whole profile) to find the owner.
pub const MAX_OWNER_MESSAGES: usize = 2000;
/// Calendar events with a recurrence rule read at most.
pub const MAX_RULE_EVENTS: usize = 2000;
/// Cells listed per folder or kind grid (the overall grids list every busy cell).
pub const GROUP_CELLS: usize = 12;

/// A routine request, independent of the transport. Everything is optional.
#[derive(Debug, Clone, Default)]
pub struct RoutineParams {
    /// Unix seconds, inclusive.
    pub start: Option<i64>,
    /// Unix seconds, exclusive.
    pub end: Option<i64>,
    /// A time expression ("last month", "autumn 2025"), instead of start/end.
    pub when: Option<String>,
    /// Unix seconds that relative expressions refer to.
    pub reference_time: Option<i64>,
    /// Only this folder (profile-relative; empty: the whole profile).
    pub folder: String,
    /// Units scanned at most (0: [`MAX_ROUTINE_UNITS`]).
    pub max_units: usize,
    /// Activity events read at most (0: [`MAX_ROUTINE_EVENTS`]).
    pub max_events: usize,
    /// Evidence per figure (0: [`DEFAULT_EVIDENCE`]; at most [`MAX_EVIDENCE`]).
    pub evidence: usize,
    /// Entries per list (0: [`DEFAULT_TOP`]; at most [`MAX_TOP`]).
    pub top: usize,
    /// Only activity events from these sources (`observed`, `watch`, `birth`, `mtime`,
    /// `xbel`, `trace`; empty: all).
    pub sources: Vec<String>,
    /// The UTC offset activity times (and content times given in UTC) are shown in;
    /// `None`: the offset most of the profile's dated content carries.
    pub utc_offset_minutes: Option<i32>,
}

/// Content and activity grids of one folder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FolderGrids {
    pub folder: String,
    pub content: Grid,
    pub activity: Grid,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedGrid {
    pub name: String,
    pub grid: Grid,
}

/// The routine of a profile (or of one folder, over one range).
#[derive(Debug, Clone, Serialize)]
pub struct RoutineOutcome {
    /// The range used, as text (`all time` without one).
    pub range: String,
    /// The folder looked at (empty: the whole profile).
    pub folder: String,
    /// The UTC offset of activity times, `+HH:MM`.
    pub utc_offset: String,
    /// Content times: distinct (file, time) pairs of the units in range with a time of
    /// their own (a unit dated only by its file's modification time is not counted).
    pub content: Grid,
    /// Activity events in range.
    pub activity: Grid,
    /// Calendar events in range, a recurring event at each of its occurrences.
    pub calendar: Grid,
    /// The busiest folders one level below `folder`.
    pub by_folder: Vec<FolderGrids>,
    /// Content times per file type (`eml`, `ics`, `pdf`, `text`, …).
    pub content_by_type: Vec<NamedGrid>,
    /// Activity per event kind (`created`, `modified`, …).
    pub activity_by_kind: Vec<NamedGrid>,
    pub series: Vec<Series>,
    pub people: People,
    pub habits: Habits,
    /// False on a backend that keeps no activity log (activity figures are empty).
    pub activity_available: bool,
    /// Activity events per source (`observed`, `watch`, `birth`, `mtime`, `xbel`, `trace`).
    pub activity_sources: BTreeMap<String, u64>,
    pub units_scanned: u64,
    /// Units dated only by their file's modification time (not in the content grids).
    pub units_dated_by_file: u64,
    /// Units in the range (more than scanned when truncated).
    pub units_in_range: u64,
    pub events_scanned: u64,
    pub files_scanned: u64,
    /// Some units or events in range were not scanned.
    pub truncated: bool,
    pub took_ms: f64,
    pub notes: Vec<String>,
}

/// Clamps a count parameter: 0 is the default, anything above the ceiling the ceiling.
fn clamp(value: usize, default: usize, max: usize) -> usize {
    match value {
        0 => default,
        n => n.min(max),
    }
}

/// The calendar grid: events in range, each recurring event (whenever it began) at
/// each occurrence in range; and the recurring events with an occurrence in range.
fn calendar(
    scan: &mut sample::Scan<'_>,
    units: &[sample::ScannedUnit],
    cap: usize,
) -> Result<(Grid, Vec<sample::ScannedUnit>), SearchError> {
    let rules = scan.rule_events(MAX_RULE_EVENTS)?;
    let (from, to) = scan.date_range();
    // Open-ended rules run to the range's end, else to the newest dated content (not
    // to a file's modification time: a copied profile's files are all dated today).
    let open_end = scan.reference_date_given.unwrap_or_else(|| {
        units
            .iter()
            .filter(|u| u.own_time)
            .map(|u| u.sample.local.date())
            .max()
            .unwrap_or(scan.reference_date)
    });
    if to.is_none()
        && rules
            .iter()
            .any(|u| series::Rule::of(&u.sample).is_some_and(|r| !r.ends()))
    {
        scan.notes.push(format!(
                "calendar: open-ended recurring events counted up to {open_end} (the newest dated content, or reference_time)"
            ));
    }
    let mut grid = GridBuilder::new(cap);
    let mut active = Vec::new();
    for unit in rules {
        let Some(rule) = series::Rule::of(&unit.sample) else {
            continue;
        };
        let mut any = false;
        let stop = to.or((!rule.ends()).then_some(open_end));
        for date in rule.dates(stop, usize::MAX) {
            let local = date.and_time(unit.sample.local.time());
            if from.is_some_and(|f| date < f) || !scan.local_in_range(local) {
                continue;
            }
            any = true;
            if unit.clock {
                let s = &unit.sample;
                grid.add(local, evidence::Evidence::unit(&s.path, &s.unit_id, local));
            }
        }
        if any {
            active.push(unit);
        }
    }
    for unit in units
        .iter()
        .filter(|u| u.clock && u.sample.kind == "event" && !u.sample.fields.contains_key("rrule"))
    {
        let s = &unit.sample;
        grid.add(
            s.local,
            evidence::Evidence::unit(&s.path, &s.unit_id, s.local),
        );
    }
    Ok((grid.finish(7 * 24), active))
}

/// The routine of the profile (see the module documentation).
pub fn routine(
    backend: &dyn SearchBackend,
    params: RoutineParams,
) -> Result<RoutineOutcome, SearchError> {
    let started = Instant::now();
    let cap = clamp(params.evidence, DEFAULT_EVIDENCE, MAX_EVIDENCE);
    let top = clamp(params.top, DEFAULT_TOP, MAX_TOP);
    let snapshot = backend.snapshot()?;
    let mut scan = sample::Scan::new(backend, &*snapshot, &params)?;
    let units = scan.units(clamp(
        params.max_units,
        MAX_ROUTINE_UNITS,
        MAX_ROUTINE_UNITS,
    ))?;
    let events = scan.events(clamp(
        params.max_events,
        MAX_ROUTINE_EVENTS,
        MAX_ROUTINE_EVENTS,
    ))?;
    let files = scan.files()?;
    let base = scan.folder.clone();

    let mut content = GridBuilder::new(cap);
    let mut folders = GridSet::default();
    let mut folder_activity = GridSet::default();
    let mut types = GridSet::default();
    let mut seen = std::collections::HashSet::new();
    let by_file = units.iter().filter(|u| !u.own_time).count() as u64;
    if by_file > 0 {
        scan.notes.push(format!(
                "{by_file} units dated only by their file's modification time left out of the content grids"
            ));
    }
    for unit in units.iter().filter(|u| u.clock && u.own_time) {
        let container = index::UnitPath::parse(&unit.sample.path)
            .container()
            .to_string();
        if !seen.insert((container, unit.sample.local)) {
            continue;
        }
        let s = &unit.sample;
        let evidence = || evidence::Evidence::unit(&s.path, &s.unit_id, s.local);
        content.add(s.local, evidence());
        folders.add(
            &input::group_folder(&s.path, &base),
            cap,
            s.local,
            evidence(),
        );
        types.add(&s.file_type, cap, s.local, evidence());
    }
    let mut activity = GridBuilder::new(cap);
    let mut kinds = GridSet::default();
    let mut sources: BTreeMap<String, u64> = BTreeMap::new();
    for event in &events {
        let evidence = || evidence::Evidence::event(event.path.as_deref(), event.seq, event.local);
        activity.add(event.local, evidence());
        kinds.add(&event.kind, cap, event.local, evidence());
        if let Some(path) = &event.path {
            folder_activity.add(
                &input::group_folder(path, &base),
                cap,
                event.local,
                evidence(),
            );
        }
        *sources.entry(event.source.clone()).or_default() += 1;
    }
    let mut names: Vec<(u64, String)> = folders
        .names()
        .chain(folder_activity.names())
        .map(|n| (folders.total(n) + folder_activity.total(n), n.clone()))
        .collect();
    names.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    names.dedup_by(|a, b| a.1 == b.1);
    let by_folder = names
        .into_iter()
        .take(top)
        .map(|(_, name)| FolderGrids {
            content: folders.take(&name, GROUP_CELLS),
            activity: folder_activity.take(&name, GROUP_CELLS),
            folder: name,
        })
        .collect();
    let named = |set: GridSet| -> Vec<NamedGrid> {
        set.top(top, GROUP_CELLS)
            .into_iter()
            .map(|(name, grid)| NamedGrid { name, grid })
            .collect()
    };
    let (calendar, active_rules) = calendar(&mut scan, &units, cap)?;
    let samples: Vec<&input::UnitSample> = units.iter().map(|u| &u.sample).collect();
    let mut series_input: Vec<&input::UnitSample> = samples
        .iter()
        .copied()
        .filter(|u| !u.fields.contains_key("rrule"))
        .collect();
    series_input.extend(active_rules.iter().map(|u| &u.sample));
    let series = series::series(&series_input, cap);
    let mail = scan.messages(MAX_OWNER_MESSAGES)?;
    let mail: Vec<&input::UnitSample> = mail.iter().map(|u| &u.sample).collect();
    let people = people::people(&samples, &mail, top, MAX_WEEKS, cap);
    if people.weeks_omitted > 0 {
        scan.notes.push(format!(
            "people: the newest {MAX_WEEKS} weeks listed, {} older omitted",
            people.weeks_omitted
        ));
    }
    let habits = habits::habits(&files, &events, top, cap);
    Ok(RoutineOutcome {
        range: scan.range_text.clone(),
        folder: base,
        utc_offset: sample::offset_text(scan.offset_seconds),
        content: content.finish(7 * 24),
        activity: activity.finish(7 * 24),
        calendar,
        by_folder,
        content_by_type: named(types),
        activity_by_kind: named(kinds),
        series,
        people,
        habits,
        activity_available: scan.activity_available,
        activity_sources: sources,
        units_scanned: scan.units_scanned,
        units_dated_by_file: by_file,
        units_in_range: scan.units_in_range,
        events_scanned: events.len() as u64,
        files_scanned: files.len() as u64,
        truncated: scan.truncated,
        took_ms: started.elapsed().as_secs_f64() * 1000.0,
        notes: scan.notes,
    })
}
