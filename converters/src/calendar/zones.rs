//! TZID → time zone: IANA names directly, Windows and Outlook display names through a
//! table, custom zones through the file's own VTIMEZONE rules, else unknown (the caller
//! keeps the wall-clock time and notes it).

use std::collections::HashMap;

use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveDateTime, Offset, TimeZone, Weekday,
};

use super::parse::Component;

/// Windows zone IDs (CLDR windowsZones, territory 001) → IANA.
const WINDOWS_ZONES: &[(&str, &str)] = &[
    ("Dateline Standard Time", "Etc/GMT+12"),
    ("UTC-11", "Etc/GMT+11"),
    ("Aleutian Standard Time", "America/Adak"),
    ("Hawaiian Standard Time", "Pacific/Honolulu"),
    ("Alaskan Standard Time", "America/Anchorage"),
    ("Pacific Standard Time (Mexico)", "America/Tijuana"),
    ("UTC-08", "Etc/GMT+8"),
    ("Pacific Standard Time", "America/Los_Angeles"),
    ("US Mountain Standard Time", "America/Phoenix"),
    ("Mountain Standard Time (Mexico)", "America/Mazatlan"),
    ("Mountain Standard Time", "America/Denver"),
    ("Central America Standard Time", "America/Guatemala"),
    ("Central Standard Time", "America/Chicago"),
    ("Central Standard Time (Mexico)", "America/Mexico_City"),
    ("Canada Central Standard Time", "America/Regina"),
    ("SA Pacific Standard Time", "America/Bogota"),
    ("Eastern Standard Time (Mexico)", "America/Cancun"),
    ("Eastern Standard Time", "America/New_York"),
    ("US Eastern Standard Time", "America/Indiana/Indianapolis"),
    ("Cuba Standard Time", "America/Havana"),
    ("Haiti Standard Time", "America/Port-au-Prince"),
    ("Venezuela Standard Time", "America/Caracas"),
    ("Paraguay Standard Time", "America/Asuncion"),
    ("Atlantic Standard Time", "America/Halifax"),
    ("SA Western Standard Time", "America/La_Paz"),
    ("Pacific SA Standard Time", "America/Santiago"),
    ("Newfoundland Standard Time", "America/St_Johns"),
    ("E. South America Standard Time", "America/Sao_Paulo"),
    ("Argentina Standard Time", "America/Argentina/Buenos_Aires"),
    ("SA Eastern Standard Time", "America/Cayenne"),
    ("Greenland Standard Time", "America/Nuuk"),
    ("Montevideo Standard Time", "America/Montevideo"),
    ("UTC-02", "Etc/GMT+2"),
    ("Mid-Atlantic Standard Time", "Etc/GMT+2"),
    ("Azores Standard Time", "Atlantic/Azores"),
    ("Cape Verde Standard Time", "Atlantic/Cape_Verde"),
    ("UTC", "Etc/UTC"),
    ("Coordinated Universal Time", "Etc/UTC"),
    ("GMT Standard Time", "Europe/London"),
    ("Greenwich Standard Time", "Atlantic/Reykjavik"),
    ("Morocco Standard Time", "Africa/Casablanca"),
    ("W. Europe Standard Time", "Europe/Berlin"),
    ("Central Europe Standard Time", "Europe/Budapest"),
    ("Romance Standard Time", "Europe/Paris"),
    ("Central European Standard Time", "Europe/Warsaw"),
    ("W. Central Africa Standard Time", "Africa/Lagos"),
    ("Jordan Standard Time", "Asia/Amman"),
    ("GTB Standard Time", "Europe/Bucharest"),
    ("Middle East Standard Time", "Asia/Beirut"),
    ("Egypt Standard Time", "Africa/Cairo"),
    ("E. Europe Standard Time", "Europe/Chisinau"),
    ("Syria Standard Time", "Asia/Damascus"),
    ("South Africa Standard Time", "Africa/Johannesburg"),
    ("FLE Standard Time", "Europe/Kyiv"),
    ("Israel Standard Time", "Asia/Jerusalem"),
    ("Kaliningrad Standard Time", "Europe/Kaliningrad"),
    ("Sudan Standard Time", "Africa/Khartoum"),
    ("Libya Standard Time", "Africa/Tripoli"),
    ("Namibia Standard Time", "Africa/Windhoek"),
    ("Arabic Standard Time", "Asia/Baghdad"),
    ("Turkey Standard Time", "Europe/Istanbul"),
    ("Arab Standard Time", "Asia/Riyadh"),
    ("Belarus Standard Time", "Europe/Minsk"),
    ("Russian Standard Time", "Europe/Moscow"),
    ("E. Africa Standard Time", "Africa/Nairobi"),
    ("Iran Standard Time", "Asia/Tehran"),
    ("Arabian Standard Time", "Asia/Dubai"),
    ("Azerbaijan Standard Time", "Asia/Baku"),
    ("Russia Time Zone 3", "Europe/Samara"),
    ("Mauritius Standard Time", "Indian/Mauritius"),
    ("Georgian Standard Time", "Asia/Tbilisi"),
    ("Caucasus Standard Time", "Asia/Yerevan"),
    ("Afghanistan Standard Time", "Asia/Kabul"),
    ("West Asia Standard Time", "Asia/Tashkent"),
    ("Ekaterinburg Standard Time", "Asia/Yekaterinburg"),
    ("Pakistan Standard Time", "Asia/Karachi"),
    ("India Standard Time", "Asia/Kolkata"),
    ("Sri Lanka Standard Time", "Asia/Colombo"),
    ("Nepal Standard Time", "Asia/Kathmandu"),
    ("Central Asia Standard Time", "Asia/Almaty"),
    ("Bangladesh Standard Time", "Asia/Dhaka"),
    ("Myanmar Standard Time", "Asia/Yangon"),
    ("SE Asia Standard Time", "Asia/Bangkok"),
    ("North Asia Standard Time", "Asia/Krasnoyarsk"),
    ("China Standard Time", "Asia/Shanghai"),
    ("North Asia East Standard Time", "Asia/Irkutsk"),
    ("Singapore Standard Time", "Asia/Singapore"),
    ("W. Australia Standard Time", "Australia/Perth"),
    ("Taipei Standard Time", "Asia/Taipei"),
    ("Ulaanbaatar Standard Time", "Asia/Ulaanbaatar"),
    ("Tokyo Standard Time", "Asia/Tokyo"),
    ("Korea Standard Time", "Asia/Seoul"),
    ("Yakutsk Standard Time", "Asia/Yakutsk"),
    ("Cen. Australia Standard Time", "Australia/Adelaide"),
    ("AUS Central Standard Time", "Australia/Darwin"),
    ("E. Australia Standard Time", "Australia/Brisbane"),
    ("AUS Eastern Standard Time", "Australia/Sydney"),
    ("West Pacific Standard Time", "Pacific/Port_Moresby"),
    ("Tasmania Standard Time", "Australia/Hobart"),
    ("Vladivostok Standard Time", "Asia/Vladivostok"),
    ("Magadan Standard Time", "Asia/Magadan"),
    ("Russia Time Zone 10", "Asia/Srednekolymsk"),
    ("Russia Time Zone 11", "Asia/Kamchatka"),
    ("New Zealand Standard Time", "Pacific/Auckland"),
    ("UTC+12", "Etc/GMT-12"),
    ("Fiji Standard Time", "Pacific/Fiji"),
    ("Tonga Standard Time", "Pacific/Tongatapu"),
    ("Samoa Standard Time", "Pacific/Apia"),
];

