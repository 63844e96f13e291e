//! The planner's priors applied to ranked units: the query is read for time (dates,
//! ranges, weekdays, hours, routines; relative to the profile's "now") and ownership
//! (first-person questions discount downloaded documents), and the best candidates'
//! scores are multiplied by the factors of `crate::planner`. Every decision is noted
//! for `explain`.

use index::StoredUnit;
use tantivy::collector::TopDocs;
use tantivy::{Order, Searcher, TantivyDocument};

use crate::engine::{Engine, RankedHit, PRIOR_DEPTH};
use crate::error::SearchError;
use crate::planner::{factors, is_first_person, UnitFacts, DOWNLOADED_FACTOR};
use crate::query::SearchParams;

impl Engine {
    /// The "now" of the profile: the request's reference time, else the newest content
    /// time in the index (capped at the real now).
    pub(crate) fn reference_time(
        &self,
        searcher: &Searcher,
        reference_time: Option<i64>,
    ) -> Result<chrono::NaiveDateTime, SearchError> {
        let now = chrono::Utc::now().timestamp();
        let seconds = match reference_time {
            Some(t) => t,
            None => {
                let newest = searcher.search(
                    &tantivy::query::AllQuery,
                    &TopDocs::with_limit(1).order_by_fast_field::<i64>("content_time", Order::Desc),
                )?;
                newest.first().and_then(|(t, _)| *t).unwrap_or(now).min(now)
            }
        };
        Ok(chrono::DateTime::from_timestamp(seconds, 0)
            .unwrap_or_default()
            .naive_utc())
    }

    /// Applies the planner's priors to the best candidates, re-sorts, and keeps `limit`.
    pub(crate) fn apply_priors(
        &self,
        searcher: &Searcher,
        params: &SearchParams,
        mut hits: Vec<RankedHit>,
        limit: usize,
        notes: &mut Vec<String>,
    ) -> Result<Vec<RankedHit>, SearchError> {
        let switches = params.planner;
        let intent =
            if switches.time {
                let reference = self.reference_time(searcher, params.reference_time)?;
                let mut intent = crate::timeparse::parse(&params.query, reference);
                if intent.range.is_some()
                    && (params.time_start.is_some() || params.time_end.is_some())
                {
                    // An explicit content_time range in the request overrides the dates
                    // read from the query text.
                    intent.range = None;
                    notes.push(
                        "time: the request's content_time range overrides the query's dates"
                            .to_string(),
                    );
                }
                if !intent.is_empty() || intent.recurring {
                    notes.push(format!(
                    "time: {:?} (reference {}) → range {}, weekdays {:?}, hours {:?}, routine {}",
                    intent.phrases,
                    reference.date(),
                    intent.range.map(|(a, b)| format!("{a}..{b}")).unwrap_or_else(|| "none".into()),
                    intent.weekdays,
                    intent.hours,
                    intent.recurring
                ));
                }
                intent
            } else {
                notes.push("time: off".to_string());
                crate::timeparse::TimeIntent::default()
            };
        let first_person = switches.whose && is_first_person(&params.query);
        if first_person {
            notes.push(format!("whose: first-person question; documents in a Downloads folder ×{DOWNLOADED_FACTOR}"));
        } else if !switches.whose {
            notes.push("whose: off".to_string());
        }
        if intent.is_empty() && !intent.recurring && !first_person {
            hits.truncate(limit);
            return Ok(hits);
        }
        let fields = &self.handle().fields;
        for hit in hits.iter_mut().take(PRIOR_DEPTH) {
            let doc: TantivyDocument = searcher.doc(hit.address)?;
            let unit = StoredUnit::from_doc(fields, &doc);
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
            let factors = factors(&facts, &intent, first_person, switches);
            hit.score *= factors.total();
            hit.factors = Some(factors);
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(limit);
        Ok(hits)
    }
}
