use super::*;

#[test]
fn parses_bfchar_and_bfrange() {
    let cmap = b"/CIDInit /ProcSet findresource begin\n2 beginbfchar\n<0003> <0020>\n<0011> <00660069>\nendbfchar\n1 beginbfrange\n<0024> <0026> <0041>\nendbfrange\n1 beginbfrange\n<0030> <0031> [<0061> <0062>]\nendbfrange\nend";
    let map = parse_to_unicode(cmap);
    assert_eq!(map.get(&3).map(String::as_str), Some(" "));
    assert_eq!(map.get(&0x11).map(String::as_str), Some("fi"));
    assert_eq!(map.get(&0x26).map(String::as_str), Some("C"));
    assert_eq!(map.get(&0x31).map(String::as_str), Some("b"));
}

#[test]
fn glyph_names_resolve() {
    let doc = Document::new();
    let mut names = GlyphNames::default();
    assert_eq!(names.lookup(&doc, b"eacute").as_deref(), Some("é"));
    assert_eq!(names.lookup(&doc, b"uni2013").as_deref(), Some("–"));
    assert_eq!(names.lookup(&doc, b"f_i").as_deref(), Some("\u{FB01}"));
    assert_eq!(names.lookup(&doc, b"T_h").as_deref(), Some("Th"));
    assert_eq!(names.lookup(&doc, b"a.sc").as_deref(), Some("a"));
    assert_eq!(names.lookup(&doc, b"g123"), None);
}

use crate::testutil::{self, Rng};
use lopdf::{dictionary, Stream};

/// Pieces of text a CMap may map to (no control characters, which are dropped).
fn cmap_pieces() -> Vec<&'static str> {
    testutil::TEXT_PIECES
        .iter()
        .copied()
        .filter(|p| !p.chars().any(char::is_control))
        .collect()
}

fn utf16_hex(text: &str) -> String {
    text.encode_utf16().map(|u| format!("{u:04X}")).collect()
}

#[test]
fn to_unicode_cmaps_round_trip_and_survive_damage() {
    let pieces = cmap_pieces();
    let mut rng = Rng(0xC4A9_0000_0000_0001);
    for _ in 0..250 {
        let mut expected: HashMap<u32, String> = HashMap::new();
        let mut cmap = String::from("/CIDInit /ProcSet findresource begin\n%comment <x>\n");
        let count = rng.below(12);
        cmap.push_str(&format!("{count} beginbfchar\n"));
        for _ in 0..count {
            let code = rng.below(0x1_0000) as u32;
            let text = testutil::random_text(&mut rng, &pieces, 4);
            cmap.push_str(&format!("<{code:04X}> <{}>\n", utf16_hex(&text)));
            expected.insert(code, text);
        }
        cmap.push_str("endbfchar\n1 beginbfrange\n");
        let lo = rng.below(0xFF00) as u32;
        let hi = lo + rng.below(40) as u32;
        let base = 0x4E00 + rng.below(0x4000) as u32;
        cmap.push_str(&format!("<{lo:04X}> <{hi:04X}> <{base:04X}>\nendbfrange\n"));
        for k in 0..=hi - lo {
            expected.insert(lo + k, char::from_u32(base + k).unwrap().to_string());
        }
        let array_lo = rng.below(0xFF00) as u32;
        let texts: Vec<String> = (0..rng.below(5))
            .map(|_| testutil::random_text(&mut rng, &pieces, 3))
            .collect();
        let array_hi = array_lo + texts.len().saturating_sub(1) as u32;
        let items: Vec<String> = texts
            .iter()
            .map(|t| format!("<{}>", utf16_hex(t)))
            .collect();
        cmap.push_str(&format!(
            "1 beginbfrange\n<{array_lo:04X}> <{array_hi:04X}> [{}]\nendbfrange\nend",
            items.join(" ")
        ));
        for (k, text) in texts.iter().enumerate() {
            expected.insert(array_lo + k as u32, text.clone());
        }
        assert_eq!(parse_to_unicode(cmap.as_bytes()), expected, "{cmap}");
        for _ in 0..3 {
            let damaged = testutil::mutate(&mut rng, cmap.as_bytes());
            let map = parse_to_unicode(&damaged);
            assert!(
                map.len() <= MAX_CMAP_ENTRIES + damaged.len(),
                "{}",
                map.len()
            );
        }
    }
    // Ranges at the top of the code space and reversed ranges.
    for (lo, hi) in [(0xFFFF_FFF0u32, 0xFFFF_FFFFu32), (0xFFFF_FFFF, 0), (5, 4)] {
        let cmap = format!("1 beginbfrange\n<{lo:08X}> <{hi:08X}> <0041>\nendbfrange\n");
        let map = parse_to_unicode(cmap.as_bytes());
        assert_eq!(map.len() as u32, hi.saturating_sub(lo) + 1, "{cmap}");
    }
}