/// Outlook display names, after their `(UTC±hh:mm) ` prefix → IANA.
const DISPLAY_NAMES: &[(&str, &str)] = &[
    ("Eastern Time (US & Canada)", "America/New_York"),
    ("Central Time (US & Canada)", "America/Chicago"),
    ("Mountain Time (US & Canada)", "America/Denver"),
    ("Pacific Time (US & Canada)", "America/Los_Angeles"),
    ("Atlantic Time (Canada)", "America/Halifax"),
    ("Alaska", "America/Anchorage"),
    ("Hawaii", "Pacific/Honolulu"),
    ("Arizona", "America/Phoenix"),
    ("Brasilia", "America/Sao_Paulo"),
    ("Dublin, Edinburgh, Lisbon, London", "Europe/London"),
    (
        "Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna",
        "Europe/Berlin",
    ),
    ("Brussels, Copenhagen, Madrid, Paris", "Europe/Paris"),
    (
        "Belgrade, Bratislava, Budapest, Ljubljana, Prague",
        "Europe/Budapest",
    ),
    ("Sarajevo, Skopje, Warsaw, Zagreb", "Europe/Warsaw"),
    ("Athens, Bucharest", "Europe/Bucharest"),
    (
        "Helsinki, Kyiv, Riga, Sofia, Tallinn, Vilnius",
        "Europe/Helsinki",
    ),
    ("Jerusalem", "Asia/Jerusalem"),
    ("Moscow, St. Petersburg", "Europe/Moscow"),
    ("Chennai, Kolkata, Mumbai, New Delhi", "Asia/Kolkata"),
    ("Beijing, Chongqing, Hong Kong, Urumqi", "Asia/Shanghai"),
    ("Kuala Lumpur, Singapore", "Asia/Singapore"),
    ("Osaka, Sapporo, Tokyo", "Asia/Tokyo"),
    ("Seoul", "Asia/Seoul"),
    ("Canberra, Melbourne, Sydney", "Australia/Sydney"),
    ("Auckland, Wellington", "Pacific/Auckland"),
    ("Coordinated Universal Time", "Etc/UTC"),
];

