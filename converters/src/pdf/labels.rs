//! Printed page labels from the catalog's `/PageLabels` number tree (PDF 32000 §12.4.2).

use lopdf::{Dictionary, Document, Object};

use super::obj::{deref, dict_of, name_of, number};

const MAX_TREE_DEPTH: usize = 16;
const MAX_RANGES: usize = 10_000;

/// One labelling range: from page index `start` on, `prefix` + numbers in `style`.
struct Range {
    start: i64,
    style: Option<u8>,
    prefix: String,
    first: i64,
}

/// The label of every page (`count` pages), or `None` when the PDF has no `/PageLabels`.
pub(crate) fn page_labels(doc: &Document, count: usize) -> Option<Vec<String>> {
    let root = doc.catalog().ok()?.get(b"PageLabels").ok()?;
    let root = dict_of(doc, root)?;
    let mut ranges = Vec::new();
    collect(doc, root, 0, &mut ranges);
    if ranges.is_empty() {
        return None;
    }
    ranges.sort_by_key(|r| r.start);
    let labels = (0..count)
        .map(|index| {
            let index = index as i64;
            match ranges.iter().rev().find(|r| r.start <= index) {
                Some(range) => label(range, index),
                None => (index + 1).to_string(),
            }
        })
        .collect();
    Some(labels)
}

fn collect(doc: &Document, node: &Dictionary, depth: usize, ranges: &mut Vec<Range>) {
    if depth > MAX_TREE_DEPTH || ranges.len() >= MAX_RANGES {
        return;
    }
    if let Some(Object::Array(nums)) = node.get(b"Nums").ok().and_then(|o| deref(doc, o)) {
        for pair in nums.chunks(2) {
            if let [key, value] = pair {
                let (Some(start), Some(dict)) = (number(doc, key), dict_of(doc, value)) else {
                    continue;
                };
                ranges.push(range(doc, start as i64, dict));
            }
        }
    }
    if let Some(Object::Array(kids)) = node.get(b"Kids").ok().and_then(|o| deref(doc, o)) {
        for kid in kids {
            if let Some(kid) = dict_of(doc, kid) {
                collect(doc, kid, depth + 1, ranges);
            }
        }
    }
}

fn range(doc: &Document, start: i64, dict: &Dictionary) -> Range {
    let style = dict
        .get(b"S")
        .ok()
        .and_then(name_of)
        .and_then(|s| s.first().copied());
    let prefix = dict
        .get(b"P")
        .ok()
        .and_then(|o| deref(doc, o))
        .and_then(|o| lopdf::decode_text_string(o).ok())
        .unwrap_or_default();
    let first = dict
        .get(b"St")
        .ok()
        .and_then(|o| number(doc, o))
        .map_or(1, |v| v as i64)
        .max(1);
    Range {
        start,
        style,
        prefix,
        first,
    }
}

fn label(range: &Range, index: i64) -> String {
    let value = range
        .first
        .saturating_add(index.saturating_sub(range.start));
    let number = match range.style {
        Some(b'D') => value.to_string(),
        Some(b'R') => roman(value).to_uppercase(),
        Some(b'r') => roman(value),
        Some(b'A') => letters(value).to_uppercase(),
        Some(b'a') => letters(value),
        _ => String::new(),
    };
    format!("{}{}", range.prefix, number)
}

/// Lower-case roman numerals; values beyond 4999 stay decimal.
fn roman(value: i64) -> String {
    if !(1..5000).contains(&value) {
        return value.to_string();
    }
    const TABLE: [(i64, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut rest = value;
    let mut out = String::new();
    for (amount, digits) in TABLE {
        while rest >= amount {
            out.push_str(digits);
            rest -= amount;
        }
    }
    out
}

/// a..z, then aa..zz, aaa..zzz (PDF's letter style); very large values stay decimal.
fn letters(value: i64) -> String {
    if !(1..=26 * 100).contains(&value) {
        return value.to_string();
    }
    let letter = (b'a' + ((value - 1) % 26) as u8) as char;
    let repeat = ((value - 1) / 26 + 1) as usize;
    std::iter::repeat_n(letter, repeat).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_styles() {
        assert_eq!(roman(4), "iv");
        assert_eq!(roman(1994), "mcmxciv");
        assert_eq!(letters(1), "a");
        assert_eq!(letters(27), "aa");
        assert_eq!(letters(53), "aaa");
        let range = Range {
            start: 2,
            style: Some(b'D'),
            prefix: "A-".into(),
            first: 5,
        };
        assert_eq!(label(&range, 3), "A-6");
    }

    fn from_roman(text: &str) -> i64 {
        let value = |c| match c {
            'i' => 1,
            'v' => 5,
            'x' => 10,
            'l' => 50,
            'c' => 100,
            'd' => 500,
            'm' => 1000,
            _ => panic!("not roman: {c}"),
        };
        let digits: Vec<i64> = text.chars().map(value).collect();
        let mut total = 0;
        for (i, d) in digits.iter().enumerate() {
            if digits.get(i + 1).is_some_and(|next| next > d) {
                total -= d;
            } else {
                total += d;
            }
        }
        total
    }

    #[test]
    fn labels_for_any_range_and_page() {
        use crate::testutil::{self, Rng};
        const EDGES: &[i64] = &[
            0,
            1,
            2,
            25,
            26,
            27,
            2600,
            2601,
            4999,
            5000,
            i64::MAX - 1,
            i64::MAX,
            i64::MIN,
            -1,
        ];
        let mut rng = Rng(0x1AB0_0000_0000_0001);
        for _ in 0..3000 {
            let range = Range {
                start: *rng.pick(EDGES),
                style: *rng.pick(&[
                    Some(b'D'),
                    Some(b'R'),
                    Some(b'r'),
                    Some(b'A'),
                    Some(b'a'),
                    Some(b'x'),
                    None,
                ]),
                prefix: testutil::random_text(&mut rng, testutil::TEXT_PIECES, 3),
                first: (*rng.pick(EDGES)).max(1),
            };
            let index = *rng.pick(EDGES);
            let text = label(&range, index);
            assert!(text.starts_with(&range.prefix));
            let number = &text[range.prefix.len()..];
            let value = range
                .first
                .saturating_add(index.saturating_sub(range.start));
            match range.style {
                Some(b'D') => assert_eq!(number, value.to_string()),
                Some(b'r') if (1..5000).contains(&value) => assert_eq!(from_roman(number), value),
                Some(b'a') if (1..=2600).contains(&value) => {
                    assert_eq!(number.len() as i64, (value - 1) / 26 + 1);
                    assert!(number.bytes().all(|b| b == number.as_bytes()[0]));
                }
                Some(b'r' | b'a' | b'R' | b'A') => {
                    assert!(!number.is_empty());
                }
                _ => assert!(number.is_empty()),
            }
        }
        for value in 1..5000 {
            assert_eq!(from_roman(&roman(value)), value);
        }
    }
}
