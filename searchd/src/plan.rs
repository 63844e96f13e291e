//! One plan per request, built before anything is retrieved: the validated parameters,
//! the mode actually used, the analysed lexical query (terms, and people read from the
//! question), the filters as predicates (the same for every retriever), and what the
//! question says about time and ownership. The retrievers, the fusion, the priors and
//! the grouping then read the plan; none of them reads the question text again.
//! `explain` lists the plan's decisions.

use index::api::{LexicalRequest, UnitFilter};

use crate::query::{Mode, SearchParams};
use crate::timeparse::TimeIntent;

/// Everything decided about a request before retrieval.
pub struct QueryPlan {
    /// The validated request.
    pub params: SearchParams,
    /// The mode actually used (hybrid falls back to lexical without models).
    pub mode: Mode,
    /// The BM25 query with its per-field signals (`None`: no searchable terms).
    pub lexical: Option<LexicalRequest>,
    /// The request's filters, pushed into every retriever.
    pub filter: UnitFilter,
    /// Dates, weekdays, hours and routines read from the question (empty when the time
    /// prior is off).
    pub time: TimeIntent,
    /// A first-person question (whose prior on).
    pub first_person: bool,
    /// A question that does not ask about the schedule: calendar events are its
    /// occasion, not its answer (`crate::asks`; the `event_context` switch on).
    pub events_are_context: bool,
    /// The decisions about retrieval (mode, terms, people), for `explain`.
    pub retrieval_notes: Vec<String>,
    /// The decisions about the priors (time, whose), for `explain` when priors apply.
    pub prior_notes: Vec<String>,
    /// The activity log's say: an explicit filter or a question about doing with
    /// matching events (`None`: neither, and nothing is different).
    pub activity: Option<crate::activity::plan::ActivityPlan>,
}

impl QueryPlan {
    /// Whether the priors change any score.
    pub fn has_priors(&self) -> bool {
        !self.time.is_empty()
            || self.time.recurring
            || self.first_person
            || self.activity.as_ref().is_some_and(|a| !a.explicit)
    }

    /// An explicit activity filter that no indexed file passes: nothing to rank.
    pub fn activity_excludes_all(&self) -> bool {
        self.activity
            .as_ref()
            .is_some_and(|a| a.explicit && a.indexed().next().is_none())
    }
}
