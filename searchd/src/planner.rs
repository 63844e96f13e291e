//! Structure- and time-aware priors applied to ranked units: what the query says about
//! time (boosts for units in the time range, on the weekdays, at the hours asked about,
//! and for recurring events when the question is about a routine) and whose evidence it
//! wants (a first-person question discounts documents saved in a Downloads folder:
//! downloaded reference material rather than the user's own). Every prior is a
//! multiplicative factor, shown in `explain`, and can be switched off per request.
//! `people`: capitalised words inside a sentence (not month or weekday names) are taken
//! as names and matched against the `meta` field (e-mail participants, attendees) as an
//! extra boosted clause.
//! `folders` only suggests a path prefix in `explain` (the folder with most strong
//! matches); a score boost for sibling matches was measured and lowered MRR.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Timelike};
use serde::{Deserialize, Serialize};

use crate::timeparse::TimeIntent;

/// Which priors a request uses (all on by default; switch off for ablation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannerSwitches {
    pub time: bool,
    pub whose: bool,
    pub folders: bool,
    pub people: bool,
    /// A weekday name that is the topic ("her Saturday shift") is not a time; off:
    /// every weekday name is.
    pub weekday_sense: bool,
    /// Questions about doing ("which files did I edit yesterday") use the activity log
    /// as a signal (`crate::activity`).
    pub activity: bool,
    /// Routine questions get units from several files and days (`crate::diversify`).
    #[serde(default = "switched_on")]
    pub diversify: bool,
    /// Copies of one file (an attachment and its saved copy) count once
    /// (`crate::copies`).
    #[serde(default = "switched_on")]
    pub copies: bool,
    /// A question that does not ask about the schedule (`crate::asks`) counts calendar
    /// events as its occasion, not its answer.
    #[serde(default = "switched_on")]
    pub event_context: bool,
    /// A log whose ranked spans tie also shows its records of one kind
    /// (`crate::record_kinds`).
    #[serde(default = "switched_on")]
    pub record_kinds: bool,
}

fn switched_on() -> bool {
    true
}

impl Default for PlannerSwitches {
    fn default() -> Self {
        PlannerSwitches {
            time: true,
            whose: true,
            folders: true,
            people: true,
            weekday_sense: true,
            activity: true,
            diversify: true,
            copies: true,
            event_context: true,
            record_kinds: true,
        }
    }
}

impl PlannerSwitches {
    pub const NAMES: [&'static str; 10] = [
        "time",
        "whose",
        "folders",
        "people",
        "weekday_sense",
        "activity",
        "diversify",
        "copies",
        "event_context",
        "record_kinds",
    ];

    /// Switches a named prior off; `false` for an unknown name.
    pub fn disable(&mut self, name: &str) -> bool {
        match name {
            "time" => self.time = false,
            "whose" => self.whose = false,
            "folders" => self.folders = false,
            "people" => self.people = false,
            "weekday_sense" => self.weekday_sense = false,
            "activity" => self.activity = false,
            "diversify" => self.diversify = false,
            "copies" => self.copies = false,
            "event_context" => self.event_context = false,
            "record_kinds" => self.record_kinds = false,
            "all" => {
                *self = PlannerSwitches {
                    time: false,
                    whose: false,
                    folders: false,
                    people: false,
                    weekday_sense: false,
                    activity: false,
                    diversify: false,
                    copies: false,
                    event_context: false,
                    record_kinds: false,
                }
            }
            _ => return false,
        }
        true
    }
}

/// Boost for a unit inside the asked time range.
pub const TIME_RANGE_BOOST: f32 = 1.5;
/// Boost for a unit dated outside a short asked range that mentions a date inside it
/// ("Tomorrow (Tue 10/14) we meet at the gate", sent on the 13th).
pub const MENTION_BOOST: f32 = 1.3;
/// The longest range (in days) whose mentioned dates count: a day or a week. A month
/// is mentioned in passing by too much (a reminder sent weeks before, a newsletter's
/// list of dates) to say a unit is about it.
pub const MENTION_MAX_DAYS: i64 = 8;
/// Boost for a unit on an asked weekday.
pub const WEEKDAY_BOOST: f32 = 1.3;
/// Boost for a unit at an asked part of the day.
pub const HOUR_BOOST: f32 = 1.15;
/// Extra boost for a recurring calendar event when the question is about a routine.
pub const ROUTINE_BOOST: f32 = 1.3;
/// Factor for downloaded documents under a first-person question.
pub const DOWNLOADED_FACTOR: f32 = 0.75;
/// Factor for calendar events under a question that does not ask about the schedule
/// (`crate::asks`): the event is the occasion, the answer is elsewhere.
pub const EVENT_CONTEXT_FACTOR: f32 = 0.75;

