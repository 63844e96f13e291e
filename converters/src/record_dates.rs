//! Dates written in the text of records (sheet rows, journal and log entries), for
//! [`Unit::with_record_dates`](crate::unit::Unit).
//!
//! Three spellings are read: ISO (`2025-08-16`, `2025/8/6`), slashed day and month
//! (`8/16/2025`, `16/08/2025`), and a named month (`Aug 2, 2025`, `2 August 2025`,
//! `September 3rd, 2025`). A slashed date is ambiguous when both numbers are 12 or less:
//! a file decides it for all of its rows with [`slash_order`] (a bank statement whose
//! rows run `01/02/2026` … `28/02/2026` is day-first throughout); a lone text decides
//! each date by itself, month-first unless the first number is above 12.

use chrono::{Datelike, NaiveDate};

use crate::unit::month_number;

/// At most this many dates are read from one text.
const MAX_DATES: usize = 400;

/// Which number of a slashed `a/b/YYYY` date is the month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlashOrder {
    /// `M/D/YYYY` (United States).
    MonthFirst,
    /// `D/M/YYYY` (most of the world).
    DayFirst,
}

/// Dates anywhere in a text (at most 400), each slashed date read by itself:
/// month-first unless the first number is above 12 (what [`entry_dates`] does per line).
#[cfg(test)]
pub(crate) fn dates_in(text: &str) -> Vec<NaiveDate> {
    dates_with_order(text, None)
}

/// Dates anywhere in a text (at most 400), slashed ones read in `order` when it is
/// known (a date impossible in that order is read the other way, as [`dates_in`] does).
pub(crate) fn dates_with_order(text: &str, order: Option<SlashOrder>) -> Vec<NaiveDate> {
    let mut out = Vec::new();
    for token in numeric_tokens(text) {
        if out.len() >= MAX_DATES {
            return out;
        }
        if let Some(date) = numeric_date(token, order) {
            out.push(date);
        }
    }
    for date in named_month_dates(text) {
        if out.len() >= MAX_DATES {
            break;
        }
        out.push(date);
    }
    out
}

/// The order the slashed dates of a file are written in, from the dates that can only
/// be read one way: day-first if some first number is above 12 and no second one is;
/// month-first in the opposite case; `None` when nothing (or both) is seen.
pub(crate) fn slash_order<'t>(texts: impl IntoIterator<Item = &'t str>) -> Option<SlashOrder> {
    let (mut day_first, mut month_first) = (false, false);
    for text in texts {
        for token in numeric_tokens(text) {
            if let Some((a, b, _)) = slashed(token) {
                day_first |= a > 12 && b <= 12;
                month_first |= b > 12 && a <= 12;
            }
        }
        if day_first && month_first {
            return None;
        }
    }
    match (day_first, month_first) {
        (true, false) => Some(SlashOrder::DayFirst),
        (false, true) => Some(SlashOrder::MonthFirst),
        _ => None,
    }
}

/// Dates that open a line (journal and log entries: "2025-08-16 (Sat) …",
/// "## 2025-08-16", "- 8/16/2025: …").
pub(crate) fn entry_dates(text: &str) -> Vec<NaiveDate> {
    text.lines()
        .filter_map(|line| {
            let head: String = line
                .trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '#' | '-' | '*' | '>' | '[')
                })
                .chars()
                .take(10)
                .collect();
            let first = numeric_tokens(&head).find_map(|token| numeric_date(token, None));
            first
        })
        .take(MAX_DATES)
        .collect()
}

fn numeric_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '-' || c == '/'))
        .filter(|token| (8..=10).contains(&token.len()))
}

/// `a/b/YYYY` with three numbers.
fn slashed(token: &str) -> Option<(u32, u32, i32)> {
    let mut parts = token.split('/');
    let (a, b, y) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || a.len() > 2 || b.len() > 2 {
        return None;
    }
    Some((a.parse().ok()?, b.parse().ok()?, y.parse().ok()?))
}

