use std::io::Write;

use super::delimited::*;
use super::*;
use crate::testutil::{self, Rng};
use crate::FileType;

fn input<'a>(name: &'a str, bytes: &'a [u8], file_type: FileType) -> Input<'a> {
    Input {
        tail: &[],
        name,
        bytes,
        size: bytes.len() as u64,
        file_type,
    }
}

fn csv(name: &str, text: &str) -> Result<Conversion, ConvertError> {
    convert_delimited(&input(name, text.as_bytes(), FileType::Csv))
}

#[test]
fn csv_semicolon_quotes_and_embedded_newline() {
    let text = "Name;Note;Amount\r\n\"Smith; John\";\"line one\nline two\";1,50\r\nDoe;\"say \"\"hi\"\"\";2\r\n";
    let c = csv("bank.csv", text).unwrap();
    assert_eq!(c.meta.extra["delimiter"], "semicolon");
    assert_eq!(c.units.len(), 1);
    let u = &c.units[0];
    assert_eq!(u.kind(), UnitKind::Rows);
    assert_eq!(
        u.text,
        "Name | Note | Amount\nSmith; John | line one line two | 1,50\nDoe | say \"hi\" | 2"
    );
    // The quoted field spans lines 2-3, so the last record is on line 4.
    assert_eq!(u.locator.row_start, Some(1));
    assert_eq!(u.locator.row_end, Some(4));
    assert_eq!(u.locator.sheet, None);
}

#[test]
fn csv_bom_comma_and_trailing_empty_cells() {
    let text = "\u{feff}a,b,c\n\n1,,\n2,x,\n";
    let c = csv("t.csv", text).unwrap();
    assert_eq!(c.meta.extra["delimiter"], "comma");
    assert_eq!(c.units[0].text, "a | b | c\n1\n2 | x");
    assert_eq!(c.units[0].locator.row_end, Some(4));
}

#[test]
fn tsv_uses_tabs_and_pipes_sniffed() {
    let tsv = "x\ty\n1\t2\n";
    let c = convert_delimited(&input("t.tsv", tsv.as_bytes(), FileType::Tsv)).unwrap();
    assert_eq!(c.units[0].text, "x | y\n1 | 2");
    let c = csv("p.csv", "k|v\na|1\nb|2\n").unwrap();
    assert_eq!(c.meta.extra["delimiter"], "pipe");
    assert_eq!(c.units[0].text, "k | v\na | 1\nb | 2");
}

#[test]
fn rows_are_grouped_with_header_repeated() {
    let mut text = String::from("id,word\n");
    for i in 1..=120 {
        text.push_str(&format!("{i},w{i}\n"));
    }
    let c = csv("g.csv", &text).unwrap();
    assert_eq!(c.units.len(), 3);
    let ranges: Vec<(u64, u64)> = c
        .units
        .iter()
        .map(|u| (u.locator.row_start.unwrap(), u.locator.row_end.unwrap()))
        .collect();
    assert_eq!(ranges, vec![(1, 51), (52, 101), (102, 121)]);
    for u in &c.units {
        assert!(u.text.starts_with("id | word\n"));
    }
    assert!(c.units[1].text.contains("\n51 | w51\n"));
}

#[test]
fn long_rows_close_groups_by_tokens() {
    let mut text = String::from("id,text\n");
    let long = "lorem ipsum dolor sit amet ".repeat(10);
    for i in 1..=20 {
        text.push_str(&format!("{i},{long}\n"));
    }
    let c = csv("long.csv", &text).unwrap();
    assert!(c.units.len() > 3, "{} units", c.units.len());
    for u in &c.units {
        assert!(approx_tokens(&u.text) < GROUP_TOKENS + 80);
    }
}

