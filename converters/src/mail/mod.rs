//! E-mail (`.eml`, RFC 5322 / MIME) → one [`UnitKind::Message`] unit.
//!
//! The unit text is a readable header block followed by the body:
//!
//! ```text
//! From: Ana Silva <ana@example.com>
//! To: Bo <bo@example.com>
//! Date: Wed, 1 Oct 2025 18:00:00 -0700 (Wednesday)
//! Subject: Budget
//! Attachments: budget.pdf
//!
//! <body>
//! ```
//!
//! The body is the text/plain part(s) when present, else the HTML part(s) rendered with
//! [`html_to_text`] (mail-parser's own HTML-to-text is crude). Attachments, including
//! calendar invitations (as `.ics`) and nested `message/rfc822` parts (as `.eml`), become
//! [`ChildFile`]s with sanitised, de-duplicated names; the indexer converts them as files
//! of their own.
//!
//! The unit's locator holds the raw file's lines it was read from: line 1 (the headers)
//! to the last line of the body parts, so a line of the file (a bib number on line 19)
//! is found in its unit. A body cut at the length limit gives no lines.

use std::borrow::Cow;
use std::collections::HashSet;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, TimeZone};
use mail_parser::{
    Address, Encoding, HeaderName, HeaderValue, MessageParser, MessagePart, MimeHeaders, PartType,
};

use crate::text::html_to_text;
use crate::{ChildFile, Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};

const FORMAT: &str = "eml";

/// Longest body kept in the unit text, in characters.
const MAX_BODY_CHARS: usize = 20_000;

/// Most attachments extracted from one message.
const MAX_CHILDREN: usize = 1_000;

/// Longest attachment name kept, in characters.
const MAX_NAME_CHARS: usize = 150;

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 3;

/// Converts one e-mail message. Errors with `corrupt eml: no e-mail headers` when the
/// bytes hold no recognisable RFC 5322 header.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    let message = MessageParser::default()
        .parse(input.bytes)
        .ok_or_else(|| ConvertError::corrupt(FORMAT, "no e-mail headers"))?;
    if !has_known_header(message.root_part()) {
        return Err(ConvertError::corrupt(FORMAT, "no e-mail headers"));
    }

    let from = message.from().map(format_address).unwrap_or_default();
    let to = message.to().map(format_address).unwrap_or_default();
    let cc = message.cc().map(format_address).unwrap_or_default();
    let subject = clean_line(message.subject().unwrap_or_default());
    let date = message.date().and_then(to_chrono);
    let raw_date = message.header_raw(HeaderName::Date).map(clean_line);

    let children = extract_attachments(&message);
    let attachment_names = children
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");

    let mut header_block = Vec::new();
    push_header(&mut header_block, "From", &from);
    push_header(&mut header_block, "To", &to);
    push_header(&mut header_block, "Cc", &cc);
    if let Some(raw) = &raw_date {
        let shown = match date {
            Some(d) => format!("{raw} ({})", weekday_name(d.date_naive())),
            None => raw.clone(),
        };
        push_header(&mut header_block, "Date", &shown);
    }
    push_header(&mut header_block, "Subject", &subject);
    push_header(&mut header_block, "Attachments", &attachment_names);

    let full_body = body_text(&message);
    let full_body = full_body.trim();
    let body = truncate_chars(full_body, MAX_BODY_CHARS);
    let whole = body.len() == full_body.len();
    let mut text = header_block.join("\n");
    if !body.is_empty() {
        text.push_str("\n\n");
        text.push_str(body);
    }

    let locator = Locator {
        part: Some("message".to_string()),
        line_start: whole.then_some(1),
        line_end: whole.then(|| last_body_line(&message, input.bytes)),
        ..Locator::default()
    };
    let unit = Unit::new(UnitKind::Message, locator, text)
        .with_title(subject.clone())
        .with_time(date)
        .with_field("from", from.clone())
        .with_field("to", to)
        .with_field("cc", cc)
        .with_field("subject", subject.clone())
        .with_field("message_id", message.message_id().unwrap_or_default())
        .with_field("in_reply_to", id_list(message.in_reply_to()))
        .with_field("references", id_list(message.references()))
        .with_field("attachments", attachment_names);

    let meta = FileMeta {
        title: non_empty(subject),
        author: non_empty(from),
        created: date,
        ..FileMeta::default()
    };
    Ok(Conversion {
        units: vec![unit],
        meta,
        children,
    })
}