fn numeric_date(token: &str, order: Option<SlashOrder>) -> Option<NaiveDate> {
    let parts: Vec<&str> = token.split(['-', '/']).collect();
    if parts.len() != 3 {
        return None;
    }
    let date = if parts[0].len() == 4 {
        let numbers: Vec<u32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
        if numbers.len() != 3 {
            return None;
        }
        NaiveDate::from_ymd_opt(numbers[0] as i32, numbers[1], numbers[2])
    } else if token.contains('/') {
        let (a, b, year) = slashed(token)?;
        let day_first = match order {
            Some(SlashOrder::DayFirst) => b <= 12,
            Some(SlashOrder::MonthFirst) => a > 12,
            None => a > 12,
        };
        let (month, day) = if day_first { (b, a) } else { (a, b) };
        NaiveDate::from_ymd_opt(year, month, day)
    } else {
        None
    };
    date.filter(|d| (1970..=2100).contains(&d.year()))
}

/// A day of the month: `2`, `02`, `2nd`, `21st`.
fn day_number(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if digits.is_empty()
        || digits.len() > 2
        || !matches!(
            suffix.to_ascii_lowercase().as_str(),
            "" | "st" | "nd" | "rd" | "th"
        )
    {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year_number(word: &str) -> Option<i32> {
    (word.len() == 4)
        .then(|| word.parse().ok())
        .flatten()
        .filter(|y| (1970..=2100).contains(y))
}

/// `Aug 2, 2025`, `August 2nd 2025`, `2 Aug 2025`, `Tue, 2 September 2025`.
fn named_month_dates(text: &str) -> Vec<NaiveDate> {
    named_month_days(text)
        .filter_map(|(month, day, year)| NaiveDate::from_ymd_opt(year?, month, day))
        .take(MAX_DATES)
        .collect()
}

/// Every named month with its day, and its year when one is written after the day:
/// `(month, day, year)` for `Aug 2, 2025`, `2 Aug 2025`, `October 14th`, `14 October`.
fn named_month_days(text: &str) -> impl Iterator<Item = (u32, u32, Option<i32>)> + '_ {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    (0..words.len()).filter_map(move |i| {
        let month = month_number(words[i])?;
        let after = |k: usize| words.get(i + k).copied();
        // "Oct 14 [2025]", else "14 Oct [2025]".
        match after(1).and_then(day_number) {
            Some(day) => Some((month, day, after(2).and_then(year_number))),
            None => {
                let day = i.checked_sub(1).and_then(|j| day_number(words[j]))?;
                Some((month, day, after(1).and_then(year_number)))
            }
        }
    })
}

/// The dates a text mentions, for a text written around `near` (its own date): full
/// dates as [`dates_with_order`] reads them (slashed ones each by itself), and dates
/// without a year: a named month and a day ("Oct 14", "14 October", "October 14th"),
/// and a slashed month and day after a weekday name that agrees with it ("Tue 10/14",
/// "Tuesday 14/10"). A date without a year takes the year that puts it nearest to
/// `near`. At most 400 dates.
pub fn mentioned_dates(text: &str, near: NaiveDate) -> Vec<NaiveDate> {
    let mut out = dates_with_order(text, None);
    // Dates with a year were read above.
    let yearless = named_month_days(text)
        .filter(|(_, _, year)| year.is_none())
        .filter_map(|(month, day, _)| nearest(month, day, near));
    out.extend(yearless.take(MAX_DATES.saturating_sub(out.len())));
    let tokens: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '/'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in tokens.windows(2) {
        if out.len() >= MAX_DATES {
            break;
        }
        let Some(weekday) = crate::unit::weekday_number(pair[0]) else {
            continue;
        };
        let Some((a, b)) = pair[1]
            .split_once('/')
            .filter(|(a, b)| a.len() <= 2 && b.len() <= 2)
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
        else {
            continue;
        };
        let agrees = [(a, b), (b, a)]
            .into_iter()
            .filter_map(|(month, day)| nearest(month, day, near))
            .find(|date| date.weekday().num_days_from_monday() == weekday);
        out.extend(agrees);
    }
    out
}

