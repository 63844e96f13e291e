use super::*;
use crate::FileType;

fn input(bytes: &[u8]) -> Input<'_> {
    Input {
        tail: &[],
        name: "Calendar/test.ics",
        bytes,
        size: bytes.len() as u64,
        file_type: FileType::Ics,
    }
}

fn units_of(text: &str) -> Vec<Unit> {
    convert(&input(text.as_bytes())).unwrap().units
}

const LA_ZONE: &str = "BEGIN:VTIMEZONE\r\nTZID:America/Los_Angeles\r\nBEGIN:DAYLIGHT\r\n\
TZOFFSETFROM:-0800\r\nTZOFFSETTO:-0700\r\nDTSTART:19700308T020000\r\n\
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\r\nEND:DAYLIGHT\r\nBEGIN:STANDARD\r\n\
TZOFFSETFROM:-0700\r\nTZOFFSETTO:-0800\r\nDTSTART:19701101T020000\r\n\
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n";

fn choir_calendar() -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-CALNAME:Family\r\n{LA_ZONE}\
BEGIN:VEVENT\r\nUID:choir@example\r\nSUMMARY:Choir rehearsal\r\n\
DTSTART;TZID=America/Los_Angeles:20251001T180000\r\n\
DTEND;TZID=America/Los_Angeles:20251001T200000\r\n\
RRULE:FREQ=WEEKLY;BYDAY=WE;UNTIL=20251217T075959Z\r\n\
EXDATE;TZID=America/Los_Angeles:20251126T180000\r\n\
LOCATION:St. Mark's hall\\, room 2\r\n\
ORGANIZER;CN=Ana Silva:mailto:ana@example.com\r\n\
ATTENDEE;CN=Bo Chen;PARTSTAT=ACCEPTED:mailto:bo@example.com\r\n\
ATTENDEE:mailto:carl@example.com\r\nSTATUS:CONFIRMED\r\n\
DESCRIPTION:Bring the Brahms score.\\nParking behind the church.\r\n\
BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n\
END:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:choir@example\r\nSUMMARY:Choir rehearsal (moved)\r\n\
RECURRENCE-ID;TZID=America/Los_Angeles:20251008T180000\r\n\
DTSTART;TZID=America/Los_Angeles:20251009T190000\r\n\
DTEND;TZID=America/Los_Angeles:20251009T210000\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:summit@example\r\nSUMMARY:Stormwater Summit\r\n\
DTSTART;VALUE=DATE:20250917\r\nDTEND;VALUE=DATE:20250919\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n"
    )
}

#[test]
fn weekly_event_with_zone_exdate_and_details() {
    let out = convert(&input(choir_calendar().as_bytes())).unwrap();
    assert_eq!(out.meta.title.as_deref(), Some("Family"));
    assert_eq!(out.meta.page_count, Some(3));
    let unit = &out.units[0];
    assert_eq!(unit.kind(), UnitKind::Event);
    assert_eq!(unit.locator.event_uid.as_deref(), Some("choir@example"));
    assert_eq!(unit.locator.part, None);
    assert_eq!(unit.title.as_deref(), Some("Choir rehearsal"));
    assert_eq!(
        unit.text,
        "Choir rehearsal\n\
When: Wednesday 1 October 2025, 18:00–20:00 (America/Los_Angeles)\n\
Repeats: every week on Wednesday until 16 December 2025 (except 26 November 2025)\n\
Location: St. Mark's hall, room 2\n\
Organizer: Ana Silva <ana@example.com>\n\
Attendees: Bo Chen <bo@example.com>, carl@example.com\n\
Status: confirmed\n\
Bring the Brahms score.\nParking behind the church."
    );
    let time = unit.content_time.unwrap();
    assert_eq!(time.to_rfc3339(), "2025-10-01T18:00:00-07:00");
    let f = &unit.fields;
    assert_eq!(f["start"], "2025-10-01T18:00:00-07:00");
    assert_eq!(f["end"], "2025-10-01T20:00:00-07:00");
    assert_eq!(f["timezone"], "America/Los_Angeles");
    assert_eq!(f["weekdays"], "Wednesday");
    assert_eq!(f["time_of_day"], "18:00");
    assert_eq!(f["rrule"], "FREQ=WEEKLY;BYDAY=WE;UNTIL=20251217T075959Z");
    assert_eq!(f["exdates"], "2025-11-26");
    assert_eq!(f["status"], "CONFIRMED");
    assert_eq!(
        f["next_occurrences"],
        "2025-10-01, 2025-10-08, 2025-10-15, 2025-10-22, 2025-10-29"
    );
    assert!(!f.contains_key("tz_note"));
}

