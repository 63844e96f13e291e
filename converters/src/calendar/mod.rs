//! iCalendar (`.ics`) → one [`UnitKind::Event`] unit per VEVENT.
//!
//! Reading is tolerant (see [`parse`]): the text is pre-cleaned and every content line
//! parsed on its own, so one defect costs at most its own line. Each VEVENT — including
//! a moved occurrence (RECURRENCE-ID), which keeps its UID — becomes a unit whose text
//! reads like a calendar entry:
//!
//! ```text
//! Choir rehearsal
//! When: Wednesday 1 October 2025, 18:00–20:00 (America/Los_Angeles)
//! Repeats: every week on Wednesday until 16 December 2025 (except 26 November 2025)
//! Location: St. Mark's hall
//! Organizer: Ana Silva <ana@example.com>
//! Attendees: Bo Chen <bo@example.com>
//! Status: confirmed
//! <description>
//! ```
//!
//! Times keep their real UTC offset in the event's zone (IANA TZIDs directly, Windows
//! and Outlook names via a table, custom zones through the file's VTIMEZONE rules).
//! Unknown zones, floating times and all-day dates keep their wall-clock time at
//! +00:00, so weekday and hour stay right. Floating and UTC times use the calendar's
//! X-WR-TIMEZONE when it names a known zone.

mod parse;
mod recur;
mod zones;

use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Timelike,
    Weekday,
};

use crate::text::decode_text;
use crate::{Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};
use parse::{Component, Prop};
pub use recur::{bydays, rule_parts};
use zones::{Resolution, Zone, ZoneResolver};

const FORMAT: &str = "ics";

/// Longest description kept in a unit, in characters.
const MAX_DESCRIPTION_CHARS: usize = 20_000;

/// Most RDATE/EXDATE dates listed in a unit's text.
const MAX_LISTED_DATES: usize = 30;

/// How many occurrence dates go into `fields["next_occurrences"]`.
const OCCURRENCES_LISTED: u16 = 5;

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 2;

/// Converts a calendar file. Errors with `corrupt ics: …` when the bytes hold neither a
/// VCALENDAR nor any VEVENT.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    let text = decode_text(input.bytes);
    let roots = parse::build_tree(&parse::clean_lines(&text));
    let has_calendar = roots.iter().any(|r| r.name == "VCALENDAR");

    let events = collect(&roots, "VEVENT");
    if events.is_empty() && !has_calendar {
        return Err(ConvertError::corrupt(
            FORMAT,
            "no VCALENDAR or VEVENT found",
        ));
    }
    let calendar = roots.iter().find(|r| r.name == "VCALENDAR");
    let context = Context::new(&roots, calendar);

    // An event whose start line is malformed cannot be placed in time: it is rejected,
    // and a calendar whose every event is rejected is corrupt.
    let mut rejected = Vec::new();
    let units: Vec<Unit> = events
        .iter()
        .enumerate()
        .filter_map(|(index, event)| match malformed_start(event) {
            Some(line) => {
                rejected.push(format!(
                    "event {:?} has a malformed start line {line:?}",
                    event.value("SUMMARY").unwrap_or("(untitled)")
                ));
                None
            }
            None => event_unit(event, index, &context),
        })
        .collect();
    if units.is_empty() && !rejected.is_empty() {
        return Err(ConvertError::corrupt(FORMAT, rejected.join("; ")));
    }

    let mut meta = FileMeta {
        title: calendar
            .and_then(|c| c.value("X-WR-CALNAME").or_else(|| c.value("NAME")))
            .map(str::to_string),
        page_count: u32::try_from(units.len()).ok(),
        ..FileMeta::default()
    };
    if let Some(c) = calendar {
        for (key, prop) in [
            ("calendar_description", "X-WR-CALDESC"),
            ("timezone", "X-WR-TIMEZONE"),
            ("prodid", "PRODID"),
        ] {
            if let Some(value) = c.value(prop) {
                meta.extra.insert(key.to_string(), value.to_string());
            }
        }
    }
    if !rejected.is_empty() {
        meta.extra
            .insert("rejected_events".to_string(), rejected.join("; "));
    }
    let cut = events
        .iter()
        .filter(|e| {
            e.value("DESCRIPTION")
                .is_some_and(|d| d.trim().chars().count() > MAX_DESCRIPTION_CHARS)
        })
        .count();
    if cut > 0 {
        meta.extra.insert(
            crate::unit::TRUNCATED_KEY.to_string(),
            format!(
                "the first {MAX_DESCRIPTION_CHARS} characters kept of {cut} event descriptions"
            ),
        );
    }
    let dropped: usize = count_dropped(&roots);
    if dropped > 0 {
        meta.extra
            .insert("skipped_lines".to_string(), dropped.to_string());
    }
    Ok(Conversion {
        units,
        meta,
        children: Vec::new(),
    })
}