/// A TrueType font holding only a `post` table (format 2.0) naming `glyphs`: each
/// glyph is a standard name index (< 258) or one of `names`.
fn truetype_with_post(indices: &[u16], names: &[String]) -> Vec<u8> {
    let mut post = 0x0002_0000u32.to_be_bytes().to_vec();
    post.extend([0u8; 28]);
    post.extend((indices.len() as u16).to_be_bytes());
    for index in indices {
        post.extend(index.to_be_bytes());
    }
    for name in names {
        post.push(name.len() as u8);
        post.extend(name.as_bytes());
    }
    let mut font = 0x0001_0000u32.to_be_bytes().to_vec();
    font.extend(2u16.to_be_bytes());
    font.extend([0u8; 6]);
    let data_at = 12 + 2 * 16;
    font.extend(b"head");
    font.extend([0u8; 4]);
    font.extend((data_at as u32).to_be_bytes());
    font.extend(0u32.to_be_bytes());
    font.extend(b"post");
    font.extend([0u8; 4]);
    font.extend((data_at as u32).to_be_bytes());
    font.extend((post.len() as u32).to_be_bytes());
    font.extend(post);
    font
}

#[test]
fn truetype_post_names_round_trip_and_survive_damage() {
    let mut rng = Rng(0x77F0_0000_0000_0001);
    for _ in 0..500 {
        let names: Vec<String> = (0..rng.below(10))
            .map(|_| {
                let mut name =
                    testutil::random_text(&mut rng, &["t", "_", "i", "é", "uni2013", "."], 6);
                while name.len() > 255 {
                    name.pop();
                }
                name
            })
            .collect();
        let indices: Vec<u16> = (0..rng.below(20))
            .map(|_| match names.len() {
                n if n > 0 && rng.one_in(2) => 258 + rng.below(n) as u16,
                _ => rng.below(258) as u16,
            })
            .collect();
        let font = truetype_with_post(&indices, &names);
        let expected: Vec<(u16, String)> = indices
            .iter()
            .enumerate()
            .filter(|(_, i)| **i >= 258)
            .map(|(gid, i)| (gid as u16, names[usize::from(*i) - 258].clone()))
            .collect();
        assert_eq!(truetype_glyph_names(&font), expected);
        for _ in 0..4 {
            let damaged = testutil::mutate(&mut rng, &font);
            let found = truetype_glyph_names(&damaged);
            assert!(found.len() <= damaged.len() / 2, "{}", found.len());
        }
    }
}

