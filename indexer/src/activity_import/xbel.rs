//! freedesktop `recently-used.xbel` (GLib's `GBookmarkFile`, written by GTK
//! applications at `~/.local/share/recently-used.xbel`):
//!
//! ```xml
//! <xbel version="1.0" xmlns:bookmark="…" xmlns:mime="…">
//!   <bookmark href="file:///home/me/Docs/a.txt" added="…Z" modified="…Z" visited="…Z">
//!     <info><metadata owner="http://freedesktop.org">
//!       <mime:mime-type type="text/plain"/>
//!       <bookmark:applications>
//!         <bookmark:application name="gedit" exec="'gedit %u'" modified="…Z" count="3"/>
//!       </bookmark:applications>
//!     </metadata></info>
//!   </bookmark>
//! </xbel>
//! ```
//!
//! Each bookmark of a `file://` URI inside the profile becomes events: `modified` a
//! *modified* event, each application a *read* event at its `modified` time (older
//! files: `timestamp`, in seconds) with the application's name, command and count, and
//! `visited` a *read* event unless an application entry has the same time (it says the
//! same, with more). `added` goes into the detail. Each event's dedup key is the path,
//! what happened and its time, so re-reading the file adds only what is new. Bookmarks
//! outside the profile (other URIs, other folders) are skipped.

use std::collections::BTreeMap;

use index::{ActivityEvent, ActivityKind, ActivitySource};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use serde_json::Value;

use super::paths::PathMapper;

/// Where the file lives inside a profile (a home folder).
pub const XBEL_PATH: &str = ".local/share/recently-used.xbel";

/// A bookmark as written.
#[derive(Debug, Default, Clone, PartialEq)]
struct Bookmark {
    href: String,
    added: Option<String>,
    modified: Option<String>,
    visited: Option<String>,
    mime_type: Option<String>,
    applications: Vec<Application>,
}

#[derive(Debug, Default, Clone, PartialEq)]
struct Application {
    name: String,
    exec: Option<String>,
    modified: Option<String>,
    /// Seconds since the epoch (older GLib).
    timestamp: Option<String>,
    count: Option<String>,
}

/// A `recently-used.xbel` read into activity events.
#[derive(Debug, Default)]
pub struct XbelEvents {
    pub events: Vec<ActivityEvent>,
    pub bookmarks: u64,
    /// Bookmarks skipped: not a local file, or not inside the profile.
    pub outside: u64,
    /// Bookmarks or dates that could not be read.
    pub errors: Vec<String>,
}

/// Reads the file's text; `Err` when it is not well-formed XML or not an `<xbel>`.
pub fn read_xbel(
    text: &str,
    mapper: &mut PathMapper,
    observed_ms: i64,
) -> Result<XbelEvents, String> {
    let bookmarks = parse(text)?;
    let mut out = XbelEvents {
        bookmarks: bookmarks.len() as u64,
        ..XbelEvents::default()
    };
    let local: Vec<(Bookmark, Option<String>)> = bookmarks
        .into_iter()
        .map(|bookmark| {
            let path = file_uri_path(&bookmark.href);
            (bookmark, path)
        })
        .collect();
    mapper.learn(local.iter().filter_map(|(_, path)| path.as_deref()));
    for (bookmark, path) in local {
        match path.as_deref().and_then(|p| mapper.map(p)) {
            Some(path) => bookmark_events(&bookmark, &path, observed_ms, &mut out),
            None => out.outside += 1,
        }
    }
    Ok(out)
}

fn bookmark_events(bookmark: &Bookmark, path: &str, observed_ms: i64, out: &mut XbelEvents) {
    let href = bookmark.href.as_str();
    let errors = &mut out.errors;
    let mut time = |what: &str, text: &Option<String>, parse: fn(&str) -> Option<i64>| {
        time_of(href, what, text.as_deref(), parse, errors)
    };
    let added = time("added", &bookmark.added, parse_time);
    let modified = time("modified", &bookmark.modified, parse_time);
    let visited = time("visited", &bookmark.visited, parse_time);
    let mut apps = Vec::new();
    for app in &bookmark.applications {
        let when = match (&app.modified, &app.timestamp) {
            (Some(_), _) => time("application modified", &app.modified, parse_time),
            (None, Some(_)) => time("application timestamp", &app.timestamp, parse_seconds),
            (None, None) => None,
        };
        if let Some(when) = when {
            apps.push((app, when));
        }
    }
    let mut common = BTreeMap::new();
    if let Some(added) = added {
        common.insert("added_ms".to_string(), Value::from(added));
    }
    if let Some(mime) = &bookmark.mime_type {
        common.insert("mime_type".to_string(), Value::from(mime.as_str()));
    }
    let event = |kind: ActivityKind, what: &str, when: i64| {
        let mut event = ActivityEvent::new(kind, ActivitySource::Xbel, Some(path), when);
        event.observed_ms = observed_ms;
        event.detail = common.clone();
        event.dedup_key = Some(format!("xbel:{path}:{what}:{when}"));
        event
    };
    if let Some(when) = modified {
        out.events
            .push(event(ActivityKind::Modified, "modified", when));
    }
    if let Some(when) = visited.filter(|v| !apps.iter().any(|(_, at)| at == v)) {
        out.events.push(event(ActivityKind::Read, "visited", when));
    }
    for (app, when) in apps {
        let mut read = event(ActivityKind::Read, &format!("app:{}", app.name), when);
        read.detail
            .insert("app".into(), Value::from(app.name.as_str()));
        if let Some(exec) = &app.exec {
            read.detail
                .insert("exec".into(), Value::from(exec.as_str()));
        }
        if let Some(count) = app
            .count
            .as_deref()
            .and_then(|c| c.trim().parse::<u64>().ok())
        {
            read.detail.insert("count".into(), Value::from(count));
        }
        out.events.push(read);
    }
}

