//! The planner's priors applied to ranked units: the plan's time intent (dates, ranges,
//! weekdays, hours, routines, relative to the profile's "now", see `crate::plan`) and
//! ownership (first-person questions discount downloaded documents) multiply the best
//! candidates' scores by the factors of `crate::planner`; a question about doing
//! multiplies the units of files with matching activity (`crate::activity::rank`).

use index::api::{SearchBackend, SearchSnapshot};

use crate::copies::{folds, Candidate, Fold};
use crate::error::SearchError;
use crate::hits::{LoadedUnits, RankedHit};
use crate::plan::QueryPlan;
use crate::planner::{factors, UnitFacts, EVENT_CONTEXT_FACTOR};

/// Candidates the planner's priors look at.
pub(crate) const PRIOR_DEPTH: usize = 300;

/// Copies are looked for among the `2 × limit + COPY_SLACK` best hits: a copy's twin
/// scores the same, so it sits next to it unless a prior (a download's discount) moved it.
const COPY_SLACK: usize = 20;

/// How deep the copies fold (and an event context alone) reaches for an answer of
/// `limit` units.
fn copy_depth(limit: usize) -> usize {
    PRIOR_DEPTH.min(limit.saturating_mul(2) + COPY_SLACK)
}

/// The "now" of the profile: the request's reference time, else the newest content
/// time in the index (capped at the real now).
pub(crate) fn reference_time(
    snapshot: &dyn SearchSnapshot,
    reference_time: Option<i64>,
) -> Result<chrono::NaiveDateTime, SearchError> {
    let now = chrono::Utc::now().timestamp();
    let seconds = match reference_time {
        Some(t) => t,
        None => snapshot.newest_content_time()?.unwrap_or(now).min(now),
    };
    Ok(chrono::DateTime::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .naive_utc())
}

/// Applies the plan's priors to the best candidates and re-sorts; returns the units
/// it read. When the only prior is the event context (a factor below 1, so nothing
/// climbs), it reaches the hits an answer of `limit` units can reach, as the copies
/// fold does, and reads no unit more than that fold does.
pub(crate) fn apply_priors(
    snapshot: &dyn SearchSnapshot,
    plan: &QueryPlan,
    hits: &mut [RankedHit],
    limit: usize,
) -> Result<LoadedUnits, SearchError> {
    let mut loaded = LoadedUnits::new();
    let depth = if plan.has_priors() {
        PRIOR_DEPTH
    } else if plan.events_are_context {
        copy_depth(limit)
    } else {
        return Ok(loaded);
    };
    let (intent, first_person, switches) = (&plan.time, plan.first_person, plan.params.planner);
    // Evidence first: the fitted weights bound what a prior may do (`crate::weights`).
    let weights = crate::weights::Weights::fitted();
    let best = hits.iter().map(|h| h.score).fold(0.0, f32::max);
    for hit in hits.iter_mut().take(depth) {
        let unit = snapshot.shared_unit(hit.key)?;
        let facts = UnitFacts {
            path: &unit.path,
            modality: Some(unit.modality),
            kind: Some(unit.kind),
            content_time: &unit.content_time_text,
            weekdays: unit.fields.get("weekdays").map(String::as_str),
            time_of_day: unit.fields.get("time_of_day").map(String::as_str),
            date_end: unit.fields.get("date_end").map(String::as_str),
            recurring: unit.fields.contains_key("rrule"),
            text: &unit.text,
        };
        let mut factors = factors(&facts, intent, first_person, switches);
        if let Some(activity) = plan.activity.as_ref() {
            factors.activity = activity.factor_for(&unit.path).unwrap_or(1.0);
        }
        if plan.events_are_context && unit.kind == converters::UnitKind::Event {
            factors.event = EVENT_CONTEXT_FACTOR;
        }
        hit.score *= weights.prior(&factors, hit.score, best);
        hit.factors = Some(factors);
        loaded.insert(hit.key, unit);
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(loaded)
}

/// Folds the units of copies of one file into the copy kept (`crate::copies`),
/// among the hits an answer of `limit` units can reach; returns the notes.
pub(crate) fn fold_copies(
    backend: &dyn SearchBackend,
    snapshot: &dyn SearchSnapshot,
    hits: &mut Vec<RankedHit>,
    loaded: &mut LoadedUnits,
    limit: usize,
) -> Result<Vec<String>, SearchError> {
    let depth = hits.len().min(copy_depth(limit));
    let mut units = Vec::with_capacity(depth);
    for hit in &hits[..depth] {
        let unit = match loaded.get(&hit.key) {
            Some(unit) => unit.clone(),
            None => {
                let unit = snapshot.shared_unit(hit.key)?;
                loaded.insert(hit.key, unit.clone());
                unit
            }
        };
        units.push(unit);
    }
    let candidates: Vec<Candidate> = units
        .iter()
        .map(|u| Candidate {
            file_id: &u.file_id,
            path: &u.path,
            ordinal: u.ordinal,
            text: &u.text,
        })
        .collect();
    let (found, folded) = folds(&candidates, |files| backend.content_hashes(files))?;
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let mut dropped = vec![false; hits.len()];
    for Fold { from, into } in found {
        hits[into].score = hits[into].score.max(hits[from].score);
        dropped[from] = true;
    }
    let mut index = 0;
    hits.retain(|_| {
        index += 1;
        !dropped[index - 1]
    });
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(folded
        .into_iter()
        .map(|(copy, kept)| {
            format!(
                "copies: {copy:?} holds the same bytes as {kept:?}; its units count for the latter"
            )
        })
        .collect())
}
