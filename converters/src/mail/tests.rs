//! Tests of the e-mail converter.
use super::*;
use crate::FileType;

fn input(bytes: &[u8]) -> Input<'_> {
    Input {
        tail: &[],
        name: "Mail/test.eml",
        bytes,
        size: bytes.len() as u64,
        file_type: FileType::Eml,
    }
}

const ALTERNATIVE: &str = "From: Ana Silva <ana@example.com>\r\n\
To: Bo Chen <bo@example.com>, carl@example.com\r\n\
Cc: Dee <dee@example.com>\r\n\
Subject: Foster Creek budget\r\n\
Date: Wed, 1 Oct 2025 18:05:00 -0700\r\n\
Message-ID: <abc123@example.com>\r\n\
In-Reply-To: <prev1@example.com>\r\n\
References: <root0@example.com> <prev1@example.com>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"outer\"\r\n\
\r\n\
--outer\r\n\
Content-Type: multipart/alternative; boundary=\"inner\"\r\n\
\r\n\
--inner\r\n\
Content-Type: text/plain; charset=utf-8\r\n\
\r\n\
The culvert estimate is attached.\r\n\
--inner\r\n\
Content-Type: text/html; charset=utf-8\r\n\
\r\n\
<html><body><p>The <b>culvert</b> estimate is attached.</p></body></html>\r\n\
--inner--\r\n\
--outer\r\n\
Content-Type: application/pdf; name=\"../../etc/budget.pdf\"\r\n\
Content-Disposition: attachment; filename=\"../../etc/budget.pdf\"\r\n\
Content-Transfer-Encoding: base64\r\n\
\r\n\
JVBERi0xLjQKJcOkw7zDtsOfCg==\r\n\
--outer\r\n\
Content-Type: application/pdf\r\n\
Content-Disposition: attachment; filename=\"budget.pdf\"\r\n\
Content-Transfer-Encoding: base64\r\n\
\r\n\
JVBERi0xLjQK\r\n\
--outer--\r\n";

#[test]
fn multipart_alternative_with_pdf() {
    let out = convert(&input(ALTERNATIVE.as_bytes())).unwrap();
    assert_eq!(out.units.len(), 1);
    let unit = &out.units[0];
    assert_eq!(unit.kind(), UnitKind::Message);
    assert_eq!(unit.locator.part.as_deref(), Some("message"));
    // Lines 1 (From) to 22 (the HTML body's last line), not the attachments after.
    assert_eq!(
        (unit.locator.line_start, unit.locator.line_end),
        (Some(1), Some(22))
    );
    assert_eq!(unit.title.as_deref(), Some("Foster Creek budget"));
    assert!(unit.text.starts_with(
        "From: Ana Silva <ana@example.com>\nTo: Bo Chen <bo@example.com>, carl@example.com\n\
Cc: Dee <dee@example.com>\nDate: Wed, 1 Oct 2025 18:05:00 -0700 (Wednesday)\n\
Subject: Foster Creek budget\nAttachments: budget.pdf, budget (2).pdf\n\n"
    ));
    assert!(unit.text.contains("The culvert estimate is attached."));
    assert!(!unit.text.contains("<b>"));
    let time = unit.content_time.unwrap();
    assert_eq!(time.to_rfc3339(), "2025-10-01T18:05:00-07:00");
    assert_eq!(unit.fields["message_id"], "abc123@example.com");
    assert_eq!(unit.fields["in_reply_to"], "<prev1@example.com>");
    assert_eq!(
        unit.fields["references"],
        "<root0@example.com> <prev1@example.com>"
    );
    assert_eq!(unit.fields["attachments"], "budget.pdf, budget (2).pdf");
    assert_eq!(out.children.len(), 2);
    assert_eq!(out.children[0].name, "budget.pdf");
    assert!(out.children[0].bytes.starts_with(b"%PDF-1.4"));
    assert_eq!(out.meta.title.as_deref(), Some("Foster Creek budget"));
    assert_eq!(
        out.meta.author.as_deref(),
        Some("Ana Silva <ana@example.com>")
    );
    assert_eq!(out.meta.created, Some(time));
}

