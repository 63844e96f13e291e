//! The activity log's queries on the manifest: appending events in their own
//! transaction, reading them by kind, path and time, counting them (the
//! [`Manifest`] side of [`crate::activity`], kept apart so the log's types and the
//! manifest do not import each other).

use std::collections::BTreeMap;

use rusqlite::{params_from_iter, types::Value, OptionalExtension};

use crate::activity::{
    append, ActivityEvent, ActivityKind, ActivityQuery, ActivitySource, COLUMNS,
};
use crate::error::IndexError;
use crate::manifest::Manifest;

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
    use crate::activity::is_profile_relative;
    use rusqlite::Connection;

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
