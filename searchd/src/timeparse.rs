//! Time expressions in queries, resolved against a reference date: absolute dates,
//! months, years, seasons, ranges, relative periods ("last week"), weekdays and recurring
//! patterns ("every Wednesday", "on Thursday mornings", "weekends"). Pure functions.

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, Weekday};
use serde::Serialize;

/// What a query says about time.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TimeIntent {
    /// Half-open wall-clock range `[start, end)`.
    pub range: Option<(NaiveDateTime, NaiveDateTime)>,
    /// Weekdays, 0 = Monday.
    pub weekdays: Vec<u32>,
    /// Hours of day `[from, to)`, wrapping past midnight when `from > to`.
    pub hours: Option<(u32, u32)>,
    /// "every …", "usually", plural weekdays: a routine rather than one occasion.
    pub recurring: bool,
    /// The phrases that were understood, for `explain`.
    pub phrases: Vec<String>,
    /// Weekday names read as the topic, not the time ("her Saturday shift"), with the
    /// word they modify, for `explain`.
    pub topic_weekdays: Vec<String>,
}

impl TimeIntent {
    pub fn is_empty(&self) -> bool {
        self.range.is_none() && self.weekdays.is_empty() && self.hours.is_none()
    }

    /// Whether a wall-clock hour falls in `hours`.
    pub fn hour_matches(&self, hour: u32) -> bool {
        match self.hours {
            None => false,
            Some((from, to)) if from <= to => (from..to).contains(&hour),
            Some((from, to)) => hour >= from || hour < to,
        }
    }
}

use converters::unit::WEEKDAY_NAMES as WEEKDAYS;

/// A month name or its usual abbreviation ("may" is handled by the caller: it is a verb
/// too).
fn month_of(word: &str) -> Option<u32> {
    converters::unit::month_number(word)
}

/// A weekday name, plural or abbreviated ("sat" and "sun" are words too: not taken).
fn weekday_of(word: &str) -> Option<(u32, bool)> {
    if matches!(word, "sat" | "sun") {
        return None;
    }
    if let Some(day) = converters::unit::weekday_number(word) {
        return Some((day, false));
    }
    let singular = word.strip_suffix('s')?;
    WEEKDAYS
        .iter()
        .position(|d| *d == singular)
        .map(|i| (i as u32, true))
}

fn day_of(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == ',');
    let day: u32 = digits.parse().ok()?;
    (1..=31).contains(&day).then_some(day)
}

fn year_of(word: &str) -> Option<i32> {
    let word = word.trim_end_matches([',', '.', '?', ';']);
    if word.len() != 4 {
        return None;
    }
    let year: i32 = word.parse().ok()?;
    (1970..=2100).contains(&year).then_some(year)
}

fn start_of(date: NaiveDate) -> NaiveDateTime {
    date.and_hms_opt(0, 0, 0).unwrap_or_default()
}

fn month_range(year: i32, month: u32) -> Option<(NaiveDateTime, NaiveDateTime)> {
    let start = NaiveDate::from_ymd_opt(year, month, 1)?;
    let end = if month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)?
    };
    Some((start_of(start), start_of(end)))
}

fn day_range(date: NaiveDate) -> (NaiveDateTime, NaiveDateTime) {
    (start_of(date), start_of(date + Duration::days(1)))
}

/// A month without a year means the latest such month not after the reference.
fn year_for_month(month: u32, reference: NaiveDate) -> i32 {
    if month <= reference.month() {
        reference.year()
    } else {
        reference.year() - 1
    }
}

/// The query's lower-case words, each with whether a clause break (punctuation) follows
/// it.
fn tokens(query: &str) -> (Vec<String>, Vec<bool>) {
    let lower = query.to_lowercase();
    let mut words = Vec::new();
    let mut breaks: Vec<bool> = Vec::new();
    let mut rest = lower.as_str();
    while !rest.is_empty() {
        let end = rest
            .find(|c: char| c.is_whitespace() || is_break(c))
            .unwrap_or(rest.len());
        let (raw, after) = rest.split_at(end);
        let word = raw.trim_end_matches([',', '.', ':']);
        if let Some(last) = breaks.last_mut() {
            // Punctuation standing alone between words breaks the clause too.
            *last |= word.is_empty() && !raw.is_empty();
        }
        if !word.is_empty() {
            words.push(word.to_string());
            breaks.push(word.len() < raw.len() || after.starts_with(is_break));
        }
        rest = after.trim_start_matches(|c: char| c.is_whitespace() || is_break(c));
        if after.trim_start().starts_with(is_break) {
            if let Some(last) = breaks.last_mut() {
                *last = true;
            }
        }
    }
    (words, breaks)
}