#[test]
fn the_unit_holds_the_lines_it_was_read_from() {
    let plain = "From: a@example.com\nSubject: Race\n\nSee you there.\nBib: 1234\n";
    let unit = &convert(&input(plain.as_bytes())).unwrap().units[0];
    assert_eq!(
        (unit.locator.line_start, unit.locator.line_end),
        (Some(1), Some(5))
    );
    // A body split into several units locates each by characters, not lines.
    let long = format!(
        "From: a@example.com\nSubject: Long\n\n{}\n",
        "word ".repeat(MAX_BODY_CHARS / 4)
    );
    let units = convert(&input(long.as_bytes())).unwrap().units;
    assert_eq!(units.len(), 2);
    let unit = &units[0];
    assert_eq!(
        (unit.locator.line_start, unit.locator.line_end),
        (None, None)
    );
    assert_eq!(unit.locator.char_start, Some(0));
}

/// A 60,000-character body: nothing is cut, its text at character 55,000 is in a unit
/// of its own that keeps the message's sender, date and subject.
#[test]
fn a_long_body_continues_in_further_units() {
    let mut body = String::new();
    let mut n = 0;
    while body.chars().count() < 60_000 {
        if body.chars().count() >= 55_000 && !body.contains("zanzibar") {
            body.push_str("The harbour fee was settled in zanzibar shillings.\n\n");
        }
        n += 1;
        body.push_str(&format!(
            "Paragraph {n} of the newsletter, about nothing much.\n"
        ));
        if n % 5 == 0 {
            body.push('\n');
        }
    }
    let mail = format!(
        "From: News <news@example.com>\nDate: Tue, 7 Oct 2025 09:00:00 +0100\n\
         Subject: Long letter\n\n{body}"
    );
    let c = convert(&input(mail.as_bytes())).unwrap();
    let parts = c.units.len();
    assert!(
        parts >= 3,
        "{:?}",
        c.units.iter().map(|u| u.text.len()).collect::<Vec<_>>()
    );
    let at: Vec<usize> = (0..parts)
        .filter(|&i| c.units[i].text.contains("zanzibar"))
        .collect();
    assert_eq!(at.len(), 1);
    let unit = &c.units[at[0]];
    assert!(at[0] >= 2, "past character 55,000: a later part");
    let heading = format!(
        "Subject: Long letter (continued, part {} of {parts})",
        at[0] + 1
    );
    assert!(unit.text.starts_with(&heading), "{}", &unit.text[..80]);
    assert_eq!(unit.fields["from"], "News <news@example.com>");
    assert_eq!(unit.content_time, c.units[0].content_time);
    assert!(unit.content_time.is_some());
    // The parts' character ranges follow each other over the body.
    let mut previous_end = 0;
    for unit in &c.units {
        let (start, end) = (
            unit.locator.char_start.unwrap(),
            unit.locator.char_end.unwrap(),
        );
        assert!(start >= previous_end && end > start && end - start <= MAX_BODY_CHARS as u64);
        previous_end = end;
    }
    assert!(previous_end + 2 >= body.trim().chars().count() as u64);
}

#[test]
fn body_chunks_lose_nothing_but_white_space_at_the_cuts() {
    let mut rng = crate::fuzz::Rng(99);
    for _ in 0..300 {
        let words: Vec<String> = (0..rng.below(400))
            .map(|_| match rng.below(8) {
                0 => "\n\n".to_string(),
                1 => "\n".to_string(),
                2 => "é".repeat(rng.below(30)),
                _ => "w".repeat(rng.below(12)),
            })
            .collect();
        let body = words.join(" ");
        let body = body.trim();
        let max = 1 + rng.below(200);
        let chunks = body_chunks(body, max);
        let squash = |s: &str| s.split_whitespace().collect::<String>();
        let joined: String = chunks.iter().map(|c| c.text).collect::<Vec<_>>().join(" ");
        assert_eq!(squash(&joined), squash(body));
        let chars: Vec<char> = body.chars().collect();
        for chunk in &chunks {
            assert!(chunk.text.chars().count() <= max);
            let located: String = chars[chunk.char_start as usize..chunk.char_end as usize]
                .iter()
                .collect();
            assert_eq!(located, chunk.text);
        }
    }
}

#[test]
fn html_only_body_is_rendered() {
    let mail = "From: news@example.com\r\nSubject: News\r\n\
Content-Type: text/html; charset=utf-8\r\n\r\n\
<html><head><style>p{color:red}</style></head><body><h1>Big sale</h1>\
<p>Kayaks &amp; paddles</p></body></html>\r\n";
    let out = convert(&input(mail.as_bytes())).unwrap();
    let text = &out.units[0].text;
    assert!(text.contains("Big sale"), "{text}");
    assert!(text.contains("Kayaks & paddles"), "{text}");
    assert!(!text.contains("<p>"));
    assert!(out.units[0].content_time.is_none());
}