/// Boost of the clause matching named people against the `meta` field.
pub const PEOPLE_BOOST: f32 = 1.5;

/// Capitalised words that are not names.
const NOT_NAMES: [&str; 12] = [
    "I", "I'm", "I've", "I'd", "I'll", "Mr", "Mrs", "Ms", "Dr", "OK", "Ok", "TV",
];

/// Month and weekday names and abbreviations (lower case).
fn is_calendar_word(word: &str) -> bool {
    let lower = word.to_lowercase();
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    converters::unit::month_number(&lower).is_some()
        || converters::unit::weekday_number(&lower).is_some()
        || converters::unit::WEEKDAY_NAMES.contains(&singular)
}

/// People named in a query: capitalised words (with at least one lower-case letter, so
/// not acronyms) that do not start a sentence and are not month or weekday names.
/// Possessives are stripped ("Hannah's" → "Hannah"); each name is listed once.
pub fn people_in(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut sentence_start = true;
    for raw in query.split_whitespace() {
        let ends_sentence = raw
            .trim_end_matches(['"', '\'', ')', '’', '”'])
            .ends_with(['.', '?', '!', ':']);
        let first = sentence_start;
        sentence_start = ends_sentence;
        if first {
            continue;
        }
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let word = word
            .strip_suffix("'s")
            .or_else(|| word.strip_suffix("’s"))
            .unwrap_or(word);
        let mut chars = word.chars();
        let Some(initial) = chars.next() else {
            continue;
        };
        let rest: Vec<char> = chars.collect();
        let is_name = initial.is_uppercase()
            && !rest.is_empty()
            && rest.iter().any(|c| c.is_lowercase())
            && rest
                .iter()
                .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’'))
            && !rest
                .iter()
                .any(|c| c.is_uppercase() && !matches!(initial, 'M' | 'O'))
            && !NOT_NAMES.contains(&word)
            && !is_calendar_word(word);
        if is_name && !out.iter().any(|w| w == word) {
            out.push(word.to_string());
        }
    }
    out
}

/// The structured fields that name a message's or an event's people.
pub const PARTICIPANT_FIELDS: [&str; 5] = ["from", "to", "cc", "organizer", "attendees"];

/// The role each of [`PARTICIPANT_FIELDS`] gives a person (the routine summary's people).
pub fn participant_role(field: &'static str) -> &'static str {
    match field {
        "attendees" => "attendee",
        other => other,
    }
}

/// Whether one of a unit's [`PARTICIPANT_FIELDS`] has `name` as a word (case and
/// accents aside): "Aoife" in `Aoife Devlin <aoife@example.ie>`, not in a subject.
pub fn names_a_participant(
    fields: &std::collections::BTreeMap<String, String>,
    name: &str,
) -> bool {
    let name = fold_name(name);
    PARTICIPANT_FIELDS.iter().any(|key| {
        fields.get(*key).is_some_and(|value| {
            value
                .split(|c: char| !c.is_alphanumeric() && !matches!(c, '-' | '\'' | '’'))
                .any(|word| fold_name(word) == name)
        })
    })
}

/// A name for comparison: lower case, common Latin accents dropped, letters and digits
/// only ("Tomás Ferreira" and "tomas ferreira" are one name).
pub fn fold_name(name: &str) -> String {
    name.to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'õ' | 'ö' | 'ø' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            c => c,
        })
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// The facts about a unit the priors look at.
#[derive(Debug, Clone, Default)]
pub struct UnitFacts<'a> {
    pub path: &'a str,
    pub modality: Option<converters::Modality>,
    pub kind: Option<converters::UnitKind>,
    /// RFC 3339 with the unit's own offset.
    pub content_time: &'a str,
    /// Extra weekdays (recurring events), English names, comma-separated.
    pub weekdays: Option<&'a str>,
    /// "HH:MM" of a recurring event.
    pub time_of_day: Option<&'a str>,
    /// Last date (YYYY-MM-DD) of the records in the unit (dated rows, journal entries).
    pub date_end: Option<&'a str>,
    pub recurring: bool,
    /// The unit's text (dates it mentions count for a short range asked about).
    pub text: &'a str,
}

