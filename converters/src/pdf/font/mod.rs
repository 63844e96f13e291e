//! Fonts as the text extractor needs them: byte codes → Unicode text and glyph widths.
//!
//! Decoding order per code: the font's `/ToUnicode` CMap, then (simple fonts) its
//! `/Encoding` (a base encoding plus `/Differences` glyph names), then Latin-1. Type0
//! fonts use 2-byte codes; without a ToUnicode map their text is only recoverable for
//! UCS-2 CMaps.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

use super::obj::{deref, dict_of, name_of, number};

/// Largest ToUnicode stream we decode, in bytes.
const MAX_CMAP_BYTES: usize = 4 * 1024 * 1024;
/// Most code → text entries one ToUnicode CMap may define.
const MAX_CMAP_ENTRIES: usize = 200_000;

/// One decoded glyph of a shown string.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Glyph {
    /// The Unicode text of the glyph (empty when unknown, several chars for ligatures).
    pub(crate) text: String,
    /// Advance width in thousandths of the font size (text space units × 1000).
    pub(crate) width: f64,
    /// A single-byte code 32, which word spacing (`Tw`) applies to.
    pub(crate) is_space_code: bool,
}

/// What the extractor needs to know about one font.
#[derive(Debug, Clone, Default)]
pub(crate) struct Font {
    two_byte: bool,
    to_unicode: HashMap<u32, String>,
    /// 256 entries for simple fonts.
    simple: Vec<Option<String>>,
    /// Type0 font whose CMap is UCS-2/UTF-16: the code is the character.
    ucs2: bool,
    widths: HashMap<u32, f64>,
    default_width: f64,
    /// Standard-14 metrics to use when the font has no `/Widths`.
    standard: Option<&'static [u16; 95]>,
    /// Multiplier from glyph-space widths to thousandths of text space (Type3).
    width_scale: f64,
    /// Vertical size of 1 unit of font size, relative to a normal font (Type3).
    pub(crate) size_scale: f64,
}

impl Font {
    /// Reads a font dictionary. Never fails: unknown parts fall back to defaults.
    pub(crate) fn load(doc: &Document, font: &Dictionary, glyph_names: &mut GlyphNames) -> Font {
        let subtype = font.get(b"Subtype").ok().and_then(name_of).unwrap_or(b"");
        let mut result = Font {
            default_width: 500.0,
            width_scale: 1.0,
            size_scale: 1.0,
            ..Font::default()
        };
        if let Ok(obj) = font.get(b"ToUnicode") {
            if let Some(stream) = deref(doc, obj).and_then(|o| o.as_stream().ok()) {
                if let Ok(bytes) = stream.get_plain_content_with_limit(MAX_CMAP_BYTES) {
                    result.to_unicode = parse_to_unicode(&bytes);
                }
            }
        }
        if subtype == b"Type0" {
            result.load_type0(doc, font, glyph_names);
        } else {
            result.simple = simple_encoding(doc, font, glyph_names);
            result.load_simple_widths(doc, font, subtype == b"Type3");
        }
        result
    }

    /// The font used when text is shown before any `Tf`: Latin-1, 500/1000 em wide.
    pub(crate) fn fallback() -> Font {
        Font {
            simple: latin1_table(),
            default_width: 500.0,
            width_scale: 1.0,
            size_scale: 1.0,
            ..Font::default()
        }
    }

    fn load_type0(&mut self, doc: &Document, font: &Dictionary, glyph_names: &mut GlyphNames) {
        self.two_byte = true;
        self.default_width = 1000.0;
        let encoding = font.get(b"Encoding").ok().and_then(|o| deref(doc, o));
        if let Some(name) = encoding.and_then(name_of) {
            let name = String::from_utf8_lossy(name);
            self.ucs2 = name.contains("UCS2") || name.contains("UTF16");
        }
        let descendant = font
            .get(b"DescendantFonts")
            .ok()
            .and_then(|o| deref(doc, o))
            .and_then(|o| o.as_array().ok())
            .and_then(|a| a.first())
            .and_then(|o| dict_of(doc, o));
        let Some(cid_font) = descendant else {
            return;
        };
        if let Some(dw) = cid_font.get(b"DW").ok().and_then(|o| number(doc, o)) {
            self.default_width = dw;
        }
        self.repair_unicode_from_font_file(doc, cid_font, glyph_names);
        if let Some(w) = cid_font
            .get(b"W")
            .ok()
            .and_then(|o| deref(doc, o))
            .and_then(|o| o.as_array().ok())
        {
            self.widths = parse_cid_widths(doc, w);
        }
    }