#[test]
fn moved_occurrence_is_its_own_unit() {
    let units = units_of(&choir_calendar());
    let moved = &units[1];
    assert_eq!(moved.locator.event_uid.as_deref(), Some("choir@example"));
    assert_eq!(moved.fields["recurrence_id"], "2025-10-08T18:00:00-07:00");
    assert_eq!(moved.fields["start"], "2025-10-09T19:00:00-07:00");
    assert_eq!(moved.fields["weekdays"], "Thursday");
    assert!(moved.text.contains(
        "Moved occurrence, originally: Wednesday 8 October 2025, 18:00 (America/Los_Angeles)"
    ));
}

#[test]
fn all_day_event_spans_inclusive_days() {
    let units = units_of(&choir_calendar());
    let summit = &units[2];
    assert_eq!(
        summit.text,
        "Stormwater Summit\nWhen: Wednesday 17 September 2025 – Thursday 18 September 2025 (all day)"
    );
    assert_eq!(summit.fields["all_day"], "true");
    assert_eq!(summit.fields["start"], "2025-09-17T00:00:00+00:00");
    assert!(!summit.fields.contains_key("time_of_day"));
    assert_eq!(summit.fields["weekdays"], "Wednesday");
}

#[test]
fn windows_zone_bom_lowercase_and_unfolded_description() {
    let text = "\u{feff}begin:vcalendar\r\nversion:2.0 \r\n\
BEGIN:VTIMEZONE\r\nTZID:Singapore Standard Time\r\nBEGIN:STANDARD\r\n\
DTSTART:16010101T000000\r\nTZOFFSETFROM:+0800\r\nTZOFFSETTO:+0800\r\nEND:STANDARD\r\n\
END:VTIMEZONE\r\n\
begin:vevent\r\nuid:sg-1\r\nsummary:Supplier call   \r\n\
dtstart;tzid=Singapore Standard Time:20250303T090000\r\n\
DURATION:PT1H30M\r\n\
DESCRIPTION:Agenda\r\n\
Pricing for Q2\r\n\
Passcode: 1234\r\n\
end:vevent\r\nend:vcalendar\r\n";
    let units = units_of(text);
    assert_eq!(units.len(), 1);
    let unit = &units[0];
    assert_eq!(unit.title.as_deref(), Some("Supplier call"));
    assert_eq!(unit.fields["start"], "2025-03-03T09:00:00+08:00");
    assert_eq!(unit.fields["end"], "2025-03-03T10:30:00+08:00");
    assert_eq!(unit.fields["timezone"], "Asia/Singapore");
    assert!(unit
        .text
        .contains("When: Monday 3 March 2025, 09:00–10:30 (Asia/Singapore)"));
    assert!(
        unit.text
            .ends_with("Agenda\nPricing for Q2\nPasscode: 1234"),
        "{}",
        unit.text
    );
}

#[test]
fn unknown_zone_keeps_wall_clock_with_note() {
    let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nSUMMARY:Odd\n\
DTSTART;TZID=Mars/Olympus_Mons:20250704T093000\nEND:VEVENT\nEND:VCALENDAR\n";
    let unit = &units_of(text)[0];
    assert_eq!(unit.fields["start"], "2025-07-04T09:30:00+00:00");
    assert!(unit.fields["tz_note"].contains("Mars/Olympus_Mons"));
    assert_eq!(unit.fields["weekdays"], "Friday");
}

#[test]
fn two_concatenated_calendars_and_a_bad_event() {
    let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nSUMMARY:First\n\
DTSTART:20250101T100000Z\nEND:VEVENT\nEND:VCALENDAR\n\
BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:b\nSUMMARY:Second\nDTSTART:20251399T250000\n\
END:VEVENT\nBEGIN:VEVENT\nUID:c\nSUMMARY:Third\nDTSTART;;VALUE=DATE-TIME:20140409T093000\n\
END:VEVENT\nEND:VCALENDAR\n";
    let units = units_of(text);
    let titles: Vec<_> = units.iter().filter_map(|u| u.title.as_deref()).collect();
    assert_eq!(titles, ["First", "Second"]);
    assert_eq!(units[0].fields["timezone"], "UTC");
    assert!(units[1].content_time.is_none());
    assert!(units[1].fields["parse_note"].contains("invalid DTSTART"));
    let only_bad = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:c\nSUMMARY:Third\n\
DTSTART;;VALUE=DATE-TIME:20140409T093000\nEND:VEVENT\nEND:VCALENDAR\n";
    let error = convert(&Input::detect("bad.ics", only_bad.as_bytes())).unwrap_err();
    assert!(
        error.to_string().contains("malformed start line"),
        "{error}"
    );
}