fn is_break(c: char) -> bool {
    matches!(c, '?' | '!' | '(' | ')' | '"' | ';')
}

/// Words before a weekday name that make it a time: "on Saturday", "last Saturday",
/// "every Saturday", "since Saturday".
const TIME_MARKERS: [&str; 22] = [
    "on",
    "last",
    "next",
    "this",
    "that",
    "every",
    "each",
    "since",
    "until",
    "till",
    "before",
    "after",
    "from",
    "through",
    "thru",
    "by",
    "past",
    "coming",
    "following",
    "previous",
    "between",
    "over",
];

/// Function words (articles, pronouns, prepositions, conjunctions, auxiliaries, question
/// words, some adverbs): after a weekday name they show it is not modifying a noun
/// ("what did I do Saturday and why", "Saturday I ran").
const FUNCTION_WORDS: [&str; 96] = [
    "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our",
    "their", "some", "any", "all", "no", "i", "me", "we", "us", "you", "he", "him", "she", "they",
    "them", "it", "at", "in", "on", "of", "for", "with", "about", "to", "from", "by", "after",
    "before", "during", "around", "until", "till", "since", "between", "into", "through", "and",
    "or", "but", "so", "when", "while", "if", "because", "as", "than", "is", "was", "were", "are",
    "be", "been", "did", "do", "does", "had", "has", "have", "will", "would", "could", "should",
    "can", "might", "must", "what", "who", "where", "why", "how", "which", "not", "never", "too",
    "also", "again", "then", "just", "only", "ago", "earlier", "later", "there",
];

/// Words after a weekday name that continue a time: "Saturday morning", "Saturday the
/// 4th", "Saturday week".
const TIME_WORDS: [&str; 18] = [
    "morning",
    "mornings",
    "afternoon",
    "afternoons",
    "evening",
    "evenings",
    "night",
    "nights",
    "noon",
    "midday",
    "midnight",
    "lunchtime",
    "week",
    "weeks",
    "am",
    "pm",
    "early",
    "late",
];

/// Whether a (lower-case) word belongs to time expressions: month and weekday names,
/// parts of the day, and the words of relative periods and seasons.
pub fn is_time_word(word: &str) -> bool {
    const RELATIVE: [&str; 28] = [
        "last",
        "this",
        "next",
        "past",
        "previous",
        "yesterday",
        "today",
        "tonight",
        "tomorrow",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "day",
        "days",
        "weekend",
        "weekends",
        "ago",
        "fall",
        "autumn",
        "spring",
        "summer",
        "winter",
        "mid",
        "beginning",
        "end",
    ];
    month_of(word).is_some()
        || weekday_of(word).is_some()
        || TIME_WORDS.contains(&word)
        || RELATIVE.contains(&word)
}

/// Whether the singular weekday name at `i` says when (a time) rather than what (the
/// topic, "her Saturday shift", "the Saturday market"). General grammar only: a time
/// marker before it, a clause break, the end of the query, a function word or a time word
/// after it make it a time; a weekday modifying the next (content) word is the topic. In a
/// list ("Friday and Saturday …") a weekday takes the sense of the next one.
fn weekday_is_time(words: &[String], breaks: &[bool], i: usize) -> bool {
    let word_at = |j: usize| words.get(j).map(String::as_str).unwrap_or("");
    let before = |back: usize| i.checked_sub(back).map(word_at).unwrap_or("");
    if TIME_MARKERS.contains(&before(1))
        || (matches!(before(1), "a" | "the") && TIME_MARKERS.contains(&before(2)))
    {
        return true;
    }
    let next = word_at(i + 1);
    if breaks[i] || next.is_empty() {
        return true;
    }
    if matches!(next, "and" | "or" | "to" | "through" | "thru" | "-")
        && weekday_of(word_at(i + 2)).is_some_and(|(_, plural)| !plural)
    {
        return weekday_is_time(words, breaks, i + 2);
    }
    FUNCTION_WORDS.contains(&next)
        || TIME_WORDS.contains(&next)
        || weekday_of(next).is_some()
        || month_of(next).is_some()
        || next.starts_with(|c: char| c.is_ascii_digit())
}

fn union(
    a: Option<(NaiveDateTime, NaiveDateTime)>,
    b: (NaiveDateTime, NaiveDateTime),
) -> (NaiveDateTime, NaiveDateTime) {
    match a {
        None => b,
        Some((s, e)) => (s.min(b.0), e.max(b.1)),
    }
}