    /// Word's Calibri ligatures ("ti", "tt", "ft") are often mapped to U+0000 in the
    /// ToUnicode CMap; the embedded TrueType font's `post` table still names them
    /// (`t_i`). Fills empty or missing entries from those names (Identity CID → GID).
    fn repair_unicode_from_font_file(
        &mut self,
        doc: &Document,
        cid_font: &Dictionary,
        names: &mut GlyphNames,
    ) {
        let needs_repair =
            self.to_unicode.is_empty() || self.to_unicode.values().any(String::is_empty);
        if !needs_repair
            || cid_font.has(b"CIDToGIDMap")
                && cid_font.get(b"CIDToGIDMap").ok().and_then(name_of) != Some(b"Identity")
        {
            return;
        }
        let file = cid_font
            .get(b"FontDescriptor")
            .ok()
            .and_then(|o| dict_of(doc, o))
            .and_then(|d| d.get(b"FontFile2").ok())
            .and_then(|o| deref(doc, o))
            .and_then(|o| o.as_stream().ok())
            .and_then(|s| s.get_plain_content_with_limit(MAX_FONT_BYTES).ok());
        let Some(file) = file else {
            return;
        };
        for (gid, name) in truetype_glyph_names(&file) {
            let code = u32::from(gid);
            if self.to_unicode.get(&code).is_some_and(|t| !t.is_empty()) {
                continue;
            }
            if let Some(text) = names.lookup(doc, name.as_bytes()) {
                self.to_unicode.insert(code, text);
            }
        }
    }

    fn load_simple_widths(&mut self, doc: &Document, font: &Dictionary, type3: bool) {
        let first = font
            .get(b"FirstChar")
            .ok()
            .and_then(|o| number(doc, o))
            .unwrap_or(0.0)
            .max(0.0) as u32;
        let widths = font
            .get(b"Widths")
            .ok()
            .and_then(|o| deref(doc, o))
            .and_then(|o| o.as_array().ok());
        if let Some(widths) = widths {
            for (i, w) in widths.iter().take(256).enumerate() {
                // Checked: FirstChar saturates to u32::MAX for huge values.
                if let (Some(w), Some(code)) = (number(doc, w), first.checked_add(i as u32)) {
                    self.widths.insert(code, w);
                }
            }
        } else {
            let base = font.get(b"BaseFont").ok().and_then(name_of).unwrap_or(b"");
            self.standard = standard_metrics(base);
            if base.windows(7).any(|w| w == b"Courier") {
                self.default_width = 600.0;
            }
        }
        let missing = font
            .get(b"FontDescriptor")
            .ok()
            .and_then(|o| dict_of(doc, o))
            .and_then(|d| d.get(b"MissingWidth").ok())
            .and_then(|o| number(doc, o));
        if let Some(missing) = missing.filter(|m| *m > 0.0) {
            self.default_width = missing;
        }
        if type3 {
            self.load_type3_matrix(doc, font);
        }
    }

    fn load_type3_matrix(&mut self, doc: &Document, font: &Dictionary) {
        let matrix: Vec<f64> = font
            .get(b"FontMatrix")
            .ok()
            .and_then(|o| deref(doc, o))
            .and_then(|o| o.as_array().ok())
            .map(|a| a.iter().filter_map(|o| number(doc, o)).collect())
            .unwrap_or_default();
        if let [a, _, _, d, ..] = matrix[..] {
            if a.is_finite() && a != 0.0 {
                self.width_scale = a.abs() * 1000.0;
            }
            if d.is_finite() && d != 0.0 {
                self.size_scale = d.abs() * 1000.0;
            }
        }
    }

