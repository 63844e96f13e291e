use lopdf::content::{Content, Operation};
use lopdf::{
    dictionary, Dictionary, Document, EncryptionState, EncryptionVersion, Object, Permissions,
    Stream, StringFormat,
};

use super::*;
use crate::FileType;

fn input(bytes: &[u8]) -> Input<'_> {
    Input {
        tail: &[],
        name: "test.pdf",
        bytes,
        size: bytes.len() as u64,
        file_type: FileType::Pdf,
    }
}

fn op(name: &str, operands: Vec<Object>) -> Operation {
    Operation::new(name, operands)
}

fn text(s: &str) -> Object {
    Object::string_literal(s)
}

fn content_stream(doc: &mut Document, operations: Vec<Operation>) -> lopdf::ObjectId {
    let bytes = Content { operations }.encode().unwrap_or_default();
    doc.add_object(Stream::new(dictionary! {}, bytes))
}

fn utf16_text_string(s: &str) -> Object {
    let mut bytes = vec![0xFE, 0xFF];
    for unit in s.encode_utf16() {
        bytes.extend_from_slice(&unit.to_be_bytes());
    }
    Object::String(bytes, StringFormat::Hexadecimal)
}

/// Three pages: Helvetica text with Tj, TJ kerning, a table row and `'`; a page that
/// draws a Form XObject; an empty page. Roman, then prefixed decimal page labels.
fn sample_document() -> Document {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let form_content = Content {
        operations: vec![
            op("BT", vec![]),
            op("Tf", vec!["F1".into(), 12.into()]),
            op("Td", vec![0.into(), 0.into()]),
            op("Tj", vec![text("Drawn by a form")]),
            op("ET", vec![]),
        ],
    };
    let form_id = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Form",
            "BBox" => vec![0.into(), 0.into(), 300.into(), 50.into()],
            "Matrix" => vec![1.into(), 0.into(), 0.into(), 1.into(), 72.into(), 500.into()],
        },
        form_content.encode().unwrap_or_default(),
    ));
    let resources_id = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font_id },
        "XObject" => dictionary! { "X1" => form_id },
    });
    let page1 = content_stream(
        &mut doc,
        vec![
            op("BT", vec![]),
            op("Tf", vec!["F1".into(), 12.into()]),
            op("Td", vec![72.into(), 700.into()]),
            op("Tj", vec![text("Hello World")]),
            op("Td", vec![0.into(), (-20).into()]),
            op(
                "TJ",
                vec![Object::Array(vec![
                    text("Quar"),
                    20.into(),
                    text("terly"),
                    (-300).into(),
                    text("report"),
                ])],
            ),
            op("ET", vec![]),
            op("BT", vec![]),
            op("Tf", vec!["F1".into(), 10.into()]),
            op("Td", vec![72.into(), 640.into()]),
            op("Tj", vec![text("Purchases of equipment")]),
            op("Td", vec![200.into(), 0.into()]),
            op("Tj", vec![text("(1,577)")]),
            op("Td", vec![60.into(), 0.into()]),
            op("Tj", vec![text("(1,373)")]),
            op("TL", vec![14.into()]),
            op("'", vec![text("Next line")]),
            op("Td", vec![0.into(), (-20).into()]),
            op("Tj", vec![text("sec")]),
            op(
                "BDC",
                vec![
                    "Span".into(),
                    Object::Dictionary(dictionary! { "ActualText" => text("ti") }),
                ],
            ),
            op("Tj", vec![text("X")]),
            op("EMC", vec![]),
            op("Tj", vec![text("on")]),
            op("ET", vec![]),
        ],
    );
    let page2 = content_stream(
        &mut doc,
        vec![
            op("BT", vec![]),
            op("Tf", vec!["F1".into(), 12.into()]),
            op(
                "Tm",
                vec![
                    1.into(),
                    0.into(),
                    0.into(),
                    1.into(),
                    72.into(),
                    700.into(),
                ],
            ),
            op("Tj", vec![text("Second page")]),
            op("ET", vec![]),
            op("q", vec![]),
            op("Do", vec!["X1".into()]),
            op("Q", vec![]),
        ],
    );
    let page3 = content_stream(&mut doc, vec![]);
    let kids: Vec<Object> = [page1, page2, page3]
        .into_iter()
        .map(|content| {
            doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "Contents" => content,
            })
            .into()
        })
        .collect();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => 3,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let labels: Dictionary = dictionary! {
        "Nums" => vec![
            0.into(),
            Object::Dictionary(dictionary! { "S" => "r" }),
            2.into(),
            Object::Dictionary(dictionary! { "S" => "D", "P" => text("A-"), "St" => 5 }),
        ],
    };
    let catalog_id = doc.add_object(dictionary! {
        "Type" => "Catalog",
        "Pages" => pages_id,
        "PageLabels" => labels,
    });
    let info_id = doc.add_object(dictionary! {
        "Title" => utf16_text_string("Résumé Title"),
        "Author" => text("Ann Author"),
        "CreationDate" => text("D:20240315103000+02'00'"),
    });
    doc.trailer.set("Root", catalog_id);
    doc.trailer.set("Info", info_id);
    doc
}