/// The week (Monday to Monday) holding the single day that the longest prefix (at most
/// three words) of `words` names, with the number of words used.
fn week_of(
    words: &[String],
    reference: NaiveDateTime,
) -> Option<((NaiveDateTime, NaiveDateTime), usize)> {
    (1..=words.len().min(3)).rev().find_map(|n| {
        let intent = parse(&words[..n].join(" "), reference);
        let (start, end) = intent.range?;
        let single_day = end - start == Duration::days(1)
            && intent.phrases.len() == 1
            && intent.weekdays.is_empty()
            && intent.hours.is_none();
        if !single_day {
            return None;
        }
        let day = start.date();
        let monday = day - Duration::days(day.weekday().num_days_from_monday() as i64);
        Some(((start_of(monday), start_of(monday + Duration::days(7))), n))
    })
}

/// Parses the time expressions of a query relative to `reference` (the "now" of the
/// profile). At each word the steps are tried in a fixed order; the first that understands
/// the words there consumes them.
pub fn parse(query: &str, reference: NaiveDateTime) -> TimeIntent {
    parse_with(query, reference, true)
}

/// [`parse`], with `weekday_sense` off every weekday name counts as a time, whether or
/// not it is the topic ("her Saturday shift"); the planner's `weekday_sense` switch.
pub fn parse_with(query: &str, reference: NaiveDateTime, weekday_sense: bool) -> TimeIntent {
    let (words, breaks) = tokens(query);
    let mut cursor = Cursor {
        words,
        breaks,
        weekday_sense,
        i: 0,
        reference,
        today: reference.date(),
        intent: TimeIntent::default(),
    };
    while cursor.i < cursor.words.len() {
        let _ = cursor.iso_date()
            || cursor.week_of()
            || cursor.relative_period()
            || cursor.ago()
            || cursor.season()
            || cursor.month()
            || cursor.bare_year()
            || cursor.weekday()
            || cursor.day_part_or_routine();
    }
    let mut intent = cursor.intent;
    intent.weekdays.sort_unstable();
    intent
}

/// The state shared by the steps of [`parse`]: the words, the position, and what has been
/// understood so far. Each step returns whether it consumed words (and then moved `i`).
struct Cursor {
    words: Vec<String>,
    /// A clause break follows the word at the same position.
    breaks: Vec<bool>,
    /// Whether a weekday name that is the topic is told apart from one that is a time.
    weekday_sense: bool,
    i: usize,
    reference: NaiveDateTime,
    today: NaiveDate,
    intent: TimeIntent,
}

impl Cursor {
    /// The word `offset` places after the current one, or "".
    fn at(&self, offset: usize) -> &str {
        self.words
            .get(self.i + offset)
            .map(String::as_str)
            .unwrap_or("")
    }

    /// The word before the current one, if any.
    fn previous(&self) -> Option<&str> {
        self.i
            .checked_sub(1)
            .and_then(|p| self.words.get(p))
            .map(String::as_str)
    }

    fn set_range(&mut self, range: (NaiveDateTime, NaiveDateTime), phrase: String) {
        self.intent.range = Some(union(self.intent.range, range));
        self.intent.phrases.push(phrase);
    }

    /// Adds `range` with the next `used` words as its phrase, and moves past them.
    fn take_range(&mut self, range: (NaiveDateTime, NaiveDateTime), used: usize) -> bool {
        let phrase = self.words[self.i..self.i + used].join(" ");
        self.set_range(range, phrase);
        self.i += used;
        true
    }

    /// ISO date 2025-10-16.
    fn iso_date(&mut self) -> bool {
        match NaiveDate::parse_from_str(self.at(0), "%Y-%m-%d") {
            Ok(date) => self.take_range(day_range(date), 1),
            Err(_) => false,
        }
    }

    /// "the week of 6 October": the Monday-to-Sunday week holding that date.
    fn week_of(&mut self) -> bool {
        if self.at(0) != "week" || self.at(1) != "of" {
            return false;
        }
        match week_of(&self.words[self.i + 2..], self.reference) {
            Some((range, used)) => self.take_range(range, 2 + used),
            None => false,
        }
    }