/// The factors applied to one unit, by prior.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factors {
    pub time: f32,
    pub whose: f32,
    /// Matching events in the activity log (a question about doing; `crate::activity`).
    pub activity: f32,
    /// A calendar event under a question that does not ask about the schedule.
    pub event: f32,
}

impl Factors {
    pub fn total(&self) -> f32 {
        self.time * self.whose * self.activity * self.event
    }
}

/// First-person questions ("my", "I", "me") ask about the user's own things.
pub fn is_first_person(query: &str) -> bool {
    query
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| {
            matches!(
                w,
                "i" | "my"
                    | "me"
                    | "mine"
                    | "myself"
                    | "i'm"
                    | "i've"
                    | "i'd"
                    | "we"
                    | "our"
                    | "us"
            )
        })
}

fn is_downloaded(path: &str) -> bool {
    let folders = index::UnitPath::parse(path).container();
    let mut parts: Vec<&str> = folders.split('/').collect();
    parts.pop();
    parts
        .iter()
        .any(|p| p.eq_ignore_ascii_case("downloads") || p.eq_ignore_ascii_case("download"))
}

/// The priors' factors for one unit.
pub fn factors(
    unit: &UnitFacts,
    intent: &TimeIntent,
    first_person: bool,
    switches: PlannerSwitches,
) -> Factors {
    let mut time = 1.0;
    if switches.time && !intent.is_empty() {
        let when: Option<NaiveDateTime> = DateTime::parse_from_rfc3339(unit.content_time)
            .ok()
            .map(|t| t.naive_local());
        if let (Some((start, end)), Some(when)) = (intent.range, when) {
            // A recurring event counts when its series has started before the range ends.
            let last = unit
                .date_end
                .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
                .and_then(|d| d.and_hms_opt(23, 59, 59));
            let overlaps = last.is_some_and(|last| when < end && last >= start);
            let inside = (start..end).contains(&when) || overlaps || (unit.recurring && when < end);
            if inside {
                time *= TIME_RANGE_BOOST;
            } else if mentions_a_date_in(unit.text, when.date(), (start, end)) {
                time *= MENTION_BOOST;
            }
        }
        if !intent.weekdays.is_empty() {
            let mut days: Vec<u32> = when
                .map(|w| vec![w.weekday().num_days_from_monday()])
                .unwrap_or_default();
            if let Some(listed) = unit.weekdays {
                days.extend(converters::unit::parse_weekday_list(listed));
            }
            if days.iter().any(|d| intent.weekdays.contains(d)) {
                time *= WEEKDAY_BOOST;
            }
        }
        if intent.hours.is_some() {
            let hour = unit
                .time_of_day
                .and_then(|t| t.split(':').next()?.parse::<u32>().ok())
                .or_else(|| when.map(|w| w.hour()));
            if hour.is_some_and(|h| intent.hour_matches(h)) {
                time *= HOUR_BOOST;
            }
        }
        if intent.recurring && unit.recurring {
            time *= ROUTINE_BOOST;
        }
    }
    let whose = if switches.whose
        && first_person
        && unit.modality == Some(converters::Modality::Document)
        && is_downloaded(unit.path)
    {
        DOWNLOADED_FACTOR
    } else {
        1.0
    };
    Factors {
        time,
        whose,
        activity: 1.0,
        event: 1.0,
    }
}

/// Whether `text`, written on `near`, mentions a date in a range of at most
/// [`MENTION_MAX_DAYS`].
fn mentions_a_date_in(
    text: &str,
    near: NaiveDate,
    (start, end): (NaiveDateTime, NaiveDateTime),
) -> bool {
    (end - start).num_days() <= MENTION_MAX_DAYS
        && converters::mentioned_dates(text, near)
            .iter()
            .any(|date| (start.date()..end.date()).contains(date) || *date == start.date())
}

