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
use crate::{Conversion, ConvertError, FileMeta, Input, Unit};

const FORMAT: &str = "sqlite";
const MAGIC: &[u8] = b"SQLite format 3\0";

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 3;

/// Converts a SQLite database into row groups per table.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    if input.bytes.is_empty() {
        return Err(ConvertError::Empty);
    }
    if !input.bytes.starts_with(MAGIC) {
        return Err(ConvertError::corrupt(
            FORMAT,
            "file is not a database (bad header)",
        ));
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
        let TableName::Utf8(name) = table else {
            errors.push(format!(
                "{}: the table's name is not UTF-8; its rows cannot be read",
                table.shown()
            ));
            continue;
        };
        let read = read_table(&conn, name);
        units.extend(read.units);
        if let Some(error) = read.error {
            errors.push(format!("{name}: {error}"));
        }
        if read.truncated {
            truncated.push(name.clone());
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
    let shown: Vec<&str> = tables.iter().map(TableName::shown).collect();
    meta.extra.insert("tables".into(), shown.join(", "));
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
    let uri = format!(
        "file:{}?immutable=1",
        percent_encode_path(&path.to_string_lossy())
    );
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
fn list_tables(conn: &Connection) -> Result<Vec<TableName>, ConvertError> {
    let mut stmt = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
        )
        .map_err(|e| db_error(&e))?;
    // Read as bytes: a name that is not UTF-8 must not fail the other tables.
    let names = stmt
        .query_map([], |row| Ok(text_of(row.get_ref(0)?)))
        .map_err(|e| db_error(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| db_error(&e))?;
    Ok(names)
}

/// A value SQLite gives as text (a name), decoded lossily: rusqlite's own `&str`
/// accessors fail or panic on bytes that are not UTF-8.
fn text_of(value: ValueRef) -> TableName {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => match std::str::from_utf8(bytes) {
            Ok(name) => TableName::Utf8(name.to_string()),
            Err(_) => TableName::Other(String::from_utf8_lossy(bytes).into_owned()),
        },
        other => TableName::Utf8(render_value(other)),
    }
}

/// A table's name: usable in a query when it is UTF-8 (rusqlite takes SQL as `&str`).
#[derive(Debug, Clone, PartialEq)]
enum TableName {
    Utf8(String),
    /// Not UTF-8: shown lossily, its rows cannot be read.
    Other(String),
}

impl TableName {
    fn shown(&self) -> &str {
        match self {
            TableName::Utf8(name) | TableName::Other(name) => name,
        }
    }
}

struct TableRead {
    units: Vec<Unit>,
    error: Option<String>,
    truncated: bool,
}

/// Reads one table, keeping the rows read before an error.
fn read_table(conn: &Connection, table: &str) -> TableRead {
    let quoted = format!("\"{}\"", table.replace('"', "\"\""));
    let columns = column_names(conn, table);
    let mut grouper = RowGrouper::new(Some(format!("Table: {table}")), Some(table.to_string()));
    let with_rowid = format!(
        "SELECT rowid, * FROM {quoted} ORDER BY rowid LIMIT {}",
        MAX_ROWS + 1
    );
    let plain = format!("SELECT * FROM {quoted} LIMIT {}", MAX_ROWS + 1);
    let outcome = match conn.prepare(&with_rowid) {
        Ok(mut stmt) => scan(&mut stmt, true, &columns, &mut grouper),
        Err(_) => match conn.prepare(&plain) {
            Ok(mut stmt) => scan(&mut stmt, false, &columns, &mut grouper),
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
    names: &[String],
    grouper: &mut RowGrouper,
) -> Result<bool, String> {
    let skip = usize::from(with_rowid);
    let column_count = stmt.column_count();
    // Never rusqlite's `column_names`: it panics on a name that is not UTF-8.
    let shown = column_count.saturating_sub(skip);
    let columns: Vec<String> = if names.len() == shown {
        names.to_vec()
    } else {
        (1..=shown).map(|i| format!("column {i}")).collect()
    };
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

/// The names of the columns `SELECT *` returns, in order, read as bytes and decoded
/// lossily (hidden columns of virtual tables are not returned by `*`). Empty when the
/// table cannot be described.
fn column_names(conn: &Connection, table: &str) -> Vec<String> {
    let Ok(mut stmt) =
        conn.prepare("SELECT name FROM pragma_table_xinfo(?1) WHERE hidden <> 1 ORDER BY cid")
    else {
        return Vec::new();
    };
    let names = stmt.query_map([table], |row| {
        Ok(match row.get_ref(0)? {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                String::from_utf8_lossy(bytes).into_owned()
            }
            other => render_value(other),
        })
    });
    let names = names.and_then(|rows| rows.collect::<Result<Vec<_>, _>>());
    names.unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{self, Rng};
    use crate::{FileType, Locator, UnitKind};

    fn input(bytes: &[u8]) -> Input<'_> {
        Input {
            tail: &[],
            name: "Apps/shelf.sqlite",
            bytes,
            size: bytes.len() as u64,
            file_type: FileType::Sqlite,
        }
    }

    /// Builds a database with `setup` and returns its bytes.
    fn database(setup: &str, wal: bool) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        {
            let conn = Connection::open(&path).unwrap();
            if wal {
                conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))
                    .unwrap();
            }
            conn.execute_batch(setup).unwrap();
        }
        std::fs::read(&path).unwrap()
    }

    const SETUP: &str = "
        CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, pages INTEGER, price REAL,
                            cover BLOB, notes TEXT);
        INSERT INTO books VALUES (1, 'Educated', 334, 12.0, x'00010203', NULL);
        INSERT INTO books VALUES (5, 'Cadillac Desert', 582, 9.5, NULL, 'line one
line two');
        CREATE TABLE tags (name TEXT PRIMARY KEY, n INT) WITHOUT ROWID;
        INSERT INTO tags VALUES ('water', 3), ('climate', 2);
        CREATE TABLE empty (a TEXT);
        CREATE VIEW v AS SELECT title FROM books;
        CREATE INDEX books_title ON books(title);";

    /// Column and table names that are not UTF-8 once panicked inside rusqlite; the rows
    /// are indexed under lossily decoded names, and a table whose own name cannot be put
    /// in a query is named as an error, not dropped without a word.
    #[test]
    fn names_that_are_not_utf8_keep_their_rows() {
        let kept = include_bytes!("../fuzz-regressions/sqlite-non-utf8-names.bin");
        let c = convert(&input(&kept[1..])).unwrap();
        assert_eq!(c.units.len(), 1, "{:#?}", c.units);
        let text = &c.units[0].text;
        assert!(
            text.contains("Ada Lovelace") && text.contains("Grace Hopper"),
            "{text}"
        );
        assert!(
            text.contains("id | nam\u{fffd}\u{fffd} | caf\u{fffd}\u{fffd}s"),
            "{text}"
        );
        let errors = &c.meta.extra["errors"];
        assert!(errors.contains("not UTF-8"), "{errors}");
    }

    #[test]
    fn tables_become_row_groups() {
        let bytes = database(SETUP, false);
        let c = convert(&input(&bytes)).unwrap();
        assert_eq!(c.meta.page_count, Some(3));
        assert_eq!(c.units.len(), 2, "{:#?}", c.units);
        let books = &c.units[0];
        assert_eq!(books.kind(), UnitKind::Rows);
        assert_eq!(
            books.text,
            "Table: books\nid | title | pages | price | cover | notes\n\
             1 | Educated | 334 | 12 | <blob 4 bytes>\n\
             5 | Cadillac Desert | 582 | 9.5 |  | line one line two"
        );
        assert_eq!(books.locator, Locator::rows("books", 1, 5));
        assert_eq!(books.title.as_deref(), Some("books"));
        let tags = &c.units[1];
        assert_eq!(tags.text, "Table: tags\nname | n\nclimate | 2\nwater | 3");
        assert_eq!(tags.locator, Locator::rows("tags", 1, 2));
        assert!(!c.meta.extra.contains_key("errors"));
    }

    #[test]
    fn many_rows_split_into_groups() {
        let mut setup = String::from("CREATE TABLE t (x INTEGER); BEGIN;");
        for i in 0..130 {
            setup.push_str(&format!("INSERT INTO t VALUES ({i});"));
        }
        setup.push_str("COMMIT;");
        let bytes = database(&setup, false);
        let c = convert(&input(&bytes)).unwrap();
        let ranges: Vec<_> = c
            .units
            .iter()
            .map(|u| (u.locator.row_start.unwrap(), u.locator.row_end.unwrap()))
            .collect();
        assert_eq!(ranges, vec![(1, 50), (51, 100), (101, 130)]);
        assert!(c.units.iter().all(|u| u.text.starts_with("Table: t\nx\n")));
    }

    #[test]
    fn wal_mode_database_opens() {
        let bytes = database(SETUP, true);
        assert_eq!(bytes[18], 2, "fixture should be in WAL mode");
        let c = convert(&input(&bytes)).unwrap();
        assert_eq!(c.units.len(), 2);
    }

    #[test]
    fn malformed_databases() {
        assert!(matches!(convert(&input(b"")), Err(ConvertError::Empty)));
        let err = convert(&input(b"hello, not a database at all")).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
        // Right magic, garbage after it.
        let mut garbage = MAGIC.to_vec();
        garbage.extend((0..8192u32).map(|i| (i.wrapping_mul(2654435761) >> 11) as u8));
        assert_eq!(convert(&input(&garbage)).unwrap_err().reason(), "corrupt");
        // Cut in half: either an error or partial results with the failures noted.
        let mut setup = String::from("CREATE TABLE t (x TEXT); BEGIN;");
        for i in 0..2000 {
            setup.push_str(&format!(
                "INSERT INTO t VALUES ('row number {i} with some text');"
            ));
        }
        setup.push_str("COMMIT;");
        let bytes = database(&setup, false);
        match convert(&input(&bytes[..bytes.len() / 2])) {
            Ok(c) => assert!(c.meta.extra.contains_key("errors"), "{:?}", c.meta),
            Err(e) => assert_eq!(e.reason(), "corrupt"),
        }
    }

    #[test]
    #[cfg_attr(
        not(dentate_shared),
        ignore = "needs ../shared/corpus beside the repository"
    )]
    fn corpus_database_when_present() {
        let path = "../../shared/corpus/realworld/Code/data/Chinook_Sqlite.sqlite";
        let Ok(bytes) = std::fs::read(path) else {
            panic!("missing: {path} not present");
        };
        let c = convert(&input(&bytes)).unwrap();
        assert_eq!(c.meta.page_count, Some(11));
        assert!(c.units[0]
            .text
            .starts_with("Table: Album\nAlbumId | Title | ArtistId\n1 | "));
    }

    #[test]
    fn temp_copy_is_the_input_with_wal_switched_off() {
        let mut rng = Rng(0x5B1C_0000_0000_0001);
        for _ in 0..300 {
            let mut bytes = testutil::random_bytes(&mut rng, 160);
            if bytes.len() >= 20 && rng.one_in(2) {
                bytes[18] = 2;
                bytes[19] = if rng.one_in(3) { 1 } else { 2 };
            }
            let file = write_temp_copy(&bytes).unwrap();
            let copy = std::fs::read(file.path()).unwrap();
            let mut expected = bytes.clone();
            if bytes.len() >= 20 && bytes[18] == 2 && bytes[19] == 2 {
                expected[18] = 1;
                expected[19] = 1;
            }
            assert_eq!(copy, expected);
        }
    }

    #[test]
    fn damaged_databases_do_not_panic() {
        let base = database(SETUP, false);
        let mut rng = Rng(0x5B1C_0000_0000_0002);
        for _ in 0..150 {
            let mut bytes = testutil::mutate(&mut rng, &base);
            if rng.one_in(2) && bytes.len() >= MAGIC.len() {
                // Mostly keep the magic so the damage reaches SQLite itself.
                bytes[..MAGIC.len()].copy_from_slice(MAGIC);
            }
            match convert(&input(&bytes)) {
                Ok(c) => {
                    testutil::check_conversion(&c, "sqlite");
                    for unit in &c.units {
                        assert!(unit.locator.sheet.is_some(), "{unit:?}");
                    }
                }
                Err(e) => assert!(
                    ["corrupt", "empty", "encrypted"].contains(&e.reason()),
                    "{e}"
                ),
            }
        }
    }
}