fn save(doc: &mut Document) -> Vec<u8> {
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap_or_default();
    bytes
}

fn sample_bytes() -> Vec<u8> {
    save(&mut sample_document())
}

fn encrypted_bytes(user_password: &str) -> Vec<u8> {
    let mut doc = sample_document();
    doc.trailer.set(
        "ID",
        Object::Array(vec![
            Object::String(b"0123456789abcdef".to_vec(), StringFormat::Literal),
            Object::String(b"0123456789abcdef".to_vec(), StringFormat::Literal),
        ]),
    );
    let version = EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password,
        key_length: 128,
        permissions: Permissions::all(),
    };
    let state = EncryptionState::try_from(version).expect("encryption state");
    doc.encrypt(&state).expect("encrypt");
    save(&mut doc)
}

#[test]
fn extracts_pages_text_labels_and_metadata() {
    let bytes = sample_bytes();
    let conversion = convert(&input(&bytes)).expect("sample converts");
    assert_eq!(conversion.units.len(), 3);
    let page1 = &conversion.units[0];
    assert_eq!(page1.kind(), UnitKind::Page);
    assert_eq!(page1.locator.page, Some(1));
    assert_eq!(page1.locator.page_label.as_deref(), Some("i"));
    let lines: Vec<&str> = page1.text.lines().collect();
    assert_eq!(
        lines,
        [
            "Hello World",
            "Quarterly report",
            "Purchases of equipment (1,577) (1,373)",
            "Next line",
            "section"
        ],
        "page 1 text: {:?}",
        page1.text
    );
    let page2 = &conversion.units[1];
    assert_eq!(page2.locator.page_label.as_deref(), Some("ii"));
    assert_eq!(page2.text, "Second page\nDrawn by a form");
    let page3 = &conversion.units[2];
    assert_eq!(page3.locator.page, Some(3));
    assert_eq!(page3.locator.page_label.as_deref(), Some("A-5"));
    assert_eq!(page3.text, "");

    let meta = &conversion.meta;
    assert_eq!(meta.title.as_deref(), Some("Résumé Title"));
    assert_eq!(meta.author.as_deref(), Some("Ann Author"));
    assert_eq!(meta.page_count, Some(3));
    let created = meta.created.expect("creation date");
    assert_eq!(created.to_rfc3339(), "2024-03-15T10:30:00+02:00");
}

#[test]
fn decrypts_empty_user_password_and_rejects_real_one() {
    let open = encrypted_bytes("");
    let conversion = convert(&input(&open)).expect("empty password opens");
    assert!(conversion.units[0].text.contains("Hello World"));

    let locked = encrypted_bytes("secret");
    match convert(&input(&locked)) {
        Err(ConvertError::Encrypted { detail, .. }) => assert_eq!(detail, "password required"),
        other => panic!("expected encrypted error, got {other:?}"),
    }
}

