//! RRULE in words ("every 2 weeks on Tuesday until 16 December 2025"), the weekdays an
//! event occurs on, and its first few occurrences (via the `rrule` crate that
//! `icalendar`'s `recurrence` feature brings in).

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeZone, Weekday};
use icalendar::rrule::{RRule, Tz as RTz};

use super::{format_date, month_name, weekday_name};

/// `FREQ=WEEKLY;BYDAY=MO` → {"FREQ": "WEEKLY", "BYDAY": "MO"} (keys and values
/// upper-cased, blanks dropped).
pub fn rule_parts(rule: &str) -> BTreeMap<String, String> {
    rule.trim()
        .trim_start_matches("RRULE:")
        .split(';')
        .filter_map(|part| part.split_once('='))
        .map(|(k, v)| (k.trim().to_ascii_uppercase(), v.trim().to_ascii_uppercase()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .collect()
}

/// `1MO` → (Some(1), Mon); `-1FR` → (Some(-1), Fri); `TU` → (None, Tue).
pub(crate) fn parse_byday(text: &str) -> Option<(Option<i32>, Weekday)> {
    let text = text.trim();
    let split = text.len().checked_sub(2)?;
    let (number, day) = (text.get(..split)?, text.get(split..)?);
    let weekday = match day.to_ascii_uppercase().as_str() {
        "MO" => Weekday::Mon,
        "TU" => Weekday::Tue,
        "WE" => Weekday::Wed,
        "TH" => Weekday::Thu,
        "FR" => Weekday::Fri,
        "SA" => Weekday::Sat,
        "SU" => Weekday::Sun,
        _ => return None,
    };
    let number = match number.trim_start_matches('+') {
        "" => None,
        n => Some(n.parse::<i32>().ok()?),
    };
    Some((number, weekday))
}

/// The `BYDAY` entries of a rule's parts ([`rule_parts`]), with their ordinals.
pub fn bydays(parts: &BTreeMap<String, String>) -> Vec<(Option<i32>, Weekday)> {
    parts
        .get("BYDAY")
        .map(|v| v.split(',').filter_map(parse_byday).collect())
        .unwrap_or_default()
}

fn numbers(parts: &BTreeMap<String, String>, key: &str) -> Vec<i32> {
    parts
        .get(key)
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// "Monday", "Monday and Friday", "Monday, Wednesday and Friday".
pub(crate) fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn ordinal(n: i32) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        5 => "fifth".into(),
        -1 => "last".into(),
        -2 => "second-to-last".into(),
        -3 => "third-to-last".into(),
        n if n > 0 => format!("{n}th"),
        n => format!("{}th-to-last", n.unsigned_abs()),
    }
}

const WORKWEEK: [Weekday; 5] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
];

/// "Monday and Wednesday", or "weekday" / "day" for the whole work week / week.
fn day_set_words(days: &[Weekday], singular: bool) -> String {
    let mut sorted: Vec<Weekday> = days.to_vec();
    sorted.sort_by_key(|d| d.num_days_from_monday());
    sorted.dedup();
    if sorted == WORKWEEK {
        return if singular {
            "weekday"
        } else {
            "weekdays (Monday to Friday)"
        }
        .into();
    }
    if sorted.len() == 7 {
        return if singular {
            "day"
        } else {
            "every day of the week"
        }
        .into();
    }
    let names: Vec<String> = sorted
        .iter()
        .map(|d| weekday_name(*d).to_string())
        .collect();
    join_words(&names)
}

fn month_list(months: &[i32]) -> String {
    let names: Vec<String> = months
        .iter()
        .filter_map(|m| u32::try_from(*m).ok())
        .filter_map(month_name)
        .map(str::to_string)
        .collect();
    join_words(&names)
}

/// The rule in English. `until_date` turns the raw UNTIL value into a date in the
/// event's zone.
pub(crate) fn describe(
    rule: &str,
    start: NaiveDateTime,
    until_date: impl Fn(&str) -> Option<NaiveDate>,
) -> String {
    let parts = rule_parts(rule);
    let interval: u32 = parts
        .get("INTERVAL")
        .and_then(|i| i.parse().ok())
        .filter(|i| *i > 0)
        .unwrap_or(1);
    let (one, many) = match parts.get("FREQ").map(String::as_str) {
        Some("DAILY") => ("day", "days"),
        Some("WEEKLY") => ("week", "weeks"),
        Some("MONTHLY") => ("month", "months"),
        Some("YEARLY") => ("year", "years"),
        Some("HOURLY") => ("hour", "hours"),
        Some("MINUTELY") => ("minute", "minutes"),
        Some("SECONDLY") => ("second", "seconds"),
        _ => return format!("custom rule {}", rule.trim()),
    };
    let mut text = if interval == 1 {
        format!("every {one}")
    } else {
        format!("every {interval} {many}")
    };
    text.push_str(&day_phrase(&parts, start));
    match parts.get("COUNT").and_then(|c| c.parse::<u32>().ok()) {
        Some(1) => text.push_str(", once"),
        Some(count) => text.push_str(&format!(", {count} times")),
        None => {}
    }
    if let Some(until) = parts.get("UNTIL").and_then(|u| until_date(u)) {
        text.push_str(&format!(" until {}", format_date(until)));
    }
    text
}