    /// Splits a shown string into glyphs.
    pub(crate) fn decode(&self, bytes: &[u8]) -> Vec<Glyph> {
        if self.two_byte {
            bytes
                .chunks(2)
                .map(|pair| {
                    let code = pair.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b));
                    self.glyph(code, false)
                })
                .collect()
        } else {
            bytes
                .iter()
                .map(|b| self.glyph(u32::from(*b), *b == 32))
                .collect()
        }
    }

    fn glyph(&self, code: u32, is_space_code: bool) -> Glyph {
        let text = self.text_of(code);
        let width = self.width_of(code, &text) * self.width_scale;
        Glyph {
            text,
            width,
            is_space_code,
        }
    }

    fn text_of(&self, code: u32) -> String {
        if let Some(text) = self.to_unicode.get(&code) {
            return text.clone();
        }
        if self.two_byte {
            if self.ucs2 {
                return char::from_u32(code).map(String::from).unwrap_or_default();
            }
            return String::new();
        }
        self.simple
            .get(code as usize)
            .cloned()
            .flatten()
            .unwrap_or_default()
    }

    fn width_of(&self, code: u32, text: &str) -> f64 {
        if let Some(w) = self.widths.get(&code) {
            return *w;
        }
        if let Some(table) = self.standard {
            let mut chars = text.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                let index = (c as u32).wrapping_sub(32) as usize;
                if let Some(w) = table.get(index) {
                    return f64::from(*w);
                }
            }
        }
        self.default_width
    }
}

/// Looks up Adobe glyph names (with lopdf's glyph list) and caches the answers.
#[derive(Default)]
pub(crate) struct GlyphNames {
    cache: HashMap<Vec<u8>, Option<String>>,
    base_tables: HashMap<Vec<u8>, Vec<Option<String>>>,
}

impl GlyphNames {
    /// The Unicode text of a glyph name, e.g. `eacute` → "é", `uni2013` → "–", `f_i` → "fi".
    pub(crate) fn lookup(&mut self, doc: &Document, name: &[u8]) -> Option<String> {
        if let Some(hit) = self.cache.get(name) {
            return hit.clone();
        }
        let text = glyph_name_text(doc, name);
        if self.cache.len() < 10_000 {
            self.cache.insert(name.to_vec(), text.clone());
        }
        text
    }

    /// A 256-entry table of a named base encoding (WinAnsi, MacRoman, Standard, …).
    fn base_table(&mut self, doc: &Document, name: &[u8]) -> Vec<Option<String>> {
        if let Some(table) = self.base_tables.get(name) {
            return table.clone();
        }
        let table = named_encoding_table(doc, name);
        self.base_tables.insert(name.to_vec(), table.clone());
        table
    }
}

/// Decodes one byte through a font dictionary that only holds an encoding, using lopdf's
/// tables and glyph list.
fn decode_with_encoding(doc: &Document, encoding: Object, byte: u8) -> Option<String> {
    let mut dict = Dictionary::new();
    dict.set("Type", Object::Name(b"Font".to_vec()));
    dict.set("Encoding", encoding);
    let encoding = dict.get_font_encoding(doc).ok()?;
    let text = encoding.bytes_to_string(&[byte]).ok()?;
    (!text.is_empty()).then_some(text)
}

fn named_encoding_table(doc: &Document, name: &[u8]) -> Vec<Option<String>> {
    match name {
        b"WinAnsiEncoding" | b"MacRomanEncoding" | b"StandardEncoding" | b"MacExpertEncoding" => (0
            ..=255u8)
            .map(|b| decode_with_encoding(doc, Object::Name(name.to_vec()), b))
            .collect(),
        _ => latin1_table(),
    }
}

fn latin1_table() -> Vec<Option<String>> {
    (0..=255u8)
        .map(|b| (b >= 32 && b != 127).then(|| char::from(b).to_string()))
        .collect()
}