/// A resolved zone.
#[derive(Debug, Clone)]
pub(crate) enum Zone {
    Iana(chrono_tz::Tz),
    /// The file's own VTIMEZONE rules (custom TZID such as "Western/Central Europe").
    Custom(VTimezone),
    /// A fixed offset (from an Outlook `(UTC+hh:mm)` prefix).
    Fixed(FixedOffset),
}

impl Zone {
    /// The UTC offset in force at this wall-clock time (gaps resolved forward,
    /// ambiguous times to the earlier instant).
    pub(crate) fn offset_at_local(&self, local: NaiveDateTime) -> FixedOffset {
        match self {
            Zone::Iana(tz) => {
                let mut probe = local;
                for _ in 0..4 {
                    if let Some(dt) = tz.from_local_datetime(&probe).earliest() {
                        return dt.offset().fix();
                    }
                    probe += Duration::minutes(30);
                }
                tz.offset_from_utc_datetime(&local).fix()
            }
            Zone::Custom(vtz) => vtz.offset_at(local),
            Zone::Fixed(offset) => *offset,
        }
    }

    /// The UTC offset in force at this UTC instant.
    pub(crate) fn offset_at_utc(&self, utc: NaiveDateTime) -> FixedOffset {
        match self {
            Zone::Iana(tz) => tz.offset_from_utc_datetime(&utc).fix(),
            Zone::Custom(vtz) => {
                let guess = vtz.offset_at(utc);
                vtz.offset_at(utc + Duration::seconds(i64::from(guess.local_minus_utc())))
            }
            Zone::Fixed(offset) => *offset,
        }
    }

    /// A wall-clock time as an absolute time with its real offset.
    pub(crate) fn localize(&self, local: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
        self.offset_at_local(local)
            .from_local_datetime(&local)
            .single()
    }
}

/// Resolves TZIDs for one file.
#[derive(Debug, Default)]
pub(crate) struct ZoneResolver {
    vtimezones: HashMap<String, VTimezone>,
}

/// A resolution: the zone, the label to show, and a note when it was a guess.
#[derive(Debug, Clone)]
pub(crate) struct Resolution {
    pub(crate) zone: Zone,
    pub(crate) label: String,
    pub(crate) note: Option<String>,
}

impl ZoneResolver {
    /// Collects the VTIMEZONE components of a file.
    pub(crate) fn new(vtimezones: &[&Component]) -> ZoneResolver {
        let vtimezones = vtimezones
            .iter()
            .filter_map(|c| VTimezone::from_component(c))
            .map(|v| (v.tzid.clone(), v))
            .collect();
        ZoneResolver { vtimezones }
    }