fn day_phrase(parts: &BTreeMap<String, String>, start: NaiveDateTime) -> String {
    let days = bydays(parts);
    let plain_days: Vec<Weekday> = days.iter().map(|(_, d)| *d).collect();
    let set_pos = numbers(parts, "BYSETPOS");
    let month_days = numbers(parts, "BYMONTHDAY");
    let months = numbers(parts, "BYMONTH");
    let freq = parts.get("FREQ").map(String::as_str).unwrap_or_default();
    let in_months = if months.is_empty() {
        String::new()
    } else {
        format!(" in {}", month_list(&months))
    };
    match freq {
        "WEEKLY" => {
            let days = if plain_days.is_empty() {
                vec![start.weekday()]
            } else {
                plain_days
            };
            format!(" on {}{in_months}", day_set_words(&days, false))
        }
        "DAILY" if !plain_days.is_empty() => {
            format!(" on {}{in_months}", day_set_words(&plain_days, false))
        }
        "MONTHLY" | "YEARLY" => {
            let of_month = if freq == "YEARLY" {
                let months = if months.is_empty() {
                    vec![start.month() as i32]
                } else {
                    months.clone()
                };
                format!(" of {}", month_list(&months))
            } else {
                in_months.clone()
            };
            if !set_pos.is_empty() && !plain_days.is_empty() {
                let positions: Vec<String> = set_pos.iter().map(|p| ordinal(*p)).collect();
                format!(
                    " on the {} {}{of_month}",
                    join_words(&positions),
                    day_set_words(&plain_days, true)
                )
            } else if days.iter().any(|(n, _)| n.is_some()) {
                let each: Vec<String> = days
                    .iter()
                    .map(|(n, d)| match n {
                        Some(n) => format!("{} {}", ordinal(*n), weekday_name(*d)),
                        None => format!("every {}", weekday_name(*d)),
                    })
                    .collect();
                format!(" on the {}{of_month}", join_words(&each))
            } else if !plain_days.is_empty() {
                format!(" on every {}{of_month}", day_set_words(&plain_days, true))
            } else if !month_days.is_empty() {
                month_day_phrase(&month_days, freq, &months, start)
            } else if freq == "YEARLY" {
                let month = month_name(start.month()).unwrap_or_default();
                format!(" on {} {month}", start.day())
            } else {
                format!(" on day {}{in_months}", start.day())
            }
        }
        _ => in_months,
    }
}

fn month_day_phrase(
    month_days: &[i32],
    freq: &str,
    months: &[i32],
    start: NaiveDateTime,
) -> String {
    let words: Vec<String> = month_days
        .iter()
        .map(|d| match d {
            -1 => "the last day".to_string(),
            d if *d < 0 => format!("the {} day", ordinal(*d)),
            d => d.to_string(),
        })
        .collect();
    if freq == "YEARLY" {
        let months = if months.is_empty() {
            vec![start.month() as i32]
        } else {
            months.to_vec()
        };
        format!(" on {} {}", join_words(&words), month_list(&months))
    } else if month_days.iter().all(|d| *d > 0) {
        let label = if month_days.len() == 1 { "day" } else { "days" };
        format!(" on {label} {}", join_words(&words))
    } else {
        format!(" on {}", join_words(&words))
    }
}