#[test]
fn csv_malformed_inputs() {
    assert!(matches!(csv("e.csv", ""), Err(ConvertError::Empty)));
    let binary = [0u8, 1, 2, 0, 255, 0, 7];
    let err = convert_delimited(&input("b.csv", &binary, FileType::Csv)).unwrap_err();
    assert_eq!(err.reason(), "corrupt");
    // An unterminated quote does not panic; the rest of the file becomes one field.
    let c = csv("q.csv", "a,b\n\"open,1\n2,3\n").unwrap();
    assert_eq!(c.units.len(), 1);
    // A file of only blank lines gives no units.
    assert!(csv("blank.csv", "\n\n,,\n").unwrap().units.is_empty());
}

#[test]
fn number_and_date_rendering() {
    assert_eq!(format_number(1200.0), "1200");
    assert_eq!(format_number(0.25), "0.25");
    assert_eq!(format_number(-3.0), "-3");
    assert_eq!(format_number(1e20), "100000000000000000000");
    assert_eq!(render_iso_datetime("2025-10-04T00:00:00"), "2025-10-04");
    assert_eq!(
        render_iso_datetime("2025-10-04T13:22:00"),
        "2025-10-04 13:22"
    );
    let dt = calamine::ExcelDateTime::new(45943.5, calamine::ExcelDateTimeType::DateTime, false);
    assert_eq!(render_excel_datetime(&dt), "2025-10-13 12:00");
    let dt = calamine::ExcelDateTime::new(45943.0, calamine::ExcelDateTimeType::DateTime, false);
    assert_eq!(render_excel_datetime(&dt), "2025-10-13");
    let t = calamine::ExcelDateTime::new(0.5, calamine::ExcelDateTimeType::DateTime, false);
    assert_eq!(render_excel_datetime(&t), "12:00");
    let d = calamine::ExcelDateTime::new(1.5, calamine::ExcelDateTimeType::TimeDelta, false);
    assert_eq!(render_excel_datetime(&d), "36:00:00");
}

/// A minimal xlsx: sheet "Budget" with data from B3 (a title-less header at row 3),
/// a date cell styled with built-in format 14, and a second sheet.
fn tiny_xlsx_files() -> [(&'static str, String); 7] {
    [
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>"#.into(),
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.into(),
        ),
        (
            "xl/workbook.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Budget" sheetId="1" r:id="rId1"/><sheet name="Notes" sheetId="2" r:id="rId2"/></sheets></workbook>"#.into(),
        ),
        (
            "xl/_rels/workbook.xml.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>"#.into(),
        ),
        (
            "xl/styles.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>"#.into(),
        ),
        (
            "xl/worksheets/sheet1.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>
<row r="3"><c r="B3" t="inlineStr"><is><t>Item</t></is></c><c r="C3" t="inlineStr"><is><t>Amount</t></is></c><c r="D3" t="inlineStr"><is><t>Date</t></is></c></row>
<row r="4"><c r="B4" t="inlineStr"><is><t>Rent</t></is></c><c r="C4"><v>1200</v></c><c r="D4" s="1"><v>45931</v></c></row>
<row r="6"><c r="B6" t="inlineStr"><is><t>Coffee</t></is></c><c r="C6"><v>3.5</v></c></row>
</sheetData></worksheet>"#.into(),
        ),
        (
            "xl/worksheets/sheet2.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Remember the milk</t></is></c></row></sheetData></worksheet>"#.into(),
        ),
    ]
}

