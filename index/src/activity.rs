//! The activity log: what happened to the profile's files and when (the *episodic*
//! channel, next to the content itself).
//!
//! Events are appended to the `activity` table of the manifest, in the same transaction
//! as the manifest rows of the change that produced them, so a crash never leaves an
//! event without its change or a change without its event. Rows are never updated or
//! deleted; re-runs add to them. An event that has a natural identity (a FileGram
//! trace's `event_id`, a `recently-used.xbel` visit) carries a `dedup_key`, and a second
//! import of the same event is ignored.
//!
//! Sources: the indexer's own observations (`observed` between two runs, `watch` in
//! watch mode), the evidence already on disk on the first run (`birth` and `mtime`
//! times, freedesktop `xbel`), and imported behavioural traces (`trace`).

use std::collections::BTreeMap;

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::error::IndexError;

/// What happened. Unknown kinds (of an imported trace) are kept by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActivityKind {
    Created,
    /// Content changed (a different content hash).
    Modified,
    /// Same content, new name in the same folder.
    Renamed,
    /// Same content, another folder.
    Moved,
    Deleted,
    /// Opened or read (traces, `recently-used.xbel` visits).
    Read,
    Copied,
    DirCreated,
    /// A folder listed.
    Browsed,
    Searched,
    /// One file cited or used from another.
    Referenced,
    Other(String),
}

impl ActivityKind {
    /// Every known kind, in a stable order.
    pub const KNOWN: [ActivityKind; 11] = [
        ActivityKind::Created,
        ActivityKind::Modified,
        ActivityKind::Renamed,
        ActivityKind::Moved,
        ActivityKind::Deleted,
        ActivityKind::Read,
        ActivityKind::Copied,
        ActivityKind::DirCreated,
        ActivityKind::Browsed,
        ActivityKind::Searched,
        ActivityKind::Referenced,
    ];

    pub fn as_str(&self) -> &str {
        match self {
            ActivityKind::Created => "created",
            ActivityKind::Modified => "modified",
            ActivityKind::Renamed => "renamed",
            ActivityKind::Moved => "moved",
            ActivityKind::Deleted => "deleted",
            ActivityKind::Read => "read",
            ActivityKind::Copied => "copied",
            ActivityKind::DirCreated => "dir_created",
            ActivityKind::Browsed => "browsed",
            ActivityKind::Searched => "searched",
            ActivityKind::Referenced => "referenced",
            ActivityKind::Other(name) => name,
        }
    }

    pub fn parse(text: &str) -> ActivityKind {
        ActivityKind::KNOWN
            .iter()
            .find(|k| k.as_str() == text)
            .cloned()
            .unwrap_or_else(|| ActivityKind::Other(text.to_string()))
    }

    /// Whether the file's content or place changed (as opposed to being looked at).
    pub fn is_change(&self) -> bool {
        matches!(
            self,
            ActivityKind::Created
                | ActivityKind::Modified
                | ActivityKind::Renamed
                | ActivityKind::Moved
                | ActivityKind::Deleted
                | ActivityKind::Copied
        )
    }
}

impl Serialize for ActivityKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ActivityKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(ActivityKind::parse(&String::deserialize(d)?))
    }
}

/// Where an event comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivitySource {
    /// Seen by a batch run (the difference from the previous run).
    Observed,
    /// Seen by watch mode.
    Watch,
    /// A file's birth time, read on the first run.
    Birth,
    /// A file's modification time, read on the first run.
    Mtime,
    /// freedesktop `recently-used.xbel`.
    Xbel,
    /// An imported behavioural trace (FileGram).
    Trace,
}

impl ActivitySource {
    pub fn as_str(self) -> &'static str {
        match self {
            ActivitySource::Observed => "observed",
            ActivitySource::Watch => "watch",
            ActivitySource::Birth => "birth",
            ActivitySource::Mtime => "mtime",
            ActivitySource::Xbel => "xbel",
            ActivitySource::Trace => "trace",
        }
    }

    pub fn parse(text: &str) -> Option<ActivitySource> {
        Some(match text {
            "observed" => ActivitySource::Observed,
            "watch" => ActivitySource::Watch,
            "birth" => ActivitySource::Birth,
            "mtime" => ActivitySource::Mtime,
            "xbel" => ActivitySource::Xbel,
            "trace" => ActivitySource::Trace,
            _ => return None,
        })
    }
}

