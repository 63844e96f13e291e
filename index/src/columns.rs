//! Per-unit strings of [`crate::embedded::ExactStore`], held compactly.
//!
//! A store of 1M units holds three strings per unit (unit id, file id, text hash). As one
//! shared `Arc<str>` each they cost about 70 bytes apiece (a 16-byte pointer, a 16-byte
//! count header and the allocator's rounding), 200 MB at 1M units: half again the int8
//! rows. Here every string of a column lies end to end in one buffer with an 8-byte end
//! offset, and a file id, shared by the units of one file, is stored once per run of
//! units and referred to by a 4-byte number.

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

#[cfg(test)]
mod tests {
    use super::*;

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