    /// Relative periods: "today", "yesterday", "last/this week|month|year".
    fn relative_period(&mut self) -> bool {
        let today = self.today;
        let relative = match (self.at(0), self.at(1)) {
            ("today", _) => Some((day_range(today), 1)),
            ("yesterday", _) => Some((day_range(today - Duration::days(1)), 1)),
            ("last" | "past" | "previous", "week") => {
                let monday =
                    today - Duration::days(today.weekday().num_days_from_monday() as i64 + 7);
                Some(((start_of(monday), start_of(monday + Duration::days(7))), 2))
            }
            ("this", "week") => {
                let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
                Some(((start_of(monday), start_of(today + Duration::days(1))), 2))
            }
            ("last" | "past" | "previous", "month") => {
                let (y, m) = if today.month() == 1 {
                    (today.year() - 1, 12)
                } else {
                    (today.year(), today.month() - 1)
                };
                month_range(y, m).map(|r| (r, 2))
            }
            ("this", "month") => month_range(today.year(), today.month()).map(|r| (r, 2)),
            ("last" | "past" | "previous", "year") => {
                NaiveDate::from_ymd_opt(today.year() - 1, 1, 1)
                    .zip(NaiveDate::from_ymd_opt(today.year(), 1, 1))
                    .map(|(a, b)| ((start_of(a), start_of(b)), 2))
            }
            ("this", "year") => NaiveDate::from_ymd_opt(today.year(), 1, 1)
                .map(|a| ((start_of(a), start_of(today + Duration::days(1))), 2)),
            _ => None,
        };
        match relative {
            Some((range, used)) => self.take_range(range, used),
            None => false,
        }
    }

    /// "N days/weeks/months ago": a window around that day.
    fn ago(&mut self) -> bool {
        let (word, next) = (self.at(0), self.at(1));
        let Ok(n) = word.parse::<i64>() else {
            return false;
        };
        if self.at(2) != "ago" {
            return false;
        }
        let days = match next.trim_end_matches('s') {
            "day" => Some(n),
            "week" => Some(n * 7),
            "month" => Some(n * 30),
            _ => None,
        };
        let Some(days) = days.filter(|d| (0..=3650).contains(d)) else {
            return false;
        };
        let phrase = format!("{word} {next} ago");
        let center = self.today - Duration::days(days);
        let slack = (days / 7).clamp(1, 15);
        self.set_range(
            (
                start_of(center - Duration::days(slack)),
                start_of(center + Duration::days(slack + 1)),
            ),
            phrase,
        );
        self.i += 3;
        true
    }

    /// Seasons: "this fall", "summer 2024", "last winter". A season word is always
    /// consumed (with its year, if one follows).
    fn season(&mut self) -> bool {
        let (word, next) = (self.at(0), self.at(1));
        let (from, to) = match word {
            "spring" => (3, 6),
            "summer" => (6, 9),
            "fall" | "autumn" => (9, 12),
            "winter" => (12, 15),
            _ => return false,
        };
        let today = self.today;
        let explicit_year = year_of(next);
        let year = explicit_year.unwrap_or_else(|| {
            let this_year = today.year();
            let started = from <= today.month() as i32 || (from == 12 && today.month() <= 2);
            if self.previous() == Some("last") || !started {
                this_year - 1
            } else {
                this_year
            }
        });
        let phrase = match explicit_year {
            Some(_) => format!("{word} {next}"),
            None => word.to_string(),
        };
        let start = NaiveDate::from_ymd_opt(year, from as u32, 1);
        let end = if to > 12 {
            NaiveDate::from_ymd_opt(year + 1, (to - 12) as u32, 1)
        } else {
            NaiveDate::from_ymd_opt(year, to as u32, 1)
        };
        if let (Some(start), Some(end)) = (start, end) {
            self.set_range((start_of(start), start_of(end)), phrase);
        }
        self.i += if explicit_year.is_some() { 2 } else { 1 };
        true
    }