#[test]
fn calendar_default_zone_applies_to_utc_times() {
    let text = "BEGIN:VCALENDAR\nX-WR-TIMEZONE:Europe/Paris\nBEGIN:VEVENT\nUID:u\n\
SUMMARY:Lunch\nDTSTART:20250601T100000Z\nEND:VEVENT\nEND:VCALENDAR\n";
    let unit = &units_of(text)[0];
    assert_eq!(unit.fields["start"], "2025-06-01T12:00:00+02:00");
    assert_eq!(unit.fields["time_of_day"], "12:00");
}

#[test]
fn malformed_inputs() {
    for bad in [
        &b""[..],
        b"\x00\x01\x02\xff\xfe random bytes \x80",
        b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n",
        b"hello: world\nnot a calendar\n",
    ] {
        match convert(&input(bad)) {
            Err(e) => assert_eq!(e.to_string(), "corrupt ics: no VCALENDAR or VEVENT found"),
            Ok(c) => panic!("expected an error for {bad:?}, got {c:?}"),
        }
    }
    // A truncated calendar keeps the events (and parts of events) that survived.
    let full = choir_calendar();
    let bytes = full.as_bytes();
    for cut in 1..bytes.len() {
        if cut % 7 == 0 {
            let _ = convert(&input(&bytes[..cut]));
        }
    }
    let half = convert(&input(&bytes[..bytes.len() / 2])).unwrap();
    assert!(!half.units.is_empty());
    // An empty calendar is valid and has no events.
    let empty = convert(&input(b"BEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR\n")).unwrap();
    assert!(empty.units.is_empty());
}

#[test]
fn durations_and_raw_times() {
    assert_eq!(parse_duration("PT1H15M5S"), Some(Duration::seconds(4505)));
    assert_eq!(parse_duration("P1W"), Some(Duration::days(7)));
    assert_eq!(parse_duration("-PT15M"), None);
    assert_eq!(parse_duration("P1X"), None);
    assert_eq!(parse_duration("P999999999999999999W"), None);
    assert_eq!(parse_duration("P99999999999W"), None);
    assert!(parse_raw("20171032T000000").is_none());
    assert!(matches!(
        parse_raw("2025-10-01T18:00:00Z"),
        Some(RawTime::DateTime { utc: true, .. })
    ));
}

#[test]
#[cfg_attr(
    not(dentate_shared),
    ignore = "needs ../shared/corpus beside the repository"
)]
fn corpus_calendars() {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let dirs = [
        base.join("realworld/Calendar"),
        base.join("persona/home/Calendar"),
    ];
    let mut seen = 0;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            panic!("missing: {} not present", dir.display());
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "ics"))
        {
            let bytes = std::fs::read(&path).unwrap();
            let out = convert(&input(&bytes)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!out.units.is_empty(), "{}", path.display());
            if std::env::var("DUMP").is_ok() {
                eprintln!("=== {} {:?}", path.display(), out.meta);
                for unit in &out.units {
                    eprintln!(
                        "--- {:?}\n{}\n{:?}",
                        unit.locator.event_uid, unit.text, unit.fields
                    );
                }
            }
            seen += 1;
        }
    }
    if let Ok(bytes) = std::fs::read(base.join("realworld/Broken/broken_ical.ics")) {
        // Its only event has a malformed DTSTART line: the file is reported corrupt.
        let error = convert(&input(&bytes)).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("An Event with too many semicolons"),
            "{error}"
        );
    }
    eprintln!("converted {seen} corpus calendars");
}

/// Damaged copies of the fixture (bytes flipped, lines swapped, odd rules) never panic.
#[test]
fn damaged_calendars_do_not_panic() {
    let base = choir_calendar().into_bytes();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..300 {
        let mut bytes = base.clone();
        for _ in 0..(next() % 12 + 1) {
            let at = (next() as usize) % bytes.len();
            bytes[at] = (next() % 256) as u8;
        }
        let _ = convert(&input(&bytes));
    }
    let rules = [
        "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=31",
        "FREQ=YEARLY;INTERVAL=65535;COUNT=4294967295",
        "FREQ=MONTHLY;BYSETPOS=-366;BYDAY=MO",
        "FREQ=WEEKLY;BYDAY=9MO,-9XX",
        "FREQ=DAILY;UNTIL=19000101",
        "FREQ=HOURLY;INTERVAL=0",
        "FREQ=MINUTELY;BYSECOND=61",
        "FREQ=YEARLY;BYWEEKNO=-53;BYYEARDAY=-366",
    ];
    for rule in rules {
        let text = format!(
            "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:r\nSUMMARY:r\nDTSTART:20250101T100000\n\
RRULE:{rule}\nDURATION:P99999999999W\nEND:VEVENT\nEND:VCALENDAR\n"
        );
        let units = units_of(&text);
        assert_eq!(units.len(), 1, "{rule}");
    }
    let deep = "BEGIN:VCALENDAR\n".repeat(100_000);
    assert!(convert(&input(deep.as_bytes())).unwrap().units.is_empty());
}