/// The raw file's line (1-based) where the message's body parts end (the headers' end
/// when it has none).
fn last_body_line(message: &mail_parser::Message, raw: &[u8]) -> u64 {
    let end = message
        .text_bodies()
        .chain(message.html_bodies())
        .map(|part| part.offset_end)
        .max()
        .unwrap_or(message.root_part().offset_body) as usize;
    let end = end.min(raw.len());
    // The end offset is one past the last byte; a final line break ends the last line.
    let content = raw[..end].strip_suffix(b"\n").unwrap_or(&raw[..end]);
    content.iter().filter(|b| **b == b'\n').count() as u64 + 1
}

/// True when the part carries at least one standard (non-`X-`, non-unknown) header, so
/// that random bytes with a stray `word:` line are not taken for an e-mail.
fn has_known_header(part: &MessagePart) -> bool {
    part.headers
        .iter()
        .any(|h| !matches!(h.name, HeaderName::Other(_)))
}

fn push_header(lines: &mut Vec<String>, name: &str, value: &str) {
    if !value.trim().is_empty() {
        lines.push(format!("{name}: {value}"));
    }
}

/// Collapses runs of whitespace (folded headers) into single spaces.
fn clean_line(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn non_empty(value: String) -> Option<String> {
    (!value.trim().is_empty()).then_some(value)
}

/// `Name <addr>, addr2, Group: a <b>` — every address of a list or group.
fn format_address(address: &Address) -> String {
    let one = |addr: &mail_parser::Addr| -> Option<String> {
        let name = addr.name().map(clean_line).filter(|n| !n.is_empty());
        let mail = addr.address().map(clean_line).filter(|a| !a.is_empty());
        match (name, mail) {
            (Some(n), Some(a)) if n != a => Some(format!("{n} <{a}>")),
            (_, Some(a)) => Some(a),
            (Some(n), None) => Some(n),
            (None, None) => None,
        }
    };
    match address {
        Address::List(list) => list.iter().filter_map(one).collect::<Vec<_>>().join(", "),
        Address::Group(groups) => groups
            .iter()
            .map(|g| {
                let members = g.addresses.iter().filter_map(one).collect::<Vec<_>>();
                match g.name.as_deref().map(clean_line).filter(|n| !n.is_empty()) {
                    Some(name) if members.is_empty() => name,
                    Some(name) => format!("{name}: {}", members.join(", ")),
                    None => members.join(", "),
                }
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Message-ID lists (In-Reply-To, References) as space-separated `<id>`s.
fn id_list(value: &HeaderValue) -> String {
    match value {
        HeaderValue::Text(id) => format!("<{}>", id.trim()),
        HeaderValue::TextList(ids) => ids
            .iter()
            .map(|id| format!("<{}>", id.trim()))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// mail-parser's date as a chrono time with the header's own offset.
fn to_chrono(date: &mail_parser::DateTime) -> Option<DateTime<FixedOffset>> {
    let seconds = (i32::from(date.tz_hour) * 60 + i32::from(date.tz_minute)) * 60;
    let offset = if date.tz_before_gmt {
        FixedOffset::west_opt(seconds)?
    } else {
        FixedOffset::east_opt(seconds)?
    };
    let naive = NaiveDate::from_ymd_opt(
        i32::from(date.year),
        u32::from(date.month),
        u32::from(date.day),
    )?
    .and_hms_opt(
        u32::from(date.hour),
        u32::from(date.minute),
        u32::from(date.second.min(59)),
    )?;
    offset.from_local_datetime(&naive).single()
}

fn weekday_name(date: NaiveDate) -> &'static str {
    match date.weekday() {
        chrono::Weekday::Mon => "Monday",
        chrono::Weekday::Tue => "Tuesday",
        chrono::Weekday::Wed => "Wednesday",
        chrono::Weekday::Thu => "Thursday",
        chrono::Weekday::Fri => "Friday",
        chrono::Weekday::Sat => "Saturday",
        chrono::Weekday::Sun => "Sunday",
    }
}

/// The text/plain body parts; else the HTML ones rendered as text.
fn body_text(message: &mail_parser::Message) -> String {
    let plain: Vec<Cow<str>> = message
        .text_bodies()
        .filter_map(|part| match &part.body {
            PartType::Text(text) => {
                Some(mislabelled_utf8(message, part).unwrap_or(Cow::Borrowed(text.as_ref())))
            }
            _ => None,
        })
        .filter(|t| !t.trim().is_empty())
        .collect();
    if !plain.is_empty() {
        return plain.join("\n\n");
    }
    message
        .html_bodies()
        .filter_map(|part| match &part.body {
            PartType::Html(html) => {
                let html = mislabelled_utf8(message, part).unwrap_or(Cow::Borrowed(html.as_ref()));
                Some(html_to_text(html.as_bytes()))
            }
            PartType::Text(text) => Some(text.to_string()),
            _ => None,
        })
        .filter(|t| !t.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The raw bytes of an 8-bit part that declares a legacy charset (GB2312, Latin-1, …)
/// but is in fact valid, non-ASCII UTF-8 — a common result of re-encoded mailboxes.
/// Legacy-charset text almost never forms valid multi-byte UTF-8 by chance.
fn mislabelled_utf8<'m>(
    message: &'m mail_parser::Message,
    part: &MessagePart,
) -> Option<Cow<'m, str>> {
    if part.encoding != Encoding::None {
        return None;
    }
    let charset = part
        .content_type()
        .and_then(|ct| ct.attribute("charset"))
        .unwrap_or("us-ascii")
        .to_ascii_lowercase();
    if charset.contains("utf") {
        return None;
    }
    let raw = message
        .raw_message()
        .get(part.offset_body as usize..part.offset_end as usize)?;
    if raw.is_ascii() {
        return None;
    }
    std::str::from_utf8(raw).ok().map(Cow::Borrowed)
}

fn truncate_chars(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((byte, _)) => &text[..byte],
        None => text,
    }
}

/// Attachments (named parts, `Content-Disposition: attachment`, non-inline binary
/// parts, calendar invitations, nested messages) as child files with safe, unique names.
fn extract_attachments(message: &mail_parser::Message) -> Vec<ChildFile> {
    let mut children = Vec::new();
    let mut used = HashSet::new();
    for (index, part) in message.attachments().enumerate() {
        if children.len() >= MAX_CHILDREN {
            break;
        }
        let nested = part.message();
        let is_attachment = part.attachment_name().is_some()
            || nested.is_some()
            || is_unnamed_file(part)
            || part.is_content_type("text", "calendar")
            || part
                .content_disposition()
                .is_some_and(|cd| cd.is_attachment());
        if !is_attachment {
            continue;
        }
        let raw_name = part
            .attachment_name()
            .map(str::to_string)
            .or_else(|| nested.and_then(|m| m.subject()).map(str::to_string))
            .unwrap_or_default();
        let mut name = sanitise_name(&raw_name, index + 1, &default_extension(part));
        if nested.is_some() && !name.to_ascii_lowercase().ends_with(".eml") {
            name.push_str(".eml");
        }
        let name = unique_name(name, &mut used);
        children.push(ChildFile {
            name,
            bytes: part.contents().to_vec(),
        });
    }
    children
}

/// An unnamed binary part that is a file in its own right (a PDF, a sound), not an
/// inline decoration referenced by Content-ID nor a delivery report.
fn is_unnamed_file(part: &MessagePart) -> bool {
    let file_type = part.content_type().is_some_and(|ct| {
        matches!(
            ct.ctype().to_ascii_lowercase().as_str(),
            "application" | "audio" | "video" | "image"
        )
    });
    matches!(part.body, PartType::Binary(_)) && part.content_id().is_none() && file_type
}

/// An extension for unnamed attachments, from the content type.
fn default_extension(part: &MessagePart) -> String {
    if part.message().is_some() {
        return ".eml".to_string();
    }
    let Some(ct) = part.content_type() else {
        return ".bin".to_string();
    };
    let full = format!(
        "{}/{}",
        ct.ctype().to_ascii_lowercase(),
        ct.subtype().unwrap_or_default().to_ascii_lowercase()
    );
    let ext = match full.as_str() {
        "application/pdf" => ".pdf",
        "text/plain" => ".txt",
        "text/html" => ".html",
        "text/calendar" => ".ics",
        "text/csv" => ".csv",
        "image/jpeg" | "image/jpg" => ".jpg",
        "image/png" => ".png",
        "image/gif" => ".gif",
        "image/webp" => ".webp",
        "audio/mpeg" => ".mp3",
        "video/mp4" => ".mp4",
        "application/zip" => ".zip",
        "message/rfc822" => ".eml",
        "message/delivery-status" => ".txt",
        "text/rfc822-headers" => ".txt",
        _ => ".bin",
    };
    ext.to_string()
}

/// A file name with no directory parts, no `..`, no control characters, not empty and
/// at most [`MAX_NAME_CHARS`] long (the extension kept).
fn sanitise_name(raw: &str, index: usize, default_ext: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or_default();
    let mut name: String = last
        .chars()
        .map(|c| if c.is_control() || c == ':' { '_' } else { c })
        .collect();
    while name.contains("..") {
        name = name.replace("..", ".");
    }
    let name = name.trim_matches(|c: char| c == '.' || c.is_whitespace());
    if name.is_empty() {
        return format!("attachment-{index}{default_ext}");
    }
    shorten_name(name)
}

fn shorten_name(name: &str) -> String {
    if name.chars().count() <= MAX_NAME_CHARS {
        return name.to_string();
    }
    let (stem, ext) = match name.rfind('.') {
        Some(dot) if name.len() - dot <= 10 => (&name[..dot], &name[dot..]),
        _ => (name, ""),
    };
    let keep = MAX_NAME_CHARS.saturating_sub(ext.chars().count());
    // A cut right after a dot would make ".." with the extension.
    let stem = truncate_chars(stem, keep).trim_end_matches('.');
    format!("{stem}{ext}")
}

/// Appends ` (2)`, ` (3)`, … before the extension until the name is unused.
fn unique_name(name: String, used: &mut HashSet<String>) -> String {
    if used.insert(name.to_lowercase()) {
        return name;
    }
    let (stem, ext) = match name.rfind('.') {
        Some(dot) if dot > 0 => (&name[..dot], &name[dot..]),
        _ => (name.as_str(), ""),
    };
    let mut n = 2;
    loop {
        let candidate = format!("{stem} ({n}){ext}");
        if used.insert(candidate.to_lowercase()) {
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
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
        // A body cut at the length limit does not claim the lines it lost.
        let long = format!(
            "From: a@example.com\nSubject: Long\n\n{}\n",
            "word ".repeat(MAX_BODY_CHARS / 4)
        );
        let unit = &convert(&input(long.as_bytes())).unwrap().units[0];
        assert_eq!(
            (unit.locator.line_start, unit.locator.line_end),
            (None, None)
        );
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
    fn corpus_files_convert() {
        let roots = [
            "../../shared/corpus/realworld/Mail",
            "../../shared/corpus/persona/home/Mail",
        ];
        let mut seen = 0;
        for root in roots {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
            if !root.exists() {
                eprintln!("note: {} not present, skipping", root.display());
                continue;
            }
            for path in walk(&root) {
                let bytes = std::fs::read(&path).unwrap();
                let out =
                    convert(&input(&bytes)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
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
            let max = rng.below(50);
            let cut = truncate_chars(&raw, max);
            assert!(raw.starts_with(cut) && cut.chars().count() == raw.chars().count().min(max));
        }
        let distinct: HashSet<&String> = given.iter().collect();
        assert_eq!(distinct.len(), given.len(), "unique names are unique");
    }
}