    /// Month expressions: "October", "Oct 14", "October 14, 2025", "14 October 2025",
    /// "mid-April 2019", "early/late September", "between Sept 1 and 15".
    fn month(&mut self) -> bool {
        let i = self.i;
        let (word, next) = (self.at(0), self.at(1));
        let (qualifier, month_word) = match word.split_once('-') {
            Some((q @ ("mid" | "early" | "late"), m)) => (Some(q), m),
            _ => match (word, next) {
                ("mid" | "early" | "late", n) if month_of(n).is_some() => (Some(word), ""),
                _ => (None, word),
            },
        };
        let (qualifier, month_word, consumed_qualifier) = if month_word.is_empty() {
            (qualifier, next, 1)
        } else {
            (qualifier, month_word, 0)
        };
        let after_month = self.at(consumed_qualifier + 1);
        let month = month_of(month_word).filter(|_| {
            // "may" is a month only next to a day or a year, or after "in".
            month_word != "may"
                || day_of(after_month).is_some()
                || year_of(after_month).is_some()
                || self.previous() == Some("in")
        });
        let Some(month) = month else {
            return false;
        };
        let words = &self.words;
        let j = i + consumed_qualifier + 1;
        let w1 = words.get(j).map(String::as_str).unwrap_or("");
        let w2 = words.get(j + 1).map(String::as_str).unwrap_or("");
        // Day before the month: "14 October".
        let day_before = self.previous().and_then(day_of);
        let (day, year, used) = match (day_of(w1), year_of(w1), year_of(w2)) {
            (Some(d), None, Some(y)) => (Some(d), Some(y), 2),
            (Some(d), None, None) => (Some(d), None, 1),
            (_, Some(y), _) => (day_before, Some(y), 1),
            _ => (day_before, None, 0),
        };
        let year = year.unwrap_or_else(|| year_for_month(month, self.today));
        // "between Sept 1 and 15": a second day after "and".
        let and_day = (words.get(j + used).map(String::as_str) == Some("and"))
            .then(|| words.get(j + used + 1).and_then(|w| day_of(w)))
            .flatten();
        let range = match (day, and_day) {
            (Some(d1), Some(d2)) if d2 >= d1 => NaiveDate::from_ymd_opt(year, month, d1)
                .zip(NaiveDate::from_ymd_opt(year, month, d2))
                .map(|(a, b)| (start_of(a), start_of(b + Duration::days(1)))),
            (Some(d), _) => NaiveDate::from_ymd_opt(year, month, d).map(day_range),
            (None, _) => month_range(year, month).map(|(start, end)| match qualifier {
                Some("early") => (start, start + Duration::days(10)),
                Some("mid") => (start + Duration::days(9), start + Duration::days(21)),
                Some("late") => (start + Duration::days(20), end),
                _ => (start, end),
            }),
        };
        let Some(range) = range else {
            return false;
        };
        let last = (j + used + if and_day.is_some() { 2 } else { 0 }).min(words.len());
        self.take_range(range, last - i)
    }

    /// A bare year: "in 2019". A year-like number is always consumed, but only sets a
    /// range after "in", "during", "of", "since" or "from".
    fn bare_year(&mut self) -> bool {
        let Some(year) = year_of(self.at(0)) else {
            return false;
        };
        if matches!(
            self.previous(),
            Some("in" | "during" | "of" | "since" | "from")
        ) {
            if let (Some(a), Some(b)) = (
                NaiveDate::from_ymd_opt(year, 1, 1),
                NaiveDate::from_ymd_opt(year + 1, 1, 1),
            ) {
                self.set_range((start_of(a), start_of(b)), format!("in {year}"));
            }
        }
        self.i += 1;
        true
    }

    /// Adds weekdays (0 = Monday) not already present.
    fn add_weekdays(&mut self, days: impl IntoIterator<Item = u32>) {
        for d in days {
            if !self.intent.weekdays.contains(&d) {
                self.intent.weekdays.push(d);
            }
        }
    }

    /// A weekday name: "Thursday", "Wednesdays" (plural: a routine), "Thu".
    fn weekday(&mut self) -> bool {
        let Some((day, plural)) = weekday_of(self.at(0)) else {
            return false;
        };
        if self.weekday_sense && !plural && !weekday_is_time(&self.words, &self.breaks, self.i) {
            let phrase = format!("{} {}", self.at(0), self.at(1));
            self.intent.topic_weekdays.push(phrase);
            self.i += 1;
            return true;
        }
        self.add_weekdays([day]);
        if plural {
            self.intent.recurring = true;
        }
        let word = self.at(0).to_string();
        self.intent.phrases.push(word);
        self.i += 1;
        true
    }

    /// Weekends and weekdays, parts of the day ("mornings", "tonight") and routine words
    /// ("every", "usually"); any other word is skipped. Always consumes one word.
    fn day_part_or_routine(&mut self) -> bool {
        let word = self.at(0).to_string();
        let plural = word.ends_with('s');
        let understood = match word.as_str() {
            "weekend" | "weekends" => {
                self.add_weekdays([5, 6]);
                self.intent.recurring |= plural;
                true
            }
            "weekday" | "weekdays" => {
                self.add_weekdays(0..5);
                self.intent.recurring |= plural;
                true
            }
            "morning" | "mornings" => self.day_part((5, 12), plural),
            "afternoon" | "afternoons" => self.day_part((12, 17), plural),
            "evening" | "evenings" | "tonight" => self.day_part((17, 23), plural),
            "night" | "nights" => self.day_part((20, 5), plural),
            "every" | "usually" | "typically" | "routine" | "weekly" | "recurring"
            | "regularly" => {
                self.intent.recurring = true;
                true
            }
            _ => false,
        };
        if understood {
            self.intent.phrases.push(word);
        }
        self.i += 1;
        true
    }

    fn day_part(&mut self, hours: (u32, u32), plural: bool) -> bool {
        self.intent.hours = Some(hours);
        self.intent.recurring |= plural;
        true
    }
}

