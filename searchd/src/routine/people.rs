//! The people a week involves: senders and recipients of mail (`from`, `to`, `cc`) and
//! the organizer and attendees of calendar events, per ISO week, with the units that
//! name them.

use std::collections::{BTreeMap, HashMap};

use chrono::{Datelike, NaiveDate};
use serde::Serialize;

use crate::planner::{fold_name, participant_role, PARTICIPANT_FIELDS};

use super::evidence::{Evidence, EvidenceList};
use super::input::UnitSample;

/// A person and how often they appear.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Person {
    /// The display name most often given (may be empty).
    pub name: String,
    /// Lower-case e-mail address (empty when only a name was given).
    pub address: String,
    /// Units that name them.
    pub count: u64,
    /// Units per role (`from`, `to`, `cc`, `organizer`, `attendee`).
    pub roles: BTreeMap<String, u64>,
    pub evidence: EvidenceList,
}

/// One ISO week.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Week {
    /// `YYYY-Www`.
    pub week: String,
    /// The Monday it starts on.
    pub start: String,
    /// Units naming anyone (besides the owner) this week.
    pub units: u64,
    pub people: Vec<Person>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct People {
    /// The address on most mail, taken to be the profile's owner and left out of the
    /// lists with every other address going by the owner's name (`None`: no address is
    /// on half the messages).
    pub owner: Option<String>,
    /// Over the whole range, most frequent first.
    pub overall: Vec<Person>,
    /// Newest weeks last; at most `max_weeks` (the newest).
    pub weeks: Vec<Week>,
    /// Weeks with people beyond those listed.
    pub weeks_omitted: u64,
}

/// Splits an address list (`Ana Silva <ana@x.org>, "Chen, Bo" <bo@x.org>, carl@x.org`)
/// into `(name, address)` pairs.
pub fn parse_addresses(text: &str) -> Vec<(String, String)> {
    let mut items = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut angle) = (false, false);
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '<' => angle = true,
            '>' => angle = false,
            ',' | ';' if !quoted && !angle => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    items.push(current);
    items
        .iter()
        .filter_map(|item| {
            let item = item.trim();
            let (name, address) = match (item.find('<'), item.rfind('>')) {
                (Some(open), Some(close)) if open < close => {
                    (&item[..open], item[open + 1..close].trim())
                }
                _ if item.contains('@') => ("", item),
                _ => (item, ""),
            };
            let name = name.trim().trim_matches('"').trim().to_string();
            let address = address
                .trim_start_matches("mailto:")
                .trim_start_matches("MAILTO:")
                .to_lowercase();
            (!name.is_empty() || !address.is_empty()).then_some((name, address))
        })
        .collect()
}

/// The people of one unit: `(key, name, address, role)`, one entry per person and role.
fn people_of(unit: &UnitSample) -> Vec<(String, String, String, &'static str)> {
    let mut found = Vec::new();
    for field in PARTICIPANT_FIELDS {
        let role = participant_role(field);
        let Some(text) = unit.fields.get(field) else {
            continue;
        };
        for (name, address) in parse_addresses(text) {
            let key = if address.is_empty() {
                name.to_lowercase()
            } else {
                address.clone()
            };
            if !found.iter().any(|(k, _, _, r)| *k == key && *r == role) {
                found.push((key, name, address, role));
            }
        }
    }
    found
}

/// A person being counted.
#[derive(Default)]
struct Tally {
    names: BTreeMap<String, u64>,
    address: String,
    count: u64,
    roles: BTreeMap<String, u64>,
    evidence: EvidenceList,
}

impl Tally {
    fn add(&mut self, unit: &UnitSample, mentions: &[&(String, String, String, &str)], cap: usize) {
        self.count += 1;
        for (_, name, address, role) in mentions {
            if !name.is_empty() {
                *self.names.entry(name.clone()).or_default() += 1;
            }
            self.address.clone_from(address);
            *self.roles.entry(role.to_string()).or_default() += 1;
        }
        self.evidence
            .push(Evidence::unit(&unit.path, &unit.unit_id, unit.local), cap);
    }