/// The date of `month`/`day` nearest to `near` (last year, this year or next).
fn nearest(month: u32, day: u32, near: NaiveDate) -> Option<NaiveDate> {
    (near.year() - 1..=near.year() + 1)
        .filter_map(|year| NaiveDate::from_ymd_opt(year, month, day))
        .min_by_key(|date| (*date - near).num_days().abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn named_months_in_the_usual_spellings() {
        for (text, expected) in [
            (
                "15031254683,\"Aug 2, 2025, 7:09:16 AM\",Run",
                date(2025, 8, 2),
            ),
            ("on September 3rd, 2025 we", date(2025, 9, 3)),
            ("Tue, 2 Sept 2025 10:00", date(2025, 9, 2)),
            ("21 MARCH 2026", date(2026, 3, 21)),
            ("dec 31 1999", date(1999, 12, 31)),
        ] {
            assert_eq!(dates_in(text), vec![expected], "{text}");
        }
        for text in [
            "May 2025",
            "Aug 32, 2025",
            "Feb 30, 2024",
            "Mayday 3 2025",
            "Aug 2, 1812",
            "march 2nd",
            "2 Augustus 2025",
            "Aug 2x, 2025",
        ] {
            assert!(dates_in(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_file_decides_its_slashed_dates() {
        let rows = [
            "01/02/2026,DD MORTGAGE,1236.58",
            "03/02/2026,CHILD BENEFIT,,280.00",
            "14/02/2026,DUNNES STORES,171.20",
        ];
        assert_eq!(slash_order(rows), Some(SlashOrder::DayFirst));
        assert_eq!(
            dates_with_order(rows[0], Some(SlashOrder::DayFirst)),
            vec![date(2026, 2, 1)]
        );
        // Read alone, the ambiguous row is month-first, as before.
        assert_eq!(dates_in(rows[0]), vec![date(2026, 1, 2)]);
        assert_eq!(
            slash_order(["8/16/2025 run", "9/1/2025 walk"]),
            Some(SlashOrder::MonthFirst)
        );
        assert_eq!(slash_order(["1/2/2025", "2025-08-16"]), None);
        assert_eq!(slash_order(["16/8/2025", "8/16/2025"]), None);
        // A date impossible in the file's order is read the other way.
        assert_eq!(
            dates_with_order("8/16/2025", Some(SlashOrder::DayFirst)),
            vec![date(2025, 8, 16)]
        );
    }

    #[test]
    fn no_more_than_the_cap_from_any_mix() {
        let text = "Aug 2, 2025 2025-08-03 ".repeat(500);
        assert_eq!(dates_in(&text).len(), MAX_DATES);
        let many = "1 Jan 2025 ".repeat(1000);
        assert_eq!(dates_in(&many).len(), MAX_DATES);
    }

    #[test]
    fn mentioned_dates_without_a_year_take_the_nearest() {
        let near = date(2025, 10, 13);
        let text = "Mon, Oct 13 · Heads up: the trail is closed tomorrow. Tomorrow (Tue 10/14) \
                    we meet at the gate. Party on 2 January! Invoice of Sep 30, 2025.";
        assert_eq!(
            mentioned_dates(text, near),
            vec![
                date(2025, 9, 30),
                date(2025, 10, 13),
                date(2026, 1, 2),
                date(2025, 10, 14)
            ]
        );
        // A slashed day and month count only after a weekday that agrees with them.
        assert!(mentioned_dates("scored 10/14 on the test", near).is_empty());
        assert!(mentioned_dates("Wed 10/14", near).is_empty());
        assert_eq!(
            mentioned_dates("Tuesday 14/10 at six", near),
            vec![date(2025, 10, 14)]
        );
        // Not dates: a month without a day, a day out of range.
        assert!(mentioned_dates("in May we went; March 32", near).is_empty());
    }
}