fn glyph_name_text(doc: &Document, name: &[u8]) -> Option<String> {
    let mut diff = Dictionary::new();
    diff.set(
        "Differences",
        Object::Array(vec![Object::Integer(0), Object::Name(name.to_vec())]),
    );
    if let Some(text) = decode_with_encoding(doc, Object::Dictionary(diff), 0) {
        return Some(text);
    }
    let name = std::str::from_utf8(name).ok()?;
    // "a.sc", "one.oldstyle": the part before the dot names the character.
    if let Some((stem, _)) = name.split_once('.') {
        if !stem.is_empty() {
            return glyph_name_text(doc, stem.as_bytes());
        }
    }
    // Ligatures such as "f_f_i".
    if name.contains('_') {
        let parts: Option<String> = name
            .split('_')
            .map(|part| glyph_name_text(doc, part.as_bytes()))
            .collect();
        return parts;
    }
    unicode_glyph_name(name)
}

/// `uniXXXX[XXXX…]` and `uXXXX[XX]` glyph names.
fn unicode_glyph_name(name: &str) -> Option<String> {
    if let Some(hex) = name.strip_prefix("uni") {
        if hex.len() >= 4 && hex.len() % 4 == 0 {
            let units: Option<Vec<u16>> = (0..hex.len() / 4)
                .map(|i| {
                    hex.get(i * 4..i * 4 + 4)
                        .and_then(|h| u16::from_str_radix(h, 16).ok())
                })
                .collect();
            return String::from_utf16(&units?).ok();
        }
    }
    if let Some(hex) = name.strip_prefix('u') {
        if (4..=6).contains(&hex.len()) {
            let code = u32::from_str_radix(hex, 16).ok()?;
            return char::from_u32(code).map(String::from);
        }
    }
    None
}

/// The 256-entry code → text table of a simple font.
fn simple_encoding(
    doc: &Document,
    font: &Dictionary,
    names: &mut GlyphNames,
) -> Vec<Option<String>> {
    let builtin = |names: &mut GlyphNames| {
        type1_builtin_encoding(doc, font, names).unwrap_or_else(latin1_table)
    };
    let Some(encoding) = font.get(b"Encoding").ok().and_then(|o| deref(doc, o)) else {
        return builtin(names);
    };
    if let Some(name) = name_of(encoding) {
        return names.base_table(doc, name);
    }
    let Ok(dict) = encoding.as_dict() else {
        return builtin(names);
    };
    let mut table = match dict.get(b"BaseEncoding").ok().and_then(name_of) {
        Some(base) => names.base_table(doc, base),
        None => builtin(names),
    };
    let differences = dict
        .get(b"Differences")
        .ok()
        .and_then(|o| deref(doc, o))
        .and_then(|o| o.as_array().ok());
    let mut code: i64 = 0;
    for item in differences.into_iter().flatten().take(1024) {
        match item {
            Object::Integer(n) => code = *n,
            Object::Name(glyph) => {
                if let Some(slot) = usize::try_from(code).ok().and_then(|c| table.get_mut(c)) {
                    *slot = names.lookup(doc, glyph);
                }
                // Saturating: the code before the names may be i64::MAX.
                code = code.saturating_add(1);
            }
            _ => {}
        }
    }
    table
}

