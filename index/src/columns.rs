//! Per-unit strings of [`crate::embedded::ExactStore`], held compactly.
//!
//! A store of 1M units holds three strings per unit (unit id, file id, text hash). As one
//! shared `Arc<str>` each they cost about 70 bytes apiece (a 16-byte pointer, a 16-byte
//! count header and the allocator's rounding), 200 MB at 1M units: half again the int8
//! rows. Here every string of a column lies end to end in one buffer with an 8-byte end
//! offset, and a file id, shared by the units of one file, is stored once per run of
//! units and referred to by a 4-byte number. A text hash, 32 hex digits, is kept as its
//! 16 bytes.

use std::collections::HashMap;

/// Strings laid end to end: string `i` is `text[ends[i - 1]..ends[i]]`.
#[derive(Debug, Clone, Default)]
pub struct Strings {
    text: String,
    ends: Vec<u64>,
}

impl Strings {
    /// Room for `count` more strings of about `bytes` bytes each.
    pub fn reserve(&mut self, count: usize, bytes: usize) {
        self.ends.reserve(count);
        self.text.reserve(count.saturating_mul(bytes));
    }

    pub fn push(&mut self, value: &str) {
        self.text.push_str(value);
        self.ends.push(self.text.len() as u64);
    }

    /// String `i` (panics beyond [`Strings::len`], as a slice index does).
    #[inline]
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Strings that repeat in runs (the file id of each unit, units of one file next to
/// each other): each run's string is kept once.
#[derive(Debug, Clone, Default)]
pub struct RunStrings {
    distinct: Strings,
    /// Per entry, its string's place in `distinct`.
    refs: Vec<u32>,
}

impl RunStrings {
    pub fn reserve(&mut self, count: usize) {
        self.refs.reserve(count);
    }

    pub fn push(&mut self, value: &str) {
        let last = self.distinct.len();
        if last == 0 || self.distinct.get(last - 1) != value {
            self.distinct.push(value);
        }
        self.refs.push((self.distinct.len() - 1) as u32);
    }

    #[inline]
    pub fn get(&self, i: usize) -> &str {
        self.distinct.get(self.refs[i] as usize)
    }

    pub fn len(&self) -> usize {
        self.refs.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Distinct strings held (one per run).
    #[cfg(test)]
    fn runs(&self) -> usize {
        self.distinct.len()
    }
}

/// Text hashes ([`crate::vector::text_hash`]: 32 lowercase hex digits) as their 16
/// bytes, with no offsets: 16 bytes a unit instead of 40. Any other string (an image
/// vector's empty hash, a hash from a test) is kept whole beside them.
#[derive(Debug, Clone, Default)]
pub struct Hashes {
    packed: Vec<[u8; 16]>,
    /// The entries that are not 32 lowercase hex digits, by place.
    other: HashMap<u32, Box<str>>,
}

impl Hashes {
    pub fn reserve(&mut self, count: usize) {
        self.packed.reserve(count);
    }

    pub fn push(&mut self, value: &str) {
        match decode_hex16(value) {
            Some(bytes) => self.packed.push(bytes),
            None => {
                self.other.insert(self.packed.len() as u32, value.into());
                self.packed.push([0; 16]);
            }
        }
    }

    /// Appends entry `i` of `from` as it is held (no hex round trip).
    pub fn push_from(&mut self, from: &Hashes, i: usize) {
        if let Some(value) = from.other.get(&(i as u32)) {
            self.other.insert(self.packed.len() as u32, value.clone());
        }
        self.packed.push(from.packed[i]);
    }

    /// Entry `i` as it was pushed (panics beyond [`Hashes::len`]).
    pub fn get(&self, i: usize) -> String {
        match self.other.get(&(i as u32)) {
            Some(value) => value.to_string(),
            None => encode_hex(&self.packed[i]),
        }
    }

    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.packed.len()).map(|i| self.get(i))
    }
}

/// The 16 bytes of 32 lowercase hex digits (only lowercase, so that encoding gives the
/// same string back).
fn decode_hex16(value: &str) -> Option<[u8; 16]> {
    let digits = value.as_bytes();
    if digits.len() != 32 {
        return None;
    }
    let nibble = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0u8; 16];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(bytes)
}

fn encode_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_come_back_as_pushed_and_only_hex_is_packed() {
        let real = crate::vector::text_hash("a text");
        let values = [
            real.as_str(),
            "",
            "h1",
            // Upper case and non-hex digits of the right length are kept whole.
            "0123456789ABCDEF0123456789abcdef",
            "0123456789abcdef0123456789abcdeg",
            "00000000000000000000000000000000",
            "ffffffffffffffffffffffffffffffff",
        ];
        let mut column = Hashes::default();
        column.reserve(values.len());
        for value in values {
            column.push(value);
        }
        assert_eq!(column.iter().collect::<Vec<_>>(), values);
        assert_eq!(column.other.len(), 4);
        let mut copy = Hashes::default();
        for i in [2, 0, 1, 6] {
            copy.push_from(&column, i);
        }
        assert_eq!(
            copy.iter().collect::<Vec<_>>(),
            [values[2], values[0], values[1], values[6]]
        );
        assert_eq!(copy.other.len(), 2);
    }

    #[test]
    fn strings_come_back_as_pushed_empty_ones_included() {
        let values = ["a:0", "", "ünïcode", "", "x".repeat(300).leak()];
        let mut column = Strings::default();
        column.reserve(values.len(), 8);
        for value in values {
            column.push(value);
        }
        assert_eq!(column.len(), values.len());
        assert_eq!(column.iter().collect::<Vec<_>>(), values);
        assert!(Strings::default().is_empty());
    }

    #[test]
    fn a_run_is_kept_once_and_a_string_may_come_back_later() {
        let values = ["f1", "f1", "f1", "f2", "f1", "f1", "", ""];
        let mut column = RunStrings::default();
        for value in values {
            column.push(value);
        }
        assert_eq!(column.iter().collect::<Vec<_>>(), values);
        assert_eq!(column.runs(), 4);
        assert_eq!(column.len(), values.len());
    }
}