/// The raw DTSTART line of an event when it was malformed (and no valid one exists).
fn malformed_start(event: &Component) -> Option<&str> {
    if event.value("DTSTART").is_some() {
        return None;
    }
    event
        .malformed
        .iter()
        .find(|(name, _)| name == "DTSTART")
        .map(|(_, line)| line.as_str())
}

/// All components with this name, at the root or nested (two calendars concatenated,
/// a bare VEVENT file).
fn collect<'a>(roots: &'a [Component], name: &str) -> Vec<&'a Component> {
    let mut found = Vec::new();
    for root in roots {
        if root.name == name {
            found.push(root);
        } else {
            root.find_all(name, &mut found);
        }
    }
    found
}

fn count_dropped(components: &[Component]) -> usize {
    components
        .iter()
        .map(|c| c.dropped_lines + count_dropped(&c.children))
        .sum()
}

/// What every event of a file shares: its zones and the calendar's default zones.
struct Context {
    zones: ZoneResolver,
    /// X-WR-TIMEZONE: UTC times are shown in it.
    default_zone: Option<Resolution>,
    /// Zone for floating times: X-WR-TIMEZONE, else the file's only VTIMEZONE (Exchange
    /// exports write floating DTSTARTs next to a single VTIMEZONE).
    floating_zone: Option<Resolution>,
}

impl Context {
    fn new(roots: &[Component], calendar: Option<&Component>) -> Context {
        let vtimezones = collect(roots, "VTIMEZONE");
        let zones = ZoneResolver::new(&vtimezones);
        let default_zone = calendar
            .and_then(|c| c.value("X-WR-TIMEZONE"))
            .and_then(|tz| zones.resolve(tz))
            .filter(|r| matches!(r.zone, Zone::Iana(_)));
        let sole_zone = match vtimezones.as_slice() {
            [only] => only
                .value("TZID")
                .and_then(|tzid| zones.resolve(tzid))
                .map(|mut r| {
                    r.note = Some(format!(
                        "floating time read in the file's only VTIMEZONE \"{}\"",
                        r.label
                    ));
                    r
                }),
            _ => None,
        };
        let floating_zone = default_zone.clone().or(sole_zone);
        Context {
            zones,
            default_zone,
            floating_zone,
        }
    }
}

/// A DATE or DATE-TIME value before zone resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
enum RawTime {
    Date(NaiveDate),
    DateTime { local: NaiveDateTime, utc: bool },
}

/// `20251001`, `20251001T180000`, `20251001T180000Z` (also tolerates `-`/`:`
/// separators and missing seconds).
fn parse_raw(value: &str) -> Option<RawTime> {
    let compact: String = value
        .trim()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    let (body, utc) = match compact.strip_suffix(['Z', 'z']) {
        Some(body) => (body, true),
        None => (compact.as_str(), false),
    };
    match body.len() {
        8 => NaiveDate::parse_from_str(body, "%Y%m%d")
            .ok()
            .map(RawTime::Date),
        13 | 15 => {
            let format = if body.len() == 13 {
                "%Y%m%dT%H%M"
            } else {
                "%Y%m%dT%H%M%S"
            };
            NaiveDateTime::parse_from_str(body, format)
                .ok()
                .map(|local| RawTime::DateTime { local, utc })
        }
        _ => None,
    }
}

/// A DATE or DATE-TIME as wall-clock time (a DATE at midnight); used by VTIMEZONE rules.
pub(crate) fn parse_local(value: &str) -> Option<NaiveDateTime> {
    match parse_raw(value)? {
        RawTime::Date(date) => date.and_hms_opt(0, 0, 0),
        RawTime::DateTime { local, .. } => Some(local),
    }
}