#[test]
fn malformed_inputs_are_errors() {
    let sample = sample_bytes();
    let truncated = &sample[..sample.len() / 2];
    let random: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let zip_like = b"PK\x03\x04\x14\x00\x00\x00\x08\x00 not a pdf at all".to_vec();
    let header_only = b"%PDF-1.4\n%%EOF\n".to_vec();
    for (name, bytes) in [
        ("empty", &[][..]),
        ("truncated", truncated),
        ("random", &random[..]),
        ("zip", &zip_like[..]),
        ("header only", &header_only[..]),
    ] {
        match convert(&input(bytes)) {
            Err(ConvertError::Corrupt { detail, .. }) => assert!(!detail.is_empty(), "{name}"),
            // A truncated file whose xref lopdf can rebuild may still yield pages.
            Ok(conversion) if name == "truncated" => assert!(!conversion.units.is_empty()),
            other => panic!("{name}: expected corrupt, got {other:?}"),
        }
    }
    match convert(&input(b"hello")) {
        Err(ConvertError::Corrupt { detail, .. }) => assert_eq!(detail, "no %PDF header"),
        other => panic!("expected no header error, got {other:?}"),
    }
}

#[test]
fn self_drawing_form_terminates() {
    let mut doc = sample_document();
    let pages = doc.get_pages();
    let page_id = pages.get(&1).copied().expect("page 1");
    let form_id = doc.new_object_id();
    let form_content = b"BT /F1 12 Tf 10 10 Td (loop) Tj ET /Self Do".to_vec();
    let form = Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Form",
            "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
            "Resources" => dictionary! { "XObject" => dictionary! { "Self" => form_id } },
        },
        form_content,
    );
    doc.objects.insert(form_id, Object::Stream(form));
    let body = content_stream(&mut doc, vec![op("Do", vec!["Self".into()])]);
    let font_id = doc.add_object(
        dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" },
    );
    if let Ok(page) = doc.get_dictionary_mut(page_id) {
        page.set("Contents", body);
        page.set(
            "Resources",
            dictionary! {
                "Font" => dictionary! { "F1" => font_id },
                "XObject" => dictionary! { "Self" => form_id },
            },
        );
    }
    let bytes = save(&mut doc);
    let conversion = convert(&input(&bytes)).expect("converts");
    assert!(conversion.units[0].text.contains("loop"));
}

#[test]
fn parses_pdf_dates() {
    let date = |s: &str| parse_pdf_date(s).map(|d| d.to_rfc3339());
    assert_eq!(date("D:2021").as_deref(), Some("2021-01-01T00:00:00+00:00"));
    assert_eq!(
        date("D:20210704").as_deref(),
        Some("2021-07-04T00:00:00+00:00")
    );
    assert_eq!(
        date("D:20210704153000Z").as_deref(),
        Some("2021-07-04T15:30:00+00:00")
    );
    assert_eq!(
        date("D:20210704153000-05'00'").as_deref(),
        Some("2021-07-04T15:30:00-05:00")
    );
    assert_eq!(
        date("20210704153000+0530").as_deref(),
        Some("2021-07-04T15:30:00+05:30")
    );
    assert_eq!(date("garbage"), None);
}

#[test]
fn cleans_text() {
    assert_eq!(
        clean_text("ﬁnance  re\u{00AD}port \n\n  x\u{0007}y "),
        "finance report\nxy"
    );
}