/// The built-in encoding of an embedded Type 1 font program (`/FontFile`): the
/// `dup <code> /<glyph> put` entries of its clear-text part. TeX's Computer Modern fonts
/// carry their ligatures and Greek letters only there.
fn type1_builtin_encoding(
    doc: &Document,
    font: &Dictionary,
    names: &mut GlyphNames,
) -> Option<Vec<Option<String>>> {
    let descriptor = dict_of(doc, font.get(b"FontDescriptor").ok()?)?;
    let stream = deref(doc, descriptor.get(b"FontFile").ok()?)?
        .as_stream()
        .ok()?;
    let data = stream.get_plain_content_with_limit(MAX_CMAP_BYTES).ok()?;
    let clear_len = stream
        .dict
        .get(b"Length1")
        .ok()
        .and_then(|o| number(doc, o))
        .map_or(data.len(), |n| n.max(0.0) as usize);
    let clear = data.get(..clear_len.min(data.len()))?;
    let clear = match clear.windows(5).position(|w| w == b"eexec") {
        Some(end) => &clear[..end],
        None => clear,
    };
    let start = clear.windows(9).position(|w| w == b"/Encoding")?;
    let text = String::from_utf8_lossy(&clear[start..]);
    let mut words = text.split_ascii_whitespace().skip(1);
    if words.next() == Some("StandardEncoding") {
        return Some(names.base_table(doc, b"StandardEncoding"));
    }
    let mut table: Vec<Option<String>> = vec![None; 256];
    let tokens: Vec<&str> = text.split_ascii_whitespace().take(8192).collect();
    for window in tokens.windows(4) {
        if let ["dup", code, glyph, "put"] = window {
            let (Ok(code), Some(glyph)) = (code.parse::<usize>(), glyph.strip_prefix('/')) else {
                continue;
            };
            if let Some(slot) = table.get_mut(code) {
                *slot = names.lookup(doc, glyph.as_bytes());
            }
        }
        if window.first() == Some(&"readonly") || window.first() == Some(&"def") {
            break;
        }
    }
    table.iter().any(Option::is_some).then_some(table)
}

/// Largest embedded font program read for glyph names, in bytes.
const MAX_FONT_BYTES: usize = 16 * 1024 * 1024;

fn be_u16(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]))
}

fn be_u32(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes([
        *data.get(at)?,
        *data.get(at + 1)?,
        *data.get(at + 2)?,
        *data.get(at + 3)?,
    ]))
}

/// The custom glyph names (beyond the 258 standard Macintosh ones) of a TrueType font's
/// `post` table (format 2.0), by glyph id.
fn truetype_glyph_names(font: &[u8]) -> Vec<(u16, String)> {
    let Some(tables) = be_u16(font, 4) else {
        return Vec::new();
    };
    let post = (0..usize::from(tables)).find_map(|i| {
        let record = 12 + 16 * i;
        (font.get(record..record + 4)? == b"post").then_some(())?;
        let offset = be_u32(font, record + 8)? as usize;
        let length = be_u32(font, record + 12)? as usize;
        font.get(offset..offset.checked_add(length)?)
    });
    let Some(post) = post else {
        return Vec::new();
    };
    if be_u32(post, 0) != Some(0x0002_0000) {
        return Vec::new();
    }
    let glyphs = usize::from(be_u16(post, 32).unwrap_or(0));
    let indices: Vec<u16> = (0..glyphs)
        .map_while(|g| be_u16(post, 34 + 2 * g))
        .collect();
    let mut strings = Vec::new();
    let mut at = 34 + 2 * glyphs;
    while let Some(&len) = post.get(at) {
        let Some(bytes) = post.get(at + 1..at + 1 + usize::from(len)) else {
            break;
        };
        strings.push(String::from_utf8_lossy(bytes).into_owned());
        at += 1 + usize::from(len);
    }
    indices
        .iter()
        .enumerate()
        .filter_map(|(gid, &index)| {
            let name = strings.get(usize::from(index).checked_sub(258)?)?;
            Some((u16::try_from(gid).ok()?, name.clone()))
        })
        .collect()
}

/// Reads a CIDFont `/W` array: `c [w1 w2 …]` and `cfirst clast w` entries.
fn parse_cid_widths(doc: &Document, w: &[Object]) -> HashMap<u32, f64> {
    let mut widths = HashMap::new();
    let mut budget: usize = 1_000_000;
    let mut i = 0;
    while i < w.len() && budget > 0 {
        let Some(first) = w.get(i).and_then(|o| number(doc, o)) else {
            break;
        };
        let first = first.max(0.0) as u32;
        let next = w.get(i + 1).and_then(|o| deref(doc, o));
        if let Some(Object::Array(list)) = next {
            for (k, value) in list.iter().enumerate().take(budget.min(65_536)) {
                budget -= 1;
                if let Some(value) = number(doc, value) {
                    widths.insert(first.saturating_add(k as u32), value);
                }
            }
            i += 2;
            continue;
        }
        let last = next.and_then(|o| number(doc, o));
        let value = w.get(i + 2).and_then(|o| number(doc, o));
        if let (Some(last), Some(value)) = (last, value) {
            let span = (budget.min(65_536) as u32).saturating_sub(1);
            let last = (last.max(0.0) as u32).min(first.saturating_add(span));
            budget = budget.saturating_sub((last.saturating_sub(first) as usize) + 1);
            for code in first..=last {
                widths.insert(code, value);
            }
        }
        i += 3;
    }
    widths
}

