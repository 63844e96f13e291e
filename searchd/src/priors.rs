//! The planner's priors applied to ranked units: the plan's time intent (dates, ranges,
//! weekdays, hours, routines, relative to the profile's "now", see `crate::plan`) and
//! ownership (first-person questions discount downloaded documents) multiply the best
//! candidates' scores by the factors of `crate::planner`; a question about doing
//! multiplies the units of files with matching activity (`crate::activity::rank`).

use index::api::{SearchSnapshot, UnitKey};

use crate::engine::{Engine, LoadedUnits, RankedHit, PRIOR_DEPTH};
use crate::error::SearchError;
use crate::plan::QueryPlan;
use crate::planner::{factors, UnitFacts};

impl Engine {
    /// The "now" of the profile: the request's reference time, else the newest content
    /// time in the index (capped at the real now).
    pub(crate) fn reference_time(
        &self,
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

    /// Applies the plan's priors to the best candidates, re-sorts, and keeps `limit`;
    /// returns the units it read that are still among the hits.
    pub(crate) fn apply_priors(
        &self,
        snapshot: &dyn SearchSnapshot,
        plan: &QueryPlan,
        mut hits: Vec<RankedHit>,
        limit: usize,
    ) -> Result<(Vec<RankedHit>, LoadedUnits), SearchError> {
        let mut loaded = LoadedUnits::new();
        if !plan.has_priors() {
            hits.truncate(limit);
            return Ok((hits, loaded));
        }
        let (intent, first_person, switches) = (&plan.time, plan.first_person, plan.params.planner);
        for hit in hits.iter_mut().take(PRIOR_DEPTH) {
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
            };
            let mut factors = factors(&facts, intent, first_person, switches);
            if let Some(activity) = plan.activity.as_ref() {
                factors.activity = activity.factor_for(&unit.path).unwrap_or(1.0);
            }
            hit.score *= factors.total();
            hit.factors = Some(factors);
            loaded.insert(hit.key, unit);
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(limit);
        let kept: std::collections::HashSet<UnitKey> = hits.iter().map(|h| h.key).collect();
        loaded.retain(|key, _| kept.contains(key));
        Ok((hits, loaded))
    }
}
