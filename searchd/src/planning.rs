//! Building a request's [`QueryPlan`] (before anything is retrieved): the mode actually
//! used, the analysed lexical query and the people it names, the filters, what the
//! question says about time and ownership, and the activity log's part. `explain`
//! lists the plan's decisions.

use index::api::{LexicalRequest, SearchBackend, SearchSnapshot, UnitFilter};

use crate::dense::Dense;
use crate::error::SearchError;
use crate::plan::QueryPlan;
use crate::planner::{names_a_participant, PEOPLE_BOOST};
use crate::query::{people_signal, Mode, SearchParams};
use crate::question::Question;
use crate::timeparse::TimeIntent;

/// The engine's query encoders as the planner sees them: the text model, or why there
/// is none.
#[derive(Clone, Copy)]
pub(crate) struct Models<'a> {
    pub dense: Option<&'a Dense>,
    pub problem: Option<&'a str>,
}

/// Plans a validated request against one snapshot of the index (the time prior is
/// relative to the newest content in it).
pub(crate) fn plan(
    models: Models<'_>,
    backend: &dyn SearchBackend,
    snapshot: &dyn SearchSnapshot,
    params: SearchParams,
) -> Result<QueryPlan, SearchError> {
    let mut retrieval_notes = Vec::new();
    let mut mode = effective_mode(models, &params, &mut retrieval_notes)?;
    let question = Question::read(
        &params.query,
        params.planner.time,
        params.planner.weekday_sense,
        || crate::priors::reference_time(snapshot, params.reference_time),
    )?;
    let mut lexical = question.lexical.clone();
    let has_text = !params.query.trim().is_empty();
    if let Some(vector) = &params.vector {
        mode = vector_mode(models, mode, vector.len(), has_text)?;
    }
    let by_vector = params.vector.is_some();
    if lexical.is_none()
        && !params.has_filters()
        && !(mode == Mode::Dense && (has_text || by_vector))
    {
        return Err(SearchError::invalid(
            "query has no searchable terms (only stop words or punctuation) and no filters",
        ));
    }
    retrieval_notes.push(format!("mode: {}", mode.as_str()));
    if let Some(lexical) = &lexical {
        retrieval_notes.push(format!("terms: {}", lexical.terms().join(" ")));
    }
    if !params.planner.people {
        retrieval_notes.push("people: off".to_string());
    } else if let Some(lexical) = lexical.as_mut() {
        let (names, not_people) = participants_among(snapshot, question.names.clone())?;
        if !not_people.is_empty() {
            retrieval_notes.push(format!(
                    "people: {not_people:?} names no sender, recipient, organizer or attendee; not boosted"
                ));
        }
        if let Some(signal) = people_signal(&names, PEOPLE_BOOST) {
            retrieval_notes.push(format!(
                "people: {names:?} → meta (participants, attendees) terms [{}] ×{PEOPLE_BOOST}",
                signal.terms.join(" ")
            ));
            lexical.signals.push(signal);
        }
    }
    let (time, first_person, mut prior_notes) = plan_priors(&params, &question);
    let events_are_context =
        params.planner.event_context && !question.asks_about_schedule(time.recurring);
    if events_are_context {
        prior_notes.push(format!(
                "event_context: the question does not ask about the schedule (when, how often, where or who is planned); calendar events ×{}",
                crate::planner::EVENT_CONTEXT_FACTOR
            ));
    } else if !params.planner.event_context {
        prior_notes.push("event_context: off".to_string());
    }
    let mut filter = params.unit_filter();
    let activity = crate::activity::rank::plan_activity(
        backend,
        snapshot,
        &params,
        &question,
        &mut retrieval_notes,
    )?;
    if let Some(activity) = activity.as_ref().filter(|a| a.explicit) {
        // The files with matching events (already under the request's prefixes).
        filter.path_prefixes = activity
            .indexed()
            .take(crate::activity::plan::MAX_FILTER_FILES)
            .map(|f| f.path.clone())
            .collect();
    }
    Ok(QueryPlan {
        activity,
        filter,
        params,
        mode,
        lexical,
        time,
        first_person,
        events_are_context,
        retrieval_notes,
        prior_notes,
    })
}

