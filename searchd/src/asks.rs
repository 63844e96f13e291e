//! What a question asks for, as far as calendar events go.
//!
//! An event records when something is (its date and time, its weekdays, how often it
//! repeats), where and with whom it is planned. A question asking for one of those
//! ("when is…", "what time…", "which evenings…", "how often…", "where is…", "who is
//! coming…", a routine) can be answered by an event. Any other question ("how much did
//! Biscuit weigh at his vet visit", "which seat did she have on the flight", "what did
//! we decide at the staff meeting") names an event only as its occasion: the answer is
//! in what was written, paid or recorded there, and the event's units then count less
//! (`planner::EVENT_CONTEXT_FACTOR`, the planner switch `event_context`). So does a
//! "where" or "who" in the past ("who did I meet at the summit", "where were they
//! planning to cheer"): it asks what happened, which a plan does not record.
//!
//! When in doubt a question counts as asking about the schedule, which leaves every
//! score as it was.

/// Words that make a following "when" a question ("when is", "and when do") rather than
/// a clause of time ("when I rang the hostel, …").
const AUXILIARIES: [&str; 18] = [
    "is", "was", "are", "were", "do", "does", "did", "will", "would", "should", "can", "could",
    "am", "has", "have", "had", "must", "shall",
];

/// Nouns of time (and their plurals) after "what" or "which" ("what time", "which
/// weekday evenings").
const TIME_NOUNS: [&str; 13] = [
    "time",
    "day",
    "date",
    "weekday",
    "weekend",
    "evening",
    "night",
    "morning",
    "afternoon",
    "week",
    "month",
    "year",
    "hour",
];

fn is_time_noun(word: &str) -> bool {
    TIME_NOUNS.contains(&word.strip_suffix('s').unwrap_or(word))
}

/// What follows "how" when it asks about time: "how often", "how long", "how soon".
const HOW_OF_TIME: [&str; 5] = ["often", "long", "soon", "early", "late"];

/// Words that ask for the schedule itself.
const SCHEDULE_WORDS: [&str; 9] = [
    "schedule",
    "scheduled",
    "calendar",
    "agenda",
    "upcoming",
    "next",
    "free",
    "busy",
    "plans",
];

/// Words after "where" or "who" that put the question in the past: it asks what
/// happened, not what was planned.
const PAST: [&str; 4] = ["did", "was", "were", "had"];

/// Words after which "where" or "who" still opens a question ("and where", "with whom").
const OPENERS: [&str; 9] = ["and", "or", "but", "with", "to", "from", "by", "for", "of"];

/// Whether `query` asks for something a calendar event records: a time, a frequency, a
/// place, people, or the schedule itself. `routine` is the time parser's reading of a
/// routine ("usually", "every").
pub fn asks_about_schedule(query: &str, routine: bool) -> bool {
    if routine {
        return true;
    }
    let lower = query.to_lowercase().replace('’', "'");
    lower
        .split(['?', '!', '.', ',', ';', ':', '—', '–', '(', ')'])
        .any(|clause| clause_asks(&words(clause)))
}

/// The clause's words; a question word's "'s" ("when's", "where's", "who's") is read as
/// the auxiliary it stands for ("is" or "has", both auxiliaries here).
fn words(clause: &str) -> Vec<&str> {
    let mut words = Vec::new();
    for word in clause
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
    {
        match word.strip_suffix("'s") {
            Some(head @ ("when" | "where" | "who" | "what" | "how")) => {
                words.extend([head, "is"]);
            }
            _ => words.push(word),
        }
    }
    words
}

fn clause_asks(words: &[&str]) -> bool {
    words.iter().enumerate().any(|(i, word)| {
        let next = words.get(i + 1).copied();
        let after = words.get(i + 2).copied();
        match *word {
            // "when is…", "and when?", "since when"; not "when I rang…".
            "when" => next.is_none_or(|n| AUXILIARIES.contains(&n)),
            "what" | "which" => [next, after].into_iter().flatten().any(is_time_noun),
            // "where is…", "who is coming…", "and with whom…"; not in the past ("who did
            // I meet…", "where were they…") nor a relative clause ("the man who said").
            "where" | "who" | "whom" => {
                let opens = i.checked_sub(1).is_none_or(|j| OPENERS.contains(&words[j]));
                opens && next.is_none_or(|n| !PAST.contains(&n))
            }
            "how" => match next {
                Some("many") => after == Some("times"),
                Some(n) => HOW_OF_TIME.contains(&n),
                None => false,
            },
            w => SCHEDULE_WORDS.contains(&w),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::asks_about_schedule;

    #[test]
    fn questions_about_time_place_and_people_ask_about_the_schedule() {
        for question in [
            "When is my last wheel-throwing class of the fall session?",
            "What time do I have to be at the church for the concert?",
            "How often do I go down to see Mam, and when?",
            "Which weekday evenings are taken up by my commitments this fall?",
            "On which day of the week is the bin collection?",
            "What year did we move?",
            "Where is the book club meeting this month?",
            "Who is coming to dinner on Saturday?",
            "Where will the party be?",
            "With whom do I have the review?",
            "What's on my calendar next week?",
            "Am I free on Thursday evening?",
            "How many times did I see the physio?",
            "How long is the flight to Santiago?",
            "What rating did I give the book, and when did I finish it?",
            "When's the parent-teacher meeting?",
            "Where's the team dinner on Friday?",
            "Who’s coming to the barbecue?",
        ] {
            assert!(asks_about_schedule(question, false), "{question}");
        }
    }

    #[test]
    fn other_questions_name_an_event_only_as_their_occasion() {
        for question in [
            "How much did Biscuit weigh at his October vet visit?",
            "What bib number was I assigned for the half marathon?",
            "Which seat did Aoife have on our flight out?",
            "What did we decide at the March staff meeting about the exams?",
            "When I rang the hostel, what did they offer us?",
            "How did the marks change between the two reports?",
            "How many students still owe money for the trip?",
            "What did the man who sold us the car say about the tyres?",
            "Who did I meet at the summit who wanted to compare notes?",
            "Where were Hannah and Inês planning to cheer for me?",
            "What's the total on the plumber's invoice?",
        ] {
            assert!(!asks_about_schedule(question, false), "{question}");
        }
    }

    #[test]
    fn a_routine_is_about_the_schedule() {
        assert!(asks_about_schedule(
            "What do I do at my pantry shifts?",
            true
        ));
    }
}