/// Weekday index (0 = Monday) of a chrono weekday.
pub fn weekday_index(day: Weekday) -> u32 {
    day.num_days_from_monday()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2025, 11, 15)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
    }

    fn range(query: &str) -> Option<(String, String)> {
        parse(query, reference())
            .range
            .map(|(a, b)| (a.date().to_string(), b.date().to_string()))
    }

    fn pair(a: &str, b: &str) -> Option<(String, String)> {
        Some((a.to_string(), b.to_string()))
    }

    #[test]
    fn months_with_and_without_years() {
        assert_eq!(
            range("what did I do in October 2025"),
            pair("2025-10-01", "2025-11-01")
        );
        assert_eq!(
            range("sleep per night in October?"),
            pair("2025-10-01", "2025-11-01")
        );
        // A month after the reference month means last year's.
        assert_eq!(
            range("the December party"),
            pair("2024-12-01", "2025-01-01")
        );
        assert_eq!(range("runs in Sept 2025"), pair("2025-09-01", "2025-10-01"));
    }

    #[test]
    fn days_and_qualified_months() {
        assert_eq!(
            range("where did we meet on October 14"),
            pair("2025-10-14", "2025-10-15")
        );
        assert_eq!(
            range("on October 14, 2024"),
            pair("2024-10-14", "2024-10-15")
        );
        assert_eq!(
            range("on 14 October 2024"),
            pair("2024-10-14", "2024-10-15")
        );
        assert_eq!(
            range("photos in mid-April 2019"),
            pair("2019-04-10", "2019-04-22")
        );
        assert_eq!(range("late September"), pair("2025-09-21", "2025-10-01"));
        assert_eq!(range("on 2025-10-16"), pair("2025-10-16", "2025-10-17"));
    }

    #[test]
    fn ranges_and_years() {
        assert_eq!(
            range("between Sept 1 and 15"),
            pair("2025-09-01", "2025-09-16")
        );
        assert_eq!(range("trips in 2019"), pair("2019-01-01", "2020-01-01"));
        // A number that is not introduced as a year is not a time filter.
        assert_eq!(range("3M purchases of property 2018"), None);
    }

    #[test]
    fn relative_periods_and_seasons() {
        assert_eq!(
            range("what did I do last week"),
            pair("2025-11-03", "2025-11-10")
        );
        assert_eq!(range("yesterday"), pair("2025-11-14", "2025-11-15"));
        assert_eq!(range("last month"), pair("2025-10-01", "2025-11-01"));
        assert_eq!(
            range("commitments this fall"),
            pair("2025-09-01", "2025-12-01")
        );
        assert_eq!(range("summer 2024"), pair("2024-06-01", "2024-09-01"));
        assert_eq!(range("2 weeks ago"), pair("2025-10-30", "2025-11-04"));
    }

    #[test]
    fn weekdays_parts_of_day_and_routines() {
        let intent = parse("what do I usually do on Wednesdays?", reference());
        assert_eq!(intent.weekdays, vec![2]);
        assert!(intent.recurring);
        assert!(intent.range.is_none());
        let intent = parse("every Thursday morning", reference());
        assert_eq!(intent.weekdays, vec![3]);
        assert_eq!(intent.hours, Some((5, 12)));
        assert!(intent.recurring);
        assert!(intent.hour_matches(9) && !intent.hour_matches(13));
        let intent = parse("weekends", reference());
        assert_eq!(intent.weekdays, vec![5, 6]);
        let intent = parse("weekday evenings", reference());
        assert_eq!(intent.weekdays, vec![0, 1, 2, 3, 4]);
        let night = parse("late nights", reference());
        assert!(night.hour_matches(23) && night.hour_matches(2) && !night.hour_matches(12));
    }

    #[test]
    fn weekdays_that_are_the_topic_are_not_times() {
        for query in [
            "why could Aoife not work her Saturday shift",
            "opening hours of the Saturday market",
            "who leads the Tuesday standup meeting",
            "Friday and Saturday shifts at the pantry",
            "Saturday shifts at the pantry",
        ] {
            let intent = parse(query, reference());
            assert!(intent.weekdays.is_empty(), "{query}: {intent:?}");
            assert!(!intent.topic_weekdays.is_empty(), "{query}");
        }
        let topic = parse("why could she not work her Saturday shift", reference());
        assert_eq!(topic.topic_weekdays, ["saturday shift"]);
        // The same words with the sense switched off: every weekday is a time.
        let blunt = parse_with("her Saturday shift", reference(), false);
        assert_eq!(blunt.weekdays, vec![5]);
        assert!(blunt.topic_weekdays.is_empty());
    }

    #[test]
    fn weekdays_that_say_when_are_times() {
        for query in [
            "what did I cook on Saturday",
            "who did I meet last Saturday",
            "what do I do every Saturday",
            "Saturdays at the pantry",
            "the Saturday before the race",
            "did anyone call Saturday",
            "what happened Saturday, October 4",
            "Saturday morning run",
            "what did I do Saturday and Sunday",
            "from Friday to Sunday",
            "a work trip on a Saturday",
            "Saturday I finished the report",
            "invoice Saturday (late)",
        ] {
            let intent = parse(query, reference());
            assert!(
                intent.weekdays.contains(&5) || intent.weekdays.contains(&4),
                "{query}: {intent:?}"
            );
            assert!(intent.topic_weekdays.is_empty(), "{query}: {intent:?}");
        }
        assert_eq!(
            parse("what did I do Saturday and Sunday", reference()).weekdays,
            vec![5, 6]
        );
    }

    #[test]
    fn tokens_mark_clause_breaks() {
        let (words, breaks) = tokens("On Saturday, the market (open) ends ; ok?");
        assert_eq!(
            words,
            ["on", "saturday", "the", "market", "open", "ends", "ok"]
        );
        assert_eq!(breaks, [false, true, false, true, true, true, true]);
    }

    #[test]
    fn plain_queries_have_no_time() {
        assert!(parse("hydration of my sourdough loaf", reference()).is_empty());
        assert!(parse("may I see the invoice", reference()).range.is_none());
        assert_eq!(range("in May"), pair("2025-05-01", "2025-06-01"));
        assert!(parse("marathon chip time", reference()).is_empty());
    }

    #[test]
    fn the_week_of_a_date() {
        // 6 October 2025 is a Monday; 8 October a Wednesday.
        assert_eq!(
            range("what happened the week of 6 October"),
            pair("2025-10-06", "2025-10-13")
        );
        assert_eq!(
            range("the week of October 8, 2025"),
            pair("2025-10-06", "2025-10-13")
        );
        assert_eq!(
            range("week of 2024-03-05 choir"),
            pair("2024-03-04", "2024-03-11")
        );
        let intent = parse("the week of 6 October evenings", reference());
        assert_eq!(intent.hours, Some((17, 23)));
        assert_eq!(
            intent.range.map(|(a, _)| a.date().to_string()),
            Some("2025-10-06".to_string())
        );
    }
}

