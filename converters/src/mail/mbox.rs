//! Mailboxes of the mbox family (Thunderbird's folders, Apple Mail and Gmail exports):
//! one file holding many messages, each starting with a `From ` separator line.
//!
//! [`Messages`] reads a mailbox as a stream, one message at a time, so a mailbox of any
//! size is never held in memory (only its largest message is). It handles:
//! - mboxo and mboxrd quoting: a body line `>From …` (any number of `>`) loses one `>`;
//! - mboxcl / mboxcl2: a `Content-Length:` header is trusted when the message it
//!   measures is followed by the end of the file or by another separator, so unquoted
//!   `From ` lines inside it do not split it; otherwise the lines are scanned as usual;
//! - CRLF line ends, blank lines before the first separator, a missing final line end.
//!
//! A separator is a line that starts with `From `, names a sender and holds a time of
//! day and a year (`From ana@example.com Wed Oct  1 18:05:00 2025`), and that follows a
//! blank line or starts the file, as mutt and Thunderbird decide.
//!
//! Each message is converted as an e-mail ([`super::convert`]); [`place`] then gives
//! its units their place in the mailbox: `part` `message`, the message's number
//! (`message_number` field, 1-based) and its lines in the mailbox file
//! (`line_start..line_end`, the separator line first). Its attachments are named
//! `<number>-<name>`, so the indexer files them as `Inbox.mbox#attachment/12-report.pdf`.
//!
//! [`convert`] converts a mailbox held in memory (a mailbox attached to a message, the
//! fuzzer); the indexer streams top-level mailboxes through [`Messages`] itself, with a
//! time limit per message.

use crate::detect::is_mbox_separator as is_separator;
use std::collections::VecDeque;
use std::io::{BufRead, Read};

use crate::{Conversion, ConvertError, FileType, Input};

/// The largest message kept whole; the rest of a longer one is read past and the
/// message is marked [`Message::oversized`].
pub const MAX_MESSAGE_BYTES: u64 = crate::MAX_CONTENT_BYTES;

/// One message of a mailbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// 1-based position in the mailbox.
    pub number: u64,
    /// The message (headers and body), without its separator line, unquoted.
    pub bytes: Vec<u8>,
    /// The mailbox's lines it spans (1-based, inclusive): the separator line to the
    /// last line of the body.
    pub line_start: u64,
    pub line_end: u64,
    /// Its byte range in the mailbox (the separator line included, end exclusive).
    pub byte_start: u64,
    pub byte_end: u64,
    /// Longer than [`MAX_MESSAGE_BYTES`]: `bytes` holds its beginning only.
    pub oversized: bool,
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b'\r' | b'\n'))
}

/// The line without its line end.
fn content(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The value of a `Content-Length:` header among `headers`, if any.
fn content_length(headers: &[u8]) -> Option<u64> {
    String::from_utf8_lossy(headers).lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())
            .flatten()
    })
}

/// A line of the mailbox: its bytes (line end included), 1-based number and offset.
type Line = (Vec<u8>, u64, u64);

/// The messages of a mailbox, read from a stream (see the module's documentation).
pub struct Messages<R> {
    reader: R,
    /// Lines read but given back (read ahead, or a measured body not trusted).
    queue: VecDeque<Line>,
    /// Lines and bytes read from the stream so far.
    lines: u64,
    bytes: u64,
    number: u64,
    failed: bool,
}

impl<R: BufRead> Messages<R> {
    pub fn new(reader: R) -> Messages<R> {
        Messages {
            reader,
            queue: VecDeque::new(),
            lines: 0,
            bytes: 0,
            number: 0,
            failed: false,
        }
    }