/// The weekdays an event occurs on: BYDAY when given; every day for plain daily rules;
/// else the start's weekday.
pub(crate) fn weekdays(rule: Option<&str>, start: NaiveDateTime) -> Vec<Weekday> {
    let Some(rule) = rule else {
        return vec![start.weekday()];
    };
    let parts = rule_parts(rule);
    let mut days: Vec<Weekday> = bydays(&parts).into_iter().map(|(_, d)| d).collect();
    if days.is_empty() {
        let interval: u32 = parts
            .get("INTERVAL")
            .and_then(|i| i.parse().ok())
            .unwrap_or(1);
        let daily = matches!(
            parts.get("FREQ").map(String::as_str),
            Some("DAILY" | "HOURLY" | "MINUTELY" | "SECONDLY")
        );
        let count: Option<u32> = parts.get("COUNT").and_then(|c| c.parse().ok());
        let freq_is_days = parts.get("FREQ").map(String::as_str) == Some("DAILY");
        if freq_is_days && count.is_some_and(|c| c < 7) {
            // A short daily run: exactly the days it covers.
            let mut day = start.weekday();
            for _ in 0..count.unwrap_or(1).max(1) {
                days.push(day);
                for _ in 0..interval % 7 {
                    day = day.succ();
                }
            }
        } else if daily && !interval.is_multiple_of(7) {
            days = (0..7)
                .filter_map(|i| Weekday::try_from(i as u8).ok())
                .collect();
        } else {
            days.push(start.weekday());
        }
    }
    days.sort_by_key(|d| d.num_days_from_monday());
    days.dedup();
    days
}