/// Milliseconds of a bookmark's `what` time, noting an error for one that is not a time.
fn time_of(
    href: &str,
    what: &str,
    text: Option<&str>,
    parse: fn(&str) -> Option<i64>,
    errors: &mut Vec<String>,
) -> Option<i64> {
    let text = text?;
    match parse(text) {
        // GLib writes the epoch for "never".
        Some(ms) => (ms > 0).then_some(ms),
        None => {
            errors.push(format!("bookmark {href}: {what} {text:?} is not a time"));
            None
        }
    }
}

/// Milliseconds of a time in seconds since the epoch (older GLib's `timestamp`).
fn parse_seconds(text: &str) -> Option<i64> {
    let seconds: i64 = text.trim().parse().ok()?;
    seconds.checked_mul(1000)
}

/// Milliseconds of an RFC 3339 time.
fn parse_time(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|time| time.timestamp_millis())
}

/// The local path of a `file://` URI (percent-decoded), `None` for any other URI.
fn file_uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x`; a remote host is not local.
    let path = match rest.strip_prefix("localhost") {
        Some(path) => path,
        None => rest,
    };
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if i + 2 >= bytes.len() {
                return None;
            }
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// Attributes of an element by qualified name, entity references resolved.
fn attributes(element: &BytesStart<'_>) -> BTreeMap<String, String> {
    element
        .attributes()
        .map_while(Result::ok)
        .map(|attr| {
            let key = attr.key.as_ref().to_string();
            let value = attr
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| attr.value.clone().into_owned());
            (key, value)
        })
        .collect()
}

/// The local part of a qualified name (`bookmark:application` → `application`).
fn local_name(qualified: &str) -> &str {
    qualified
        .rsplit_once(':')
        .map_or(qualified, |(_, local)| local)
}

/// The bookmarks of an xbel document.
fn parse(text: &str) -> Result<Vec<Bookmark>, String> {
    let mut reader = Reader::from_str(text);
    let mut bookmarks = Vec::new();
    let mut current: Option<Bookmark> = None;
    let mut saw_root = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("xml error at byte {}: {e}", reader.buffer_position()))?;
        let (element, closes) = match &event {
            Event::Start(element) => (element, false),
            Event::Empty(element) => (element, true),
            Event::End(end) => {
                if local_name(end.name().as_ref()) == "bookmark" {
                    bookmarks.extend(current.take());
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = element.name();
        match local_name(name.as_ref()) {
            "xbel" => saw_root = true,
            "bookmark" if saw_root => {
                let attrs = attributes(element);
                let bookmark = Bookmark {
                    href: attrs.get("href").cloned().unwrap_or_default(),
                    added: attrs.get("added").cloned(),
                    modified: attrs.get("modified").cloned(),
                    visited: attrs.get("visited").cloned(),
                    ..Bookmark::default()
                };
                if closes {
                    bookmarks.push(bookmark);
                } else {
                    current = Some(bookmark);
                }
            }
            "mime-type" => {
                if let Some(bookmark) = &mut current {
                    bookmark.mime_type = attributes(element).get("type").cloned();
                }
            }
            "application" => {
                if let Some(bookmark) = &mut current {
                    let mut attrs = attributes(element);
                    bookmark.applications.push(Application {
                        name: attrs.remove("name").unwrap_or_default(),
                        exec: attrs.remove("exec"),
                        modified: attrs.remove("modified"),
                        timestamp: attrs.remove("timestamp"),
                        count: attrs.remove("count"),
                    });
                }
            }
            _ => {}
        }
    }
    if !saw_root {
        return Err("not an xbel document (no <xbel> element)".into());
    }
    Ok(bookmarks)
}

#[cfg(test)]
mod tests {
    use super::*;

    const XBEL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
      xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">
  <bookmark href="file:///home/me/Docs/plan%20B.md" added="2024-03-01T09:00:00.123456Z"
            modified="2024-03-02T10:00:00Z" visited="2024-03-03T11:00:00Z">
    <info><metadata owner="http://freedesktop.org">
      <mime:mime-type type="text/markdown"/>
      <bookmark:applications>
        <bookmark:application name="gedit" exec="&apos;gedit %u&apos;"
                              modified="2024-03-03T11:00:00Z" count="3"/>
        <bookmark:application name="vim" exec="vim" timestamp="1709550000" count="1"/>
      </bookmark:applications>
    </metadata></info>
  </bookmark>
  <bookmark href="file:///etc/hosts" added="2024-03-01T09:00:00Z"
            modified="2024-03-01T09:00:00Z" visited="2024-03-01T09:00:00Z"/>
  <bookmark href="https://example.org/" added="2024-03-01T09:00:00Z"
            modified="2024-03-01T09:00:00Z" visited="2024-03-01T09:00:00Z"/>
  <bookmark href="file:///home/me/Docs/budget.csv" added="2024-03-01T09:00:00Z"
            modified="last tuesday"/>
</xbel>"#;

    fn ms(text: &str) -> i64 {
        parse_time(text).unwrap()
    }

    #[test]
    fn bookmarks_inside_the_profile_become_events() {
        let mut mapper = PathMapper::new("/home/me", ["Docs/plan B.md", "Docs/budget.csv"]);
        let read = read_xbel(XBEL, &mut mapper, 5).unwrap();
        assert_eq!(read.bookmarks, 4);
        assert_eq!(read.outside, 2);
        assert_eq!(
            read.errors,
            ["bookmark file:///home/me/Docs/budget.csv: modified \"last tuesday\" is not a time"]
        );
        let summary: Vec<(String, i64, Option<&str>)> = read
            .events
            .iter()
            .map(|e| {
                (
                    e.kind.as_str().to_string(),
                    e.time_ms,
                    e.detail.get("app").and_then(Value::as_str),
                )
            })
            .collect();
        // `visited` equals gedit's time: one read, gedit's.
        assert_eq!(
            summary,
            [
                ("modified".to_string(), ms("2024-03-02T10:00:00Z"), None),
                (
                    "read".to_string(),
                    ms("2024-03-03T11:00:00Z"),
                    Some("gedit")
                ),
                ("read".to_string(), 1_709_550_000_000, Some("vim")),
            ]
        );
        let gedit = &read.events[1];
        assert_eq!(gedit.path.as_deref(), Some("Docs/plan B.md"));
        assert_eq!(gedit.source, ActivitySource::Xbel);
        assert_eq!(gedit.detail["exec"], "'gedit %u'");
        assert_eq!(gedit.detail["count"], 3);
        assert_eq!(gedit.detail["mime_type"], "text/markdown");
        assert_eq!(gedit.detail["added_ms"], ms("2024-03-01T09:00:00.123456Z"));
        assert_eq!(
            gedit.dedup_key.as_deref(),
            Some(
                format!(
                    "xbel:Docs/plan B.md:app:gedit:{}",
                    ms("2024-03-03T11:00:00Z")
                )
                .as_str()
            )
        );
    }

    #[test]
    fn a_bookmark_file_of_another_home_maps_by_known_files() {
        // The profile is a copy of /home/me elsewhere.
        let mut mapper = PathMapper::new("/data/copy", ["Docs/plan B.md", "Docs/budget.csv"]);
        let read = read_xbel(XBEL, &mut mapper, 5).unwrap();
        assert_eq!(read.outside, 2);
        assert_eq!(read.events[0].path.as_deref(), Some("Docs/plan B.md"));
    }

    #[test]
    fn broken_files_and_uris_are_errors_not_panics() {
        let mut mapper = PathMapper::new("/home/me", ["a.txt"]);
        let err = read_xbel("<xbel><bookmark href='x'></xbel>", &mut mapper, 0).unwrap_err();
        assert!(err.contains("xml error"), "{err}");
        let err = read_xbel("<html/>", &mut mapper, 0).unwrap_err();
        assert!(err.contains("not an xbel"), "{err}");
        assert_eq!(file_uri_path("file:///a%2"), None);
        assert_eq!(file_uri_path("file:///a%zz"), None);
        assert_eq!(file_uri_path("file://host/a"), None);
        assert_eq!(
            file_uri_path("file://localhost/a%20b").as_deref(),
            Some("/a b")
        );
    }
}
