//! The gRPC `Routine` messages: request to [`RoutineParams`], outcome to reply.

use dentate_proto::v1 as pb;

use super::evidence::EvidenceList;
use super::grid::Grid;
use super::habits::{FolderCount, Habits};
use super::people::{People, Person};
use super::{RoutineOutcome, RoutineParams};

pub fn params_of(request: pb::RoutineRequest) -> RoutineParams {
    let range = request.range.unwrap_or_default();
    RoutineParams {
        start: (range.start != 0).then_some(range.start),
        end: (range.end != 0).then_some(range.end),
        when: (!request.when.trim().is_empty()).then_some(request.when),
        reference_time: request.reference_time,
        folder: request.folder,
        max_units: request.max_units as usize,
        max_events: request.max_events as usize,
        evidence: request.evidence as usize,
        top: request.top as usize,
        sources: request.sources,
        utc_offset_minutes: request.utc_offset_minutes,
    }
}

fn evidence_of(list: &EvidenceList) -> Vec<pb::RoutineEvidence> {
    list.items()
        .iter()
        .map(|e| pb::RoutineEvidence {
            path: e.path.clone(),
            unit_id: e.unit_id.clone().unwrap_or_default(),
            seq: e.seq.unwrap_or_default(),
            time: e.time.clone().unwrap_or_default(),
        })
        .collect()
}

fn grid_of(grid: &Grid) -> pb::RoutineGrid {
    pb::RoutineGrid {
        total: grid.total,
        by_weekday: grid.by_weekday.to_vec(),
        by_hour: grid.by_hour.to_vec(),
        counts: grid.counts.iter().flatten().copied().collect(),
        cells: grid
            .cells
            .iter()
            .map(|c| pb::RoutineCell {
                weekday: c.weekday.to_string(),
                hour: c.hour,
                count: c.count,
                evidence: evidence_of(&c.evidence),
            })
            .collect(),
    }
}

fn person_of(person: &Person) -> pb::RoutinePerson {
    pb::RoutinePerson {
        name: person.name.clone(),
        address: person.address.clone(),
        count: person.count,
        roles: person.roles.clone().into_iter().collect(),
        evidence: evidence_of(&person.evidence),
    }
}

fn people_of(people: &People) -> pb::RoutinePeople {
    pb::RoutinePeople {
        owner: people.owner.clone().unwrap_or_default(),
        overall: people.overall.iter().map(person_of).collect(),
        weeks: people
            .weeks
            .iter()
            .map(|w| pb::RoutineWeek {
                week: w.week.clone(),
                start: w.start.clone(),
                units: w.units,
                people: w.people.iter().map(person_of).collect(),
            })
            .collect(),
        weeks_omitted: people.weeks_omitted,
    }
}

fn folders_of(folders: &[FolderCount]) -> Vec<pb::RoutineFolderCount> {
    folders
        .iter()
        .map(|f| pb::RoutineFolderCount {
            folder: f.folder.clone(),
            count: f.count,
            breakdown: f
                .breakdown
                .iter()
                .map(|b| pb::RoutineNameCount {
                    name: b.name.clone(),
                    count: b.count,
                })
                .collect(),
            evidence: evidence_of(&f.evidence),
        })
        .collect()
}

fn habits_of(habits: &Habits) -> pb::RoutineHabits {
    pb::RoutineHabits {
        files: habits.files,
        folders_by_files: folders_of(&habits.folders_by_files),
        folders_by_activity: folders_of(&habits.folders_by_activity),
        naming: habits
            .naming
            .iter()
            .map(|n| pb::RoutineNamingHabit {
                habit: n.habit.to_string(),
                value: n.value.clone(),
                count: n.count,
                share: n.share,
                evidence: evidence_of(&n.evidence),
            })
            .collect(),
    }
}

pub fn response_of(outcome: RoutineOutcome) -> pb::RoutineResponse {
    let named = |grids: &[super::NamedGrid]| -> Vec<pb::RoutineNamedGrid> {
        grids
            .iter()
            .map(|g| pb::RoutineNamedGrid {
                name: g.name.clone(),
                grid: Some(grid_of(&g.grid)),
            })
            .collect()
    };
    pb::RoutineResponse {
        range: outcome.range.clone(),
        folder: outcome.folder.clone(),
        utc_offset: outcome.utc_offset.clone(),
        content: Some(grid_of(&outcome.content)),
        activity: Some(grid_of(&outcome.activity)),
        calendar: Some(grid_of(&outcome.calendar)),
        by_folder: outcome
            .by_folder
            .iter()
            .map(|f| pb::RoutineFolderGrids {
                folder: f.folder.clone(),
                content: Some(grid_of(&f.content)),
                activity: Some(grid_of(&f.activity)),
            })
            .collect(),
        content_by_type: named(&outcome.content_by_type),
        activity_by_kind: named(&outcome.activity_by_kind),
        series: outcome
            .series
            .iter()
            .map(|s| pb::RoutineSeries {
                title: s.title.clone(),
                source: s.source.to_string(),
                weekdays: s.weekdays.clone(),
                local_time: s.local_time.clone(),
                count: s.count,
                first: s.first.clone(),
                last: s.last.clone().unwrap_or_default(),
                rrule: s.rrule.clone().unwrap_or_default(),
                evidence: evidence_of(&s.evidence),
            })
            .collect(),
        people: Some(people_of(&outcome.people)),
        habits: Some(habits_of(&outcome.habits)),
        activity_available: outcome.activity_available,
        activity_sources: outcome.activity_sources.into_iter().collect(),
        units_scanned: outcome.units_scanned,
        units_dated_by_file: outcome.units_dated_by_file,
        units_in_range: outcome.units_in_range,
        events_scanned: outcome.events_scanned,
        files_scanned: outcome.files_scanned,
        truncated: outcome.truncated,
        took_ms: outcome.took_ms,
        explain: (!outcome.notes.is_empty()).then(|| pb::Explain {
            signals: Default::default(),
            notes: outcome.notes,
        }),
    }
}
