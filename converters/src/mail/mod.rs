//! E-mail (`.eml`, RFC 5322 / MIME) → [`UnitKind::Message`] units; mailboxes (`mbox`)
//! are split into messages by [`mbox`].
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
//! is found in its unit.
//!
//! A body longer than [`MAX_BODY_CHARS`] is not cut: it becomes several message units,
//! the first with the header block, each later one headed `Subject: … (continued, part
//! N of M)` and carrying the same sender, date and fields, each locating its stretch of
//! the decoded body (`char_start..char_end`). Split messages carry no line range (the
//! decoded body's characters do not map onto the raw file's lines).

pub mod mbox;

use std::borrow::Cow;
use std::collections::HashSet;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, TimeZone};
use mail_parser::{
    Address, Encoding, HeaderName, HeaderValue, MessageParser, MessagePart, MimeHeaders, PartType,
};

use crate::text::html_to_text;
use crate::unit::TRUNCATED_KEY;
use crate::{ChildFile, Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};

const FORMAT: &str = "eml";

/// Longest stretch of a body in one unit, in characters; a longer body continues in
/// further units.
pub(crate) const MAX_BODY_CHARS: usize = 20_000;

/// Most attachments extracted from one message.
const MAX_CHILDREN: usize = 1_000;

/// Longest attachment name kept, in characters.
const MAX_NAME_CHARS: usize = 150;

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 4;

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

    let (children, left_out) = extract_attachments(&message);
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
    let chunks = body_chunks(full_body.trim(), MAX_BODY_CHARS);
    let parts = chunks.len();
    let fields = [
        ("from", from.clone()),
        ("to", to),
        ("cc", cc),
        ("subject", subject.clone()),
        (
            "message_id",
            message.message_id().unwrap_or_default().to_string(),
        ),
        ("in_reply_to", id_list(message.in_reply_to())),
        ("references", id_list(message.references())),
        ("attachments", attachment_names),
    ];
    let mut units = Vec::with_capacity(parts);
    for (index, chunk) in chunks.iter().enumerate() {
        let mut text = if index == 0 {
            header_block.join("\n")
        } else {
            format!(
                "Subject: {subject} (continued, part {} of {parts})",
                index + 1
            )
        };
        if !chunk.text.is_empty() {
            text.push_str("\n\n");
            text.push_str(chunk.text);
        }
        let whole = parts == 1;
        let locator = Locator {
            part: Some("message".to_string()),
            line_start: whole.then_some(1),
            line_end: whole.then(|| last_body_line(&message, input.bytes)),
            char_start: (!whole).then_some(chunk.char_start),
            char_end: (!whole).then_some(chunk.char_end),
            ..Locator::default()
        };
        let mut unit = Unit::new(UnitKind::Message, locator, text)
            .with_title(subject.clone())
            .with_time(date);
        for (key, value) in &fields {
            unit = unit.with_field(key, value.clone());
        }
        units.push(unit);
    }

    let mut meta = FileMeta {
        title: non_empty(subject),
        author: non_empty(from),
        created: date,
        ..FileMeta::default()
    };
    if left_out > 0 {
        meta.extra.insert(
            TRUNCATED_KEY.to_string(),
            format!("first {MAX_CHILDREN} attachments kept, {left_out} left out"),
        );
    }
    Ok(Conversion {
        units,
        meta,
        children,
    })
}

/// One stretch of a message body: its text and its character range in the body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BodyChunk<'a> {
    pub(crate) text: &'a str,
    pub(crate) char_start: u64,
    pub(crate) char_end: u64,
}

/// Splits `body` into stretches of at most `max_chars` characters, each ending at a
/// paragraph break, else a line break, else a space in its last quarter when there is
/// one. Always at least one (possibly empty) stretch; nothing is dropped but the white
/// space at the cuts.
pub(crate) fn body_chunks(body: &str, max_chars: usize) -> Vec<BodyChunk<'_>> {
    let max_chars = max_chars.max(1);
    let mut chunks = Vec::new();
    let mut rest = body;
    let mut offset = 0u64;
    loop {
        let Some((limit, _)) = rest.char_indices().nth(max_chars) else {
            let chars = rest.chars().count() as u64;
            chunks.push(BodyChunk {
                text: rest,
                char_start: offset,
                char_end: offset + chars,
            });
            return chunks;
        };
        let window = &rest[..limit];
        let floor = window
            .char_indices()
            .nth(max_chars * 3 / 4)
            .map_or(0, |(byte, _)| byte);
        let cut = ["\n\n", "\n", " "]
            .iter()
            .find_map(|sep| window.rfind(sep).filter(|&at| at > floor))
            .unwrap_or(limit);
        let (head, tail) = rest.split_at(cut);
        let head_chars = head.chars().count() as u64;
        let text = head.trim_end();
        chunks.push(BodyChunk {
            text,
            char_start: offset,
            char_end: offset + text.chars().count() as u64,
        });
        let trimmed = tail.trim_start();
        offset += head_chars + (tail.chars().count() - trimmed.chars().count()) as u64;
        rest = trimmed;
        if rest.is_empty() {
            return chunks;
        }
    }
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
/// Returns them with the number of attachments left out past [`MAX_CHILDREN`].
fn extract_attachments(message: &mail_parser::Message) -> (Vec<ChildFile>, usize) {
    let mut children = Vec::new();
    let mut used = HashSet::new();
    let mut left_out = 0;
    for (index, part) in message.attachments().enumerate() {
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
        if children.len() >= MAX_CHILDREN {
            left_out += 1;
            continue;
        }
        let name = unique_name(name, &mut used);
        children.push(ChildFile {
            name,
            bytes: part.contents().to_vec(),
        });
    }
    (children, left_out)
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
mod tests;