/// Folder of a file path (attachments belong to their parent's folder).
pub fn folder_of(path: &str) -> &str {
    let file = index::UnitPath::parse(path).container();
    file.rsplit_once('/')
        .map(|(folder, _)| folder)
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeparse::parse;
    use chrono::NaiveDate;

    fn reference() -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2025, 11, 15)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
    }

    fn unit<'a>(path: &'a str, time: &'a str) -> UnitFacts<'a> {
        UnitFacts {
            path,
            modality: Some(converters::Modality::Text),
            kind: Some(converters::UnitKind::Span),
            content_time: time,
            ..UnitFacts::default()
        }
    }

    #[test]
    fn time_range_weekday_and_hour_boosts() {
        let all = PlannerSwitches::default();
        let intent = parse(
            "what did I do on Wednesday evenings in October",
            reference(),
        );
        // Wednesday 2025-10-15, 19:00.
        let inside = factors(
            &unit("a.txt", "2025-10-15T19:00:00-07:00"),
            &intent,
            true,
            all,
        );
        assert!((inside.time - TIME_RANGE_BOOST * WEEKDAY_BOOST * HOUR_BOOST).abs() < 1e-5);
        let outside = factors(
            &unit("a.txt", "2025-08-12T09:00:00-07:00"),
            &intent,
            true,
            all,
        );
        assert_eq!(outside.time, 1.0);
        let off = PlannerSwitches { time: false, ..all };
        assert_eq!(
            factors(
                &unit("a.txt", "2025-10-15T19:00:00-07:00"),
                &intent,
                true,
                off
            )
            .time,
            1.0
        );
    }

    #[test]
    fn dated_records_match_by_overlap() {
        let intent = parse("how many runs did I log in September 2025", reference());
        let mut rows = unit("Downloads/export.csv", "2025-08-20T00:00:00+00:00");
        rows.date_end = Some("2025-09-12");
        let f = factors(&rows, &intent, true, PlannerSwitches::default());
        assert_eq!(f.time, TIME_RANGE_BOOST);
        rows.date_end = Some("2025-08-30");
        assert_eq!(
            factors(&rows, &intent, true, PlannerSwitches::default()).time,
            1.0
        );
    }

    #[test]
    fn a_unit_mentioning_a_date_in_a_short_range_counts() {
        let intent = parse("where did the trail group meet on October 14", reference());
        let mut shot = unit("Desktop/Screenshot.png", "2025-10-13T21:17:45-07:00");
        shot.text = "Mon, Oct 13 · Tomorrow (Tue 10/14) we meet at the Leif Erikson gate";
        let f = factors(&shot, &intent, true, PlannerSwitches::default());
        assert_eq!(f.time, MENTION_BOOST);
        // A unit dated inside the range takes the range's boost, not both.
        let mut inside = shot.clone();
        inside.content_time = "2025-10-14T08:00:00-07:00";
        let f = factors(&inside, &intent, true, PlannerSwitches::default());
        assert_eq!(f.time, TIME_RANGE_BOOST);
        // Mentions of other days, or a range as long as a month, do not count.
        shot.text = "Mon, Oct 13 · see you Thursday 10/16";
        assert_eq!(
            factors(&shot, &intent, true, PlannerSwitches::default()).time,
            1.0
        );
        let year = parse("what did I plan in 2026", reference());
        let mut note = unit("Notes/plans.md", "2025-11-20T10:00:00-08:00");
        note.text = "Trip on 2 January";
        assert_eq!(
            factors(&note, &year, true, PlannerSwitches::default()).time,
            1.0
        );
    }

    #[test]
    fn recurring_events_match_routine_questions() {
        let intent = parse("what do I usually do on Wednesdays this fall", reference());
        let mut event = unit("Calendar/Personal.ics", "2025-08-06T18:00:00-07:00");
        event.kind = Some(converters::UnitKind::Event);
        event.recurring = true;
        event.weekdays = Some("Wednesday");
        event.time_of_day = Some("18:00");
        let f = factors(&event, &intent, true, PlannerSwitches::default());
        assert!(
            (f.time - TIME_RANGE_BOOST * WEEKDAY_BOOST * ROUTINE_BOOST).abs() < 1e-5,
            "{f:?}"
        );
    }

    #[test]
    fn first_person_questions_discount_downloaded_documents() {
        let intent = TimeIntent::default();
        let mut brochure = unit(
            "Downloads/Understanding-Cholesterol.pdf",
            "2025-09-01T00:00:00+00:00",
        );
        brochure.modality = Some(converters::Modality::Document);
        let mut export = unit("Downloads/activities.csv", "2025-09-01T00:00:00+00:00");
        export.modality = Some(converters::Modality::Text);
        let all = PlannerSwitches::default();
        assert_eq!(
            factors(&brochure, &intent, true, all).whose,
            DOWNLOADED_FACTOR
        );
        assert_eq!(factors(&brochure, &intent, false, all).whose, 1.0);
        assert_eq!(factors(&export, &intent, true, all).whose, 1.0);
        let mut own = unit("Documents/Health/labs.pdf", "2025-09-01T00:00:00+00:00");
        own.modality = Some(converters::Modality::Document);
        assert_eq!(factors(&own, &intent, true, all).whose, 1.0);
        assert!(is_first_person("What was my LDL?"));
        assert!(!is_first_person("Quarterly revenue of 3M"));
    }

    #[test]
    fn switches_and_folders() {
        let mut switches = PlannerSwitches::default();
        assert!(switches.disable("whose"));
        assert!(!switches.whose && switches.time);
        assert!(!switches.disable("astrology"));
        assert!(switches.disable("all"));
        assert_eq!(
            switches,
            PlannerSwitches {
                time: false,
                whose: false,
                folders: false,
                people: false,
                weekday_sense: false,
                activity: false,
                diversify: false,
                copies: false,
                event_context: false,
                record_kinds: false,
            }
        );
        for name in PlannerSwitches::NAMES {
            let mut one = PlannerSwitches::default();
            assert!(one.disable(name), "{name}");
            assert_ne!(one, PlannerSwitches::default(), "{name}");
        }
        let mut switches = PlannerSwitches::default();
        assert!(switches.disable("people"));
        assert!(!switches.people && switches.folders);
        assert!(PlannerSwitches::NAMES.contains(&"people"));
        assert_eq!(folder_of("Mail/Inbox/x.eml#attachment/a.pdf"), "Mail/Inbox");
        assert_eq!(folder_of("top.txt"), "");
    }

    #[test]
    fn participants_are_named_in_people_fields_only() {
        let fields: std::collections::BTreeMap<String, String> = [
            ("from", "Aoife Ní Bhriain <aoife@example.ie>"),
            ("to", "\"O'Brien, Séan\" <sean@example.ie>, ros@example.org"),
            ("subject", "Belfast trip"),
            ("location", "Galway"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert!(names_a_participant(&fields, "Aoife"));
        assert!(names_a_participant(&fields, "Sean"));
        assert!(names_a_participant(&fields, "O'Brien"));
        assert!(names_a_participant(&fields, "ros"));
        assert!(!names_a_participant(&fields, "Belfast"));
        assert!(!names_a_participant(&fields, "Galway"));
        assert!(!names_a_participant(&fields, "Aoif"));
    }

    #[test]
    fn people_are_capitalised_words_inside_sentences() {
        assert_eq!(
            people_in(
                "If Denise asked about maintenance at the October client update, what figure?"
            ),
            vec!["Denise"]
        );
        assert_eq!(
            people_in("Where were Hannah and Inês planning to cheer for me?"),
            vec!["Hannah", "Inês"]
        );
        assert_eq!(
            people_in("In my HEC-RAS walkthrough for Priya's team on Tuesday"),
            vec!["Priya"]
        );
        // First words of sentences, months, weekdays, acronyms and "I" are not names.
        assert!(people_in("Where did I put the MWD invoice from March? Tuesdays too.").is_empty());
        assert_eq!(
            people_in("What did Aoife say. Gareth replied about VAT"),
            vec!["Aoife"]
        );
        assert_eq!(people_in("mail from McAllister"), vec!["McAllister"]);
    }
}