/// The first `limit` occurrence dates (wall clock) of a recurring event. `zone` is the
/// event's IANA zone, or None to compute on wall-clock time; `until` replaces the
/// rule's UNTIL, as wall-clock time in the event's zone (converted by the caller, since
/// the rrule crate rejects some UNTIL/DTSTART zone pairings); `exdates` are wall-clock
/// times.
pub(crate) fn first_occurrences(
    rule: &str,
    start: NaiveDateTime,
    zone: Option<chrono_tz::Tz>,
    until: Option<NaiveDateTime>,
    exdates: &[NaiveDateTime],
    limit: u16,
) -> Vec<NaiveDate> {
    // RFC 5545 rules are ASCII; the rrule crate slices weekdays by bytes and panics on
    // other text (found by fuzzing), so anything else is an unreadable rule.
    if !rule.is_ascii() {
        return Vec::new();
    }
    let tz = zone.map(RTz::Tz).unwrap_or(RTz::UTC);
    let to_rtz = |local: NaiveDateTime| -> Option<DateTime<RTz>> {
        tz.from_local_datetime(&local).earliest()
    };
    let without_until: Vec<&str> = rule
        .trim()
        .trim_start_matches("RRULE:")
        .split(';')
        .filter(|p| !p.trim().to_ascii_uppercase().starts_with("UNTIL=") && !p.trim().is_empty())
        .collect();
    let Ok(mut parsed) = without_until.join(";").parse::<RRule<_>>() else {
        return Vec::new();
    };
    if let Some(until) = until.and_then(to_rtz) {
        parsed = parsed.until(until.with_timezone(&RTz::UTC));
    }
    let Some(dt_start) = to_rtz(start) else {
        return Vec::new();
    };
    let Ok(mut set) = parsed.build(dt_start) else {
        return Vec::new();
    };
    for ex in exdates.iter().copied().filter_map(to_rtz) {
        set = set.exdate(ex);
    }
    set.all(limit)
        .dates
        .into_iter()
        .map(|d| d.date_naive())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y%m%dT%H%M%S").unwrap()
    }

    fn words(rule: &str, start: &str) -> String {
        describe(rule, at(start), |u| {
            NaiveDate::parse_from_str(u.get(..8)?, "%Y%m%d").ok()
        })
    }

    #[test]
    fn rules_in_words() {
        assert_eq!(
            words(
                "FREQ=WEEKLY;BYDAY=WE;UNTIL=20251216T000000Z",
                "20251001T180000"
            ),
            "every week on Wednesday until 16 December 2025"
        );
        assert_eq!(
            words("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH", "20250805T100000"),
            "every 2 weeks on Tuesday and Thursday"
        );
        assert_eq!(
            words("FREQ=WEEKLY;COUNT=8", "20250911T190000"),
            "every week on Thursday, 8 times"
        );
        assert_eq!(
            words("FREQ=MONTHLY;BYDAY=1TU", "20121002T100000"),
            "every month on the first Tuesday"
        );
        assert_eq!(
            words("FREQ=MONTHLY;BYDAY=-1FR", "20250131T100000"),
            "every month on the last Friday"
        );
        assert_eq!(
            words(
                "FREQ=MONTHLY;BYMONTHDAY=23;UNTIL=20170923T000000Z",
                "20160922T130000"
            ),
            "every month on day 23 until 23 September 2017"
        );
        assert_eq!(
            words(
                "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1",
                "20190101T000000"
            ),
            "every month on the first weekday"
        );
        assert_eq!(
            words("FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "20160119T000000"),
            "every year on the last Sunday of October"
        );
        assert_eq!(
            words("FREQ=YEARLY", "20250314T000000"),
            "every year on 14 March"
        );
        assert_eq!(
            words("FREQ=DAILY;COUNT=2", "20160425T150000"),
            "every day, 2 times"
        );
        assert_eq!(
            words("FREQ=DAILY;COUNT=1", "20160425T150000"),
            "every day, once"
        );
        assert_eq!(
            words("FREQ=FORTNIGHTLY", "20160425T150000"),
            "custom rule FREQ=FORTNIGHTLY"
        );
    }

    #[test]
    fn weekday_sets() {
        let start = at("20251001T180000");
        let names = |rule: Option<&str>| {
            weekdays(rule, start)
                .into_iter()
                .map(weekday_name)
                .collect::<Vec<_>>()
                .join(",")
        };
        assert_eq!(names(None), "Wednesday");
        assert_eq!(names(Some("FREQ=WEEKLY;BYDAY=SA,SU")), "Saturday,Sunday");
        assert_eq!(names(Some("FREQ=MONTHLY;BYDAY=1TU")), "Tuesday");
        assert_eq!(names(Some("FREQ=DAILY")).split(',').count(), 7);
        assert_eq!(names(Some("FREQ=DAILY;INTERVAL=7")), "Wednesday");
        assert_eq!(names(Some("FREQ=DAILY;COUNT=1")), "Wednesday");
        assert_eq!(names(Some("FREQ=DAILY;COUNT=2")), "Wednesday,Thursday");
    }

    #[test]
    fn occurrences_skip_exdates_and_stop_at_until() {
        let dates = first_occurrences(
            "FREQ=WEEKLY;BYDAY=WE;UNTIL=20251023T065959Z",
            at("20251001T180000"),
            Some(chrono_tz::America::Los_Angeles),
            Some(at("20251022T235959")),
            &[at("20251008T180000")],
            10,
        );
        let dates: Vec<String> = dates.iter().map(|d| d.to_string()).collect();
        assert_eq!(dates, ["2025-10-01", "2025-10-15", "2025-10-22"]);
        assert!(first_occurrences("garbage", at("20251001T180000"), None, None, &[], 5).is_empty());
    }

    #[test]
    fn rules_with_extreme_numbers_are_described() {
        use crate::testutil::{self, Rng};
        const KEYS: &[&str] = &[
            "INTERVAL",
            "COUNT",
            "BYSETPOS",
            "BYMONTHDAY",
            "BYMONTH",
            "BYDAY",
        ];
        const DAYS: &[&str] = &["MO", "su", "XX", "", "+1MO", "-1FR", "1", "é"];
        let mut rng = Rng(0x4EC0_0000_0000_0001);
        let start = at("20251001T180000");
        for i in 0..3000 {
            let mut parts = vec![format!(
                "FREQ={}",
                rng.pick(&["DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY", "SECONDLY", "X", ""])
            )];
            for _ in 0..rng.below(5) {
                let key = *rng.pick(KEYS);
                let values: Vec<String> = (0..1 + rng.below(3))
                    .map(|_| {
                        let number = *rng.pick(testutil::EDGE_NUMBERS);
                        if key == "BYDAY" {
                            format!("{number}{}", rng.pick(DAYS))
                        } else {
                            number.to_string()
                        }
                    })
                    .collect();
                parts.push(format!("{key}={}", values.join(",")));
            }
            let rule = parts.join(";");
            let text = words(&rule, "20251001T180000");
            assert!(
                text.starts_with("every ") || text.starts_with("custom rule"),
                "{rule}: {text}"
            );
            let days = weekdays(Some(&rule), start);
            assert!(!days.is_empty() && days.len() <= 7, "{rule}");
            assert!(days
                .windows(2)
                .all(|w| w[0].num_days_from_monday() < w[1].num_days_from_monday()));
            if i % 10 == 0 {
                let dates = first_occurrences(&rule, start, None, None, &[], 5);
                assert!(
                    dates.len() <= 5 && dates.windows(2).all(|w| w[0] <= w[1]),
                    "{rule}"
                );
            }
            let token =
                testutil::random_text(&mut rng, &["1", "-", "+", "MO", "tu", "é", "9", " "], 5);
            if let Some((_, day)) = parse_byday(&token) {
                let code = token
                    .trim()
                    .get(token.trim().len() - 2..)
                    .unwrap_or_default();
                assert_eq!(
                    code.to_ascii_uppercase(),
                    format!("{day:?}").to_ascii_uppercase()[..2]
                );
            }
        }
    }
}