    /// Resolves a TZID, or None when nothing is known about it.
    pub(crate) fn resolve(&self, tzid: &str) -> Option<Resolution> {
        let tzid = tzid.trim().trim_matches('"').trim();
        if tzid.is_empty() {
            return None;
        }
        if let Some(tz) = iana(tzid) {
            return Some(Resolution::iana(tz));
        }
        if let Some(tz) = lookup(WINDOWS_ZONES, tzid) {
            return Some(Resolution::iana(tz));
        }
        let (prefix_offset, display) = split_utc_prefix(tzid);
        if let Some(tz) =
            display.and_then(|d| lookup(DISPLAY_NAMES, d).or_else(|| lookup(WINDOWS_ZONES, d)))
        {
            return Some(Resolution::iana(tz));
        }
        if let Some(vtz) = self.vtimezones.get(tzid) {
            if let Some(tz) = vtz.location.as_deref().and_then(iana) {
                return Some(Resolution::iana(tz));
            }
        }
        if let Some(tz) = iana_suffix(tzid) {
            return Some(Resolution::iana(tz));
        }
        if let Some(vtz) = self.vtimezones.get(tzid) {
            if !vtz.observances.is_empty() {
                return Some(Resolution {
                    zone: Zone::Custom(vtz.clone()),
                    label: tzid.to_string(),
                    note: Some(format!("zone \"{tzid}\" from the file's VTIMEZONE rules")),
                });
            }
        }
        prefix_offset.map(|offset| Resolution {
            zone: Zone::Fixed(offset),
            label: tzid.to_string(),
            note: Some(format!("zone \"{tzid}\" taken as fixed offset {offset}")),
        })
    }
}

impl Resolution {
    fn iana(tz: chrono_tz::Tz) -> Resolution {
        Resolution {
            zone: Zone::Iana(tz),
            label: tz.name().to_string(),
            note: None,
        }
    }
}

fn iana(name: &str) -> Option<chrono_tz::Tz> {
    name.parse::<chrono_tz::Tz>().ok().or_else(|| {
        chrono_tz::TZ_VARIANTS
            .iter()
            .find(|tz| tz.name().eq_ignore_ascii_case(name))
            .copied()
    })
}

fn lookup(table: &[(&str, &str)], name: &str) -> Option<chrono_tz::Tz> {
    table
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .and_then(|(_, zone)| iana(zone))
}

/// `/mozilla.org/20050126_1/America/New_York` → America/New_York.
fn iana_suffix(tzid: &str) -> Option<chrono_tz::Tz> {
    let parts: Vec<&str> = tzid.split('/').filter(|p| !p.is_empty()).collect();
    (2..=3.min(parts.len()))
        .rev()
        .filter_map(|n| parts.get(parts.len() - n..))
        .find_map(|tail| iana(&tail.join("/")))
}

/// `(UTC-05:00) Eastern Time (US & Canada)` → (-05:00, "Eastern Time (US & Canada)").
fn split_utc_prefix(tzid: &str) -> (Option<FixedOffset>, Option<&str>) {
    let Some(rest) = tzid
        .strip_prefix("(UTC")
        .or_else(|| tzid.strip_prefix("(GMT"))
    else {
        return (None, None);
    };
    let Some((offset, display)) = rest.split_once(')') else {
        return (None, None);
    };
    let display = Some(display.trim()).filter(|d| !d.is_empty());
    let offset = if offset.is_empty() {
        FixedOffset::east_opt(0)
    } else {
        parse_offset(offset)
    };
    (offset, display)
}

/// `+0100`, `-05:00`, `+053000` → offset.
pub(crate) fn parse_offset(text: &str) -> Option<FixedOffset> {
    let text = text.trim();
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, text.get(1..)?),
        b'-' => (-1, text.get(1..)?),
        _ => return None,
    };
    let digits: String = digits.chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) || !(digits.len() == 4 || digits.len() == 6) {
        return None;
    }
    let hours: i32 = digits.get(0..2)?.parse().ok()?;
    let minutes: i32 = digits.get(2..4)?.parse().ok()?;
    let seconds: i32 = digits.get(4..6).and_then(|s| s.parse().ok()).unwrap_or(0);
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60 + seconds))
}

/// A VTIMEZONE reduced to what is needed to find the offset at a time.
#[derive(Debug, Clone)]
pub(crate) struct VTimezone {
    pub(crate) tzid: String,
    /// X-LIC-LOCATION, when given.
    pub(crate) location: Option<String>,
    pub(crate) observances: Vec<Observance>,
}