/// A VTIMEZONE whose yearly rule holds `rule_numbers`, used by one event.
fn custom_zone_calendar(rule: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:My Zone\r\nBEGIN:STANDARD\r\n\
DTSTART:19701025T030000\r\nRRULE:{rule}\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\n\
END:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\n\
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n\
END:DAYLIGHT\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:z\r\nSUMMARY:zoned\r\n\
DTSTART;TZID=My Zone:20251001T180000\r\nDTEND;TZID=My Zone:20251001T190000\r\n\
RRULE:FREQ=WEEKLY;COUNT=3\r\nEXDATE:20251008T160000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

/// Custom zone rules with every edge number in BYMONTH, BYMONTHDAY and BYDAY: the event
/// is still placed (the offset is looked up through those rules).
#[test]
fn custom_zone_rules_with_extreme_numbers_do_not_panic() {
    use crate::testutil::EDGE_NUMBERS;
    for month in EDGE_NUMBERS {
        for day in EDGE_NUMBERS {
            for rule in [
                format!("FREQ=YEARLY;BYMONTH={month};BYMONTHDAY={day}"),
                format!("FREQ=YEARLY;BYMONTH={month};BYDAY={day}SU"),
                format!("FREQ=YEARLY;BYMONTH={month};BYDAY={day}SU;UNTIL={day}"),
            ] {
                let units = units_of(&custom_zone_calendar(&rule));
                assert_eq!(units.len(), 1, "{rule}");
                assert!(units[0].fields.contains_key("start"), "{rule}");
            }
        }
    }
}

/// Events whose time, duration, recurrence and people properties hold random text and
/// edge numbers, and damaged (but valid UTF-8) copies of the sample calendar.
#[test]
fn random_event_properties_do_not_panic() {
    use crate::testutil::{self, Rng};
    let mut pieces: Vec<&str> = testutil::TEXT_PIECES.to_vec();
    pieces.extend(testutil::EDGE_NUMBERS);
    pieces.extend([
        "2025",
        "1001",
        "T",
        "Z",
        "P",
        "W",
        "D",
        "H",
        "M",
        "S",
        "PT",
        "20251001T180000",
        "FREQ=",
        "DAILY",
        "WEEKLY",
        "MONTHLY",
        "YEARLY",
        "SECONDLY",
        ";",
        "BYDAY=",
        "MO",
        "-1SU",
        "BYSETPOS=",
        "BYMONTHDAY=",
        "INTERVAL=",
        "COUNT=",
        "UNTIL=",
        "mailto:",
    ]);
    let base = choir_calendar();
    let mut rng = Rng(0xCA1E_0000_0000_0001);
    for i in 0..400 {
        let text = if i % 2 == 0 {
            testutil::mutate_text(&mut rng, &base, &pieces)
        } else {
            let mut value = || testutil::random_text(&mut rng, &pieces, 12);
            format!(
                "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:r\r\nSUMMARY:{}\r\nDTSTART:{}\r\n\
DTEND:{}\r\nDURATION:{}\r\nRRULE:{}\r\nEXDATE:{}\r\nRDATE:{}\r\nRECURRENCE-ID:{}\r\n\
ATTENDEE;CN={}:{}\r\nDESCRIPTION:{}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
                value(),
                value(),
                value(),
                value(),
                value(),
                value(),
                value(),
                value(),
                value(),
                value(),
                value()
            )
        };
        if let Ok(conversion) = convert(&input(text.as_bytes())) {
            crate::testutil::check_conversion(&conversion, &text);
            assert!(conversion
                .units
                .iter()
                .all(|u| u.locator.event_uid.is_some()));
        }
        let _ = parse_duration(&text);
        let _ = parse_raw(&text);
        let _ = truncate_chars(&text, rng.below(50));
    }
}

/// Found by fuzzing (`dentate-fuzz calendar`): a weekday with a non-ASCII letter made
/// the rrule crate slice inside a character and panic.
#[test]
fn a_rule_with_non_ascii_weekdays_is_unreadable_not_a_panic() {
    for rule in [
        "FREQ=WEEKLY;BYDAY=ÔH",
        "FREQ=WEEKLY;BYDAY=MO,ÆR",
        "FREQ=DAILY;BYDAY=é",
    ] {
        let text = format!(
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:Rehearsal\r\n\
DTSTART:20250106T090000\r\nRRULE:{rule}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        );
        let units = crate::testutil::convert_without_panic(&input(text.as_bytes()), rule)
            .unwrap()
            .units;
        assert_eq!(units.len(), 1, "{rule}");
        assert!(units[0].text.contains("Rehearsal"), "{rule}");
    }
}