    /// The next line; `None` at the end.
    fn line(&mut self) -> std::io::Result<Option<Line>> {
        if let Some(line) = self.queue.pop_front() {
            return Ok(Some(line));
        }
        let mut line = Vec::new();
        let read = self.reader.read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(None);
        }
        self.lines += 1;
        let offset = self.bytes;
        self.bytes += read as u64;
        Ok(Some((line, self.lines, offset)))
    }

    /// The lines of the next `n` bytes (the last one completed to its line end), or
    /// fewer at the end of the stream, and whether all `n` were there. Only called with
    /// an empty queue.
    fn measured(&mut self, n: u64) -> std::io::Result<(Vec<Line>, bool)> {
        let mut raw = Vec::new();
        (&mut self.reader).take(n).read_to_end(&mut raw)?;
        let complete = raw.len() as u64 == n;
        if !raw.is_empty() && !raw.ends_with(b"\n") {
            self.reader.read_until(b'\n', &mut raw)?;
        }
        let mut lines = Vec::new();
        let mut rest: &[u8] = &raw;
        while !rest.is_empty() {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| i + 1);
            self.lines += 1;
            lines.push((rest[..end].to_vec(), self.lines, self.bytes));
            self.bytes += end as u64;
            rest = &rest[end..];
        }
        Ok((lines, complete))
    }

    fn next_message(&mut self) -> std::io::Result<Option<Message>> {
        // The separator (blank lines and stray text before the first one passed over).
        let (separator, line_start, byte_start) = loop {
            match self.line()? {
                None => return Ok(None),
                Some(line) if is_separator(content(&line.0)) => break line,
                Some(_) => continue,
            }
        };
        self.number += 1;
        let mut message = Builder::new(line_start, byte_start + separator.len() as u64);
        // Headers, up to the blank line.
        loop {
            let Some(line) = self.line()? else {
                return Ok(Some(message.finish(self.number)));
            };
            let blank = is_blank(&line.0);
            message.push(&line, false);
            if blank {
                break;
            }
        }
        let length = content_length(&message.bytes).filter(|&n| n <= MAX_MESSAGE_BYTES);
        if let (Some(length), true) = (length, self.queue.is_empty()) {
            let (body, complete) = self.measured(length)?;
            // Trusted when it was all there and only blank lines, then a separator or
            // the end, follow.
            let mut after = Vec::new();
            let trusted = complete
                && loop {
                    match self.line()? {
                        None => break true,
                        Some(line) if is_blank(&line.0) => after.push(line),
                        Some(line) => {
                            let separator = is_separator(content(&line.0));
                            after.push(line);
                            break separator;
                        }
                    }
                };
            if trusted {
                body.iter().for_each(|line| message.push(line, false));
                // The separator (the last line read) goes back; the blank lines before
                // it belong to no message.
                if let Some(last) = after.pop().filter(|l| !is_blank(&l.0)) {
                    self.queue.push_front(last);
                }
                return Ok(Some(message.finish(self.number)));
            }
            for line in body.into_iter().chain(after).rev() {
                self.queue.push_front(line);
            }
        }
        // Body lines up to a separator that follows a blank line, or the end.
        while let Some(line) = self.line()? {
            if message.previous_blank && is_separator(content(&line.0)) {
                self.queue.push_front(line);
                break;
            }
            message.push(&line, true);
        }
        message.drop_final_blank_line();
        Ok(Some(message.finish(self.number)))
    }
}

impl<R: BufRead> Iterator for Messages<R> {
    type Item = std::io::Result<Message>;

    /// The next message; after an I/O error, `None`.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_message() {
            Ok(message) => message.map(Ok),
            Err(error) => {
                self.failed = true;
                Some(Err(error))
            }
        }
    }
}

/// A message being read.
struct Builder {
    bytes: Vec<u8>,
    line_start: u64,
    line_end: u64,
    byte_start: u64,
    byte_end: u64,
    previous_blank: bool,
    /// Length of the last line pushed (to take a final blank line off again).
    last_len: usize,
    oversized: bool,
}

impl Builder {
    fn new(separator_line: u64, body_offset: u64) -> Builder {
        Builder {
            bytes: Vec::new(),
            line_start: separator_line,
            line_end: separator_line,
            byte_start: body_offset,
            byte_end: body_offset,
            previous_blank: false,
            last_len: 0,
            oversized: false,
        }
    }

    /// Adds a line; `unquote`: a body line `>From ` (any number of `>`) loses one `>`.
    fn push(&mut self, line: &Line, unquote: bool) {
        let (bytes, number, offset) = line;
        let mut text: &[u8] = bytes;
        if unquote && text.starts_with(b">") {
            let quoted = text.iter().take_while(|&&b| b == b'>').count();
            if text[quoted..].starts_with(b"From ") {
                text = &text[1..];
            }
        }
        if self.bytes.len() as u64 + text.len() as u64 > MAX_MESSAGE_BYTES {
            self.oversized = true;
            self.last_len = 0;
        } else {
            self.bytes.extend_from_slice(text);
            self.last_len = text.len();
        }
        self.previous_blank = is_blank(bytes);
        self.line_end = *number;
        self.byte_end = offset + bytes.len() as u64;
    }

    /// The blank line before a separator belongs to no message.
    fn drop_final_blank_line(&mut self) {
        if self.previous_blank && self.line_end > self.line_start + 1 {
            let len = self.last_len.min(self.bytes.len());
            self.bytes.truncate(self.bytes.len() - len);
            self.line_end -= 1;
            self.byte_end -= len as u64;
            self.previous_blank = false;
        }
    }

    fn finish(self, number: u64) -> Message {
        Message {
            number,
            bytes: self.bytes,
            line_start: self.line_start,
            line_end: self.line_end,
            byte_start: self.byte_start,
            byte_end: self.byte_end,
            oversized: self.oversized,
        }
    }
}