/// One STANDARD or DAYLIGHT block.
#[derive(Debug, Clone)]
pub(crate) struct Observance {
    pub(crate) start: NaiveDateTime,
    pub(crate) offset_to: FixedOffset,
    pub(crate) rule: Option<YearlyRule>,
    pub(crate) rdates: Vec<NaiveDateTime>,
}

/// The usual yearly onset rule: `FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU` (or BYMONTHDAY).
#[derive(Debug, Clone)]
pub(crate) struct YearlyRule {
    pub(crate) month: u32,
    pub(crate) day: RuleDay,
    pub(crate) until: Option<NaiveDateTime>,
}

#[derive(Debug, Clone)]
pub(crate) enum RuleDay {
    Nth(i32, Weekday),
    MonthDay(i32),
}

impl VTimezone {
    fn from_component(component: &Component) -> Option<VTimezone> {
        let tzid = component.value("TZID")?.trim_matches('"').to_string();
        let location = component.value("X-LIC-LOCATION").map(str::to_string);
        let observances = component
            .children
            .iter()
            .filter(|c| c.name == "STANDARD" || c.name == "DAYLIGHT")
            .filter_map(Observance::from_component)
            .collect();
        Some(VTimezone {
            tzid,
            location,
            observances,
        })
    }

    /// The offset whose latest onset is at or before `local`.
    pub(crate) fn offset_at(&self, local: NaiveDateTime) -> FixedOffset {
        let mut best: Option<(NaiveDateTime, FixedOffset)> = None;
        for obs in &self.observances {
            for onset in obs.onsets_near(local.year()) {
                if onset <= local && best.is_none_or(|(t, _)| onset > t) {
                    best = Some((onset, obs.offset_to));
                }
            }
        }
        best.map(|(_, o)| o)
            .or_else(|| {
                self.observances
                    .iter()
                    .min_by_key(|o| o.start)
                    .map(|o| o.offset_to)
            })
            .unwrap_or_else(|| chrono::Utc.fix())
    }
}

impl Observance {
    fn from_component(component: &Component) -> Option<Observance> {
        let start = super::parse_local(component.value("DTSTART")?)?;
        let offset_to = parse_offset(component.value("TZOFFSETTO")?)?;
        let rule = component.value("RRULE").and_then(YearlyRule::parse);
        let rdates = component
            .props_named("RDATE")
            .flat_map(|p| p.value.split(','))
            .filter_map(super::parse_local)
            .collect();
        Some(Observance {
            start,
            offset_to,
            rule,
            rdates,
        })
    }

    /// Onsets in `year - 1` and `year` (the start itself and RDATEs included).
    fn onsets_near(&self, year: i32) -> Vec<NaiveDateTime> {
        let mut onsets = vec![self.start];
        onsets.extend(self.rdates.iter().copied());
        if let Some(rule) = &self.rule {
            for y in [year - 1, year] {
                if let Some(onset) = rule.onset(y, self.start) {
                    let before_until = rule.until.is_none_or(|u| onset <= u);
                    if onset >= self.start && before_until {
                        onsets.push(onset);
                    }
                }
            }
        }
        onsets
    }
}

impl YearlyRule {
    fn parse(rule: &str) -> Option<YearlyRule> {
        let parts = super::recur::rule_parts(rule);
        if parts.get("FREQ").map(String::as_str) != Some("YEARLY") {
            return None;
        }
        let month: u32 = parts.get("BYMONTH")?.split(',').next()?.parse().ok()?;
        let day = if let Some(byday) = parts.get("BYDAY") {
            let (n, weekday) = super::recur::parse_byday(byday.split(',').next()?)?;
            RuleDay::Nth(n.unwrap_or(1), weekday)
        } else {
            RuleDay::MonthDay(parts.get("BYMONTHDAY")?.split(',').next()?.parse().ok()?)
        };
        let until = parts
            .get("UNTIL")
            .and_then(|u| super::parse_local(u.trim_end_matches('Z')));
        Some(YearlyRule { month, day, until })
    }

