//! The manifest: one SQLite row per file of the profile (and per attachment), with the
//! facts incremental indexing needs (size, mtime, content hash, converter version) and
//! what search needs about files (status, error, type, title, unit count).
//!
//! The manifest is the source of truth for "what is indexed". The lexical index is
//! committed before the manifest rows of a batch, so after a crash a file is either
//! recorded with its units committed, or not recorded (or recorded with its old hash)
//! and converted again on the next run; a unit's documents are always deleted by
//! `file_id` before new ones are added, so a re-run never duplicates them.

use std::collections::BTreeMap;
use std::path::Path;

use converters::{FileType, Modality};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::error::IndexError;
use crate::stage::StageState;

/// Status of a file in the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Indexed,
    Skipped,
    Failed,
}

impl FileStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Indexed => "indexed",
            FileStatus::Skipped => "skipped",
            FileStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> FileStatus {
        match text {
            "indexed" => FileStatus::Indexed,
            "skipped" => FileStatus::Skipped,
            _ => FileStatus::Failed,
        }
    }
}

/// One manifest row. Serialised (HTTP `file`) as today's row: `file_type` and
/// `modality` as their names (`""` when unknown), `extra` with the stage keys merged in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "FileRecordWire", from = "FileRecordWire")]
pub struct FileRecord {
    /// Path relative to the profile root, `/`-separated; attachments are
    /// `<parent>#attachment/<name>`.
    pub path: String,
    pub file_id: String,
    /// The containing file, for attachments.
    pub parent_path: Option<String>,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// BLAKE3 of the content (hex), when it was read.
    pub hash: Option<String>,
    pub converter_version: u32,
    pub status: FileStatus,
    /// Failure / skip category (`corrupt`, `encrypted`, `junk`…).
    pub reason: Option<String>,
    /// Full error message.
    pub error: Option<String>,
    /// `None`: no type known (walk issues; a stored name this build does not know).
    pub file_type: Option<FileType>,
    /// `None`: no modality known (walk issues).
    pub modality: Option<Modality>,
    pub ext: String,
    pub unit_count: u32,
    pub units_by_kind: BTreeMap<String, u64>,
    pub title: Option<String>,
    pub author: Option<String>,
    /// RFC 3339 creation time stated inside the file.
    pub created: Option<String>,
    /// Converter `FileMeta.extra` and similar facts (without the stage keys).
    pub extra: BTreeMap<String, String>,
    /// What the enrichment stages and the Gold import recorded (stored in the same
    /// `extra` column).
    pub stages: StageState,
    /// The content hash this file's vectors were computed for (`None`: not embedded
    /// yet). Vectors are complete for the file when it equals `hash`.
    pub embedded: Option<String>,
}

/// A [`FileRecord`] as written to JSON: every field as the manifest column holds it.
#[derive(Serialize, Deserialize)]
struct FileRecordWire {
    path: String,
    file_id: String,
    parent_path: Option<String>,
    size: u64,
    mtime_ns: i64,
    hash: Option<String>,
    converter_version: u32,
    status: FileStatus,
    reason: Option<String>,
    error: Option<String>,
    file_type: String,
    modality: String,
    ext: String,
    unit_count: u32,
    units_by_kind: BTreeMap<String, u64>,
    title: Option<String>,
    author: Option<String>,
    created: Option<String>,
    extra: BTreeMap<String, String>,
    embedded: Option<String>,
}

impl From<FileRecord> for FileRecordWire {
    fn from(record: FileRecord) -> FileRecordWire {
        FileRecordWire {
            file_type: record.file_type_name().to_string(),
            modality: record.modality_name().to_string(),
            extra: record.extra_all(),
            path: record.path,
            file_id: record.file_id,
            parent_path: record.parent_path,
            size: record.size,
            mtime_ns: record.mtime_ns,
            hash: record.hash,
            converter_version: record.converter_version,
            status: record.status,
            reason: record.reason,
            error: record.error,
            ext: record.ext,
            unit_count: record.unit_count,
            units_by_kind: record.units_by_kind,
            title: record.title,
            author: record.author,
            created: record.created,
            embedded: record.embedded,
        }
    }
}

impl From<FileRecordWire> for FileRecord {
    fn from(wire: FileRecordWire) -> FileRecord {
        let mut extra = wire.extra;
        let stages = StageState::take_from(&mut extra);
        FileRecord {
            path: wire.path,
            file_id: wire.file_id,
            parent_path: wire.parent_path,
            size: wire.size,
            mtime_ns: wire.mtime_ns,
            hash: wire.hash,
            converter_version: wire.converter_version,
            status: wire.status,
            reason: wire.reason,
            error: wire.error,
            file_type: FileType::parse(&wire.file_type),
            modality: Modality::parse(&wire.modality),
            ext: wire.ext,
            unit_count: wire.unit_count,
            units_by_kind: wire.units_by_kind,
            title: wire.title,
            author: wire.author,
            created: wire.created,
            extra,
            stages,
            embedded: wire.embedded,
        }
    }
}

impl FileRecord {
    /// A record of `path` with every other field neutral: its id, status indexed,
    /// nothing known yet (no type, size, hash, units or converter).
    pub fn new(path: &str) -> FileRecord {
        FileRecord {
            path: path.to_string(),
            file_id: crate::path::file_id_for(path),
            parent_path: None,
            size: 0,
            mtime_ns: 0,
            hash: None,
            converter_version: 0,
            status: FileStatus::Indexed,
            reason: None,
            error: None,
            file_type: None,
            modality: None,
            ext: String::new(),
            unit_count: 0,
            units_by_kind: BTreeMap::new(),
            title: None,
            author: None,
            created: None,
            extra: BTreeMap::new(),
            stages: StageState::default(),
            embedded: None,
        }
    }

    /// The stored name of the file type (`pdf`, …), `""` when none is known.
    pub fn file_type_name(&self) -> &'static str {
        self.file_type.map_or("", FileType::as_str)
    }

    /// The stored name of the modality (`document`, …), `""` when none is known.
    pub fn modality_name(&self) -> &'static str {
        self.modality.map_or("", Modality::as_str)
    }

    /// The whole `extra` column: converter facts with the stage keys merged in (what
    /// the manifest stores and the wire shows).
    pub fn extra_all(&self) -> BTreeMap<String, String> {
        let mut extra = self.extra.clone();
        self.stages.write_into(&mut extra);
        extra
    }

    /// The file name (last path component; for attachments the attachment name).
    pub fn name(&self) -> &str {
        crate::path::UnitPath::parse(&self.path).name()
    }
}