/// Gives the units and attachments of a message's conversion their place in the
/// mailbox (see the module's documentation).
pub fn place(message: &Message, conversion: &mut Conversion) {
    let number = message.number.to_string();
    for unit in &mut conversion.units {
        unit.locator.part = Some("message".to_string());
        unit.locator.line_start = Some(message.line_start);
        unit.locator.line_end = Some(message.line_end);
        unit.fields
            .insert("message_number".to_string(), number.clone());
    }
    for child in &mut conversion.children {
        child.name = format!("{number}-{}", child.name);
    }
}

/// Converts a mailbox held in memory: every message as an e-mail, placed in the
/// mailbox. Messages that do not convert are named in `meta.extra["damage"]`; a mailbox
/// with no message that converts is an error.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    let mut all = Conversion::default();
    let mut failed = Vec::new();
    let mut count = 0u64;
    for message in Messages::new(input.bytes) {
        let message = message?;
        count += 1;
        let name = format!("{}#message/{}", input.name, message.number);
        let eml = Input {
            name: &name,
            bytes: &message.bytes,
            size: message.bytes.len() as u64,
            file_type: FileType::Eml,
            tail: &[],
        };
        match super::convert(&eml) {
            Ok(mut conversion) => {
                place(&message, &mut conversion);
                all.units.append(&mut conversion.units);
                all.children.append(&mut conversion.children);
                if all.meta.created.is_none() {
                    all.meta.created = conversion.meta.created;
                }
            }
            Err(error) => failed.push(format!("message {}: {error}", message.number)),
        }
    }
    if all.units.is_empty() {
        return Err(ConvertError::corrupt(
            "mbox",
            if count == 0 {
                "no messages (no `From ` separator line)".to_string()
            } else {
                format!("none of its {count} messages could be read")
            },
        ));
    }
    note(&mut all, count, &failed);
    Ok(all)
}