    fn onset(&self, year: i32, start: NaiveDateTime) -> Option<NaiveDateTime> {
        let date = match self.day {
            RuleDay::Nth(n, weekday) => nth_weekday_of_month(year, self.month, n, weekday)?,
            RuleDay::MonthDay(d) if d > 0 => NaiveDate::from_ymd_opt(year, self.month, d as u32)?,
            RuleDay::MonthDay(d) => {
                let last = last_day_of_month(year, self.month)?;
                // In i64: `-d` overflows i32 for BYMONTHDAY=-2147483648.
                last.checked_sub_signed(Duration::days(-i64::from(d) - 1))?
            }
        };
        Some(date.and_time(start.time()))
    }
}

fn last_day_of_month(year: i32, month: u32) -> Option<NaiveDate> {
    // Checked: BYMONTH comes from the file and may be u32::MAX.
    let (y, m) = if month == 12 {
        (year.checked_add(1)?, 1)
    } else {
        (year, month.checked_add(1)?)
    };
    NaiveDate::from_ymd_opt(y, m, 1)?.pred_opt()
}

/// The `n`th (1-based; negative from the end) `weekday` of a month.
pub(crate) fn nth_weekday_of_month(
    year: i32,
    month: u32,
    n: i32,
    weekday: Weekday,
) -> Option<NaiveDate> {
    if n == 0 || !(-5..=5).contains(&n) {
        return None;
    }
    if n > 0 {
        let first = NaiveDate::from_ymd_opt(year, month, 1)?;
        let shift =
            (7 + weekday.num_days_from_monday() - first.weekday().num_days_from_monday()) % 7;
        let date =
            first.checked_add_signed(Duration::days(i64::from(shift) + 7 * i64::from(n - 1)))?;
        (date.month() == month).then_some(date)
    } else {
        let last = last_day_of_month(year, month)?;
        let shift =
            (7 + last.weekday().num_days_from_monday() - weekday.num_days_from_monday()) % 7;
        let date =
            last.checked_sub_signed(Duration::days(i64::from(shift) + 7 * i64::from(-n - 1)))?;
        (date.month() == month).then_some(date)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::parse::{build_tree, clean_lines};

    #[test]
    fn every_table_entry_is_a_known_iana_zone() {
        for (windows, zone) in WINDOWS_ZONES.iter().chain(DISPLAY_NAMES) {
            assert!(iana(zone).is_some(), "{windows} → {zone}");
        }
    }

    #[test]
    fn resolves_windows_display_and_prefixed_names() {
        let resolver = ZoneResolver::default();
        let label = |id: &str| resolver.resolve(id).map(|r| r.label);
        assert_eq!(
            label("Singapore Standard Time").as_deref(),
            Some("Asia/Singapore")
        );
        assert_eq!(
            label("w. europe standard time").as_deref(),
            Some("Europe/Berlin")
        );
        assert_eq!(
            label("(UTC-05:00) Eastern Time (US & Canada)").as_deref(),
            Some("America/New_York")
        );
        assert_eq!(
            label("/mozilla.org/20050126_1/America/New_York").as_deref(),
            Some("America/New_York")
        );
        assert_eq!(label("Europe/Zurich").as_deref(), Some("Europe/Zurich"));
        let fixed = resolver.resolve("(UTC+03:30) Somewhere odd").unwrap();
        assert!(matches!(fixed.zone, Zone::Fixed(o) if o.local_minus_utc() == 12600));
        assert!(resolver.resolve("Mars/Olympus_Mons").is_none());
    }

    #[test]
    fn custom_vtimezone_rules_give_dst_offsets() {
        let text = "BEGIN:VTIMEZONE\nTZID:Western/Central Europe\nBEGIN:STANDARD\n\
DTSTART:19501029T020000\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\nTZOFFSETFROM:+0200\n\
TZOFFSETTO:+0100\nEND:STANDARD\nBEGIN:DAYLIGHT\nDTSTART:19500326T020000\n\
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0200\n\
END:DAYLIGHT\nEND:VTIMEZONE\n";
        let tree = build_tree(&clean_lines(text));
        let resolver = ZoneResolver::new(&[&tree[0]]);
        let zone = resolver.resolve("Western/Central Europe").unwrap().zone;
        let at = |s: &str| {
            zone.offset_at_local(NaiveDateTime::parse_from_str(s, "%Y%m%dT%H%M%S").unwrap())
                .local_minus_utc()
                / 3600
        };
        assert_eq!(at("20211101T160000"), 1);
        assert_eq!(at("20210701T160000"), 2);
        assert_eq!(at("20210115T090000"), 1);
    }

    #[test]
    fn nth_weekdays() {
        let d = |y, m, n, w| nth_weekday_of_month(y, m, n, w).map(|d| d.to_string());
        assert_eq!(d(2025, 3, 2, Weekday::Sun).as_deref(), Some("2025-03-09"));
        assert_eq!(d(2025, 10, -1, Weekday::Sun).as_deref(), Some("2025-10-26"));
        assert_eq!(d(2025, 2, 5, Weekday::Mon), None);
    }

    #[test]
    fn yearly_rules_offsets_and_weekdays_with_extreme_numbers() {
        use crate::testutil::{self, Rng};
        let start = NaiveDateTime::parse_from_str("19701025T030000", "%Y%m%dT%H%M%S").unwrap();
        let weekdays = [
            Weekday::Mon,
            Weekday::Tue,
            Weekday::Wed,
            Weekday::Thu,
            Weekday::Fri,
            Weekday::Sat,
            Weekday::Sun,
        ];
        for month in testutil::EDGE_NUMBERS {
            for day in testutil::EDGE_NUMBERS {
                for rule in [
                    format!("FREQ=YEARLY;BYMONTH={month};BYMONTHDAY={day}"),
                    format!("FREQ=YEARLY;BYMONTH={month};BYDAY={day}SU"),
                ] {
                    let Some(parsed) = YearlyRule::parse(&rule) else {
                        continue;
                    };
                    // Days that exist in every month land in the rule's month (others
                    // may roll over into the next or previous one).
                    let valid = (1..=12).contains(&parsed.month)
                        && match parsed.day {
                            RuleDay::MonthDay(d) => {
                                (-28..=-1).contains(&d) || (1..=31).contains(&d)
                            }
                            RuleDay::Nth(n, _) => n != 0,
                        };
                    for year in [-262_000, 0, 1970, 2024, 9999, 262_000] {
                        if let Some(onset) = parsed.onset(year, start) {
                            assert!(!valid || onset.month() == parsed.month, "{rule} in {year}");
                            assert_eq!(onset.time(), start.time());
                        }
                    }
                }
            }
        }
        for month in [0, 1, 2, 12, 13, u32::MAX] {
            for n in -7..=7 {
                for weekday in weekdays {
                    for year in [-262_143, 2025, 262_142] {
                        if let Some(date) = nth_weekday_of_month(year, month, n, weekday) {
                            assert_eq!((date.month(), date.weekday()), (month, weekday));
                        }
                    }
                }
            }
            let _ = last_day_of_month(262_142, month);
        }
        let mut rng = Rng(0x20E5_0000_0000_0001);
        let resolver = ZoneResolver::default();
        for _ in 0..2000 {
            let sign = *rng.pick(&['+', '-']);
            let (h, m) = (rng.below(24), rng.below(60));
            let expected = (h * 3600 + m * 60) as i32 * if sign == '-' { -1 } else { 1 };
            let text = if rng.one_in(2) {
                format!("{sign}{h:02}:{m:02}")
            } else {
                format!("{sign}{h:02}{m:02}")
            };
            assert_eq!(
                parse_offset(&text).map(|o| o.local_minus_utc()),
                Some(expected),
                "{text}"
            );
            let junk =
                testutil::random_text(&mut rng, &["+", "-", ":", "0", "9", "é", " ", "12"], 8);
            if let Some(offset) = parse_offset(&junk) {
                assert!(offset.local_minus_utc().abs() < 86_400);
            }
            let tzid = testutil::random_text(
                &mut rng,
                &[
                    "(UTC",
                    "(GMT",
                    ")",
                    "+05:30",
                    "-",
                    "/",
                    "America",
                    "New_York",
                    "é",
                    " ",
                    "Standard Time",
                ],
                6,
            );
            let _ = resolver.resolve(&tzid);
        }
    }
}