/// A time resolved to wall clock and absolute instant.
#[derive(Debug, Clone)]
struct When {
    local: NaiveDateTime,
    instant: DateTime<FixedOffset>,
    all_day: bool,
    /// Zone label to show (IANA name, the TZID as given, or "UTC").
    label: Option<String>,
    zone: Option<Zone>,
    note: Option<String>,
}

impl When {
    fn iana(&self) -> Option<chrono_tz::Tz> {
        match &self.zone {
            Some(Zone::Iana(tz)) => Some(*tz),
            _ => None,
        }
    }

    /// A UTC instant as wall-clock time in this time's zone.
    fn utc_to_local(&self, utc: NaiveDateTime) -> NaiveDateTime {
        let offset = match &self.zone {
            Some(zone) => zone.offset_at_utc(utc),
            None => *self.instant.offset(),
        };
        utc + Duration::seconds(i64::from(offset.local_minus_utc()))
    }
}

fn utc_offset() -> FixedOffset {
    chrono::Offset::fix(&chrono::Utc)
}

/// Resolves a DTSTART/DTEND/RECURRENCE-ID/EXDATE property value.
fn resolve_time(prop: &Prop, value: &str, context: &Context) -> Option<When> {
    let is_date = prop
        .param("VALUE")
        .is_some_and(|v| v.eq_ignore_ascii_case("DATE"));
    let raw = parse_raw(value)?;
    let (local, utc) = match raw {
        RawTime::Date(date) => (date.and_hms_opt(0, 0, 0)?, false),
        RawTime::DateTime { local, utc } => (local, utc),
    };
    if is_date || matches!(raw, RawTime::Date(_)) {
        let local = local.date().and_hms_opt(0, 0, 0)?;
        return Some(When {
            local,
            instant: utc_offset().from_local_datetime(&local).single()?,
            all_day: true,
            label: None,
            zone: None,
            note: None,
        });
    }
    if utc {
        return Some(match &context.default_zone {
            Some(default) => in_zone_from_utc(local, default)?,
            None => When {
                local,
                instant: utc_offset().from_local_datetime(&local).single()?,
                all_day: false,
                label: Some("UTC".to_string()),
                zone: None,
                note: None,
            },
        });
    }
    match prop.param("TZID") {
        Some(tzid) => match context.zones.resolve(tzid) {
            Some(resolution) => in_zone(local, &resolution),
            None => Some(When {
                local,
                instant: utc_offset().from_local_datetime(&local).single()?,
                all_day: false,
                label: Some(tzid.trim().to_string()),
                zone: None,
                note: Some(format!(
                    "unknown time zone \"{}\"; wall-clock time kept",
                    tzid.trim()
                )),
            }),
        },
        None => match &context.floating_zone {
            Some(default) => in_zone(local, default),
            None => Some(When {
                local,
                instant: utc_offset().from_local_datetime(&local).single()?,
                all_day: false,
                label: None,
                zone: None,
                note: None,
            }),
        },
    }
}

fn in_zone(local: NaiveDateTime, resolution: &Resolution) -> Option<When> {
    Some(When {
        local,
        instant: resolution.zone.localize(local)?,
        all_day: false,
        label: Some(resolution.label.clone()),
        zone: Some(resolution.zone.clone()),
        note: resolution.note.clone(),
    })
}

fn in_zone_from_utc(utc: NaiveDateTime, resolution: &Resolution) -> Option<When> {
    let offset = resolution.zone.offset_at_utc(utc);
    let instant = offset.from_utc_datetime(&utc);
    Some(When {
        local: instant.naive_local(),
        instant,
        all_day: false,
        label: Some(resolution.label.clone()),
        zone: Some(resolution.zone.clone()),
        note: resolution.note.clone(),
    })
}

/// The same instant as wall-clock time in `start`'s zone (for RECURRENCE-ID, EXDATE
/// and RDATE values written in UTC or another zone). All-day values stay as they are.
fn in_zone_of(when: When, start: &When) -> When {
    if when.all_day || when.label == start.label || start.all_day {
        return when;
    }
    let utc = when.instant.naive_utc();
    let local = start.utc_to_local(utc);
    let offset =
        FixedOffset::east_opt((local - utc).num_seconds() as i32).unwrap_or(*when.instant.offset());
    When {
        local,
        instant: when.instant.with_timezone(&offset),
        label: start.label.clone(),
        zone: start.zone.clone(),
        ..when
    }
}