/// Counts of files by status and units by kind over the whole manifest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ManifestTotals {
    pub indexed: u64,
    pub skipped: u64,
    pub failed: u64,
    pub units: u64,
    pub units_by_kind: BTreeMap<String, u64>,
    pub files_by_modality: BTreeMap<String, u64>,
}

/// A stored vector: `(unit_id, file_id, text_hash, little-endian f32 bytes)`.
pub type VectorRow = (String, String, String, Vec<u8>);

/// A connection to the manifest database.
pub struct Manifest {
    pub(crate) connection: Connection,
}

/// One transaction's worth of manifest changes ([`Manifest::apply_change`]).
#[derive(Clone, Copy, Default)]
pub struct Change<'a> {
    pub upserts: &'a [FileRecord],
    pub deletions: &'a [String],
    /// `(old file id, new file id)`: vectors that follow a renamed file.
    pub vector_moves: &'a [(String, String)],
    pub events: &'a [crate::activity::ActivityEvent],
}

const COLUMNS: &str = "path, file_id, parent_path, size, mtime_ns, hash, converter_version, \
     status, reason, error, file_type, modality, ext, unit_count, units_by_kind, title, \
     author, created, extra, embedded";

/// Adds `vectors.model` to a manifest made before vectors recorded their text model
/// (its rows keep `NULL`: [`crate::vector::LEGACY_TEXT_MODEL`]).
fn add_vector_model_column(connection: &Connection) -> rusqlite::Result<()> {
    let has_model = connection
        .prepare("SELECT 1 FROM pragma_table_info('vectors') WHERE name = 'model'")?
        .exists([])?;
    if !has_model {
        connection.execute_batch("ALTER TABLE vectors ADD COLUMN model TEXT")?;
    }
    Ok(())
}

impl Manifest {
    /// Opens (creating if needed) the manifest for writing.
    pub fn open(path: &Path) -> Result<Manifest, IndexError> {
        let connection = Connection::open(path).map_err(|e| IndexError::manifest(path, e))?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL;
                 PRAGMA synchronous = NORMAL;
                 PRAGMA busy_timeout = 5000;
                 CREATE TABLE IF NOT EXISTS files (
                    path TEXT PRIMARY KEY,
                    file_id TEXT NOT NULL,
                    parent_path TEXT,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    hash TEXT,
                    converter_version INTEGER NOT NULL,
                    status TEXT NOT NULL,
                    reason TEXT,
                    error TEXT,
                    file_type TEXT NOT NULL,
                    modality TEXT NOT NULL,
                    ext TEXT NOT NULL,
                    unit_count INTEGER NOT NULL,
                    units_by_kind TEXT NOT NULL,
                    title TEXT,
                    author TEXT,
                    created TEXT,
                    extra TEXT NOT NULL,
                    embedded TEXT
                 );
                 CREATE TABLE IF NOT EXISTS vectors (
                    unit_id TEXT PRIMARY KEY,
                    file_id TEXT NOT NULL,
                    text_hash TEXT NOT NULL,
                    vector BLOB NOT NULL,
                    model TEXT
                 );
                 CREATE INDEX IF NOT EXISTS vectors_file ON vectors(file_id);
                 CREATE TABLE IF NOT EXISTS image_vectors (
                    unit_id TEXT PRIMARY KEY,
                    file_id TEXT NOT NULL,
                    file_hash TEXT NOT NULL,
                    model TEXT NOT NULL,
                    vector BLOB NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS image_vectors_file ON image_vectors(file_id);
                 CREATE INDEX IF NOT EXISTS vectors_text ON vectors(text_hash);
                 CREATE INDEX IF NOT EXISTS files_parent ON files(parent_path);
                 CREATE INDEX IF NOT EXISTS files_file_id ON files(file_id);
                 CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
            )
            .map_err(|e| IndexError::manifest(path, e))?;
        add_vector_model_column(&connection).map_err(|e| IndexError::manifest(path, e))?;
        connection
            .execute_batch(crate::activity::SCHEMA)
            .map_err(|e| IndexError::manifest(path, e))?;
        connection
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS vector_log (
                    generation INTEGER NOT NULL,
                    file_id TEXT NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS vector_log_generation ON vector_log(generation);
                 INSERT OR IGNORE INTO info (key, value) SELECT 'vector_log_since', \
                    CAST(COALESCE((SELECT CAST(value AS INTEGER) FROM info \
                                   WHERE key = 'vectors_generation'), 0) + 1 AS TEXT);",
            )
            .map_err(|e| IndexError::manifest(path, e))?;
        Ok(Manifest { connection })
    }