/// Records a mailbox's message count, and its unreadable messages as damage.
pub fn note(conversion: &mut Conversion, messages: u64, failed: &[String]) {
    let extra = &mut conversion.meta.extra;
    extra.insert("messages".to_string(), messages.to_string());
    if !failed.is_empty() {
        let shown: Vec<&str> = failed.iter().take(10).map(String::as_str).collect();
        extra.insert(
            crate::unit::DAMAGE_KEY.to_string(),
            format!(
                "{} of {messages} messages could not be read ({}{})",
                failed.len(),
                shown.join("; "),
                if failed.len() > shown.len() {
                    "; …"
                } else {
                    ""
                }
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::looks_like_mbox;

    /// A mailbox of `n` messages; message `k` (1-based) is dated day `k` and its body
    /// names `token-k`. Every seventh body holds a quoted `>From ` line.
    fn mailbox(n: usize, crlf: bool) -> String {
        let mut out = String::new();
        for k in 1..=n {
            let day = 1 + (k - 1) % 28;
            let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"][(k - 1) / 28 % 6];
            out.push_str(&format!(
                "From sender{k}@example.com Mon Jan  1 10:00:00 2024\n"
            ));
            out.push_str(&format!("From: Sender {k} <sender{k}@example.com>\n"));
            out.push_str("To: me@example.com\n");
            out.push_str(&format!("Subject: Message number {k}\n"));
            out.push_str(&format!("Date: {day} {month} 2024 09:30:00 +0000\n"));
            out.push_str(&format!("Message-ID: <m{k}@example.com>\n\n"));
            out.push_str(&format!("Hello, this is token-{k}.\n"));
            if k % 7 == 0 {
                out.push_str(">From the archive, quoted.\n");
            }
            out.push_str("Bye.\n\n");
        }
        if crlf {
            out = out.replace('\n', "\r\n");
        }
        out
    }

    fn messages(bytes: &[u8]) -> Vec<Message> {
        Messages::new(bytes).collect::<Result<Vec<_>, _>>().unwrap()
    }

    #[test]
    fn thousands_of_messages_are_split_with_their_lines() {
        for crlf in [false, true] {
            let text = mailbox(3000, crlf);
            let all = messages(text.as_bytes());
            assert_eq!(all.len(), 3000);
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            for (i, m) in all.iter().enumerate() {
                assert_eq!(m.number, i as u64 + 1);
                let first = lines[m.line_start as usize - 1];
                assert!(
                    first.starts_with(&format!("From sender{}@", m.number)),
                    "{first}"
                );
                let last = lines[m.line_end as usize - 1];
                assert!(last.starts_with("Bye."), "{m:?} {last:?}");
                let body = String::from_utf8(m.bytes.clone()).unwrap();
                assert!(body.contains(&format!("token-{}.", m.number)));
                assert!(body.starts_with("From: Sender"));
                if m.number % 7 == 0 {
                    assert!(body.contains("\nFrom the archive, quoted."), "{body}");
                }
                let range = &text[m.byte_start as usize..m.byte_end as usize];
                assert!(range.starts_with("From: Sender"), "{range}");
                assert!(range.ends_with(if crlf { "Bye.\r\n" } else { "Bye.\n" }));
            }
        }
    }

    /// The round's check: in a 200-message mailbox, message 150 is a unit of its own
    /// with its own date.
    #[test]
    fn message_150_of_200_is_its_own_unit_with_its_own_date() {
        let text = mailbox(200, false);
        let input = Input::detect("Mail/Inbox", text.as_bytes());
        assert_eq!(input.file_type, FileType::Mbox);
        let c = crate::convert(&input).unwrap();
        assert_eq!(c.units.len(), 200);
        let found: Vec<_> = c
            .units
            .iter()
            .filter(|u| u.text.contains("token-150."))
            .collect();
        assert_eq!(found.len(), 1);
        let unit = found[0];
        assert_eq!(unit.fields["message_number"], "150");
        assert_eq!(unit.fields["subject"], "Message number 150");
        // Message 150: the sixth month (index 5 = Jun), day 150 - 5*28 = 10.
        let time = unit.content_time.unwrap();
        assert_eq!(time.to_rfc3339(), "2024-06-10T09:30:00+00:00");
        assert_eq!(unit.locator.part.as_deref(), Some("message"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[unit.locator.line_start.unwrap() as usize - 1].starts_with("From sender150@"));
        assert_eq!(c.meta.extra["messages"], "200");
    }

    #[test]
    fn an_unquoted_from_line_inside_a_measured_body_does_not_split_it() {
        let body = "Line one.\n\nFrom here on 10:00 in 2024 plans changed.\nEnd.\n";
        let text = format!(
            "From a@example.com Mon Jan  1 10:00:00 2024\nFrom: a@example.com\nSubject: One\n\
             Content-Length: {}\n\n{body}\nFrom b@example.com Mon Jan  1 11:00:00 2024\n\
             From: b@example.com\nSubject: Two\n\nSecond.\n",
            body.len()
        );
        let all = messages(text.as_bytes());
        assert_eq!(all.len(), 2, "{all:#?}");
        assert!(String::from_utf8_lossy(&all[0].bytes).contains("From here on"));
        assert!(String::from_utf8_lossy(&all[1].bytes).contains("Second."));
        // A wrong length is not trusted: the lines are scanned instead.
        let wrong = text.replace(
            &format!("Content-Length: {}", body.len()),
            "Content-Length: 5",
        );
        let all = messages(wrong.as_bytes());
        assert_eq!(
            all.len(),
            3,
            "the unquoted line splits a mailbox without a good length"
        );
        let huge = text.replace(
            &format!("Content-Length: {}", body.len()),
            "Content-Length: 99999",
        );
        assert_eq!(messages(huge.as_bytes()).len(), 3);
    }

    #[test]
    fn separators_need_a_sender_time_and_year() {
        assert!(is_separator(
            b"From ana@example.com Wed Oct  1 18:05:00 2025"
        ));
        assert!(is_separator(b"From - Thu Jan 02 10:00:00 2025"));
        assert!(is_separator(
            b"From 1784@xxx Sat Nov 02 13:47:31 +0000 2024"
        ));
        assert!(!is_separator(b"From the desk of Ana"));
        assert!(!is_separator(b"From: ana@example.com"));
        assert!(!is_separator(b"From ana 2025"));
        assert!(looks_like_mbox(mailbox(2, false).as_bytes()));
        assert!(!looks_like_mbox(b"From the desk of Ana\nHello"));
        assert!(!looks_like_mbox(b"From: a@example.com\nSubject: x\n\nhi"));
    }

    #[test]
    fn damaged_mailboxes_never_panic() {
        let text = mailbox(20, false);
        let mut rng = crate::fuzz::Rng(17);
        for _ in 0..400 {
            let damaged = crate::fuzz::mutate(&mut rng, text.as_bytes());
            let input = Input {
                name: "Mail/x.mbox",
                bytes: &damaged,
                size: damaged.len() as u64,
                file_type: FileType::Mbox,
                tail: &[],
            };
            let _ = crate::convert(&input);
            for message in Messages::new(damaged.as_slice()) {
                let m = message.unwrap();
                assert!(m.line_start <= m.line_end && m.byte_start <= m.byte_end);
            }
        }
        assert!(convert(&Input {
            name: "x.mbox",
            bytes: b"no separators here\n",
            size: 19,
            file_type: FileType::Mbox,
            tail: &[],
        })
        .is_err());
    }
}