/// One event of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityEvent {
    /// Position in the log (assigned on append; 0 before).
    #[serde(default)]
    pub seq: i64,
    /// When it happened, in milliseconds since the Unix epoch (UTC). For a change seen
    /// between two runs this is the best evidence there is (the file's times), else the
    /// time it was seen.
    pub time_ms: i64,
    /// When the indexer recorded it.
    pub observed_ms: i64,
    pub kind: ActivityKind,
    pub source: ActivitySource,
    /// Profile-relative path (the new path of a rename or move). `None`: an event about
    /// no single file (a search).
    pub path: Option<String>,
    /// The path before a rename or move (or the source of a copy).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub old_path: Option<String>,
    /// Size after minus size before, in bytes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub size_delta: Option<i64>,
    /// Content hash after the event.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hash: Option<String>,
    /// A trace's session.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub session: Option<String>,
    /// Everything else the source said (a trace's fields, an application name).
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub detail: BTreeMap<String, serde_json::Value>,
    /// The event's identity in its source; a second append with the same key is ignored.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dedup_key: Option<String>,
}

impl ActivityEvent {
    /// An event of `kind` on `path` at `time_ms`, seen now.
    pub fn new(
        kind: ActivityKind,
        source: ActivitySource,
        path: Option<&str>,
        time_ms: i64,
    ) -> ActivityEvent {
        ActivityEvent {
            seq: 0,
            time_ms,
            observed_ms: now_ms(),
            kind,
            source,
            path: path.map(str::to_string),
            old_path: None,
            size_delta: None,
            hash: None,
            session: None,
            detail: BTreeMap::new(),
            dedup_key: None,
        }
    }
}

impl ActivityEvent {
    /// Whether the event's paths are profile-relative paths (a trace can carry foreign
    /// paths it could not map, marked `detail.unmapped`): only such events are served.
    pub fn in_profile(&self) -> bool {
        let relative = |path: &Option<String>| path.as_deref().is_none_or(is_profile_relative);
        self.detail.get("unmapped") != Some(&serde_json::Value::Bool(true))
            && relative(&self.path)
            && relative(&self.old_path)
    }
}

/// A profile-relative path that stays inside the profile: not empty, no root, no drive
/// letter, no NUL, no empty, `.` or `..` component (`/` and `\` both separate).
pub fn is_profile_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with(['/', '\\'])
        && !is_drive_path(path)
        && !path.contains('\0')
        && path
            .split(['/', '\\'])
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// `C:…`: a Windows path.
fn is_drive_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Which events to read.
#[derive(Debug, Clone, Default)]
pub struct ActivityQuery {
    /// Inclusive lower bound of `time_ms`.
    pub from_ms: Option<i64>,
    /// Exclusive upper bound of `time_ms`.
    pub to_ms: Option<i64>,
    /// Any of these kinds (empty: all).
    pub kinds: Vec<ActivityKind>,
    /// Any of these sources (empty: all).
    pub sources: Vec<ActivitySource>,
    /// Events on this path or below this folder (path or old path).
    pub path_prefix: Option<String>,
    /// Only events after this position (for followers of the log).
    pub after_seq: Option<i64>,
    /// At most this many (0: no limit), oldest first.
    pub limit: usize,
}

pub(crate) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS activity (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        time_ms INTEGER NOT NULL,
        observed_ms INTEGER NOT NULL,
        kind TEXT NOT NULL,
        source TEXT NOT NULL,
        path TEXT,
        old_path TEXT,
        size_delta INTEGER,
        hash TEXT,
        session TEXT,
        detail TEXT,
        dedup_key TEXT UNIQUE
     );
     CREATE INDEX IF NOT EXISTS activity_time ON activity(time_ms);
     CREATE INDEX IF NOT EXISTS activity_path ON activity(path);";

pub(crate) const COLUMNS: &str =
    "seq, time_ms, observed_ms, kind, source, path, old_path, size_delta, hash, session, detail, dedup_key";

/// Appends events inside an open transaction (or on a plain connection); returns how many
/// were new (a repeated `dedup_key` is not).
pub(crate) fn append(
    connection: &Connection,
    events: &[ActivityEvent],
) -> Result<usize, IndexError> {
    if events.is_empty() {
        return Ok(0);
    }
    let mut insert = connection
        .prepare(
            "INSERT OR IGNORE INTO activity (time_ms, observed_ms, kind, source, path, \
             old_path, size_delta, hash, session, detail, dedup_key) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )
        .map_err(IndexError::sql)?;
    let mut added = 0;
    for event in events {
        let detail = (!event.detail.is_empty())
            .then(|| serde_json::to_string(&event.detail).unwrap_or_default());
        added += insert
            .execute(params![
                event.time_ms,
                event.observed_ms,
                event.kind.as_str(),
                event.source.as_str(),
                event.path,
                event.old_path,
                event.size_delta,
                event.hash,
                event.session,
                detail,
                event.dedup_key,
            ])
            .map_err(IndexError::sql)?;
    }
    Ok(added)
}
