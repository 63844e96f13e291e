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

use rusqlite::{params, params_from_iter, types::Value, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::IndexError;
use crate::manifest::Manifest;

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

const COLUMNS: &str =
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

impl Manifest {
    /// Appends events in one transaction; returns how many were new.
    pub fn append_activity(&mut self, events: &[ActivityEvent]) -> Result<usize, IndexError> {
        let transaction = self.connection.transaction().map_err(IndexError::sql)?;
        let added = append(&transaction, events)?;
        transaction.commit().map_err(IndexError::sql)?;
        Ok(added)
    }

    /// Whether this manifest has an activity log (an index written before it has none;
    /// the daemon opens such an index read-only and sees an empty log).
    fn has_activity(&self) -> Result<bool, IndexError> {
        self.connection
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'activity'",
                [],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(IndexError::sql)
    }

    /// Events matching `query`, oldest first (by time, then position).
    pub fn activity(&self, query: &ActivityQuery) -> Result<Vec<ActivityEvent>, IndexError> {
        if !self.has_activity()? {
            return Ok(Vec::new());
        }
        let (clause, values) = where_clause(query);
        let limit = if query.limit == 0 {
            String::new()
        } else {
            format!(" LIMIT {}", query.limit)
        };
        let sql = format!("SELECT {COLUMNS} FROM activity{clause} ORDER BY time_ms, seq{limit}");
        let mut statement = self.connection.prepare(&sql).map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params_from_iter(values), |row| {
                let detail: Option<String> = row.get(10)?;
                Ok(ActivityEvent {
                    seq: row.get(0)?,
                    time_ms: row.get(1)?,
                    observed_ms: row.get(2)?,
                    kind: ActivityKind::parse(&row.get::<_, String>(3)?),
                    source: ActivitySource::parse(&row.get::<_, String>(4)?)
                        .unwrap_or(ActivitySource::Observed),
                    path: row.get(5)?,
                    old_path: row.get(6)?,
                    size_delta: row.get(7)?,
                    hash: row.get(8)?,
                    session: row.get(9)?,
                    detail: detail
                        .and_then(|d| serde_json::from_str(&d).ok())
                        .unwrap_or_default(),
                    dedup_key: row.get(11)?,
                })
            })
            .map_err(IndexError::sql)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(IndexError::sql)
    }

    /// Number of events per kind matching `query` (its `limit` is ignored).
    pub fn activity_counts(
        &self,
        query: &ActivityQuery,
    ) -> Result<BTreeMap<String, u64>, IndexError> {
        if !self.has_activity()? {
            return Ok(BTreeMap::new());
        }
        let (clause, values) = where_clause(query);
        let sql = format!("SELECT kind, COUNT(*) FROM activity{clause} GROUP BY kind");
        let mut statement = self.connection.prepare(&sql).map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params_from_iter(values), |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?.max(0) as u64,
                ))
            })
            .map_err(IndexError::sql)?;
        rows.collect::<Result<BTreeMap<_, _>, _>>()
            .map_err(IndexError::sql)
    }

    /// Position of the last event (0: none).
    pub fn last_activity_seq(&self) -> Result<i64, IndexError> {
        if !self.has_activity()? {
            return Ok(0);
        }
        self.connection
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM activity", [], |row| {
                row.get(0)
            })
            .map_err(IndexError::sql)
    }
}

/// `WHERE …` for a query, with its values in order.
fn where_clause(query: &ActivityQuery) -> (String, Vec<Value>) {
    let mut conditions: Vec<String> = Vec::new();
    let mut values: Vec<Value> = Vec::new();
    let mut push = |condition: String, value: Value, values: &mut Vec<Value>| {
        values.push(value);
        conditions.push(condition.replace('?', &format!("?{}", values.len())));
    };
    if let Some(from) = query.from_ms {
        push("time_ms >= ?".into(), Value::Integer(from), &mut values);
    }
    if let Some(to) = query.to_ms {
        push("time_ms < ?".into(), Value::Integer(to), &mut values);
    }
    if let Some(after) = query.after_seq {
        push("seq > ?".into(), Value::Integer(after), &mut values);
    }
    if let Some(prefix) = &query.path_prefix {
        let prefix = prefix.trim_end_matches('/');
        values.push(Value::Text(prefix.to_string()));
        let exact = values.len();
        values.push(Value::Text(format!("{}/", like_escape(prefix))));
        let below = values.len();
        conditions.push(format!(
            "(path = ?{exact} OR old_path = ?{exact} OR path LIKE ?{below} || '%' ESCAPE '\\' \
             OR old_path LIKE ?{below} || '%' ESCAPE '\\')"
        ));
    }
    for (column, names) in [
        (
            "kind",
            query
                .kinds
                .iter()
                .map(|k| k.as_str().to_string())
                .collect::<Vec<_>>(),
        ),
        (
            "source",
            query
                .sources
                .iter()
                .map(|s| s.as_str().to_string())
                .collect(),
        ),
    ] {
        if names.is_empty() {
            continue;
        }
        let mut slots = Vec::new();
        for name in names {
            values.push(Value::Text(name));
            slots.push(format!("?{}", values.len()));
        }
        conditions.push(format!("{column} IN ({})", slots.join(", ")));
    }
    if conditions.is_empty() {
        (String::new(), values)
    } else {
        (format!(" WHERE {}", conditions.join(" AND ")), values)
    }
}

fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: ActivityKind, path: &str, time_ms: i64) -> ActivityEvent {
        ActivityEvent::new(kind, ActivitySource::Observed, Some(path), time_ms)
    }

    #[test]
    fn events_append_and_read_back_by_time_kind_and_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::open(&dir.path().join("m.sqlite")).unwrap();
        let mut renamed = event(ActivityKind::Renamed, "Docs/b_2025.txt", 3_000);
        renamed.old_path = Some("Docs/b.txt".into());
        renamed
            .detail
            .insert("app".into(), serde_json::json!("vim"));
        let events = vec![
            event(ActivityKind::Created, "Docs/a.txt", 1_000),
            event(ActivityKind::Modified, "Notes/x_1.md", 2_000),
            renamed,
            event(ActivityKind::Other("file_zoom".into()), "Docs/a.txt", 4_000),
        ];
        assert_eq!(manifest.append_activity(&events).unwrap(), 4);

        let all = manifest.activity(&ActivityQuery::default()).unwrap();
        assert_eq!(all.len(), 4);
        assert_eq!(all[2].old_path.as_deref(), Some("Docs/b.txt"));
        assert_eq!(all[2].detail["app"], "vim");
        assert_eq!(all[3].kind.as_str(), "file_zoom");
        assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));

        let docs = manifest
            .activity(&ActivityQuery {
                path_prefix: Some("Docs/".into()),
                from_ms: Some(1_500),
                ..ActivityQuery::default()
            })
            .unwrap();
        let kinds: Vec<_> = docs.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["renamed", "file_zoom"]);
        // `_` in a prefix is literal, not a LIKE wildcard.
        let notes = manifest
            .activity(&ActivityQuery {
                path_prefix: Some("Notes/x_1.md".into()),
                ..ActivityQuery::default()
            })
            .unwrap();
        assert_eq!(notes.len(), 1);
        let counts = manifest
            .activity_counts(&ActivityQuery {
                kinds: vec![ActivityKind::Created, ActivityKind::Renamed],
                ..ActivityQuery::default()
            })
            .unwrap();
        assert_eq!(counts.len(), 2);
        assert_eq!(manifest.last_activity_seq().unwrap(), all[3].seq);
    }

    #[test]
    fn only_profile_relative_events_are_in_the_profile() {
        let mut ok = event(ActivityKind::Moved, "Docs/a b.txt", 1);
        ok.old_path = Some("Old/a.txt".into());
        assert!(ok.in_profile());
        assert!(
            ActivityEvent::new(ActivityKind::Searched, ActivitySource::Trace, None, 1).in_profile()
        );
        for inside in [
            "a.txt",
            "Docs/b c.pdf",
            "Mail/x.eml#attachment/a.pdf",
            "..x/y",
        ] {
            assert!(is_profile_relative(inside), "{inside}");
        }
        for bad in [
            "/home/x/a.txt",
            "../a.txt",
            "a/../../b",
            "C:\\x",
            "C:/Windows",
            "\\\\server\\share",
            "a\\..\\..\\b",
            "",
            "a//b",
            "a\0b",
        ] {
            assert!(!event(ActivityKind::Read, bad, 1).in_profile(), "{bad}");
        }
        let mut unmapped = event(ActivityKind::Read, "todo.txt", 1);
        unmapped
            .detail
            .insert("unmapped".into(), serde_json::json!(true));
        assert!(!unmapped.in_profile());
    }

    #[test]
    fn a_repeated_dedup_key_is_ignored_and_old_manifests_read_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.sqlite");
        let mut manifest = Manifest::open(&path).unwrap();
        let mut read = event(ActivityKind::Read, "a.txt", 10);
        read.dedup_key = Some("trace:e1".into());
        assert_eq!(manifest.append_activity(&[read.clone()]).unwrap(), 1);
        assert_eq!(manifest.append_activity(&[read]).unwrap(), 0);

        // A manifest from before the log.
        let old = dir.path().join("old.sqlite");
        Connection::open(&old)
            .unwrap()
            .execute_batch("CREATE TABLE files (path TEXT)")
            .unwrap();
        let old = Manifest::open_existing(&old).unwrap();
        assert!(old.activity(&ActivityQuery::default()).unwrap().is_empty());
        assert_eq!(old.last_activity_seq().unwrap(), 0);
    }
}