fn xlsx_of(files: &[(&str, String)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(body.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn tiny_xlsx() -> Vec<u8> {
    xlsx_of(&tiny_xlsx_files())
}

#[test]
fn xlsx_sheets_rows_and_dates() {
    let bytes = tiny_xlsx();
    let c = convert_workbook(&input("budget.xlsx", &bytes, FileType::Xlsx)).unwrap();
    assert_eq!(c.meta.page_count, Some(2));
    assert_eq!(c.units.len(), 2);
    let budget = &c.units[0];
    assert_eq!(
        budget.text,
        "Sheet: Budget\nItem | Amount | Date\nRent | 1200 | 2025-10-01\nCoffee | 3.5"
    );
    assert_eq!(budget.locator, Locator::rows("Budget", 3, 6));
    assert_eq!(budget.title.as_deref(), Some("Budget"));
    let notes = &c.units[1];
    assert_eq!(notes.text, "Sheet: Notes\nRemember the milk");
    assert_eq!(notes.locator, Locator::rows("Notes", 1, 1));
}

#[test]
fn workbook_malformed_inputs() {
    let bytes = tiny_xlsx();
    let xlsx = |b: &[u8]| convert_workbook(&input("x.xlsx", b, FileType::Xlsx));
    assert!(matches!(xlsx(b""), Err(ConvertError::Empty)));
    assert_eq!(
        xlsx(&bytes[..bytes.len() / 2]).unwrap_err().reason(),
        "corrupt"
    );
    assert_eq!(
        xlsx(b"just some text, not a workbook")
            .unwrap_err()
            .reason(),
        "corrupt"
    );
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    assert_eq!(xlsx(&noise).unwrap_err().reason(), "corrupt");
    let mut zip_noise = b"PK\x03\x04".to_vec();
    zip_noise.extend_from_slice(&noise);
    assert_eq!(xlsx(&zip_noise).unwrap_err().reason(), "corrupt");
    // An OLE2 container holding EncryptedPackage is a password-protected OOXML file.
    let mut ole = OLE2_MAGIC.to_vec();
    ole.extend_from_slice(&[0u8; 504]);
    ole.extend(
        "EncryptedPackage"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes()),
    );
    assert_eq!(xlsx(&ole).unwrap_err().reason(), "encrypted");
    // A cut OLE2 container named .xls.
    let xls = convert_workbook(&input("x.xls", &ole[..512], FileType::Xls));
    assert_eq!(xls.unwrap_err().reason(), "corrupt");
}

#[test]
#[cfg_attr(
    not(dentate_shared),
    ignore = "needs ../shared/corpus beside the repository"
)]
fn broken_corpus_workbook_is_an_error() {
    let path = "../../shared/corpus/realworld/Broken/invalid.xlsx";
    let Ok(bytes) = std::fs::read(path) else {
        panic!("missing: {path} not present");
    };
    let err = convert_workbook(&input("invalid.xlsx", &bytes, FileType::Xlsx)).unwrap_err();
    assert_eq!(err.reason(), "corrupt");
}

#[test]
fn excel_datetimes_render_for_every_serial() {
    use calamine::{ExcelDateTime, ExcelDateTimeType};
    let mut rng = Rng(0xE8CE_1DA7_E000_0001);
    let mut serials: Vec<f64> = testutil::EDGE_F64.to_vec();
    serials.extend((0..2000).map(|_| match rng.below(3) {
        0 => f64::from_bits(rng.next()),
        1 => (rng.next() as i64) as f64 / 1e6,
        _ => rng.below(200_000) as f64 / 3.0 - 20_000.0,
    }));
    let clock = |s: &str| {
        let parts: Vec<&str> = s.trim_start_matches('-').split(':').collect();
        (2..=3).contains(&parts.len())
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    for serial in serials {
        for is_1904 in [false, true] {
            let duration = ExcelDateTime::new(serial, ExcelDateTimeType::TimeDelta, is_1904);
            let text = render_excel_datetime(&duration);
            assert!(
                clock(&text) && text.matches(':').count() == 2,
                "{serial}: {text}"
            );
            let moment = ExcelDateTime::new(serial, ExcelDateTimeType::DateTime, is_1904);
            let text = render_excel_datetime(&moment);
            assert!(!text.is_empty(), "{serial}");
            if (0.0..1.0).contains(&serial) {
                assert!(clock(&text), "{serial}: {text}");
            }
            let _ = render_cell(&Data::DateTime(moment));
            let _ = render_cell(&Data::Float(serial));
        }
    }
    for _ in 0..500 {
        let iso = testutil::random_text(
            &mut rng,
            &["2025-10-04", "T", "13:22:05", ".5", "Z", "é", " ", "-", ":"],
            8,
        );
        let _ = render_iso_datetime(&iso);
        let _ = render_cell(&Data::DurationIso(iso));
    }
}

/// Physical lines of a text without quotes: what `Records` must split it into.
fn physical_lines(text: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' || c == '\n' {
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
            }
            lines.push(String::new());
        } else if let Some(line) = lines.last_mut() {
            line.push(c);
        }
    }
    if text.ends_with(['\r', '\n']) {
        lines.pop();
    }
    if text.is_empty() {
        lines.clear();
    }
    lines
}

