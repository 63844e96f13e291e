//! Helpers shared by the converters' tests: a deterministic random generator, edge-case
//! texts and numbers, damaged copies of fixtures, the guarded entry point that fails on a
//! converter panic, and the invariants every conversion keeps.

use crate::{Conversion, ConvertError, FileType, Input};

pub(crate) use crate::fuzz::{mutate, random_bytes, Rng};

/// Text pieces that stress byte and char boundaries: 1- to 4-byte characters, a
/// combining mark, whitespace of several kinds, line breaks, BOM, NUL, punctuation
/// that parsers split on.
pub(crate) const TEXT_PIECES: &[&str] = &[
    "a",
    "word",
    "Z9",
    "é",
    "€",
    "𝄞",
    "漢字",
    "e\u{301}",
    "\u{10FFFF}",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\u{a0}",
    "\u{2003}",
    "\u{feff}",
    "\0",
    ".",
    ",",
    ";",
    ":",
    "\"",
    "'",
    "-",
    "_",
    "/",
    "\\",
    "<",
    ">",
    "&",
    "=",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "#",
    "0",
    "12",
    "…",
];

/// Integers at the edges of every width, as written in files.
pub(crate) const EDGE_NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "+1",
    "-0",
    "12",
    "13",
    "31",
    "32",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999999",
    "",
];

/// Floats at the edges (non-finite ones included).
pub(crate) const EDGE_F64: &[f64] = &[
    0.0,
    -0.0,
    0.5,
    1.0,
    -1.0,
    59.0,
    61.0,
    1e8,
    -1e8,
    1.5e11,
    -1.5e11,
    4_294_967_295.0,
    1e15,
    -1e15,
    9.3e18,
    -9.3e18,
    1e300,
    -1e300,
    f64::MAX,
    f64::MIN,
    f64::MIN_POSITIVE,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

/// Random text made of `pieces`: empty, short or long; sometimes one piece repeated
/// (a huge run without a break).
pub(crate) fn random_text(rng: &mut Rng, pieces: &[&str], max_pieces: usize) -> String {
    let len = rng.size(max_pieces);
    if rng.one_in(8) {
        return rng.pick(pieces).repeat(len);
    }
    (0..len).map(|_| *rng.pick(pieces)).collect()
}

/// A damaged copy of a text that is still valid UTF-8: pieces inserted, spans
/// deleted or repeated, cut short (always at a char boundary).
pub(crate) fn mutate_text(rng: &mut Rng, text: &str, pieces: &[&str]) -> String {
    let mut out = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let boundaries: Vec<usize> = out
            .char_indices()
            .map(|(i, _)| i)
            .chain([out.len()])
            .collect();
        let at = *rng.pick(&boundaries);
        let end = *rng.pick(&boundaries);
        let (at, end) = (at.min(end), at.max(end));
        match rng.below(4) {
            0 => out.insert_str(at, &random_text(rng, pieces, 8)),
            1 => out.replace_range(at..end, ""),
            2 => {
                let copy = out[at..end].to_string();
                out.insert_str(at, &copy);
            }
            _ => out.truncate(at),
        }
    }
    out
}

/// Runs the guarded entry point and fails the test on a converter panic (which
/// `convert` reports as [`ConvertError::Panic`] instead of unwinding).
pub(crate) fn convert_without_panic(input: &Input, what: &str) -> Result<Conversion, ConvertError> {
    let result = crate::convert(input);
    if let Err(ConvertError::Panic { detail, .. }) = &result {
        panic!("{what}: converter panicked: {detail}");
    }
    result
}

/// What every conversion promises: kinds set, ranges in order, pages and slides
/// counted from 1.
pub(crate) fn check_conversion(conversion: &Conversion, what: &str) {
    let problems = crate::fuzz::violations(conversion);
    assert!(problems.is_empty(), "{what}: {problems:?}");
}

/// An input of a given type; `size` is the real file size, of which `bytes` may be only
/// the head (as the indexer passes media and binary files).
pub(crate) fn input<'a>(
    name: &'a str,
    bytes: &'a [u8],
    size: u64,
    file_type: FileType,
) -> Input<'a> {
    Input {
        tail: &[],
        name,
        bytes,
        size,
        file_type,
    }
}

/// A size as a head-only converter (audio/video, binaries) may see it: the whole file,
/// the head of a larger file, or a file that grew or shrank between listing and reading.
pub(crate) fn some_size(rng: &mut Rng, len: usize) -> u64 {
    match rng.below(3) {
        0 => len as u64,
        1 => (len + rng.below(1 << 20)) as u64,
        _ => rng.below(len + 1) as u64,
    }
}
