//! SQLite databases: one row-group unit per ~300 tokens or 50 rows of every table, header
//! (the column names) repeated at the top of each unit:
//!
//! ```text
//! Table: contacts
//! id | name | email
//! 1 | Ada | ada@example.org
//! ```
//!
//! The locator holds the table name (`sheet`) and the rowid range (`row_start..row_end`);
//! for tables `WITHOUT ROWID` the 1-based ordinal of the row in scan order. The header row
//! shares the first data row's number. The in-memory bytes are written to a temporary
//! file and opened read-only and immutable; a failing table is skipped and named in
//! `meta.extra["errors"]`, so the other tables survive.

use std::io::Write;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::sheet::{clean_cell, format_number, RowGrouper, MAX_ROWS};
use crate::{ConvertError, Conversion, FileMeta, Input, Unit};

const FORMAT: &str = "sqlite";
const MAGIC: &[u8] = b"SQLite format 3\0";

/// Converts a SQLite database into row groups per table.
pub fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    if input.bytes.is_empty() {
        return Err(ConvertError::Empty);
    }
    if !input.bytes.starts_with(MAGIC) {
        return Err(ConvertError::corrupt(FORMAT, "file is not a database (bad header)"));
    }
    let file = write_temp_copy(input.bytes)?;
    let conn = open_read_only(file.path())?;
    let tables = list_tables(&conn)?;

    let mut meta = FileMeta {
        page_count: Some(tables.len() as u32),
        ..FileMeta::default()
    };
    let mut units = Vec::new();
    let mut errors = Vec::new();
    let mut truncated = Vec::new();
    for table in &tables {
        let read = read_table(&conn, table);
        units.extend(read.units);
        if let Some(error) = read.error {
            errors.push(format!("{table}: {error}"));
        }
        if read.truncated {
            truncated.push(table.clone());
        }
    }
    if !errors.is_empty() {
        meta.extra.insert("errors".into(), errors.join("; "));
    }
    if !truncated.is_empty() {
        meta.extra.insert(
            "truncated".into(),
            format!("first {MAX_ROWS} rows kept of: {}", truncated.join(", ")),
        );
    }
    meta.extra.insert("tables".into(), tables.join(", "));
    Ok(Conversion {
        units,
        meta,
        children: Vec::new(),
    })
}

/// Copies the database to a temporary file. A WAL-mode header (file format versions 2) is
/// switched to rollback mode (1) so the copy opens without its `-wal` / `-shm` files.
fn write_temp_copy(bytes: &[u8]) -> Result<tempfile::NamedTempFile, ConvertError> {
    let mut file = tempfile::Builder::new()
        .prefix("dentate-sqlite-")
        .suffix(".db")
        .tempfile()?;
    let mut header = bytes.get(..100).unwrap_or(bytes).to_vec();
    if header.len() >= 20 && header[18] == 2 && header[19] == 2 {
        header[18] = 1;
        header[19] = 1;
    }
    file.write_all(&header)?;
    file.write_all(bytes.get(header.len()..).unwrap_or_default())?;
    file.flush()?;
    Ok(file)
}

fn open_read_only(path: &std::path::Path) -> Result<Connection, ConvertError> {
    let uri = format!("file:{}?immutable=1", percent_encode_path(&path.to_string_lossy()));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(uri, flags).map_err(|e| db_error(&e))
}

/// Escapes the characters that would end or change a URI path (`?`, `#`, `%`, space).
fn percent_encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '?' | '#' | '%' | ' ' => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn db_error(error: &rusqlite::Error) -> ConvertError {
    let message = error.to_string().to_lowercase();
    if message.contains("not a database") || message.contains("malformed") {
        ConvertError::corrupt(FORMAT, message)
    } else if message.contains("encrypt") {
        ConvertError::encrypted(FORMAT, message)
    } else {
        ConvertError::corrupt(FORMAT, message)
    }
}

/// Names of the user tables (views, indexes and `sqlite_%` internal tables skipped).
fn list_tables(conn: &Connection) -> Result<Vec<String>, ConvertError> {
    let mut stmt = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
        )
        .map_err(|e| db_error(&e))?;
    let names = stmt
        .query_map([], |row| row.get::<_, String>(0))
        .map_err(|e| db_error(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| db_error(&e))?;
    Ok(names)
}

struct TableRead {
    units: Vec<Unit>,
    error: Option<String>,
    truncated: bool,
}

/// Reads one table, keeping the rows read before an error.
fn read_table(conn: &Connection, table: &str) -> TableRead {
    let quoted = format!("\"{}\"", table.replace('"', "\"\""));
    let mut grouper = RowGrouper::new(Some(format!("Table: {table}")), Some(table.to_string()));
    let with_rowid = format!("SELECT rowid, * FROM {quoted} ORDER BY rowid LIMIT {}", MAX_ROWS + 1);
    let plain = format!("SELECT * FROM {quoted} LIMIT {}", MAX_ROWS + 1);
    let outcome = match conn.prepare(&with_rowid) {
        Ok(mut stmt) => scan(&mut stmt, true, &mut grouper),
        Err(_) => match conn.prepare(&plain) {
            Ok(mut stmt) => scan(&mut stmt, false, &mut grouper),
            Err(e) => Err(e.to_string().to_lowercase()),
        },
    };
    let (truncated, error) = match outcome {
        Ok(truncated) => (truncated, None),
        Err(error) => (false, Some(error)),
    };
    TableRead {
        units: grouper.finish(),
        error,
        truncated,
    }
}

/// Feeds the statement's rows to the grouper; returns whether rows were cut at MAX_ROWS.
fn scan(
    stmt: &mut rusqlite::Statement,
    with_rowid: bool,
    grouper: &mut RowGrouper,
) -> Result<bool, String> {
    let skip = usize::from(with_rowid);
    let columns: Vec<String> = stmt.column_names().into_iter().skip(skip).map(String::from).collect();
    let column_count = stmt.column_count();
    let mut rows = stmt.query([]).map_err(|e| e.to_string().to_lowercase())?;
    let mut count = 0usize;
    let mut header_pushed = false;
    while let Some(row) = rows.next().map_err(|e| e.to_string().to_lowercase())? {
        count += 1;
        if count > MAX_ROWS {
            return Ok(true);
        }
        let number = if with_rowid {
            row.get_ref(0)
                .ok()
                .and_then(|v| v.as_i64().ok())
                .map(|id| id.max(0) as u64)
                .unwrap_or(count as u64)
        } else {
            count as u64
        };
        if !header_pushed {
            grouper.push(number, &columns);
            header_pushed = true;
        }
        let cells: Vec<String> = (skip..column_count)
            .map(|i| row.get_ref(i).map(render_value).unwrap_or_default())
            .collect();
        grouper.push(number, &cells);
    }
    Ok(false)
}

fn render_value(value: ValueRef) -> String {
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => format_number(f),
        ValueRef::Text(t) => clean_cell(&String::from_utf8_lossy(t)),
        ValueRef::Blob(b) => format!("<blob {} bytes>", b.len()),
    }
}