#[test]
fn records_split_random_text_and_track_lines() {
    let mut rng = Rng(0xC5F0_0000_0000_0001);
    for _ in 0..2000 {
        let text = testutil::random_text(&mut rng, testutil::TEXT_PIECES, 80);
        let delimiter = *rng.pick(&[',', ';', '\t', '|', '€']);
        let records: Vec<Record> = Records::new(&text, delimiter).collect();
        if let Some(first) = records.first() {
            assert_eq!(first.line_start, 1);
        }
        for pair in records.windows(2) {
            assert_eq!(pair[1].line_start, pair[0].line_end + 1, "{text:?}");
        }
        for record in &records {
            assert!(record.line_start <= record.line_end && !record.fields.is_empty());
        }
        if !text.contains('"') {
            let lines = physical_lines(&text);
            let joined: Vec<String> = records
                .iter()
                .map(|r| r.fields.join(&delimiter.to_string()))
                .collect();
            assert_eq!(joined, lines, "{text:?}");
        }
        assert!([',', ';', '\t', '|'].contains(&sniff_delimiter(&text)));
        let cell = clean_cell(&text);
        assert_eq!(cell, text.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    // The delimiter is sniffed from the first 64 Ki characters: cut at a char boundary.
    for piece in ["é", "𝄞", "漢字", "a;b", "\"x\n"] {
        let text = piece.repeat(70_000 / piece.chars().count());
        assert!([',', ';', '\t', '|'].contains(&sniff_delimiter(&text)));
    }
    let huge = "é".repeat(MAX_CELL_CHARS * 2) + " x";
    let cell = clean_cell(&huge);
    assert!(
        cell.ends_with('…') && !cell.contains('x'),
        "cut after the cap"
    );
}

#[test]
fn damaged_csv_and_workbooks_do_not_panic() {
    let csv_text = "Name;Note;Amount\r\n\"Smith; John\";\"line one\nline two\";1,50\r\nDoe;\"say \"\"hi\"\"\";2\r\n";
    let mut rng = Rng(0x5EE7_0000_0000_0001);
    for _ in 0..300 {
        let bytes = if rng.one_in(2) {
            testutil::mutate(&mut rng, csv_text.as_bytes())
        } else {
            testutil::mutate_text(&mut rng, csv_text, testutil::TEXT_PIECES).into_bytes()
        };
        for file_type in [FileType::Csv, FileType::Tsv] {
            let Ok(c) = convert_delimited(&input("d.csv", &bytes, file_type)) else {
                continue;
            };
            testutil::check_conversion(&c, "csv");
            for pair in c.units.windows(2) {
                assert!(
                    pair[0].locator.row_end <= pair[1].locator.row_start,
                    "{c:?}"
                );
            }
        }
    }
    let files = tiny_xlsx_files();
    for i in 0..120 {
        let bytes = if i % 2 == 0 {
            testutil::mutate(&mut rng, &tiny_xlsx())
        } else {
            let mut files = files.clone();
            let k = rng.below(files.len());
            files[k].1 = testutil::mutate_text(&mut rng, &files[k].1, testutil::TEXT_PIECES);
            xlsx_of(&files)
        };
        let result = testutil::convert_without_panic(
            &input("budget.xlsx", &bytes, FileType::Xlsx),
            "damaged xlsx",
        );
        if let Ok(c) = result {
            testutil::check_conversion(&c, "xlsx");
        }
    }
}

#[test]
fn workbook_cells_with_extreme_numbers_render() {
    // Date- and duration-styled cells holding every edge value: the sheet must be
    // read (no "reader crashed"), whatever the number.
    let mut files = tiny_xlsx_files();
    files[4].1 = files[4].1.replace(
        "<cellXfs count=\"2\"><xf numFmtId=\"0\"/><xf numFmtId=\"14\" applyNumberFormat=\"1\"/>",
        "<cellXfs count=\"3\"><xf numFmtId=\"0\"/><xf numFmtId=\"14\" applyNumberFormat=\"1\"/>\
         <xf numFmtId=\"46\" applyNumberFormat=\"1\"/>",
    );
    let values = testutil::EDGE_NUMBERS
        .iter()
        .map(|n| n.to_string())
        .chain(testutil::EDGE_F64.iter().map(|f| format!("{f:e}")))
        .chain(["-1e300".to_string(), "-inf".to_string(), "NaN".to_string()]);
    for value in values {
        for style in ["1", "2"] {
            let mut files = files.clone();
            files[5].1 = files[5].1.replace(
                "<c r=\"D4\" s=\"1\"><v>45931</v></c>",
                &format!("<c r=\"D4\" s=\"{style}\"><v>{value}</v></c>"),
            );
            let bytes = xlsx_of(&files);
            let c = testutil::convert_without_panic(
                &input("budget.xlsx", &bytes, FileType::Xlsx),
                &value,
            )
            .unwrap();
            assert!(
                !c.meta.extra.contains_key("errors"),
                "{value} s={style}: {:?}",
                c.meta
            );
            assert_eq!(c.units.len(), 2, "{value}");
        }
    }
}

/// Found by fuzzing (`dentate-fuzz sqlite`): a damaged database returned rows out of
/// rowid order and a unit's range came out reversed (548..10).
#[test]
fn rows_out_of_order_give_a_range_that_covers_them() {
    let mut grouper = RowGrouper::new(None, Some("Track".into()));
    let cells = |s: &str| vec![s.to_string(), "x".to_string()];
    grouper.push(1, &cells("name"));
    grouper.push(548, &cells("late"));
    grouper.push(10, &cells("early"));
    let units = grouper.finish();
    assert_eq!(units.len(), 1);
    let locator = &units[0].locator;
    assert_eq!((locator.row_start, locator.row_end), (Some(1), Some(548)));
    crate::testutil::check_conversion(&crate::Conversion::from_units(units), "rows");
}

#[test]
fn rows_are_dated_by_their_own_dates_in_the_sheets_order() {
    // A bank statement: day-first, ambiguous in its first group (days 1-12 of each month),
    // decided by a row of the last group.
    let mut text = String::from("Date,Description,Money out\n");
    for month in 1..=5 {
        for day in 1..=12 {
            text.push_str(&format!("{day:02}/{month:02}/2026,SHOP,1.00\n"));
        }
    }
    text.push_str("28/05/2026,SHOP,1.00\n");
    let c = csv("statement 2026.csv", &text).unwrap();
    assert_eq!(c.units.len(), 2);
    let first = &c.units[0];
    assert_eq!(first.fields["date_start"], "2026-01-01");
    // The group's last row, read day-first (month-first it would be in December).
    let last = first.text.lines().last().unwrap();
    let (day, month) = (&last[..2], &last[3..5]);
    assert_eq!(first.fields["date_end"], format!("2026-{month}-{day}"));
    assert!(first.fields["date_end"].as_str() < "2026-06-01");
    assert_eq!(
        first.content_time.unwrap().to_rfc3339(),
        "2026-01-01T00:00:00+00:00"
    );
    assert_eq!(c.units[1].fields["date_end"], "2026-05-28");

    // An activity export with named months; the header's words are not dates.
    let c = csv(
        "export.csv",
        "Activity Date,Name,Type\n\"Aug 30, 2025, 7:09:16 AM\",Long run,Run\n\"Sep 2, 2025, 6:16:11 PM\",Tuesday,Run\n",
    )
    .unwrap();
    let unit = &c.units[0];
    assert_eq!(unit.fields["date_start"], "2025-08-30");
    assert_eq!(unit.fields["date_end"], "2025-09-02");
    assert_eq!(unit.fields["weekdays"], "Tue,Sat");
}