/// What the question says about time (against the profile's "now") and ownership.
fn plan_priors(params: &SearchParams, question: &Question) -> (TimeIntent, bool, Vec<String>) {
    let mut notes = Vec::new();
    let switches = params.planner;
    let read = question.time.clone().filter(|_| switches.time);
    let time = if let Some(crate::question::ReadTime {
        mut intent,
        reference,
    }) = read
    {
        if !intent.topic_weekdays.is_empty() {
            notes.push(format!(
                "time: weekday read as the topic, not a time: {:?}",
                intent.topic_weekdays
            ));
        } else if !switches.weekday_sense {
            notes.push("weekday_sense: off".to_string());
        }
        if intent.range.is_some() && (params.time_start.is_some() || params.time_end.is_some()) {
            // An explicit content_time range in the request overrides the dates read
            // from the query text.
            intent.range = None;
            notes.push(
                "time: the request's content_time range overrides the query's dates".to_string(),
            );
        }
        if !intent.is_empty() || intent.recurring {
            notes.push(format!(
                "time: {:?} (reference {}) → range {}, weekdays {:?}, hours {:?}, routine {}",
                intent.phrases,
                reference.date(),
                intent
                    .range
                    .map(|(a, b)| format!("{a}..{b}"))
                    .unwrap_or_else(|| "none".into()),
                intent.weekdays,
                intent.hours,
                intent.recurring
            ));
        }
        intent
    } else {
        notes.push("time: off".to_string());
        TimeIntent::default()
    };
    let first_person = switches.whose && question.first_person;
    if first_person {
        notes.push(format!(
            "whose: first-person question; documents in a Downloads folder ×{}",
            crate::planner::DOWNLOADED_FACTOR
        ));
    } else if !switches.whose {
        notes.push("whose: off".to_string());
    }
    (time, first_person, notes)
}

/// The mode of a request that gives its own query vector: dense alone without a
/// question, else as asked; the vector must have the text model's dimension.
pub(crate) fn vector_mode(
    models: Models<'_>,
    mode: Mode,
    len: usize,
    has_text: bool,
) -> Result<Mode, SearchError> {
    let Some(dense) = models.dense else {
        return Err(SearchError::Unavailable(format!(
            "search by vector is unavailable: {}",
            models.problem.unwrap_or("no text model")
        )));
    };
    if len != dense.dimension() {
        return Err(SearchError::invalid(format!(
            "vector has {len} numbers; this index's text model ({}) makes {}",
            dense.model_name(),
            dense.dimension()
        )));
    }
    match (mode, has_text) {
        (_, false) => Ok(Mode::Dense),
        (Mode::Lexical, true) => Err(SearchError::invalid(
            "a vector is searched in dense or hybrid mode, not lexical",
        )),
        (mode, true) => Ok(mode),
    }
}

/// The mode actually used for a request.
pub(crate) fn effective_mode(
    models: Models<'_>,
    params: &SearchParams,
    notes: &mut Vec<String>,
) -> Result<Mode, SearchError> {
    match (params.mode, models.dense) {
        (Mode::Lexical, _) => Ok(Mode::Lexical),
        (mode, Some(_)) => Ok(mode),
        (Mode::Dense, None) => Err(SearchError::Unavailable(format!(
            "dense retrieval is unavailable: {}",
            models.problem.unwrap_or("unknown reason")
        ))),
        (Mode::Hybrid, None) => {
            notes.push(format!(
                "hybrid requested but dense retrieval is unavailable ({}); answered lexically",
                models.problem.unwrap_or("unknown reason")
            ));
            Ok(Mode::Lexical)
        }
    }
}

/// Units of a name's kinds the people check reads.
const PARTICIPANT_CHECK_DEPTH: usize = 20;

/// Splits the capitalised words a question names into the profile's people (some e-mail
/// or calendar event has them as a sender, recipient, organizer or attendee) and the
/// rest (places, projects, titles: "Belfast", "River Run"), which the people prior must
/// not boost: the `meta` field it searches also holds subjects and locations.
fn participants_among(
    snapshot: &dyn SearchSnapshot,
    names: Vec<String>,
) -> Result<(Vec<String>, Vec<String>), SearchError> {
    let filter = UnitFilter {
        kinds: vec!["message".into(), "event".into()],
        ..UnitFilter::default()
    };
    let (mut people, mut others) = (Vec::new(), Vec::new());
    for name in names {
        let Some(signal) = people_signal(std::slice::from_ref(&name), 1.0) else {
            others.push(name);
            continue;
        };
        // The people signal searches `meta`; over messages and events only.
        let request = LexicalRequest {
            signals: vec![signal],
        };
        let found = snapshot.lexical(&request, &filter, PARTICIPANT_CHECK_DEPTH)?;
        let mut named = false;
        for (key, _) in found.hits {
            if names_a_participant(&snapshot.shared_unit(key)?.fields, &name) {
                named = true;
                break;
            }
        }
        if named {
            people.push(name);
        } else {
            others.push(name);
        }
    }
    Ok((people, others))
}