/// Token of a CMap file, as far as ToUnicode parsing needs.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Hex(Vec<u8>),
    Word(String),
    ArrayStart,
    ArrayEnd,
}

fn tokenize_cmap(data: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        match b {
            b'%' => {
                while i < data.len() && data[i] != b'\n' && data[i] != b'\r' {
                    i += 1;
                }
            }
            b'<' if data.get(i + 1) == Some(&b'<') => i += 2,
            b'>' if data.get(i + 1) == Some(&b'>') => i += 2,
            b'<' => {
                let end = data[i + 1..]
                    .iter()
                    .position(|c| *c == b'>')
                    .map_or(data.len(), |p| i + 1 + p);
                tokens.push(Token::Hex(hex_bytes(&data[i + 1..end])));
                i = end + 1;
            }
            b'[' => {
                tokens.push(Token::ArrayStart);
                i += 1;
            }
            b']' => {
                tokens.push(Token::ArrayEnd);
                i += 1;
            }
            b'(' => {
                // Literal strings (rare in ToUnicode): read raw bytes up to the close.
                let end = data[i + 1..]
                    .iter()
                    .position(|c| *c == b')')
                    .map_or(data.len(), |p| i + 1 + p);
                tokens.push(Token::Hex(data[i + 1..end].to_vec()));
                i = end + 1;
            }
            _ if b.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < data.len()
                    && !data[i].is_ascii_whitespace()
                    && !matches!(data[i], b'<' | b'>' | b'[' | b']' | b'(' | b'%')
                {
                    i += 1;
                }
                if i == start {
                    i += 1;
                    continue;
                }
                tokens.push(Token::Word(
                    String::from_utf8_lossy(&data[start..i]).into_owned(),
                ));
            }
        }
    }
    tokens
}

fn hex_bytes(hex: &[u8]) -> Vec<u8> {
    let digits: Vec<u8> = hex
        .iter()
        .filter_map(|c| (*c as char).to_digit(16).map(|d| d as u8))
        .collect();
    digits
        .chunks(2)
        .map(|pair| match pair {
            [hi, lo] => (hi << 4) | lo,
            [hi] => hi << 4,
            _ => 0,
        })
        .collect()
}

fn code_of(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .take(4)
        .fold(0u32, |acc, b| (acc << 8) | u32::from(*b))
}

/// UTF-16BE destination bytes → text, dropping control characters.
fn utf16_text(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|pair| match pair {
            [hi, lo] => u16::from_be_bytes([*hi, *lo]),
            [lo] => u16::from(*lo),
            _ => 0,
        })
        .collect();
    char::decode_utf16(units)
        .filter_map(Result::ok)
        .filter(|c| !c.is_control() || *c == '\t')
        .collect()
}

/// Adds `offset` to the last UTF-16 unit of a bfrange destination.
fn offset_destination(dest: &[u8], offset: u32) -> String {
    let mut bytes = dest.to_vec();
    let len = bytes.len();
    if len >= 2 {
        let last = u32::from(u16::from_be_bytes([bytes[len - 2], bytes[len - 1]]));
        let value = (last + offset).min(0xFFFF) as u16;
        bytes[len - 2..].copy_from_slice(&value.to_be_bytes());
    } else if len == 1 {
        let value = (u32::from(bytes[0]) + offset).min(0xFFFF) as u16;
        bytes = value.to_be_bytes().to_vec();
    }
    utf16_text(&bytes)
}