    fn finish(self) -> Person {
        let name = self
            .names
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(n, _)| n.clone())
            .unwrap_or_default();
        Person {
            name,
            address: self.address,
            count: self.count,
            roles: self.roles,
            evidence: self.evidence,
        }
    }
}

fn ranked(tallies: HashMap<String, Tally>, top: usize) -> Vec<Person> {
    let mut people: Vec<(String, Person)> = tallies
        .into_iter()
        .map(|(key, tally)| (key, tally.finish()))
        .collect();
    people.sort_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(&b.0)));
    people.into_iter().take(top).map(|(_, p)| p).collect()
}

/// The names given with an address (folded).
fn names_of(units: &[&UnitSample], address: &str) -> Vec<String> {
    let mut names: Vec<String> = units
        .iter()
        .flat_map(|u| people_of(u))
        .filter(|(_, name, a, _)| a == address && !name.is_empty())
        .map(|(_, name, ..)| fold_name(&name))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The owner: an address on at least half of the messages (and at least three).
fn owner_of(units: &[&UnitSample]) -> Option<String> {
    let mut counts: HashMap<String, u64> = HashMap::new();
    let mut messages = 0;
    for unit in units.iter().filter(|u| u.kind == "message") {
        messages += 1;
        let mut seen: Vec<String> = people_of(unit)
            .into_iter()
            .filter(|(_, _, address, _)| !address.is_empty())
            .map(|(key, ..)| key)
            .collect();
        seen.sort();
        seen.dedup();
        for key in seen {
            *counts.entry(key).or_default() += 1;
        }
    }
    let (key, count) = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
    (count >= 3 && count * 2 >= messages).then_some(key)
}

/// `YYYY-Www` and the Monday of a date's ISO week.
fn iso_week(date: NaiveDate) -> (String, NaiveDate) {
    let week = date.iso_week();
    let monday = date - chrono::Duration::days(i64::from(date.weekday().num_days_from_monday()));
    (format!("{}-W{:02}", week.year(), week.week()), monday)
}

/// People per week and overall, `top` per list, the newest `max_weeks` weeks.
/// The owner is found among `mail`: the profile's messages, whatever the range or
/// folder (a week of two messages says little about whose mailbox it is).
pub fn people(
    units: &[&UnitSample],
    mail: &[&UnitSample],
    top: usize,
    max_weeks: usize,
    cap: usize,
) -> People {
    let owner = owner_of(mail);
    // The owner's other addresses go by the same name.
    let owner_names = owner
        .as_deref()
        .map(|o| names_of(mail, o))
        .unwrap_or_default();
    let mut overall: HashMap<String, Tally> = HashMap::new();
    let mut weeks: BTreeMap<(String, NaiveDate), (u64, HashMap<String, Tally>)> = BTreeMap::new();
    let mut sorted: Vec<&&UnitSample> = units.iter().collect();
    sorted.sort_by(|a, b| (a.local, &a.path).cmp(&(b.local, &b.path)));
    for unit in sorted {
        let mentions: Vec<_> = people_of(unit)
            .into_iter()
            .filter(|(key, name, ..)| {
                Some(key) != owner.as_ref() && !owner_names.contains(&fold_name(name))
            })
            .collect();
        if mentions.is_empty() {
            continue;
        }
        let week = weeks.entry(iso_week(unit.local.date())).or_default();
        week.0 += 1;
        let mut keys: Vec<&String> = mentions.iter().map(|(k, ..)| k).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let of_key: Vec<_> = mentions.iter().filter(|m| &m.0 == key).collect();
            for tallies in [&mut overall, &mut week.1] {
                tallies
                    .entry(key.clone())
                    .or_default()
                    .add(unit, &of_key, cap);
            }
        }
    }
    let weeks_omitted = weeks.len().saturating_sub(max_weeks) as u64;
    let weeks = weeks
        .into_iter()
        .skip(weeks_omitted as usize)
        .map(|((week, monday), (count, tallies))| Week {
            week,
            start: monday.to_string(),
            units: count,
            people: ranked(tallies, top),
        })
        .collect();
    People {
        owner,
        overall: ranked(overall, top),
        weeks,
        weeks_omitted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(id: &str, kind: &str, time: &str, fields: &[(&str, &str)]) -> UnitSample {
        UnitSample {
            unit_id: id.to_string(),
            path: format!("Mail/{id}.eml"),
            kind: kind.to_string(),
            file_type: "eml".to_string(),
            local: crate::timeline::local_time(time, 0),
            title: String::new(),
            fields: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn address_lists_split_outside_quotes_and_brackets() {
        assert_eq!(
            parse_addresses(
                r#"Ana Silva <Ana@Example.com>, "Chen, Bo" <bo@x.org>; carl@x.org, Dora"#
            ),
            vec![
                ("Ana Silva".into(), "ana@example.com".into()),
                ("Chen, Bo".into(), "bo@x.org".into()),
                (String::new(), "carl@x.org".into()),
                ("Dora".into(), String::new()),
            ]
        );
        assert!(parse_addresses(" , ").is_empty());
    }

    #[test]
    fn weeks_count_people_without_the_owner() {
        let me = "Me <me@home.org>";
        let units = [
            // ISO week 2025-W40 (29 Sep – 5 Oct).
            unit(
                "m1",
                "message",
                "2025-10-01T09:00:00+00:00",
                &[("from", "Ana <ana@x.org>"), ("to", me)],
            ),
            unit(
                "m2",
                "message",
                "2025-10-02T09:00:00+00:00",
                &[("from", me), ("to", "ana@x.org"), ("cc", "Bo <bo@x.org>")],
            ),
            unit(
                "m3",
                "message",
                "2025-10-03T09:00:00+00:00",
                // The owner's work address, by name.
                &[
                    ("from", me),
                    ("to", "Bo <bo@x.org>"),
                    ("cc", "mé <me@work.org>"),
                ],
            ),
            // 2025-W41.
            unit(
                "e1",
                "event",
                "2025-10-08T18:00:00+00:00",
                &[
                    ("organizer", "Ana <ana@x.org>"),
                    ("attendees", "Bo <bo@x.org>, Carl <carl@x.org>"),
                ],
            ),
        ];
        let refs: Vec<&UnitSample> = units.iter().collect();
        let result = people(&refs, &refs, 10, 10, 5);
        assert_eq!(result.owner.as_deref(), Some("me@home.org"));
        let weeks: Vec<_> = result
            .weeks
            .iter()
            .map(|w| (w.week.as_str(), w.start.as_str(), w.units))
            .collect();
        assert_eq!(
            weeks,
            vec![("2025-W40", "2025-09-29", 3), ("2025-W41", "2025-10-06", 1)]
        );
        let first: Vec<_> = result.weeks[0]
            .people
            .iter()
            .map(|p| (p.name.as_str(), p.address.as_str(), p.count))
            .collect();
        assert_eq!(first, vec![("Ana", "ana@x.org", 2), ("Bo", "bo@x.org", 2)]);
        let ana = &result.weeks[0].people[0];
        assert_eq!(
            ana.roles,
            BTreeMap::from([("from".into(), 1), ("to".into(), 1)])
        );
        let evidence: Vec<_> = ana
            .evidence
            .items()
            .iter()
            .map(|e| e.unit_id.as_deref().unwrap())
            .collect();
        assert_eq!(evidence, vec!["m1", "m2"]);
        let overall: Vec<_> = result
            .overall
            .iter()
            .map(|p| (p.address.as_str(), p.count))
            .collect();
        assert_eq!(
            overall,
            vec![("ana@x.org", 3), ("bo@x.org", 3), ("carl@x.org", 1)]
        );
        // Only the newest week when one is asked for.
        let newest = people(&refs, &refs, 1, 1, 5);
        assert_eq!(newest.weeks_omitted, 1);
        assert_eq!(newest.weeks[0].week, "2025-W41");
        assert_eq!(newest.weeks[0].people.len(), 1);
    }
}