/// A value list property (EXDATE, RDATE) as wall-clock times in the event's zone.
/// PERIOD values contribute their start.
fn time_list(event: &Component, name: &str, start: &When, context: &Context) -> Vec<NaiveDateTime> {
    let mut times = Vec::new();
    for prop in event.props_named(name) {
        for value in prop.value.split(',') {
            let value = value.split('/').next().unwrap_or_default();
            if let Some(when) = resolve_time(prop, value, context) {
                times.push(in_zone_of(when, start).local);
            }
        }
    }
    times.sort();
    times.dedup();
    times
}

/// ISO 8601 duration (`PT1H30M`, `P1D`, `P2W`); negative durations are ignored.
fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim().trim_start_matches('+');
    let rest = text.strip_prefix('P')?;
    let mut total = Duration::zero();
    let mut number = String::new();
    let mut in_time = false;
    for c in rest.chars() {
        match c {
            'T' => in_time = true,
            '0'..='9' => number.push(c),
            unit => {
                let n: i64 = number.parse().ok()?;
                number.clear();
                let part = match (unit, in_time) {
                    ('W', false) => Duration::try_weeks(n),
                    ('D', false) => Duration::try_days(n),
                    ('H', true) => Duration::try_hours(n),
                    ('M', true) => Duration::try_minutes(n),
                    ('S', true) => Duration::try_seconds(n),
                    _ => None,
                }?;
                total = total.checked_add(&part)?;
            }
        }
    }
    number.is_empty().then_some(total)
}

/// The event's end: DTEND, else DTSTART + DURATION. Ends before the start are ignored.
fn event_end(event: &Component, start: &When, context: &Context) -> Option<When> {
    let end = match event.prop("DTEND") {
        Some(prop) => resolve_time(prop, &prop.value, context)?,
        None => {
            let duration = parse_duration(event.value("DURATION")?)?;
            When {
                local: start.local.checked_add_signed(duration)?,
                instant: start.instant.checked_add_signed(duration)?,
                ..start.clone()
            }
        }
    };
    (end.instant >= start.instant).then_some(end)
}