#[test]
fn font_dictionaries_with_extreme_numbers_load() {
    const EDGES: &[i64] = &[
        0,
        1,
        -1,
        32,
        255,
        256,
        65_535,
        i32::MAX as i64,
        u32::MAX as i64 - 1,
        u32::MAX as i64,
        u32::MAX as i64 + 1,
        i64::MAX,
        i64::MIN,
    ];
    let doc = Document::new();
    let mut names = GlyphNames::default();
    let mut rng = Rng(0xF047_0000_0000_0001);
    for &first in EDGES {
        for &code in EDGES {
            let widths: Vec<Object> = (0..rng.below(300)).map(|_| Object::Integer(500)).collect();
            let encoding = dictionary! {
                "BaseEncoding" => "WinAnsiEncoding",
                "Differences" => vec![
                    Object::Integer(code), "a".into(), "b".into(),
                    Object::Integer(first), "uni2013".into(),
                ],
            };
            let program = format!(
                "/Encoding 256 array\ndup {code} /eacute put\ndup {first} /a put\nreadonly def\neexec"
            );
            let descriptor = dictionary! {
                "MissingWidth" => Object::Integer(code),
                "FontFile" => Stream::new(
                    dictionary! { "Length1" => Object::Integer(first) },
                    program.into_bytes(),
                ),
            };
            // `c [w…]` and `cfirst clast w` entries (short ranges here: the width
            // budget of huge ones is checked below).
            let w = vec![
                Object::Integer(first),
                Object::Array(vec![Object::Integer(1); rng.below(5)]),
                Object::Integer(code),
                Object::Integer(code.saturating_add(rng.below(3) as i64)),
                Object::Integer(7),
            ];
            let fonts = [
                dictionary! {
                    "Subtype" => "TrueType",
                    "FirstChar" => Object::Integer(first),
                    "Widths" => widths.clone(),
                    "Encoding" => encoding.clone(),
                },
                dictionary! {
                    "Subtype" => "Type1",
                    "FirstChar" => Object::Integer(first),
                    "FontDescriptor" => descriptor,
                },
                dictionary! {
                    "Subtype" => "Type3",
                    "FirstChar" => Object::Real(first as f32),
                    "Widths" => widths.clone(),
                    "FontMatrix" => vec![Object::Real(code as f32), 0.into(), 0.into(), Object::Real(f32::MAX), 0.into(), 0.into()],
                },
                dictionary! {
                    "Subtype" => "Type0",
                    "Encoding" => "Identity-H",
                    "DescendantFonts" => vec![Object::Dictionary(dictionary! {
                        "DW" => Object::Integer(code),
                        "W" => w,
                    })],
                },
            ];
            for dict in &fonts {
                let font = Font::load(&doc, dict, &mut names);
                let bytes = testutil::random_bytes(&mut rng, 16);
                let glyphs = font.decode(&bytes);
                let expected = if font.two_byte {
                    bytes.len().div_ceil(2)
                } else {
                    bytes.len()
                };
                assert_eq!(glyphs.len(), expected);
                if dict.has(b"Widths") && !widths.is_empty() && (0..256).contains(&first) {
                    let glyph = &font.decode(&[first as u8])[0];
                    assert_eq!(glyph.width, 500.0 * font.width_scale, "first {first}");
                }
            }
        }
    }
    let huge = vec![
        Object::Integer(0),
        Object::Integer(i64::MAX),
        Object::Integer(3),
        Object::Integer(u32::MAX as i64),
        Object::Array(vec![Object::Integer(1); 10]),
    ];
    let widths = parse_cid_widths(&doc, &huge);
    assert_eq!(
        widths.len(),
        65_536 + 1,
        "a range is capped, the array after it kept"
    );
    assert_eq!(widths.get(&u32::MAX), Some(&1.0));
}

#[test]
fn glyph_names_from_any_bytes() {
    let doc = Document::new();
    let mut names = GlyphNames::default();
    let mut rng = Rng(0x6174_0000_0000_0001);
    for _ in 0..1500 {
        let c = char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('x');
        let mut units = [0u16; 2];
        let hex: String = c
            .encode_utf16(&mut units)
            .iter()
            .map(|u| format!("{u:04X}"))
            .collect();
        assert_eq!(
            unicode_glyph_name(&format!("uni{hex}")),
            Some(c.to_string()),
            "{hex}"
        );
        assert_eq!(
            unicode_glyph_name(&format!("u{:04X}", u32::from(c))),
            Some(c.to_string())
        );
        let name = testutil::random_text(
            &mut rng,
            &["uni", "u", "D83D", "1F600", "_", ".", "a", "é", "FFFF", "0"],
            6,
        );
        let _ = unicode_glyph_name(&name);
        let _ = names.lookup(&doc, name.as_bytes());
    }
}
