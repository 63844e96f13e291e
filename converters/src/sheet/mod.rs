//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods via calamine) and delimited text (csv, tsv).
//!
//! Every sheet becomes row groups: one [`UnitKind::Rows`] unit per ~300 approximate tokens
//! or 50 rows, whichever comes first. The header row (the first non-empty row) is repeated
//! at the top of every unit, so each unit can be read on its own:
//!
//! ```text
//! Sheet: Budget
//! Item | Amount | Date
//! Rent | 1200 | 2025-10-01
//! ```
//!
//! Locators hold the sheet name (None for csv/tsv) and the 1-based row range as in the
//! source: the sheet row for workbooks, the physical line for csv (a quoted field with
//! embedded newlines spans several lines). The first unit of a sheet starts at the header
//! row; later units start at their first data row.
//!
//! The row grouping ([`RowGrouper`]) is shared with the SQLite converter.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};

use calamine::{Data, Ods, Range, Reader, Sheets, Xls, Xlsb, Xlsx, XlsxError};

use crate::record_dates;
use crate::text::approx_tokens;
use crate::{Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 3;

/// A row group closes once its text reaches this many approximate tokens…
pub(crate) const GROUP_TOKENS: usize = 300;
/// …or holds this many data rows.
pub(crate) const GROUP_ROWS: usize = 50;
/// Rows read per sheet / table / csv file; the rest is dropped and noted in the metadata.
pub(crate) const MAX_ROWS: usize = 200_000;
/// Columns kept per row (a damaged sheet may claim a cell in column XFD).
const MAX_COLUMNS: u32 = 512;
/// A single cell's rendered text is cut at this many characters.
const MAX_CELL_CHARS: usize = 10_000;

const OLE2_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

// ---------------------------------------------------------------------------------------
// Row grouping (shared with sqlite.rs)
// ---------------------------------------------------------------------------------------

/// Collects rendered rows of one sheet/table/file and cuts them into row-group units with
/// the header repeated at the top of each.
pub(crate) struct RowGrouper {
    /// First line of every unit ("Sheet: Budget", "Table: users"), or none (csv).
    label: Option<String>,
    /// Locator sheet/table name.
    sheet: Option<String>,
    header: Option<String>,
    rows: Vec<String>,
    row_start: u64,
    row_end: u64,
    tokens: usize,
    units: Vec<Unit>,
}

impl RowGrouper {
    /// A grouper whose units start with `label` and carry `sheet` in their locator (and
    /// as their title).
    pub(crate) fn new(label: Option<String>, sheet: Option<String>) -> RowGrouper {
        RowGrouper {
            label,
            sheet,
            header: None,
            rows: Vec::new(),
            row_start: 0,
            row_end: 0,
            tokens: 0,
            units: Vec::new(),
        }
    }

    /// Adds one row (1-based source row number, cell texts). Empty rows are skipped; the
    /// first non-empty row becomes the header.
    pub(crate) fn push(&mut self, row_number: u64, cells: &[String]) {
        self.push_span(row_number, row_number, cells);
    }

    /// Adds one row that spans source rows `first..=last` (a csv record with embedded
    /// newlines).
    pub(crate) fn push_span(&mut self, first: u64, last: u64, cells: &[String]) {
        let Some(line) = render_row(cells) else {
            return;
        };
        match &self.header {
            None => {
                self.tokens = self.base_tokens() + approx_tokens(&line);
                self.header = Some(line);
                self.row_start = first;
                self.row_end = last;
            }
            Some(_) => {
                if self.rows.is_empty() && !self.units.is_empty() {
                    self.row_start = first;
                    self.row_end = last;
                }
                // Rows may come out of order (a damaged database's b-tree, found by
                // fuzzing): the range covers them all.
                self.row_start = self.row_start.min(first);
                self.row_end = self.row_end.max(last);
                self.tokens += approx_tokens(&line);
                self.rows.push(line);
                if self.rows.len() >= GROUP_ROWS || self.tokens >= GROUP_TOKENS {
                    self.flush();
                }
            }
        }
    }

    /// Closes the last group and returns all units, each dated by the dates its rows
    /// hold (slashed dates read in the order the whole sheet shows).
    pub(crate) fn finish(mut self) -> Vec<Unit> {
        if !self.rows.is_empty() || (self.units.is_empty() && self.header.is_some()) {
            self.flush();
        }
        let heading_lines = usize::from(self.label.is_some()) + 1;
        let order = record_dates::slash_order(
            self.units
                .iter()
                .flat_map(|unit| rows_of(unit, heading_lines)),
        );
        self.units
            .into_iter()
            .map(|unit| {
                let dates: Vec<chrono::NaiveDate> = rows_of(&unit, heading_lines)
                    .flat_map(|row| record_dates::dates_with_order(row, order))
                    .collect();
                unit.with_record_dates(&dates)
            })
            .collect()
    }

    fn base_tokens(&self) -> usize {
        self.label.as_deref().map(approx_tokens).unwrap_or(0)
    }

    fn flush(&mut self) {
        let Some(header) = &self.header else {
            return;
        };
        let mut text = String::new();
        if let Some(label) = &self.label {
            text.push_str(label);
            text.push('\n');
        }
        text.push_str(header);
        for row in &self.rows {
            text.push('\n');
            text.push_str(row);
        }
        let locator = Locator {
            sheet: self.sheet.clone(),
            row_start: Some(self.row_start),
            row_end: Some(self.row_end),
            ..Locator::default()
        };
        let mut unit = Unit::new(UnitKind::Rows, locator, text);
        if let Some(sheet) = &self.sheet {
            unit = unit.with_title(sheet.clone());
        }
        self.units.push(unit);
        self.rows.clear();
        self.tokens = self.base_tokens() + approx_tokens(header);
    }
}

/// The row lines of a row-group unit: its text after the label and the header.
fn rows_of(unit: &Unit, heading_lines: usize) -> impl Iterator<Item = &str> {
    unit.text.lines().skip(heading_lines)
}

/// Joins cells with " | ", trailing empty cells trimmed; None for an all-empty row.
fn render_row(cells: &[String]) -> Option<String> {
    let last = cells.iter().rposition(|c| !c.trim().is_empty())?;
    let parts: Vec<&str> = cells[..=last].iter().map(|c| c.trim()).collect();
    Some(parts.join(" | "))
}

/// Collapses whitespace (newlines included) to single spaces and caps the length.
pub(crate) fn clean_cell(value: &str) -> String {
    let mut out = String::with_capacity(value.len().min(MAX_CELL_CHARS));
    let mut chars = 0;
    for word in value.split_whitespace() {
        if chars >= MAX_CELL_CHARS {
            out.push('…');
            break;
        }
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        out.push_str(word);
        chars += word.chars().count();
    }
    out
}

/// A number without a spurious ".0" (1200.0 → "1200", 0.25 → "0.25").
pub(crate) fn format_number(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

// ---------------------------------------------------------------------------------------
// Workbooks
// ---------------------------------------------------------------------------------------

/// The non-empty rendered cells of one sheet: absolute 0-based row → (column, text).
type SheetCells = BTreeMap<u32, Vec<(u32, String)>>;

struct SheetRead {
    cells: SheetCells,
    truncated: bool,
    /// Cells past [`MAX_COLUMNS`] were left out.
    wide: bool,
}

/// Converts an xlsx / xlsm / xlsb / xls / ods workbook into row groups per sheet.
pub(crate) fn convert_workbook(input: &Input) -> Result<Conversion, ConvertError> {
    let format = input.file_type.as_str();
    if input.bytes.is_empty() {
        return Err(ConvertError::Empty);
    }
    let mut workbook = open_workbook(input, format)?;
    let names = workbook.sheet_names();
    let mut meta = workbook_meta(&mut workbook);
    meta.page_count = Some(names.len() as u32);

    let mut units = Vec::new();
    let mut errors = Vec::new();
    let mut truncated = Vec::new();
    let mut too_wide = Vec::new();
    for name in &names {
        let read = catch_unwind(AssertUnwindSafe(|| read_sheet(&mut workbook, name)));
        match read {
            Ok(Ok(Some(sheet))) => {
                if sheet.truncated {
                    truncated.push(name.clone());
                }
                let (sheet_rows, wide) = sheet_units(name, &sheet.cells);
                if wide || sheet.wide {
                    too_wide.push(name.clone());
                }
                units.extend(sheet_rows);
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => errors.push(format!("{name}: {e}")),
            Err(_) => errors.push(format!("{name}: reader crashed")),
        }
    }
    if units.is_empty() && !errors.is_empty() && errors.len() == names.len() {
        return Err(ConvertError::corrupt(
            format,
            lower_first(&errors.join("; ")),
        ));
    }
    if !errors.is_empty() {
        meta.extra.insert("errors".into(), errors.join("; "));
    }
    let mut notes = Vec::new();
    if !truncated.is_empty() {
        notes.push(format!(
            "first {MAX_ROWS} rows kept of: {}",
            truncated.join(", ")
        ));
    }
    if !too_wide.is_empty() {
        notes.push(format!(
            "first {MAX_COLUMNS} columns kept of: {}",
            too_wide.join(", ")
        ));
    }
    if !notes.is_empty() {
        meta.extra.insert("truncated".into(), notes.join("; "));
    }
    Ok(Conversion {
        units,
        meta,
        children: Vec::new(),
    })
}

type Book<'a> = Sheets<Cursor<&'a [u8]>>;

/// Opens the workbook with the reader its magic bytes and extension call for.
fn open_workbook<'a>(input: &Input<'a>, format: &'static str) -> Result<Book<'a>, ConvertError> {
    let bytes = input.bytes;
    let ext = crate::extension_of(input.name);
    let opened = catch_unwind(|| {
        if bytes.starts_with(OLE2_MAGIC) {
            if is_encrypted_ooxml(bytes) {
                return Err(ConvertError::encrypted(format, "password required"));
            }
            return Xls::new(Cursor::new(bytes))
                .map(Sheets::Xls)
                .map_err(|e| book_error(format, calamine::Error::Xls(e)));
        }
        if !bytes.starts_with(b"PK") {
            return Err(ConvertError::corrupt(
                format,
                "not a spreadsheet (no zip or ole2 header)",
            ));
        }
        let first = if ext == "ods" || format == "ods" {
            Ods::new(Cursor::new(bytes))
                .map(Sheets::Ods)
                .map_err(calamine::Error::Ods)
        } else if ext == "xlsb" {
            Xlsb::new(Cursor::new(bytes))
                .map(Sheets::Xlsb)
                .map_err(calamine::Error::Xlsb)
        } else {
            Xlsx::new(Cursor::new(bytes))
                .map(Sheets::Xlsx)
                .map_err(calamine::Error::Xlsx)
        };
        match first {
            Ok(book) => Ok(book),
            Err(first_error) => calamine::open_workbook_auto_from_rs(Cursor::new(bytes))
                .map_err(|_| book_error(format, first_error)),
        }
    });
    match opened {
        Ok(result) => result,
        Err(_) => Err(ConvertError::corrupt(
            format,
            "reader crashed while opening",
        )),
    }
}

/// An encrypted OOXML file is an OLE2 container holding `EncryptionInfo` and
/// `EncryptedPackage` streams (names stored in UTF-16LE).
pub(crate) fn is_encrypted_ooxml(bytes: &[u8]) -> bool {
    let needle: Vec<u8> = "EncryptedPackage"
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    bytes.starts_with(OLE2_MAGIC) && bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

fn book_error(format: &'static str, error: calamine::Error) -> ConvertError {
    let password = matches!(
        &error,
        calamine::Error::Xlsx(XlsxError::Password)
            | calamine::Error::Xls(calamine::XlsError::Password)
            | calamine::Error::Xlsb(calamine::XlsbError::Password)
            | calamine::Error::Ods(calamine::OdsError::Password)
    );
    if password {
        ConvertError::encrypted(format, "password required")
    } else {
        ConvertError::corrupt(format, lower_first(&error.to_string()))
    }
}

fn lower_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Title, author and creation time from the workbook's document properties.
fn workbook_meta(book: &mut Book) -> FileMeta {
    let mut meta = FileMeta::default();
    let props = catch_unwind(AssertUnwindSafe(|| book.workbook_properties()));
    if let Ok(Ok(props)) = props {
        meta.title = props.title.filter(|t| !t.trim().is_empty());
        meta.author = props.creator.filter(|t| !t.trim().is_empty());
        meta.created = props
            .created
            .and_then(|c| chrono::DateTime::parse_from_rfc3339(c.trim()).ok());
    }
    meta
}

/// Reads one sheet's non-empty cells; None for sheets that hold no cells (chart sheets).
fn read_sheet(book: &mut Book, name: &str) -> Result<Option<SheetRead>, String> {
    match book {
        Sheets::Xlsx(xlsx) => read_xlsx_sheet(xlsx, name),
        other => {
            let range = other
                .worksheet_range(name)
                .map_err(|e| lower_first(&e.to_string()))?;
            Ok(Some(read_range(&range)))
        }
    }
}

/// Streams an xlsx sheet's cells (a dense range would allocate rows × columns, which a
/// damaged file can make enormous).
fn read_xlsx_sheet(
    xlsx: &mut Xlsx<Cursor<&[u8]>>,
    name: &str,
) -> Result<Option<SheetRead>, String> {
    let mut reader = match xlsx.worksheet_cells_reader(name) {
        Ok(reader) => reader,
        Err(XlsxError::NotAWorksheet(_)) => return Ok(None),
        Err(e) => return Err(lower_first(&e.to_string())),
    };
    let mut cells = SheetCells::new();
    let mut truncated = false;
    loop {
        let cell = match reader.next_cell() {
            Ok(Some(cell)) => cell,
            Ok(None) => break,
            Err(e) if cells.is_empty() => return Err(lower_first(&e.to_string())),
            Err(_) => break,
        };
        let (row, col) = cell.get_position();
        let text = render_cell(&Data::from(cell.get_value().clone()));
        if text.is_empty() {
            continue;
        }
        if !cells.contains_key(&row) && cells.len() >= MAX_ROWS {
            truncated = true;
            continue;
        }
        cells.entry(row).or_default().push((col, text));
    }
    Ok(Some(SheetRead {
        cells,
        truncated,
        wide: false,
    }))
}

fn read_range(range: &Range<Data>) -> SheetRead {
    let mut cells = SheetCells::new();
    let mut truncated = false;
    let mut wide = false;
    let Some((row0, col0)) = range.start() else {
        return SheetRead {
            cells,
            truncated,
            wide,
        };
    };
    for (i, row) in range.rows().enumerate() {
        if cells.len() >= MAX_ROWS {
            truncated = true;
            break;
        }
        let abs_row = row0.saturating_add(i as u32);
        wide |= row
            .iter()
            .skip(MAX_COLUMNS as usize)
            .any(|v| !matches!(v, Data::Empty));
        let rendered: Vec<(u32, String)> = row
            .iter()
            .enumerate()
            .take(MAX_COLUMNS as usize)
            .filter_map(|(j, v)| {
                let text = render_cell(v);
                (!text.is_empty()).then(|| (col0.saturating_add(j as u32), text))
            })
            .collect();
        if !rendered.is_empty() {
            cells.insert(abs_row, rendered);
        }
    }
    SheetRead {
        cells,
        truncated,
        wide,
    }
}

/// Row groups of one sheet; columns aligned on the sheet's leftmost used column. True
/// with them when cells past [`MAX_COLUMNS`] were left out.
fn sheet_units(name: &str, cells: &SheetCells) -> (Vec<Unit>, bool) {
    let mut wide = false;
    let min_col = cells
        .values()
        .flat_map(|row| row.iter().map(|(c, _)| *c))
        .min()
        .unwrap_or(0);
    let mut grouper = RowGrouper::new(Some(format!("Sheet: {name}")), Some(name.to_string()));
    for (row, row_cells) in cells {
        let mut line: Vec<String> = Vec::new();
        for (col, text) in row_cells {
            let index = col.saturating_sub(min_col);
            if index >= MAX_COLUMNS {
                wide = true;
                continue;
            }
            let index = index as usize;
            if line.len() <= index {
                line.resize(index + 1, String::new());
            }
            if let Some(slot) = line.get_mut(index) {
                *slot = text.clone();
            }
        }
        grouper.push(u64::from(*row) + 1, &line);
    }
    (grouper.finish(), wide)
}

/// Renders one cell: numbers without ".0", dates as ISO dates, errors as Excel shows them.
fn render_cell(value: &Data) -> String {
    match value {
        Data::Empty => String::new(),
        Data::String(s) => clean_cell(s),
        Data::Int(i) => i.to_string(),
        Data::Float(f) => format_number(*f),
        Data::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        Data::DateTime(dt) => render_excel_datetime(dt),
        Data::DateTimeIso(s) => render_iso_datetime(s),
        Data::DurationIso(s) => clean_cell(s),
        Data::Error(e) => e.to_string(),
    }
}

fn render_excel_datetime(dt: &calamine::ExcelDateTime) -> String {
    let serial = dt.as_f64();
    if dt.is_duration() {
        let total = (serial * 86_400.0).round() as i64;
        let sign = if total < 0 { "-" } else { "" };
        // unsigned_abs: i64::MIN (a huge negative serial) has no positive i64.
        let total = total.unsigned_abs();
        return format!(
            "{sign}{}:{:02}:{:02}",
            total / 3600,
            (total / 60) % 60,
            total % 60
        );
    }
    if (0.0..1.0).contains(&serial) {
        let secs = (serial * 86_400.0).round() as i64;
        return format_clock(secs / 3600, (secs / 60) % 60, secs % 60);
    }
    // calamine's conversion panics (chrono `Duration::milliseconds`) on serials of about
    // -1e11 days and below; no serial this far from 1900 is a date chrono can hold anyway.
    if serial.abs() >= 1e8 {
        return format_number(serial);
    }
    match dt.as_datetime() {
        Some(naive) => format_naive(naive),
        None => format_number(serial),
    }
}

fn format_clock(h: i64, m: i64, s: i64) -> String {
    if s == 0 {
        format!("{h:02}:{m:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

/// "2025-10-04", or "2025-10-04 13:22" / "2025-10-04 13:22:05" when the time is not zero.
pub(crate) fn format_naive(naive: chrono::NaiveDateTime) -> String {
    use chrono::Timelike;
    let date = naive.date().format("%Y-%m-%d").to_string();
    let (h, m, s) = (naive.hour(), naive.minute(), naive.second());
    if h == 0 && m == 0 && s == 0 {
        date
    } else {
        format!("{date} {}", format_clock(h.into(), m.into(), s.into()))
    }
}

/// ISO dates as stored by ods / xlsx `t="d"` cells: "2025-10-04T00:00:00" → "2025-10-04".
fn render_iso_datetime(value: &str) -> String {
    let value = value.trim();
    let formats = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
    ];
    for f in formats {
        if let Ok(naive) = chrono::NaiveDateTime::parse_from_str(value, f) {
            return format_naive(naive);
        }
    }
    clean_cell(value)
}

// ---------------------------------------------------------------------------------------
// Delimited text
// ---------------------------------------------------------------------------------------

pub(crate) mod delimited;

#[cfg(test)]
mod tests;