/// Parses the `bfchar` and `bfrange` sections of a ToUnicode CMap.
pub(crate) fn parse_to_unicode(data: &[u8]) -> HashMap<u32, String> {
    let tokens = tokenize_cmap(data);
    let mut map = HashMap::new();
    let mut budget = MAX_CMAP_ENTRIES;
    let mut i = 0;
    while i < tokens.len() && budget > 0 {
        match &tokens[i] {
            Token::Word(w) if w == "beginbfchar" => i = parse_bfchar(&tokens, i + 1, &mut map),
            Token::Word(w) if w == "beginbfrange" => {
                i = parse_bfrange(&tokens, i + 1, &mut map, &mut budget)
            }
            _ => i += 1,
        }
    }
    map
}

fn parse_bfchar(tokens: &[Token], mut i: usize, map: &mut HashMap<u32, String>) -> usize {
    while i + 1 < tokens.len() {
        match (&tokens[i], &tokens[i + 1]) {
            (Token::Hex(src), Token::Hex(dst)) => {
                map.insert(code_of(src), utf16_text(dst));
                i += 2;
            }
            (Token::Hex(_), Token::Word(_)) => i += 2, // a glyph name destination: skip
            _ => break,
        }
    }
    i
}

/// `budget` bounds the entries ranges may expand to (overlapping ranges included).
fn parse_bfrange(
    tokens: &[Token],
    mut i: usize,
    map: &mut HashMap<u32, String>,
    budget: &mut usize,
) -> usize {
    while i + 2 < tokens.len() && *budget > 0 {
        let (Token::Hex(lo), Token::Hex(hi)) = (&tokens[i], &tokens[i + 1]) else {
            break;
        };
        let (lo, hi) = (code_of(lo), code_of(hi));
        let count = hi.saturating_sub(lo).min(65_535).min(*budget as u32);
        *budget = budget.saturating_sub(count as usize + 1);
        match &tokens[i + 2] {
            Token::Hex(dst) => {
                for k in 0..=count {
                    map.insert(lo + k, offset_destination(dst, k));
                }
                i += 3;
            }
            Token::ArrayStart => {
                let mut j = i + 3;
                let mut k = 0;
                while let Some(Token::Hex(dst)) = tokens.get(j) {
                    if k <= count {
                        map.insert(lo + k, utf16_text(dst));
                    }
                    k += 1;
                    j += 1;
                }
                i = j + 1; // skip the closing bracket
            }
            _ => break,
        }
    }
    i
}

/// Standard-14 advance widths for ASCII 32..=126.
fn standard_metrics(base_font: &[u8]) -> Option<&'static [u16; 95]> {
    let name = String::from_utf8_lossy(base_font);
    let name = name.rsplit('+').next().unwrap_or(&name);
    let bold = name.contains("Bold");
    if name.starts_with("Helvetica") || name.starts_with("Arial") {
        return Some(if bold { &HELVETICA_BOLD } else { &HELVETICA });
    }
    if name.starts_with("Times") {
        return Some(if bold { &TIMES_BOLD } else { &TIMES });
    }
    None
}

#[rustfmt::skip]
static HELVETICA: [u16; 95] = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584];
#[rustfmt::skip]
static HELVETICA_BOLD: [u16; 95] = [278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584];
#[rustfmt::skip]
static TIMES: [u16; 95] = [250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444, 921, 722, 667, 667, 722, 611, 556, 722, 722, 333, 389, 722, 611, 889, 722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722, 722, 611, 333, 278, 333, 469, 500, 333, 444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500, 278, 778, 500, 500, 500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541];
#[rustfmt::skip]
static TIMES_BOLD: [u16; 95] = [250, 333, 555, 500, 500, 1000, 833, 278, 333, 333, 500, 570, 250, 333, 250, 278, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 333, 333, 570, 570, 570, 500, 930, 722, 667, 722, 722, 667, 611, 778, 778, 389, 500, 778, 667, 944, 722, 778, 611, 778, 722, 556, 667, 722, 722, 1000, 722, 722, 667, 333, 278, 333, 581, 500, 333, 500, 556, 444, 556, 444, 333, 500, 556, 278, 333, 556, 278, 833, 556, 500, 556, 556, 444, 389, 333, 556, 500, 722, 500, 500, 444, 394, 220, 394, 520];

#[cfg(test)]
mod tests;