/// Real files from the shared corpus, when present.
#[test]
#[cfg_attr(
    not(dentate_shared),
    ignore = "needs ../shared/corpus beside the repository"
)]
fn realworld_corpus_when_present() {
    let root = std::path::Path::new("../../shared/corpus/realworld");
    let tenk = root.join("Documents/Finance/10-K/3M_2018_10K.pdf");
    let Ok(bytes) = std::fs::read(&tenk) else {
        panic!("missing: {} not present", tenk.display());
    };
    let conversion = convert(&input(&bytes)).expect("3M 10-K converts");
    assert_eq!(conversion.units.len(), 160);
    assert!(conversion.units.iter().any(|u| u
        .text
        .contains("Purchases of property, plant and equipment")));
    let broken = root.join("Broken");
    for entry in std::fs::read_dir(&broken).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("pdf") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_default();
        let input = Input::detect("broken.pdf", &bytes);
        let result = crate::convert(&Input {
            tail: &[],
            file_type: FileType::Pdf,
            ..input
        });
        assert!(
            !matches!(result, Err(ConvertError::Panic { .. })),
            "{}",
            path.display()
        );
    }
}

/// Manual check: `PDF_DUMP_LIST=/tmp/list PDF_DUMP_OUT=/tmp/out cargo test -p converters --lib pdf::tests::dump -- --ignored`
#[test]
#[ignore]
fn dump() {
    let (Ok(list), Ok(out)) = (
        std::env::var("PDF_DUMP_LIST"),
        std::env::var("PDF_DUMP_OUT"),
    ) else {
        return;
    };
    let list = std::fs::read_to_string(list).unwrap_or_default();
    for (i, path) in list.lines().enumerate() {
        let bytes = std::fs::read(path).unwrap_or_default();
        let started = std::time::Instant::now();
        let result = crate::convert(&input(&bytes));
        let elapsed = started.elapsed().as_millis();
        let body = match result {
            Ok(c) => {
                let pages: Vec<String> = c.units.iter().map(|u| u.text.clone()).collect();
                eprintln!(
                    "{i}\t{elapsed}ms\t{} pages\t{:?}\t{path}",
                    pages.len(),
                    c.meta
                );
                pages.join("\n\x0c")
            }
            Err(e) => {
                eprintln!("{i}\t{elapsed}ms\tERR {e}\t{path}");
                format!("ERR {e}")
            }
        };
        let _ = std::fs::write(format!("{out}/{i}.txt"), body);
    }
}

#[test]
fn joins_hyphenated_words() {
    assert_eq!(
        join_hyphenated("the compu-\ntation is\ndone"),
        "the computation\nis\ndone"
    );
    assert_eq!(
        join_hyphenated("COVID-\n19 and well-\nKnown"),
        "COVID-\n19 and well-\nKnown"
    );
    assert_eq!(join_hyphenated("a-\nb"), "ab");
}

/// Deterministic byte damage (flips, cuts, zeroed spans) must never panic.
fn damaged_variants(bytes: &[u8], count: u64) -> Vec<Vec<u8>> {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..count)
        .map(|i| {
            let mut copy = bytes.to_vec();
            let len = copy.len().max(1) as u64;
            match i % 3 {
                0 => {
                    for _ in 0..8 {
                        let at = (next() % len) as usize;
                        if let Some(b) = copy.get_mut(at) {
                            *b ^= (next() & 0xFF) as u8;
                        }
                    }
                }
                1 => copy.truncate((next() % len) as usize),
                _ => {
                    let at = (next() % len) as usize;
                    let end = (at + 64).min(copy.len());
                    copy[at..end].iter_mut().for_each(|b| *b = 0);
                }
            }
            copy
        })
        .collect()
}

#[test]
fn damaged_copies_never_panic() {
    let sample = save(&mut sample_document());
    for (i, bytes) in damaged_variants(&sample, 60).iter().enumerate() {
        let result = crate::convert(&input(bytes));
        assert!(
            !matches!(result, Err(ConvertError::Panic { .. })),
            "variant {i}: {result:?}"
        );
    }
}