#[test]
fn latin1_charset_is_decoded() {
    let mut mail = b"From: =?ISO-8859-1?Q?Jos=E9?= <jose@example.com>\r\n\
Subject: =?iso-8859-1?Q?Caf=E9_cr=E8me?=\r\n\
Date: Thu, 2 Jan 2025 09:00:00 +0100\r\n\
Content-Type: text/plain; charset=iso-8859-1\r\n\
Content-Transfer-Encoding: 8bit\r\n\r\n"
        .to_vec();
    mail.extend_from_slice(b"D\xE9j\xE0 vu \xE0 la cr\xE8me br\xFBl\xE9e.\r\n");
    let out = convert(&input(&mail)).unwrap();
    let unit = &out.units[0];
    assert_eq!(unit.title.as_deref(), Some("Café crème"));
    assert!(
        unit.text.contains("Déjà vu à la crème brûlée."),
        "{}",
        unit.text
    );
    assert!(unit.text.contains("From: José <jose@example.com>"));
    assert!(unit.text.contains("(Thursday)"));
}

#[test]
fn utf8_body_mislabelled_as_gb2312_is_kept() {
    let mail = "From: a@example.com\r\nSubject: hi\r\n\
Content-Type: text/plain; charset=\"GB2312\"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\
你好！我公司可代开各类增值税发票\r\n";
    let out = convert(&input(mail.as_bytes())).unwrap();
    assert!(
        out.units[0]
            .text
            .contains("你好！我公司可代开各类增值税发票"),
        "{}",
        out.units[0].text
    );
}

#[test]
fn nested_message_becomes_eml_child() {
    let mail = "From: a@example.com\r\nSubject: Fwd\r\n\
Content-Type: multipart/mixed; boundary=b\r\n\r\n\
--b\r\nContent-Type: text/plain\r\n\r\nsee below\r\n\
--b\r\nContent-Type: message/rfc822\r\n\r\n\
From: c@example.com\r\nSubject: Original / note\r\n\r\ninner body\r\n\
--b--\r\n";
    let out = convert(&input(mail.as_bytes())).unwrap();
    assert_eq!(out.children.len(), 1);
    assert_eq!(out.children[0].name, "note.eml");
    let inner = String::from_utf8_lossy(&out.children[0].bytes);
    assert!(inner.contains("inner body"));
    assert!(convert(&input(&out.children[0].bytes)).is_ok());
}

#[test]
fn calendar_invitation_becomes_ics_child() {
    let mail = "From: a@example.com\r\nSubject: Invitation\r\n\
Content-Type: multipart/alternative; boundary=b\r\n\r\n\
--b\r\nContent-Type: text/plain\r\n\r\nYou are invited\r\n\
--b\r\nContent-Type: text/calendar; method=REQUEST\r\n\r\n\
BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nSUMMARY:Review\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n\
--b--\r\n";
    let out = convert(&input(mail.as_bytes())).unwrap();
    assert_eq!(out.children.len(), 1, "{:?}", out.children);
    assert_eq!(out.children[0].name, "attachment-1.ics");
    assert!(out.children[0].bytes.starts_with(b"BEGIN:VCALENDAR"));
    assert!(out.units[0].text.contains("You are invited"));
}

#[test]
fn damaged_messages_do_not_panic() {
    let base = ALTERNATIVE.as_bytes().to_vec();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
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
    let deep = "Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n".repeat(5_000);
    let _ = convert(&input(format!("From: a@b.c\r\n{deep}").as_bytes()));
}

#[test]
fn names_are_sanitised() {
    assert_eq!(sanitise_name("..", 3, ".pdf"), "attachment-3.pdf");
    assert_eq!(sanitise_name("C:\\tmp\\a..b.txt", 1, ".bin"), "a.b.txt");
    assert_eq!(sanitise_name("  ", 2, ".bin"), "attachment-2.bin");
    let long = format!("{}.pdf", "x".repeat(400));
    let short = sanitise_name(&long, 1, ".bin");
    assert!(short.ends_with(".pdf") && short.chars().count() == MAX_NAME_CHARS);
    let mut used = HashSet::new();
    assert_eq!(unique_name("a.txt".into(), &mut used), "a.txt");
    assert_eq!(unique_name("A.txt".into(), &mut used), "A (2).txt");
}