#[cfg(test)]
mod table {
    use super::*;

    type Row = (
        &'static str,
        Option<(&'static str, &'static str)>,
        &'static [u32],
        Option<(u32, u32)>,
        bool,
        &'static [&'static str],
    );

    /// One phrase per step of `parse` (explicit dates, months and years, ranges, relative
    /// periods, "N … ago", seasons, "the week of", weekdays and routines, parts of the day),
    /// with the whole `TimeIntent` it yields on 15 November 2025 (a Saturday).
    #[test]
    fn phrases_to_intents() {
        let reference = NaiveDate::from_ymd_opt(2025, 11, 15)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        let at = |s: &str| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap();
        let rows: &[Row] = &[
            (
                "on 2025-10-16",
                Some(("2025-10-16 00:00:00", "2025-10-17 00:00:00")),
                &[],
                None,
                false,
                &["2025-10-16"],
            ),
            (
                "in October 2025",
                Some(("2025-10-01 00:00:00", "2025-11-01 00:00:00")),
                &[],
                None,
                false,
                &["october 2025"],
            ),
            (
                "the December party",
                Some(("2024-12-01 00:00:00", "2025-01-01 00:00:00")),
                &[],
                None,
                false,
                &["december"],
            ),
            (
                "on October 14, 2024",
                Some(("2024-10-14 00:00:00", "2024-10-15 00:00:00")),
                &[],
                None,
                false,
                &["october 14 2024"],
            ),
            (
                "on 14 October 2024",
                Some(("2024-10-14 00:00:00", "2024-10-15 00:00:00")),
                &[],
                None,
                false,
                &["october 2024"],
            ),
            (
                "photos in mid-April 2019",
                Some(("2019-04-10 00:00:00", "2019-04-22 00:00:00")),
                &[],
                None,
                false,
                &["mid-april 2019"],
            ),
            (
                "early March",
                Some(("2025-03-01 00:00:00", "2025-03-11 00:00:00")),
                &[],
                None,
                false,
                &["early march"],
            ),
            (
                "late September",
                Some(("2025-09-21 00:00:00", "2025-10-01 00:00:00")),
                &[],
                None,
                false,
                &["late september"],
            ),
            (
                "between Sept 1 and 15",
                Some(("2025-09-01 00:00:00", "2025-09-16 00:00:00")),
                &[],
                None,
                false,
                &["sept 1 and 15"],
            ),
            (
                "trips in 2019",
                Some(("2019-01-01 00:00:00", "2020-01-01 00:00:00")),
                &[],
                None,
                false,
                &["in 2019"],
            ),
            ("3M purchases of property 2018", None, &[], None, false, &[]),
            (
                "today",
                Some(("2025-11-15 00:00:00", "2025-11-16 00:00:00")),
                &[],
                None,
                false,
                &["today"],
            ),
            (
                "yesterday",
                Some(("2025-11-14 00:00:00", "2025-11-15 00:00:00")),
                &[],
                None,
                false,
                &["yesterday"],
            ),
            (
                "last week",
                Some(("2025-11-03 00:00:00", "2025-11-10 00:00:00")),
                &[],
                None,
                false,
                &["last week"],
            ),
            (
                "this week",
                Some(("2025-11-10 00:00:00", "2025-11-16 00:00:00")),
                &[],
                None,
                false,
                &["this week"],
            ),
            (
                "past month",
                Some(("2025-10-01 00:00:00", "2025-11-01 00:00:00")),
                &[],
                None,
                false,
                &["past month"],
            ),
            (
                "this month",
                Some(("2025-11-01 00:00:00", "2025-12-01 00:00:00")),
                &[],
                None,
                false,
                &["this month"],
            ),
            (
                "previous year",
                Some(("2024-01-01 00:00:00", "2025-01-01 00:00:00")),
                &[],
                None,
                false,
                &["previous year"],
            ),
            (
                "this year",
                Some(("2025-01-01 00:00:00", "2025-11-16 00:00:00")),
                &[],
                None,
                false,
                &["this year"],
            ),
            (
                "3 days ago",
                Some(("2025-11-11 00:00:00", "2025-11-14 00:00:00")),
                &[],
                None,
                false,
                &["3 days ago"],
            ),
            (
                "2 weeks ago",
                Some(("2025-10-30 00:00:00", "2025-11-04 00:00:00")),
                &[],
                None,
                false,
                &["2 weeks ago"],
            ),
            (
                "last winter",
                Some(("2024-12-01 00:00:00", "2025-03-01 00:00:00")),
                &[],
                None,
                false,
                &["winter"],
            ),
            (
                "this fall",
                Some(("2025-09-01 00:00:00", "2025-12-01 00:00:00")),
                &[],
                None,
                false,
                &["fall"],
            ),
            (
                "summer 2024",
                Some(("2024-06-01 00:00:00", "2024-09-01 00:00:00")),
                &[],
                None,
                false,
                &["summer 2024"],
            ),
            (
                "the week of 6 October evenings",
                Some(("2025-10-06 00:00:00", "2025-10-13 00:00:00")),
                &[],
                Some((17, 23)),
                true,
                &["week of 6 october", "evenings"],
            ),
            (
                "week of 2024-03-05 choir",
                Some(("2024-03-04 00:00:00", "2024-03-11 00:00:00")),
                &[],
                None,
                false,
                &["week of 2024-03-05 choir"],
            ),
            (
                "what do I usually do on Wednesdays?",
                None,
                &[2],
                None,
                true,
                &["usually", "wednesdays"],
            ),
            (
                "every Thu afternoon",
                None,
                &[3],
                Some((12, 17)),
                true,
                &["every", "thu", "afternoon"],
            ),
            ("weekends", None, &[5, 6], None, true, &["weekends"]),
            (
                "weekday nights",
                None,
                &[0, 1, 2, 3, 4],
                Some((20, 5)),
                true,
                &["weekday", "nights"],
            ),
            (
                "tonight in May",
                Some(("2025-05-01 00:00:00", "2025-06-01 00:00:00")),
                &[],
                Some((17, 23)),
                false,
                &["tonight", "may"],
            ),
            ("may I see the invoice", None, &[], None, false, &[]),
            (
                "hydration of my sourdough loaf",
                None,
                &[],
                None,
                false,
                &[],
            ),
        ];
        for &(query, range, weekdays, hours, recurring, phrases) in rows {
            let expected = TimeIntent {
                range: range.map(|(a, b)| (at(a), at(b))),
                weekdays: weekdays.to_vec(),
                hours,
                recurring,
                phrases: phrases.iter().map(|p| p.to_string()).collect(),
                topic_weekdays: Vec::new(),
            };
            assert_eq!(parse(query, reference), expected, "{query}");
        }
    }
}