/// Builds the unit of one VEVENT; None when it has nothing to show.
fn event_unit(event: &Component, index: usize, context: &Context) -> Option<Unit> {
    let summary = event.value("SUMMARY").map(one_line).unwrap_or_default();
    let description = event
        .value("DESCRIPTION")
        .map(|d| truncate_chars(d.trim(), MAX_DESCRIPTION_CHARS).to_string())
        .unwrap_or_default();
    let location = event.value("LOCATION").map(one_line).unwrap_or_default();
    let start_prop = event.prop("DTSTART");
    let start = start_prop.and_then(|p| resolve_time(p, &p.value, context));
    if summary.is_empty() && description.is_empty() && location.is_empty() && start.is_none() {
        return None;
    }
    let uid = event
        .value("UID")
        .map(str::to_string)
        .unwrap_or_else(|| format!("event-{}", index + 1));

    let organizer = event.prop("ORGANIZER").map(person).unwrap_or_default();
    let attendees: Vec<String> = event.props_named("ATTENDEE").map(person).collect();
    let attendees = attendees
        .into_iter()
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let status = event.value("STATUS").unwrap_or_default().to_string();
    let categories = event
        .props_named("CATEGORIES")
        .map(|p| p.value.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let rrule = event.value("RRULE").map(str::to_string);

    let mut lines = Vec::new();
    if !summary.is_empty() {
        lines.push(summary.clone());
    }
    let mut unit_fields: Vec<(&str, String)> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut tz_note: Option<String> = None;
    if let Some(start) = &start {
        let end = event_end(event, start, context);
        lines.push(format!("When: {}", when_text(start, end.as_ref())));
        unit_fields.extend(time_fields(start, end.as_ref(), rrule.as_deref()));
        tz_note = start.note.clone();
        if let Some(rule) = &rrule {
            let (repeat_line, repeat_fields) = repeat_text(event, rule, start, context);
            lines.push(repeat_line);
            unit_fields.extend(repeat_fields);
        }
        let rdates = time_list(event, "RDATE", start, context);
        if !rdates.is_empty() {
            lines.push(format!("Also on: {}", date_list(&rdates, start)));
        }
    } else if let Some(prop) = start_prop {
        notes.push(format!("invalid DTSTART \"{}\"", prop.value.trim()));
    }
    if let Some(prop) = event.prop("RECURRENCE-ID") {
        if let Some(original) = resolve_time(prop, &prop.value, context) {
            let original = match &start {
                Some(start) => in_zone_of(original, start),
                None => original,
            };
            lines.push(format!(
                "Moved occurrence, originally: {}",
                moment_text(&original)
            ));
            unit_fields.push(("recurrence_id", original.instant.to_rfc3339()));
        }
    }
    push_line(&mut lines, "Location", &location);
    push_line(&mut lines, "Organizer", &organizer);
    push_line(&mut lines, "Attendees", &attendees);
    push_line(&mut lines, "Status", &status.to_lowercase());
    push_line(&mut lines, "Categories", &categories);
    if !description.is_empty() {
        lines.push(description);
    }
    if event.dropped_lines > 0 {
        notes.push(format!("{} malformed line(s) skipped", event.dropped_lines));
    }

    let locator = Locator {
        event_uid: Some(uid),
        ..Locator::default()
    };
    let mut unit = Unit::new(UnitKind::Event, locator, lines.join("\n"))
        .with_title(summary)
        .with_time(start.as_ref().map(|s| s.instant))
        .with_field("location", location)
        .with_field("organizer", organizer)
        .with_field("attendees", attendees)
        .with_field("status", status)
        .with_field("rrule", rrule.unwrap_or_default())
        .with_field("categories", categories);
    for (key, value) in unit_fields {
        unit = unit.with_field(key, value);
    }
    if let Some(note) = tz_note {
        unit = unit.with_field("tz_note", note);
    }
    if !notes.is_empty() {
        unit = unit.with_field("parse_note", notes.join("; "));
    }
    Some(unit)
}

fn push_line(lines: &mut Vec<String>, label: &str, value: &str) {
    if !value.trim().is_empty() {
        lines.push(format!("{label}: {value}"));
    }
}

/// start, end, timezone, all_day, time_of_day, weekdays.
fn time_fields(
    start: &When,
    end: Option<&When>,
    rrule: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut fields = vec![("start", start.instant.to_rfc3339())];
    if let Some(end) = end {
        fields.push(("end", end.instant.to_rfc3339()));
    }
    if let Some(label) = &start.label {
        fields.push(("timezone", label.clone()));
    }
    if start.all_day {
        fields.push(("all_day", "true".to_string()));
    } else {
        fields.push(("time_of_day", start.local.format("%H:%M").to_string()));
    }
    let days: Vec<&str> = recur::weekdays(rrule, start.local)
        .into_iter()
        .map(weekday_name)
        .collect();
    fields.push(("weekdays", days.join(", ")));
    fields
}

/// "Repeats: …" plus the rrule-derived fields (exdates, next_occurrences).
fn repeat_text(
    event: &Component,
    rule: &str,
    start: &When,
    context: &Context,
) -> (String, Vec<(&'static str, String)>) {
    let until_local = |raw: &str| -> Option<NaiveDateTime> {
        match parse_raw(raw)? {
            RawTime::Date(date) => date.and_hms_opt(23, 59, 59),
            RawTime::DateTime { local, utc: true } => Some(start.utc_to_local(local)),
            RawTime::DateTime { local, utc: false } => Some(local),
        }
    };
    let mut line = format!(
        "Repeats: {}",
        recur::describe(rule, start.local, |u| until_local(u).map(|t| t.date()))
    );
    let exdates = time_list(event, "EXDATE", start, context);
    let mut fields = Vec::new();
    if !exdates.is_empty() {
        line.push_str(&format!(" (except {})", date_list(&exdates, start)));
        let iso: Vec<String> = exdates.iter().map(|d| d.date().to_string()).collect();
        fields.push(("exdates", iso.join(", ")));
    }
    let until = recur::rule_parts(rule)
        .get("UNTIL")
        .and_then(|u| until_local(u));
    let occurrences = recur::first_occurrences(
        rule,
        start.local,
        start.iana(),
        until,
        &exdates,
        OCCURRENCES_LISTED,
    );
    if !occurrences.is_empty() {
        let dates: Vec<String> = occurrences.iter().map(|d| d.to_string()).collect();
        fields.push(("next_occurrences", dates.join(", ")));
    }
    (line, fields)
}

/// "26 November 2025, 24 December 2025" (times added when they differ from the start's).
fn date_list(times: &[NaiveDateTime], start: &When) -> String {
    let mut shown: Vec<String> = times
        .iter()
        .take(MAX_LISTED_DATES)
        .map(|t| {
            if start.all_day || t.time() == start.local.time() {
                format_date(t.date())
            } else {
                format!("{} {}", format_date(t.date()), t.format("%H:%M"))
            }
        })
        .collect();
    if times.len() > MAX_LISTED_DATES {
        shown.push(format!("and {} more", times.len() - MAX_LISTED_DATES));
    }
    shown.join(", ")
}

/// "Wednesday 1 October 2025, 18:00–20:00 (America/Los_Angeles)".
fn when_text(start: &When, end: Option<&When>) -> String {
    if start.all_day {
        let last_day = end
            .map(|e| e.local.date())
            .filter(|d| *d > start.local.date())
            .and_then(|d| d.pred_opt())
            .filter(|d| *d > start.local.date());
        return match last_day {
            Some(last) => format!(
                "{} – {} (all day)",
                format_day(start.local.date()),
                format_day(last)
            ),
            None => format!("{} (all day)", format_day(start.local.date())),
        };
    }
    let mut text = format!("{}, {}", format_day(start.local.date()), hh_mm(start.local));
    if let Some(end) = end {
        let end_local = if end.label == start.label {
            end.local
        } else {
            start.utc_to_local(end.instant.naive_utc())
        };
        if end_local.date() == start.local.date() {
            text.push_str(&format!("–{}", hh_mm(end_local)));
        } else {
            text.push_str(&format!(
                " – {}, {}",
                format_day(end_local.date()),
                hh_mm(end_local)
            ));
        }
    }
    if let Some(label) = &start.label {
        text.push_str(&format!(" ({label})"));
    }
    text
}

/// "Tuesday 2 October 2012, 10:00 (America/Los_Angeles)" or a bare day.
fn moment_text(when: &When) -> String {
    if when.all_day {
        return format_day(when.local.date());
    }
    let mut text = format!("{}, {}", format_day(when.local.date()), hh_mm(when.local));
    if let Some(label) = &when.label {
        text.push_str(&format!(" ({label})"));
    }
    text
}

fn hh_mm(time: NaiveDateTime) -> String {
    format!("{:02}:{:02}", time.hour(), time.minute())
}

/// "Ana Silva <ana@example.com>" from CN and a mailto: value.
fn person(prop: &Prop) -> String {
    let value = prop.value.trim();
    let mail = value
        .get(..7)
        .filter(|p| p.eq_ignore_ascii_case("mailto:"))
        .and_then(|_| value.get(7..))
        .unwrap_or(value)
        .trim();
    let name = prop.param("CN").map(one_line).unwrap_or_default();
    match (name.is_empty(), mail.is_empty()) {
        (false, false) if name.contains(mail) => name,
        (false, false) => format!("{name} <{mail}>"),
        (false, true) => name,
        _ => mail.to_string(),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn truncate_chars(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((byte, _)) => &text[..byte],
        None => text,
    }
}

/// English weekday name.
pub(crate) fn weekday_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "Monday",
        Weekday::Tue => "Tuesday",
        Weekday::Wed => "Wednesday",
        Weekday::Thu => "Thursday",
        Weekday::Fri => "Friday",
        Weekday::Sat => "Saturday",
        Weekday::Sun => "Sunday",
    }
}

/// English month name for 1..=12.
pub(crate) fn month_name(month: u32) -> Option<&'static str> {
    const NAMES: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    NAMES
        .get(usize::try_from(month).ok()?.checked_sub(1)?)
        .copied()
}

/// "16 December 2025".
pub(crate) fn format_date(date: NaiveDate) -> String {
    format!(
        "{} {} {}",
        date.day(),
        month_name(date.month()).unwrap_or_default(),
        date.year()
    )
}

/// "Tuesday 16 December 2025".
fn format_day(date: NaiveDate) -> String {
    format!("{} {}", weekday_name(date.weekday()), format_date(date))
}

#[cfg(test)]
mod tests;
