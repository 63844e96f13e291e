//! A request's question, read once (`Question::read`) before anything is planned: its
//! BM25 query, the names it uses, whether it speaks in the first person, whether it asks
//! what the calendar records, whether it is about doing something, and what it says
//! about time. The planner (`crate::planning`) decides from these values which of them
//! count (its switches); nothing after the plan reads the text again except the encoders,
//! which embed it.

use chrono::NaiveDateTime;
use index::api::LexicalRequest;

use crate::activity::intent::{doing_verbs, Doing};
use crate::planner::{is_first_person, people_in};
use crate::query::lexical_query;
use crate::timeparse::{parse_with, TimeIntent};

/// What a question says, read once.
#[derive(Debug, Clone)]
pub struct Question {
    /// BM25's query of the words (`None`: only stop words or punctuation).
    pub lexical: Option<LexicalRequest>,
    /// Capitalised words and phrases that may name people ("Sarah", "Dr Okafor").
    pub names: Vec<String>,
    /// "my", "I", "me": the asker's own files, not downloads.
    pub first_person: bool,
    /// It asks when, where, who or how often something is planned (the calendar's own
    /// record), not only about something that happened at an event.
    pub asks_schedule: bool,
    /// A first-person subject with a verb of doing ("what did I edit …").
    pub doing: Option<Doing>,
    /// The time it names and the profile's "now" it was read against (`None`: not
    /// read, because nothing asked for it, see [`Question::read`]).
    pub time: Option<ReadTime>,
}

/// The time a question names, read against the profile's "now".
#[derive(Debug, Clone)]
pub struct ReadTime {
    pub intent: TimeIntent,
    pub reference: NaiveDateTime,
}

impl Question {
    /// Reads `text`. Its time is read (against `reference()`, the profile's "now", which
    /// costs a look at the index) only when `wants_time` or the question is about doing;
    /// `weekday_sense` says whether a weekday can be the topic rather than a time.
    pub fn read<E>(
        text: &str,
        wants_time: bool,
        weekday_sense: bool,
        reference: impl FnOnce() -> Result<NaiveDateTime, E>,
    ) -> Result<Question, E> {
        let doing = doing_verbs(text);
        let time = if wants_time || doing.is_some() {
            let reference = reference()?;
            Some(ReadTime {
                intent: parse_with(text, reference, weekday_sense),
                reference,
            })
        } else {
            None
        };
        Ok(Question {
            lexical: lexical_query(text),
            names: people_in(text),
            first_person: is_first_person(text),
            asks_schedule: crate::asks::asks_about_schedule(text, false),
            doing,
            time,
        })
    }

    /// Whether the question asks about the schedule, given whether the plan reads a
    /// routine in it (a routine question always does).
    pub fn asks_about_schedule(&self, routine: bool) -> bool {
        routine || self.asks_schedule
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn now() -> Result<NaiveDateTime, std::convert::Infallible> {
        Ok(NaiveDate::from_ymd_opt(2025, 11, 20)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap())
    }

    fn no_look() -> Result<NaiveDateTime, &'static str> {
        Err("the index was looked at")
    }

    #[test]
    fn a_question_is_read_once_into_its_parts() {
        let q = Question::read(
            "When is my next dentist appointment with Dr Okafor?",
            true,
            true,
            now,
        )
        .unwrap();
        assert!(q.first_person);
        assert!(q.asks_schedule);
        assert!(
            q.names.iter().any(|n| n.contains("Okafor")),
            "{:?}",
            q.names
        );
        assert!(q
            .lexical
            .as_ref()
            .is_some_and(|l| l.terms().iter().any(|t| t.contains("dentist"))));
        assert!(q.doing.is_none());
        assert!(q.time.is_some());
    }

    #[test]
    fn the_time_is_read_only_when_it_is_wanted_or_the_question_is_about_doing() {
        // Not wanted, not about doing: the index is not looked at.
        let q = Question::read("the invoice for the dog", false, true, no_look).unwrap();
        assert!(q.time.is_none() && q.doing.is_none() && !q.first_person);
        // About doing: read even when the time prior is off.
        let q = Question::read("what did I edit last week", false, true, now).unwrap();
        assert!(q.doing.is_some());
        let time = q.time.expect("a question about doing has its time read");
        assert!(time.intent.range.is_some(), "{time:?}");
        // A look that fails is the read's error.
        assert_eq!(
            Question::read("what did I edit last week", false, true, no_look).unwrap_err(),
            "the index was looked at"
        );
    }

    #[test]
    fn only_stop_words_have_no_lexical_query_and_routines_ask_about_the_schedule() {
        let q = Question::read("the, of and a!", true, true, now).unwrap();
        assert!(q.lexical.is_none());
        assert!(!q.asks_about_schedule(false));
        assert!(q.asks_about_schedule(true));
    }
}