/// Manual: damage every file in PDF_DUMP_LIST many times.
#[test]
#[ignore]
fn fuzz_corpus() {
    let Ok(list) = std::env::var("PDF_DUMP_LIST") else {
        return;
    };
    let list = std::fs::read_to_string(list).unwrap_or_default();
    for path in list.lines() {
        let bytes = std::fs::read(path).unwrap_or_default();
        if bytes.len() > 3_000_000 {
            continue;
        }
        for (i, damaged) in damaged_variants(&bytes, 12).iter().enumerate() {
            let started = std::time::Instant::now();
            let result = crate::convert(&input(damaged));
            let ms = started.elapsed().as_millis();
            if matches!(result, Err(ConvertError::Panic { .. })) || ms > 5000 {
                eprintln!("{path} variant {i}: {ms} ms {:?}", result.err());
            }
        }
    }
}

/// Text without whitespace and hyphens: what joining hyphenated words must preserve.
fn letters_only(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '-' && *c != '\u{2010}')
        .collect()
}

#[test]
fn joining_hyphenated_words_only_removes_hyphens_and_breaks() {
    use crate::testutil::{self, Rng};
    const PIECES: &[&str] = &[
        "com", "pu", "-", "\u{2010}", "\n", " ", "é", "Tation", "x", "-\n", "a-\nb", "ß-\nü",
        "-\n-", "\n\n", "漢", "A", "\r\n",
    ];
    let mut rng = Rng(0x4A01_0000_0000_0001);
    for _ in 0..3000 {
        let text = testutil::random_text(&mut rng, PIECES, 40);
        let joined = join_hyphenated(&text);
        assert_eq!(
            letters_only(&joined),
            letters_only(&text),
            "{text:?} → {joined:?}"
        );
        assert!(joined.lines().all(|l| !l.is_empty()), "{joined:?}");
        let hyphens = |t: &str| t.chars().filter(|c| *c == '-' || *c == '\u{2010}').count();
        assert!(hyphens(&joined) <= hyphens(&text));
        if !text.lines().any(|l| l.ends_with(['-', '\u{2010}'])) {
            let kept: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
            assert_eq!(joined, kept.join("\n"), "{text:?}");
        }
        let cleaned = clean_text(&text);
        assert!(cleaned
            .lines()
            .all(|l| !l.is_empty() && l == l.trim() && !l.contains("  ")));
        assert!(!cleaned
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{AD}'));
    }
}

#[test]
fn pdf_dates_from_any_text() {
    use crate::testutil::{self, Rng};
    let mut pieces: Vec<&str> = testutil::EDGE_NUMBERS.to_vec();
    pieces.extend(["D:", "+", "-", "'", "Z", "2025", "10", "04", "é", " ", "99"]);
    let mut rng = Rng(0xDA7E_0000_0000_0002);
    for _ in 0..3000 {
        let raw = testutil::random_text(&mut rng, &pieces, 10);
        if let Some(date) = parse_pdf_date(&raw) {
            let digits: String = raw
                .trim()
                .trim_start_matches("D:")
                .chars()
                .take_while(char::is_ascii_digit)
                .take(4)
                .collect();
            assert_eq!(date.format("%Y").to_string(), digits, "{raw:?}");
        }
        let (y, mo, d) = (1000 + rng.below(9000), 1 + rng.below(12), 1 + rng.below(28));
        let (h, mi, s) = (rng.below(24), rng.below(60), rng.below(60));
        let (oh, om) = (rng.below(14), rng.below(60));
        let sign = *rng.pick(&['+', '-']);
        let written = format!("D:{y:04}{mo:02}{d:02}{h:02}{mi:02}{s:02}{sign}{oh:02}'{om:02}'");
        let expected = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{sign}{oh:02}:{om:02}");
        let parsed = parse_pdf_date(&written).map(|t| t.to_rfc3339());
        let expected = if (oh, om) == (0, 0) {
            expected.replace("-00:00", "+00:00")
        } else {
            expected
        };
        assert_eq!(parsed.as_deref(), Some(expected.as_str()), "{written}");
    }
}