#[test]
fn malformed_inputs_give_errors() {
    for bad in [
        &b""[..],
        b"      \n\n    \n",
        b"\x00\x01\x02\xff\xfe random bytes \x80\x81",
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    ] {
        match convert(&input(bad)) {
            Err(e) => assert_eq!(e.to_string(), "corrupt eml: no e-mail headers"),
            Ok(c) => panic!("expected an error for {bad:?}, got {c:?}"),
        }
    }
}

#[test]
fn truncated_message_keeps_what_is_there() {
    // A message cut in half is still a (shorter) message: headers and the part of
    // the body that survived are kept; nothing panics.
    let bytes = ALTERNATIVE.as_bytes();
    for cut in [10, bytes.len() / 3, bytes.len() / 2, bytes.len() - 5] {
        let _ = convert(&input(&bytes[..cut]));
    }
    let half = convert(&input(&bytes[..bytes.len() / 2])).unwrap();
    assert_eq!(half.units[0].title.as_deref(), Some("Foster Creek budget"));
}

#[test]
#[cfg_attr(
    not(dentate_shared),
    ignore = "needs ../shared/corpus beside the repository"
)]
fn corpus_files_convert() {
    let roots = [
        "../../shared/corpus/realworld/Mail",
        "../../shared/corpus/persona/home/Mail",
    ];
    let mut seen = 0;
    for root in roots {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
        if !root.exists() {
            panic!("missing: {} not present", root.display());
        }
        for path in walk(&root) {
            let bytes = std::fs::read(&path).unwrap();
            let out = convert(&input(&bytes)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(out.units.len(), 1);
            assert!(!out.units[0].text.trim().is_empty(), "{}", path.display());
            if std::env::var("DUMP").is_ok() {
                let t = &out.units[0].text;
                eprintln!(
                    "=== {}\n{}\n--- fields {:?} time {:?} children {:?}",
                    path.display(),
                    truncate_chars(t, 700),
                    out.units[0].fields.keys().collect::<Vec<_>>(),
                    out.units[0].content_time,
                    out.children
                        .iter()
                        .map(|c| (&c.name, c.bytes.len()))
                        .collect::<Vec<_>>()
                );
            }
            seen += 1;
        }
    }
    let broken = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/realworld/Broken/empty.eml");
    if let Ok(bytes) = std::fs::read(&broken) {
        assert!(convert(&input(&bytes)).is_err());
    }
    eprintln!("converted {seen} corpus e-mails");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else if path.extension().is_some_and(|e| e == "eml") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn attachment_names_are_safe_for_any_input() {
    use crate::testutil::{self, Rng};
    let mut pieces: Vec<&str> = testutil::TEXT_PIECES.to_vec();
    pieces.extend([
        "..", "../", "..\\", "C:", "\u{7}", "\u{85}", ".pdf", ".tar.gz",
    ]);
    let mut rng = Rng(0x0A77_AC40_0000_0001);
    let mut used = HashSet::new();
    let mut given = Vec::new();
    for index in 0..3000 {
        let raw = match rng.below(3) {
            0 => testutil::random_text(&mut rng, &pieces, 40),
            // Long dotted names around the length cap: cuts land next to dots.
            1 => (0..1 + rng.below(12))
                .map(|_| rng.pick(&["x", "é", "漢", "a b"]).repeat(rng.below(40)))
                .collect::<Vec<_>>()
                .join("."),
            _ => format!(
                "{}.{}",
                "y".repeat(130 + rng.below(40)),
                rng.pick(&["pdf", "x.y", "é"])
            ),
        };
        let name = sanitise_name(&raw, index, ".bin");
        assert!(!name.is_empty(), "{raw:?}");
        assert!(name.chars().count() <= MAX_NAME_CHARS, "{raw:?} → {name:?}");
        assert!(!name.contains(['/', '\\', ':']), "{raw:?} → {name:?}");
        assert!(!name.chars().any(char::is_control), "{raw:?} → {name:?}");
        assert!(!name.contains(".."), "{raw:?} → {name:?}");
        assert!(!name.starts_with('.') && name != ".", "{raw:?} → {name:?}");
        let unique = unique_name(name, &mut used);
        assert!(!unique.contains(['/', '\\']));
        given.push(unique.to_lowercase());
    }
    let distinct: HashSet<&String> = given.iter().collect();
    assert_eq!(distinct.len(), given.len(), "unique names are unique");
}