    /// Opens an existing manifest without creating it; used by the daemon, which only
    /// reads.
    pub fn open_existing(path: &Path) -> Result<Manifest, IndexError> {
        if !path.exists() {
            return Err(IndexError::NotAnIndex {
                path: path.to_path_buf(),
                detail: "no manifest.sqlite".to_string(),
            });
        }
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| IndexError::manifest(path, e))?;
        connection
            .execute_batch("PRAGMA busy_timeout = 5000; PRAGMA query_only = 1;")
            .map_err(|e| IndexError::manifest(path, e))?;
        Ok(Manifest { connection })
    }

    /// Checks the database file (`PRAGMA quick_check`): a truncated or overwritten
    /// manifest is reported, naming the file, instead of failing later request by
    /// request.
    pub fn check(&self, path: &Path) -> Result<(), IndexError> {
        let damaged = |detail: String| {
            IndexError::NotAnIndex {
            path: path.to_path_buf(),
            detail: format!("the manifest is damaged ({detail}); re-run dentate-index into a new --index folder"),
        }
        };
        let verdict: String = self
            .connection
            .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
            .map_err(|e| damaged(e.to_string()))?;
        if verdict != "ok" {
            return Err(damaged(verdict));
        }
        self.connection
            .query_row("SELECT count(*) FROM files", [], |row| row.get::<_, i64>(0))
            .map_err(|e| damaged(e.to_string()))?;
        Ok(())
    }

    pub fn get(&self, path: &str) -> Result<Option<FileRecord>, IndexError> {
        self.connection
            .query_row(
                &format!("SELECT {COLUMNS} FROM files WHERE path = ?1"),
                params![path],
                read_record,
            )
            .optional()
            .map_err(IndexError::sql)
    }

    pub fn get_by_file_id(&self, file_id: &str) -> Result<Option<FileRecord>, IndexError> {
        self.connection
            .query_row(
                &format!("SELECT {COLUMNS} FROM files WHERE file_id = ?1"),
                params![file_id],
                read_record,
            )
            .optional()
            .map_err(IndexError::sql)
    }

    /// The content hashes of some files, by file id, in one statement; files unknown or
    /// never read are left out.
    pub fn content_hashes(
        &self,
        file_ids: &[&str],
    ) -> Result<std::collections::HashMap<String, String>, IndexError> {
        let mut hashes = std::collections::HashMap::new();
        // SQLite binds at most 32,766 parameters per statement.
        for chunk in file_ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let mut statement = self
                .connection
                .prepare(&format!(
                    "SELECT file_id, hash FROM files WHERE hash IS NOT NULL AND file_id IN ({marks})"
                ))
                .map_err(IndexError::sql)?;
            let rows = statement
                .query_map(rusqlite::params_from_iter(chunk.iter()), |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(IndexError::sql)?;
            for row in rows {
                let (file_id, hash) = row.map_err(IndexError::sql)?;
                hashes.insert(file_id, hash);
            }
        }
        Ok(hashes)
    }

    /// Every row, ordered by path.
    pub fn all(&self) -> Result<Vec<FileRecord>, IndexError> {
        let mut statement = self
            .connection
            .prepare(&format!("SELECT {COLUMNS} FROM files ORDER BY path"))
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map([], read_record)
            .map_err(IndexError::sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }

    /// Paths of the attachments (direct children) of a file.
    pub fn children_of(&self, parent_path: &str) -> Result<Vec<String>, IndexError> {
        let mut statement = self
            .connection
            .prepare("SELECT path FROM files WHERE parent_path = ?1")
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params![parent_path], |row| row.get::<_, String>(0))
            .map_err(IndexError::sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }

    /// Applies a batch of upserts and deletions in one transaction.
    pub fn apply(
        &mut self,
        upserts: &[FileRecord],
        deletions: &[String],
    ) -> Result<(), IndexError> {
        self.apply_change(&Change {
            upserts,
            deletions,
            ..Change::default()
        })
    }

    /// Applies upserts, deletions, vector moves (a file renamed with its content
    /// unchanged keeps its vectors under its new id) and activity events in one
    /// transaction.
    pub fn apply_change(&mut self, change: &Change<'_>) -> Result<(), IndexError> {
        let Change {
            upserts,
            deletions,
            vector_moves,
            events,
        } = *change;
        let transaction = self.connection.transaction().map_err(IndexError::sql)?;
        for (old, new) in vector_moves {
            for table in ["vectors", "image_vectors"] {
                transaction
                    .execute(
                        &format!(
                            "UPDATE OR REPLACE {table} SET file_id = ?2, \
                             unit_id = ?2 || substr(unit_id, length(?1) + 1) WHERE file_id = ?1"
                        ),
                        params![old, new],
                    )
                    .map_err(IndexError::sql)?;
            }
        }
        if !vector_moves.is_empty() {
            // The daemon's vector store holds unit ids: it must load the moved ones.
            let files: Vec<&str> = vector_moves
                .iter()
                .flat_map(|(old, new)| [old.as_str(), new.as_str()])
                .collect();
            bump_generation(&transaction, &files)?;
        }
        crate::activity::append(&transaction, events)?;
        {
            let mut delete = transaction
                .prepare("DELETE FROM files WHERE path = ?1")
                .map_err(IndexError::sql)?;
            for path in deletions {
                delete.execute(params![path]).map_err(IndexError::sql)?;
            }
            let mut insert = transaction
                .prepare(&format!(
                    "INSERT OR REPLACE INTO files ({COLUMNS}) VALUES \
                     (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)"
                ))
                .map_err(IndexError::sql)?;
            for record in upserts {
                insert
                    .execute(params![
                        record.path,
                        record.file_id,
                        record.parent_path,
                        record.size as i64,
                        record.mtime_ns,
                        record.hash,
                        record.converter_version,
                        record.status.as_str(),
                        record.reason,
                        record.error,
                        record.file_type_name(),
                        record.modality_name(),
                        record.ext,
                        record.unit_count,
                        serde_json::to_string(&record.units_by_kind).unwrap_or_default(),
                        record.title,
                        record.author,
                        record.created,
                        serde_json::to_string(&record.extra_all()).unwrap_or_default(),
                        record.embedded,
                    ])
                    .map_err(IndexError::sql)?;
            }
        }
        transaction.commit().map_err(IndexError::sql)
    }

    /// Updates only the modification time of a row (content unchanged).
    pub fn touch(&mut self, path: &str, mtime_ns: i64) -> Result<(), IndexError> {
        self.connection
            .execute(
                "UPDATE files SET mtime_ns = ?2 WHERE path = ?1",
                params![path, mtime_ns],
            )
            .map(|_| ())
            .map_err(IndexError::sql)
    }

    pub fn set_info(&self, key: &str, value: &str) -> Result<(), IndexError> {
        self.connection
            .execute(
                "INSERT OR REPLACE INTO info (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(|_| ())
            .map_err(IndexError::sql)
    }

    pub fn info(&self, key: &str) -> Result<Option<String>, IndexError> {
        self.connection
            .query_row(
                "SELECT value FROM info WHERE key = ?1",
                params![key],
                |row| row.get(0),
            )
            .optional()
            .map_err(IndexError::sql)
    }

    /// Totals over the whole manifest.
    pub fn totals(&self) -> Result<ManifestTotals, IndexError> {
        let mut totals = ManifestTotals::default();
        let mut statement = self
            .connection
            .prepare("SELECT status, modality, unit_count, units_by_kind FROM files")
            .map_err(IndexError::sql)?;
        let mut rows = statement.query([]).map_err(IndexError::sql)?;
        while let Some(row) = rows.next().map_err(IndexError::sql)? {
            let status: String = row.get(0).map_err(IndexError::sql)?;
            let modality: String = row.get(1).map_err(IndexError::sql)?;
            let unit_count: i64 = row.get(2).map_err(IndexError::sql)?;
            let by_kind: String = row.get(3).map_err(IndexError::sql)?;
            match FileStatus::parse(&status) {
                FileStatus::Indexed => {
                    totals.indexed += 1;
                    *totals.files_by_modality.entry(modality).or_default() += 1;
                }
                FileStatus::Skipped => totals.skipped += 1,
                FileStatus::Failed => totals.failed += 1,
            }
            totals.units += unit_count.max(0) as u64;
            let by_kind: BTreeMap<String, u64> = serde_json::from_str(&by_kind).unwrap_or_default();
            for (kind, count) in by_kind {
                *totals.units_by_kind.entry(kind).or_default() += count;
            }
        }
        Ok(totals)
    }
}

/// Generations the vector log keeps (older changes are pruned; a daemon further behind
/// loads every vector again).
const VECTOR_LOG_GENERATIONS: u64 = 10_000;

/// Bumps the vectors generation and logs which files' vectors changed with it.
pub(crate) fn bump_generation(
    transaction: &rusqlite::Transaction,
    files: &[&str],
) -> Result<(), IndexError> {
    transaction
        .execute(
            "INSERT INTO info (key, value) VALUES ('vectors_generation', '1') \
             ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
            [],
        )
        .map_err(IndexError::sql)?;
    let generation: i64 = transaction
        .query_row(
            "SELECT CAST(value AS INTEGER) FROM info WHERE key = 'vectors_generation'",
            [],
            |row| row.get(0),
        )
        .map_err(IndexError::sql)?;
    let mut insert = transaction
        .prepare("INSERT INTO vector_log (generation, file_id) VALUES (?1, ?2)")
        .map_err(IndexError::sql)?;
    for file in files {
        insert
            .execute(params![generation, file])
            .map_err(IndexError::sql)?;
    }
    let keep = VECTOR_LOG_GENERATIONS as i64;
    if generation % 1_000 == 0 && generation > keep {
        let since = generation - keep + 1;
        transaction
            .execute(
                "DELETE FROM vector_log WHERE generation < ?1",
                params![since],
            )
            .map_err(IndexError::sql)?;
        transaction
            .execute(
                "INSERT INTO info (key, value) VALUES ('vector_log_since', ?1) \
                 ON CONFLICT(key) DO UPDATE SET value = \
                 CAST(MAX(CAST(value AS INTEGER), ?1) AS TEXT)",
                params![since.to_string()],
            )
            .map_err(IndexError::sql)?;
    }
    Ok(())
}

fn read_record(row: &Row) -> rusqlite::Result<FileRecord> {
    let units_by_kind: String = row.get(14)?;
    let extra: String = row.get(18)?;
    let status: String = row.get(7)?;
    let file_type: String = row.get(10)?;
    let modality: String = row.get(11)?;
    let mut extra: BTreeMap<String, String> = serde_json::from_str(&extra).unwrap_or_default();
    let stages = StageState::take_from(&mut extra);
    Ok(FileRecord {
        path: row.get(0)?,
        file_id: row.get(1)?,
        parent_path: row.get(2)?,
        size: row.get::<_, i64>(3)?.max(0) as u64,
        mtime_ns: row.get(4)?,
        hash: row.get(5)?,
        converter_version: row.get(6)?,
        status: FileStatus::parse(&status),
        reason: row.get(8)?,
        error: row.get(9)?,
        file_type: FileType::parse(&file_type),
        modality: Modality::parse(&modality),
        ext: row.get(12)?,
        unit_count: row.get(13)?,
        units_by_kind: serde_json::from_str(&units_by_kind).unwrap_or_default(),
        title: row.get(15)?,
        author: row.get(16)?,
        created: row.get(17)?,
        extra,
        stages,
        embedded: row.get(19)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::DEFAULT_TEXT_WINDOWS;
    use crate::vector::LEGACY_TEXT_MODEL;

    fn manifest() -> (tempfile::TempDir, Manifest) {
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::open(&dir.path().join("manifest.sqlite")).unwrap();
        (dir, manifest)
    }

    /// An indexed record with content `hash` and `units` units of kind "page".
    fn record(path: &str, hash: &str, units: u32) -> FileRecord {
        let mut record = FileRecord::new(path);
        record.size = 10;
        record.mtime_ns = 1_000;
        record.hash = Some(hash.to_string());
        record.converter_version = 1;
        record.file_type = Some(converters::FileType::Pdf);
        record.modality = Some(converters::Modality::Text);
        record.ext = "pdf".to_string();
        record.unit_count = units;
        record.units_by_kind = BTreeMap::from([("page".to_string(), u64::from(units))]);
        record
    }

    fn attachment(container: &str, name: &str, hash: &str) -> FileRecord {
        let mut record = record(&format!("{container}#attachment/{name}"), hash, 1);
        record.parent_path = Some(container.to_string());
        record
    }

    /// Two vectors for `a` (content `h1`: texts `t1`, `t2`), one for `b` (`h2`: `t3`).
    fn put_a_and_b(manifest: &mut Manifest, a: &FileRecord, b: &FileRecord) {
        let two = [vector("a#1", "t1", 1), vector("a#2", "t2", 2)];
        put(manifest, a, "h1", &two);
        put(manifest, b, "h2", &[vector("b#1", "t3", 3)]);
    }

    /// `record`'s vectors, made by the packaged graph, for content `hash`.
    fn put(
        manifest: &mut Manifest,
        record: &FileRecord,
        hash: &str,
        rows: &[(String, String, Vec<u8>)],
    ) {
        manifest
            .replace_file_vectors(
                &record.path,
                &record.file_id,
                hash,
                LEGACY_TEXT_MODEL,
                DEFAULT_TEXT_WINDOWS,
                rows,
            )
            .unwrap();
    }

    fn vector(unit: &str, text_hash: &str, byte: u8) -> (String, String, Vec<u8>) {
        (unit.to_string(), text_hash.to_string(), vec![byte; 8])
    }

    #[test]
    fn a_change_moves_vectors_to_the_renamed_files_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::open(&dir.path().join("m.sqlite")).unwrap();
        let (old, new) = (
            crate::path::file_id_for("a.txt"),
            crate::path::file_id_for("b.txt"),
        );
        manifest
            .replace_file_vectors(
                "a.txt",
                &old,
                "h",
                LEGACY_TEXT_MODEL,
                DEFAULT_TEXT_WINDOWS,
                &[(format!("{old}:0"), "t0".into(), vec![7; 8])],
            )
            .unwrap();
        let event = crate::ActivityEvent::new(
            crate::ActivityKind::Renamed,
            crate::ActivitySource::Observed,
            Some("b.txt"),
            1,
        );
        manifest
            .apply_change(&Change {
                vector_moves: &[(old.clone(), new.clone())],
                events: &[event],
                ..Change::default()
            })
            .unwrap();
        assert!(manifest.vectors_of_file(&old).unwrap().is_empty());
        let moved = manifest.vectors_of_file(&new).unwrap();
        assert_eq!(
            moved.get(&format!("{new}:0")).map(|v| v.0.as_str()),
            Some("t0")
        );
        assert_eq!(manifest.last_activity_seq().unwrap(), 1);
        // A running daemon reloads the moved vectors.
        assert_eq!(manifest.vectors_generation().unwrap(), 2);
    }

    #[test]
    fn apply_inserts_updates_and_deletes_files_with_their_attachments() {
        let (_dir, mut manifest) = manifest();
        let mail = record("mail/a.eml", "h1", 2);
        let pdf = attachment("mail/a.eml", "bill.pdf", "h2");
        manifest.apply(&[mail.clone(), pdf.clone()], &[]).unwrap();
        assert_eq!(manifest.get("mail/a.eml").unwrap(), Some(mail.clone()));
        assert_eq!(
            manifest.get_by_file_id(&pdf.file_id).unwrap(),
            Some(pdf.clone())
        );
        assert_eq!(
            manifest.children_of("mail/a.eml").unwrap(),
            vec![pdf.path.clone()]
        );
        assert_eq!(manifest.all().unwrap(), vec![mail.clone(), pdf.clone()]);
        // Content hashes in one statement; an unknown id is left out.
        let hashes = manifest
            .content_hashes(&[&pdf.file_id, "nope", &mail.file_id])
            .unwrap();
        assert_eq!(hashes.len(), 2);
        assert_eq!(hashes[&pdf.file_id], "h2");
        assert_eq!(hashes[&mail.file_id], "h1");
        assert!(manifest.content_hashes(&[]).unwrap().is_empty());

        // Update: a second upsert of the same path replaces the row.
        let mut changed = mail.clone();
        changed.hash = Some("h3".to_string());
        changed.unit_count = 5;
        changed.extra.insert("from".to_string(), "ann".to_string());
        manifest.apply(&[changed.clone()], &[]).unwrap();
        assert_eq!(manifest.get("mail/a.eml").unwrap(), Some(changed));
        assert_eq!(manifest.all().unwrap().len(), 2);

        // Delete the container and its attachment in one batch.
        manifest
            .apply(&[], &["mail/a.eml".to_string(), pdf.path.clone()])
            .unwrap();
        assert_eq!(manifest.get("mail/a.eml").unwrap(), None);
        assert_eq!(manifest.get(&pdf.path).unwrap(), None);
        assert!(manifest.children_of("mail/a.eml").unwrap().is_empty());
        assert!(manifest.all().unwrap().is_empty());
    }

    #[test]
    fn apply_deletes_before_it_inserts() {
        let (_dir, mut manifest) = manifest();
        let a = record("a.pdf", "h1", 1);
        manifest.apply(std::slice::from_ref(&a), &[]).unwrap();
        let mut again = a.clone();
        again.hash = Some("h2".to_string());
        // The same path deleted and upserted in one batch ends up present, with new data.
        manifest
            .apply(&[again.clone()], &["a.pdf".to_string()])
            .unwrap();
        assert_eq!(manifest.get("a.pdf").unwrap(), Some(again));
    }

    #[test]
    fn files_needing_embedding_are_indexed_with_units_and_stale_vectors() {
        let (_dir, mut manifest) = manifest();
        let fresh = record("b/fresh.pdf", "h1", 2);
        let mut done = record("b/done.pdf", "h2", 1);
        done.embedded = Some(crate::vector::embedded_marker(
            "h2",
            LEGACY_TEXT_MODEL,
            DEFAULT_TEXT_WINDOWS,
        ));
        let mut stale = record("b/stale.pdf", "h3", 1);
        stale.embedded = Some("old".to_string());
        let empty = record("b/empty.pdf", "h4", 0);
        let mut failed = record("b/failed.pdf", "h5", 1);
        failed.status = FileStatus::Failed;
        let mut skipped = record("b/skipped.pdf", "h6", 1);
        skipped.status = FileStatus::Skipped;
        manifest
            .apply(
                &[fresh.clone(), done, stale.clone(), empty, failed, skipped],
                &[],
            )
            .unwrap();
        let need = |m: &Manifest| {
            m.files_needing_embedding(LEGACY_TEXT_MODEL, DEFAULT_TEXT_WINDOWS)
                .unwrap()
        };
        // Ordered by path.
        assert_eq!(
            need(&manifest),
            vec![
                (fresh.path.clone(), fresh.file_id.clone(), "h1".to_string()),
                (stale.path.clone(), stale.file_id.clone(), "h3".to_string()),
            ]
        );
        // Embedding a file for its current hash takes it off the list.
        put(&mut manifest, &fresh, "h1", &[vector("u1", "t1", 1)]);
        assert_eq!(
            need(&manifest),
            vec![(stale.path.clone(), stale.file_id.clone(), "h3".to_string())]
        );
    }

    #[test]
    fn file_vectors_are_replaced_as_a_whole_and_reused_by_text_hash() {
        let (_dir, mut manifest) = manifest();
        let a = record("a.pdf", "h1", 2);
        let b = record("b.pdf", "h2", 1);
        manifest.apply(&[a.clone(), b.clone()], &[]).unwrap();
        put_a_and_b(&mut manifest, &a, &b);
        let of_a = manifest.vectors_of_file(&a.file_id).unwrap();
        assert_eq!(of_a.len(), 2);
        assert_eq!(of_a["a#1"], ("t1".to_string(), vec![1; 8]));
        assert_eq!(of_a["a#2"], ("t2".to_string(), vec![2; 8]));
        assert_eq!(
            manifest.get(&a.path).unwrap().unwrap().embedded.as_deref(),
            Some("h1@all-MiniLM-L6-v2-int8+windows+named")
        );
        assert_eq!(
            manifest
                .vector_for_text("t2", LEGACY_TEXT_MODEL, 8)
                .unwrap(),
            Some(vec![2; 8])
        );
        assert_eq!(
            manifest
                .vector_for_text("t3", LEGACY_TEXT_MODEL, 8)
                .unwrap(),
            Some(vec![3; 8])
        );
        assert_eq!(
            manifest
                .vector_for_text("nope", LEGACY_TEXT_MODEL, 8)
                .unwrap(),
            None
        );

        // A new set replaces the old one entirely: a#2 is gone, b untouched.
        put(&mut manifest, &a, "h9", &[vector("a#1", "t4", 4)]);
        let of_a = manifest.vectors_of_file(&a.file_id).unwrap();
        assert_eq!(of_a.len(), 1);
        assert_eq!(of_a["a#1"], ("t4".to_string(), vec![4; 8]));
        assert_eq!(
            manifest
                .vector_for_text("t2", LEGACY_TEXT_MODEL, 8)
                .unwrap(),
            None
        );
        assert_eq!(manifest.vectors_of_file(&b.file_id).unwrap().len(), 1);
        assert_eq!(
            manifest.get(&a.path).unwrap().unwrap().embedded.as_deref(),
            Some("h9@all-MiniLM-L6-v2-int8+windows+named")
        );
        assert!(manifest.vectors_of_file("unknown").unwrap().is_empty());
        assert_eq!(manifest.all_vectors().unwrap().len(), 2);
    }

    #[test]
    fn a_new_text_model_re_embeds_every_file_and_reuses_only_its_own_vectors() {
        let (_dir, mut manifest) = manifest();
        let a = record("a.pdf", "h1", 2);
        manifest.apply(std::slice::from_ref(&a), &[]).unwrap();
        put(&mut manifest, &a, "h1", &[vector("a#1", "t1", 1)]);
        let listed = |m: &Manifest, model: &str| {
            m.files_needing_embedding(model, DEFAULT_TEXT_WINDOWS)
                .unwrap()
                .len()
        };
        let other = |m: &Manifest, model: &str| m.files_embedded_by_other_models(model).unwrap();
        assert_eq!(listed(&manifest, LEGACY_TEXT_MODEL), 0);
        assert_eq!(other(&manifest, LEGACY_TEXT_MODEL), 0);
        assert_eq!(other(&manifest, "m-q8"), 1);
        // Another model: the file is embedded again, and the legacy vector is not reused
        // (though it stays readable, and searchable, until it is replaced).
        assert_eq!(listed(&manifest, "m-q8"), 1);
        assert_eq!(manifest.vector_for_text("t1", "m-q8", 8).unwrap(), None);
        assert!(manifest
            .vectors_of_file_by(&a.file_id, "m-q8")
            .unwrap()
            .is_empty());
        assert_eq!(
            manifest
                .vectors_of_file_by(&a.file_id, LEGACY_TEXT_MODEL)
                .unwrap()
                .len(),
            1
        );
        assert_eq!(manifest.vectors_of_file(&a.file_id).unwrap().len(), 1);

        // The file embedded by "m-q8" with at most `windows` windows: its marker.
        let embed = |m: &mut Manifest, windows: usize| {
            m.replace_file_vectors(
                &a.path,
                &a.file_id,
                "h1",
                "m-q8",
                windows,
                &[vector("a#1", "t1", 5)],
            )
            .unwrap();
            m.get(&a.path).unwrap().unwrap().embedded.unwrap()
        };
        assert_eq!(
            embed(&mut manifest, DEFAULT_TEXT_WINDOWS),
            "h1@m-q8+windows+named"
        );
        assert_eq!(listed(&manifest, "m-q8"), 0);
        assert_eq!(listed(&manifest, LEGACY_TEXT_MODEL), 1);
        assert_eq!(other(&manifest, "m-q8"), 0);
        assert_eq!(other(&manifest, LEGACY_TEXT_MODEL), 1);
        // A model whose name starts another's is another model.
        assert_eq!(other(&manifest, "m"), 1);
        // Other windows: the file is visited again, but not as another model's.
        let with = |m: &Manifest, windows: usize| {
            m.files_needing_embedding("m-q8", windows).unwrap().len()
        };
        assert_eq!((with(&manifest, 1), with(&manifest, 4)), (1, 1));
        assert_eq!(embed(&mut manifest, 4), "h1@m-q8+windows4+named");
        assert_eq!((with(&manifest, 4), listed(&manifest, "m-q8")), (0, 1));
        assert_eq!(other(&manifest, "m-q8"), 0);
        embed(&mut manifest, DEFAULT_TEXT_WINDOWS);
        // Embedded before units were headed by their file's name (no `+named`): visited
        // again, not as another model's; with one window too.
        for (windows, before) in [(DEFAULT_TEXT_WINDOWS, "h1@m-q8+windows"), (1, "h1@m-q8")] {
            let mut old = manifest.get(&a.path).unwrap().unwrap();
            old.embedded = Some(before.to_string());
            manifest.apply(&[old], &[]).unwrap();
            assert_eq!(with(&manifest, windows), 1, "{before}");
            assert_eq!(other(&manifest, "m-q8"), 0, "{before}");
            embed(&mut manifest, windows);
            assert_eq!(with(&manifest, windows), 0, "{before}");
            assert_eq!(other(&manifest, "m-q8"), 0, "{before}");
        }
        embed(&mut manifest, DEFAULT_TEXT_WINDOWS);
        // Changed content is stale whatever the model: not counted as another model's.
        let mut changed = manifest.get(&a.path).unwrap().unwrap();
        changed.hash = Some("h2".into());
        manifest.apply(&[changed], &[]).unwrap();
        assert_eq!(other(&manifest, LEGACY_TEXT_MODEL), 0);
        assert_eq!(listed(&manifest, "m-q8"), 1);
        assert_eq!(
            manifest.vector_for_text("t1", "m-q8", 8).unwrap(),
            Some(vec![5; 8])
        );
        assert_eq!(
            manifest
                .vector_for_text("t1", LEGACY_TEXT_MODEL, 8)
                .unwrap(),
            None
        );
    }

    #[test]
    fn a_text_is_reused_only_from_a_vector_of_as_many_windows() {
        let (_dir, mut manifest) = manifest();
        let a = record("a.pdf", "h1", 1);
        let b = record("b.pdf", "h2", 1);
        manifest.apply(&[a.clone(), b.clone()], &[]).unwrap();
        // The same text, embedded as one window in `a` and as two in `b`.
        manifest
            .replace_file_vectors(&a.path, &a.file_id, "h1", "m", 1, &[vector("a#1", "t", 1)])
            .unwrap();
        let two = ("b#1".to_string(), "t".to_string(), vec![2; 16]);
        manifest
            .replace_file_vectors(&b.path, &b.file_id, "h2", "m", 2, &[two])
            .unwrap();
        for (bytes, found) in [(8, Some(vec![1; 8])), (16, Some(vec![2; 16])), (24, None)] {
            assert_eq!(manifest.vector_for_text("t", "m", bytes).unwrap(), found);
        }
    }

    #[test]
    fn a_manifest_from_before_text_models_gains_the_column_and_keeps_its_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.sqlite");
        {
            let old = Connection::open(&path).unwrap();
            old.execute_batch(
                "CREATE TABLE vectors (unit_id TEXT PRIMARY KEY, file_id TEXT NOT NULL, \
                 text_hash TEXT NOT NULL, vector BLOB NOT NULL);
                 INSERT INTO vectors VALUES ('a#1', 'fa', 't1', x'0102');",
            )
            .unwrap();
        }
        let manifest = Manifest::open(&path).unwrap();
        assert_eq!(
            manifest
                .vector_for_text("t1", LEGACY_TEXT_MODEL, 2)
                .unwrap(),
            Some(vec![1, 2])
        );
        assert_eq!(manifest.vector_for_text("t1", "m-q8", 8).unwrap(), None);
        drop(manifest);
        // Opening again finds the column and leaves it.
        Manifest::open(&path).unwrap();
    }

    #[test]
    fn orphan_vectors_are_deleted_and_the_generation_bumps() {
        let (_dir, mut manifest) = manifest();
        assert_eq!(manifest.vectors_generation().unwrap(), 0);
        let a = record("a.pdf", "h1", 1);
        let b = record("b.pdf", "h2", 1);
        let c = record("c.jpg", "h3", 1);
        manifest
            .apply(&[a.clone(), b.clone(), c.clone()], &[])
            .unwrap();
        put(&mut manifest, &a, "h1", &[vector("a#1", "t1", 1)]);
        assert_eq!(manifest.vectors_generation().unwrap(), 1);
        put(&mut manifest, &b, "h2", &[vector("b#1", "t2", 2)]);
        assert_eq!(manifest.vectors_generation().unwrap(), 2);
        manifest
            .replace_image_vectors(&c.file_id, "h3", "clip", &[("c#1".to_string(), vec![7; 8])])
            .unwrap();
        assert_eq!(manifest.vectors_generation().unwrap(), 3);

        // Nothing orphaned: nothing deleted, no bump.
        assert_eq!(manifest.delete_orphan_vectors().unwrap(), 0);
        assert_eq!(manifest.vectors_generation().unwrap(), 3);

        // b removed and c no longer indexed: their vectors go, a's stay.
        let mut c_failed = c.clone();
        c_failed.status = FileStatus::Failed;
        manifest
            .apply(&[c_failed], std::slice::from_ref(&b.path))
            .unwrap();
        assert_eq!(manifest.delete_orphan_vectors().unwrap(), 2);
        assert_eq!(manifest.vectors_generation().unwrap(), 4);
        assert_eq!(manifest.vectors_of_file(&a.file_id).unwrap().len(), 1);
        assert!(manifest.vectors_of_file(&b.file_id).unwrap().is_empty());
        assert!(manifest.image_vector_hashes("clip").unwrap().is_empty());
        assert_eq!(manifest.delete_orphan_vectors().unwrap(), 0);
        assert_eq!(manifest.vectors_generation().unwrap(), 4);
    }

    #[test]
    fn totals_count_files_by_status_and_units_by_kind() {
        let (_dir, mut manifest) = manifest();
        assert_eq!(manifest.totals().unwrap(), ManifestTotals::default());
        let a = record("a.pdf", "h1", 3);
        let mut photo = record("b.jpg", "h2", 1);
        photo.modality = Some(converters::Modality::Image);
        photo.units_by_kind = BTreeMap::from([("image".to_string(), 1)]);
        let mut failed = record("c.pdf", "h3", 0);
        failed.status = FileStatus::Failed;
        failed.units_by_kind = BTreeMap::new();
        let mut skipped = record("d.bin", "h4", 0);
        skipped.status = FileStatus::Skipped;
        skipped.units_by_kind = BTreeMap::new();
        manifest.apply(&[a, photo, failed, skipped], &[]).unwrap();
        assert_eq!(
            manifest.totals().unwrap(),
            ManifestTotals {
                indexed: 2,
                skipped: 1,
                failed: 1,
                units: 4,
                units_by_kind: BTreeMap::from([("image".to_string(), 1), ("page".to_string(), 3)]),
                files_by_modality: BTreeMap::from([
                    ("image".to_string(), 1),
                    ("text".to_string(), 1)
                ]),
            }
        );
    }

    #[test]
    fn embedding_coverage_counts_vectors_of_indexed_files() {
        let (_dir, mut manifest) = manifest();
        assert_eq!(manifest.embedding_coverage().unwrap(), (0, 0));
        let a = record("a.pdf", "h1", 3);
        let b = record("b.pdf", "h2", 2);
        manifest.apply(&[a.clone(), b.clone()], &[]).unwrap();
        assert_eq!(manifest.embedding_coverage().unwrap(), (0, 5));
        put_a_and_b(&mut manifest, &a, &b);
        assert_eq!(manifest.embedding_coverage().unwrap(), (3, 5));
        // Vectors of a file that is no longer indexed do not count, nor do its units.
        let mut b_failed = b.clone();
        b_failed.status = FileStatus::Failed;
        manifest.apply(&[b_failed], &[]).unwrap();
        assert_eq!(manifest.embedding_coverage().unwrap(), (2, 3));
    }

    #[test]
    fn check_names_a_damaged_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.sqlite");
        {
            let mut writer = Manifest::open(&path).unwrap();
            writer.apply(&[FileRecord::new("a.txt")], &[]).unwrap();
        }
        Manifest::open_existing(&path)
            .unwrap()
            .check(&path)
            .unwrap();
        // Truncated to half, then random bytes: both refused with the file's name.
        let bytes = std::fs::read(&path).unwrap();
        for damaged in [bytes[..bytes.len() / 2].to_vec(), vec![0x5a; 8192]] {
            std::fs::write(&path, &damaged).unwrap();
            let error = Manifest::open_existing(&path)
                .and_then(|m| m.check(&path))
                .expect_err("damaged");
            assert!(error.to_string().contains("manifest.sqlite"), "{error}");
        }
    }

    #[test]
    fn open_existing_refuses_a_missing_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.sqlite");
        let error = Manifest::open_existing(&path).err().expect("an error");
        assert!(matches!(error, IndexError::NotAnIndex { .. }), "{error:?}");
        assert!(error.to_string().contains("no manifest.sqlite"), "{error}");
        // Nothing was created.
        assert!(!path.exists());
    }

    #[test]
    fn open_existing_reports_a_damaged_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.sqlite");
        std::fs::write(
            &path,
            b"this is not an SQLite database, just some text ...".repeat(100),
        )
        .unwrap();
        // SQLite reads the file lazily: the damage shows at opening or at the first read,
        // as an error naming the manifest, never as a panic.
        let error = match Manifest::open_existing(&path) {
            Err(error) => error,
            Ok(manifest) => manifest
                .totals()
                .expect_err("a damaged manifest is reported"),
        };
        assert!(error.to_string().contains("manifest"), "{error}");
        assert!(error.to_string().contains("not a database"), "{error}");
    }

    #[test]
    fn open_existing_reads_but_does_not_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.sqlite");
        let mut writer = Manifest::open(&path).unwrap();
        let a = record("a.pdf", "h1", 1);
        writer.apply(std::slice::from_ref(&a), &[]).unwrap();
        let mut reader = Manifest::open_existing(&path).unwrap();
        assert_eq!(reader.get("a.pdf").unwrap(), Some(a));
        assert!(reader.apply(&[record("b.pdf", "h2", 1)], &[]).is_err());
    }

    use crate::stage::{GOLD_HASH_KEY, GOLD_KEY, MEDIA_KEY, OCR_KEY, OCR_PENDING_KEY};

    fn stored_column(manifest: &Manifest, path: &str, column: &str) -> String {
        manifest
            .connection
            .query_row(
                &format!("SELECT {column} FROM files WHERE path = ?1"),
                [path],
                |row| row.get(0),
            )
            .unwrap()
    }

    /// A row with every stage key and some converter facts reads back with the stage
    /// keys typed, and is written back with the same `extra` column text; the type
    /// columns keep their names, `""` for none.
    #[test]
    fn stage_state_round_trips_through_the_extra_column() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::open(&dir.path().join("manifest.sqlite")).unwrap();
        let extra = r#"{"author_note":"x","gold":"Bei/a.json","gold_hash":"abc","gps":"1.5,2.5","media":"whisper-base","ocr":"ppocrv5","ocr_pending_pages":"3","page_count":"7"}"#;
        let mut record = FileRecord {
            file_type: Some(FileType::Pdf),
            modality: Some(Modality::Document),
            ext: "pdf".into(),
            ..FileRecord::new("Docs/a.pdf")
        };
        record.extra = serde_json::from_str(extra).unwrap();
        manifest
            .apply(&[record, FileRecord::new("odd")], &[])
            .unwrap();
        assert_eq!(stored_column(&manifest, "Docs/a.pdf", "extra"), extra);

        let read = manifest.get("Docs/a.pdf").unwrap().unwrap();
        assert_eq!(
            read.stages,
            StageState {
                ocr: Some("ppocrv5".into()),
                ocr_pending_pages: Some(3),
                media: Some("whisper-base".into()),
                gold: Some("Bei/a.json".into()),
                gold_hash: Some("abc".into()),
                ..StageState::default()
            }
        );
        for key in [OCR_KEY, OCR_PENDING_KEY, MEDIA_KEY, GOLD_KEY, GOLD_HASH_KEY] {
            assert!(!read.extra.contains_key(key), "{key}");
        }
        assert_eq!(
            read.extra.keys().collect::<Vec<_>>(),
            ["author_note", "gps", "page_count"]
        );
        assert_eq!(read.file_type, Some(FileType::Pdf));
        assert_eq!(read.modality, Some(Modality::Document));
        assert_eq!(serde_json::to_string(&read.extra_all()).unwrap(), extra);

        // Written back unchanged, and read back equal.
        manifest.apply(std::slice::from_ref(&read), &[]).unwrap();
        assert_eq!(stored_column(&manifest, "Docs/a.pdf", "extra"), extra);
        assert_eq!(stored_column(&manifest, "Docs/a.pdf", "file_type"), "pdf");
        assert_eq!(
            stored_column(&manifest, "Docs/a.pdf", "modality"),
            "document"
        );
        assert_eq!(manifest.get("Docs/a.pdf").unwrap().unwrap(), read);

        // A row without a type (walk issues) stores empty names.
        let odd = manifest.get("odd").unwrap().unwrap();
        assert_eq!((odd.file_type, odd.modality), (None, None));
        assert_eq!(stored_column(&manifest, "odd", "file_type"), "");
        assert_eq!(stored_column(&manifest, "odd", "modality"), "");
        assert_eq!(stored_column(&manifest, "odd", "extra"), "{}");

        // A type name this build does not know reads as no type.
        manifest
            .connection
            .execute(
                "UPDATE files SET file_type = 'spreadsheet' WHERE path = 'odd'",
                [],
            )
            .unwrap();
        assert_eq!(manifest.get("odd").unwrap().unwrap().file_type, None);
    }

    /// The JSON of a record (HTTP `file`) is today's row: type names as strings (`""`
    /// for none) and the whole `extra` map; it reads back equal.
    #[test]
    fn record_json_keeps_the_row_shape() {
        let mut record = FileRecord {
            file_type: Some(FileType::Image),
            modality: Some(Modality::Image),
            ..FileRecord::new("p.jpg")
        };
        record.extra.insert("gps".into(), "1,2".into());
        record.stages.ocr = Some("m".into());
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(json["file_type"], "image");
        assert_eq!(json["modality"], "image");
        assert_eq!(json["extra"], serde_json::json!({"gps": "1,2", "ocr": "m"}));
        assert!(json.get("stages").is_none());
        let back: FileRecord = serde_json::from_value(json).unwrap();
        assert_eq!(back, record);

        let none = serde_json::to_value(FileRecord::new("x")).unwrap();
        assert_eq!(
            (&none["file_type"], &none["modality"]),
            (&serde_json::json!(""), &serde_json::json!(""))
        );
    }
}
