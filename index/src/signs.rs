//! The first pass of a large int8 scan: one sign bit per component of each row.
//!
//! A row's bits say which of its components are positive (48 bytes for a MiniLM vector,
//! an eighth of its int8 row). A question is compared with them asymmetrically: its
//! components are kept, quantised to four bits, and the estimate is the question's dot
//! product with the row's signs (`q · sign(x)`), counted with `AND` + `POPCNT` over
//! four bit planes of the question. Rows are stored in blocks of eight, word by word,
//! so that AVX-512's `VPOPCNTQ` scores eight rows at once. The estimates pick a share
//! of the units ([`best_share`]), which their int8 rows then score (`ExactStore::top`).
//!
//! Recall (`docs/benchmarks.md`, "A sign-bit first pass"): random unit vectors, the
//! hardest case, need 2–4 % of a million rows as candidates to keep the int8 top 10;
//! real MiniLM vectors (SciFact's) need under 1 %.

/// Bits per word of a row's signs.
const WORD: usize = 64;

/// Words of sign bits per row of `dim` components.
pub fn words_for(dim: usize) -> usize {
    dim.div_ceil(WORD)
}

/// Appends the sign bits of `row` (a bit set for a component above 0) to `out`, in
/// [`words_for`]`(row.len())` words; bits past the row's end are 0. (The rows of a
/// [`SignRows`] are made word by word; this is their reference.)
#[cfg(test)]
pub fn push_signs<T: Copy + PartialOrd + Default>(row: &[T], out: &mut Vec<u64>) {
    out.extend(row.chunks(WORD).map(sign_word));
}

/// The sign bits of up to [`WORD`] components: bit `i` set when component `i` is positive.
fn sign_word<T: Copy + PartialOrd + Default>(chunk: &[T]) -> u64 {
    let mut word = 0u64;
    for (bit, value) in chunk.iter().enumerate() {
        if *value > T::default() {
            word |= 1 << bit;
        }
    }
    word
}

/// Rows in a block of [`SignRows`].
const BLOCK: usize = 8;

/// The sign bits of a store's rows, in blocks of [`BLOCK`] rows stored word by word
/// (word 0 of the eight rows, then word 1, …), so that one pass over a block scores
/// eight rows side by side (with AVX-512 where the CPU has it). Rows past the last in
/// the last block are zero.
#[derive(Debug, Clone, Default)]
pub struct SignRows {
    words: usize,
    rows: usize,
    bits: Vec<u64>,
}

impl SignRows {
    /// No rows of `dim` components yet.
    pub fn new(dim: usize) -> SignRows {
        SignRows {
            words: words_for(dim),
            rows: 0,
            bits: Vec::new(),
        }
    }

    pub fn reserve(&mut self, rows: usize) {
        self.bits.reserve(rows.div_ceil(BLOCK) * BLOCK * self.words);
    }

    /// Appends a row whose sign word `w` is `word_of(w)`.
    fn push_words(&mut self, word_of: impl Fn(usize) -> u64) {
        if self.rows.is_multiple_of(BLOCK) {
            self.bits.resize(self.bits.len() + BLOCK * self.words, 0);
        }
        let (block, lane) = (self.rows / BLOCK, self.rows % BLOCK);
        for word in 0..self.words {
            self.bits[(block * self.words + word) * BLOCK + lane] = word_of(word);
        }
        self.rows += 1;
    }

    /// Appends the signs of a row of components.
    pub fn push<T: Copy + PartialOrd + Default>(&mut self, row: &[T]) {
        self.push_words(|word| {
            let start = (word * WORD).min(row.len());
            sign_word(&row[start..(start + WORD).min(row.len())])
        });
    }

    /// Appends a copy of row `row` of `from` (which has this dimension).
    pub fn push_from(&mut self, from: &SignRows, row: usize) {
        let (block, lane) = (row / BLOCK, row % BLOCK);
        self.push_words(|word| from.bits[(block * from.words + word) * BLOCK + lane]);
    }

    /// The sign words of row `row`.
    #[cfg(test)]
    pub fn row(&self, row: usize) -> Vec<u64> {
        let (block, lane) = (row / BLOCK, row % BLOCK);
        (0..self.words)
            .map(|word| self.bits[(block * self.words + word) * BLOCK + lane])
            .collect()
    }

    pub fn len(&self) -> usize {
        self.rows
    }
}

/// A question prepared for [`SignQuery::estimate`]: its components as four-bit levels
/// `delta · (u - 7.5)` (`u` in 0..=15, `delta` from its largest magnitude), held as four
/// bit planes per word.
#[derive(Debug, Clone)]
pub struct SignQuery {
    /// Per word, the planes of bits 0, 1, 2 and 3 of the levels.
    planes: Vec<[u64; 4]>,
}

impl SignQuery {
    pub fn new(query: &[f32]) -> SignQuery {
        let largest = query.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let delta = 2.0 * largest / 15.0;
        let mut planes = vec![[0u64; 4]; words_for(query.len())];
        for (i, value) in query.iter().enumerate() {
            let level = if delta > 0.0 {
                (value / delta + 7.5).round().clamp(0.0, 15.0) as u32
            } else {
                8
            };
            for (plane, bits) in planes[i / WORD].iter_mut().enumerate() {
                if level & (1 << plane) != 0 {
                    *bits |= 1 << (i % WORD);
                }
            }
        }
        SignQuery { planes }
    }

    /// The question's four-bit levels dotted with a row's signs (±1), as an integer
    /// that orders rows as that dot product does: only the order of estimates means
    /// anything. `row` has [`words_for`]`(dim)` words.
    ///
    /// With `s = 2b - 1` for a row's bits `b`: `Σ delta(u - 7.5)s = delta(2 Σ u·b -
    /// Σ u - 7.5(2·ones - dim))`; twice that over delta, less what is the same for
    /// every row, is `4 Σ u·b - 30·ones`.
    #[cfg(test)]
    fn estimate_generic(&self, row: &[u64]) -> i32 {
        let mut ones = 0u32;
        let mut weighted = 0u32;
        for (bits, planes) in row.iter().zip(&self.planes) {
            ones += bits.count_ones();
            weighted += (planes[0] & bits).count_ones()
                + 2 * (planes[1] & bits).count_ones()
                + 4 * (planes[2] & bits).count_ones()
                + 8 * (planes[3] & bits).count_ones();
        }
        4 * weighted as i32 - 30 * ones as i32
    }

    /// The estimates of one block's eight rows (`block`: [`BLOCK`] × words).
    #[inline(always)]
    fn block_generic(&self, block: &[u64], out: &mut [i32]) {
        let mut ones = [0u32; BLOCK];
        let mut weighted = [0u32; BLOCK];
        for (words, planes) in block.chunks_exact(BLOCK).zip(&self.planes) {
            for lane in 0..BLOCK {
                let bits = words[lane];
                ones[lane] += bits.count_ones();
                weighted[lane] += (planes[0] & bits).count_ones()
                    + 2 * (planes[1] & bits).count_ones()
                    + 4 * (planes[2] & bits).count_ones()
                    + 8 * (planes[3] & bits).count_ones();
            }
        }
        for lane in 0..BLOCK.min(out.len()) {
            out[lane] = 4 * weighted[lane] as i32 - 30 * ones[lane] as i32;
        }
    }

    /// The estimates of the rows of blocks `first..` into `out` (eight per block; the
    /// last block's may be fewer). Plain loops, so that the whole body is compiled
    /// with the caller's target features.
    #[inline(always)]
    fn blocks_generic(&self, rows: &SignRows, first: usize, out: &mut [i32]) {
        let size = BLOCK * rows.words;
        for (i, out) in out.chunks_mut(BLOCK).enumerate() {
            let start = (first + i) * size;
            self.block_generic(&rows.bits[start..start + size], out);
        }
    }

    /// [`SignQuery::blocks_generic`] with AVX-512 (eight rows' words in one register,
    /// VPOPCNTQ).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    unsafe fn blocks_avx512(&self, rows: &SignRows, first: usize, out: &mut [i32]) {
        self.blocks_generic(rows, first, out)
    }

    /// [`SignQuery::blocks_generic`] with the POPCNT instruction (the default target
    /// counts bits in software).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn blocks_popcnt(&self, rows: &SignRows, first: usize, out: &mut [i32]) {
        self.blocks_generic(rows, first, out)
    }

    fn blocks(&self, rows: &SignRows, first: usize, out: &mut [i32]) {
        #[cfg(target_arch = "x86_64")]
        match cpu() {
            // SAFETY: the CPU has these features (checked at run time).
            Cpu::Avx512 => return unsafe { self.blocks_avx512(rows, first, out) },
            Cpu::Popcnt => return unsafe { self.blocks_popcnt(rows, first, out) },
            Cpu::Plain => {}
        }
        self.blocks_generic(rows, first, out)
    }

    /// The best estimate of each unit's rows (unit `u`: rows `starts[u]..starts[u +
    /// 1]`), `i32::MIN` for a unit `allowed` leaves out; rows and units are split
    /// across `threads` threads.
    pub fn estimate_units(
        &self,
        rows: &SignRows,
        starts: &[u32],
        threads: usize,
        allowed: impl Fn(usize) -> bool + Sync,
    ) -> Vec<i32> {
        let threads = threads.max(1);
        let mut per_row = vec![i32::MIN; rows.len()];
        let share = rows.len().div_ceil(BLOCK).div_ceil(threads).max(1) * BLOCK;
        crate::scan::fill_parts(&mut per_row, share, |first, piece| {
            self.blocks(rows, first / BLOCK, piece)
        });
        let units = starts.len().saturating_sub(1);
        if units == rows.len() {
            // One row per unit: the rows' estimates are the units'.
            crate::scan::fill_parts(&mut per_row, share, |first, piece| {
                for (i, estimate) in piece.iter_mut().enumerate() {
                    if !allowed(first + i) {
                        *estimate = i32::MIN;
                    }
                }
            });
            return per_row;
        }
        let mut out = vec![i32::MIN; units];
        let share = units.div_ceil(threads).max(1);
        let per_row = &per_row;
        crate::scan::fill_parts(&mut out, share, |first, out| {
            for (i, slot) in out.iter_mut().enumerate() {
                let unit = first + i;
                if allowed(unit) {
                    let rows = starts[unit] as usize..starts[unit + 1] as usize;
                    *slot = per_row[rows].iter().copied().fold(i32::MIN, i32::max);
                }
            }
        });
        out
    }
}

/// The `depth` best of `estimates` (`i32::MIN`: left out), as indices in ascending
/// order: every one above the cut, then those at the cut in index order. A histogram of
/// the values finds the cut, so the cost is three passes whatever `depth` is.
pub fn best_share(estimates: &[i32], depth: usize) -> Vec<usize> {
    let (mut present, mut low, mut high) = (0usize, i32::MAX, i32::MIN);
    for e in estimates.iter().copied().filter(|e| *e != i32::MIN) {
        present += 1;
        low = low.min(e);
        high = high.max(e);
    }
    if present <= depth {
        return (0..estimates.len())
            .filter(|i| estimates[*i] != i32::MIN)
            .collect();
    }
    let present = || estimates.iter().copied().filter(|e| *e != i32::MIN);
    let mut counts = vec![0u32; (i64::from(high) - i64::from(low) + 1) as usize];
    for e in present() {
        counts[(e - low) as usize] += 1;
    }
    // The cut: the highest value at which at least `depth` are at or above it.
    let (mut cut, mut above) = (low, 0usize);
    for (offset, count) in counts.iter().enumerate().rev() {
        if above + *count as usize >= depth {
            cut = low + offset as i32;
            break;
        }
        above += *count as usize;
    }
    let mut at_cut = depth.saturating_sub(above);
    let mut out = Vec::with_capacity(depth.min(estimates.len()));
    for (i, e) in estimates.iter().enumerate() {
        if *e == i32::MIN || *e < cut {
            continue;
        }
        if *e == cut {
            if at_cut == 0 {
                continue;
            }
            at_cut -= 1;
        }
        out.push(i);
    }
    out
}

/// What the CPU offers the sign pass (asked once).
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cpu {
    Avx512,
    Popcnt,
    Plain,
}

#[cfg(target_arch = "x86_64")]
fn cpu() -> Cpu {
    static CPU: std::sync::OnceLock<Cpu> = std::sync::OnceLock::new();
    *CPU.get_or_init(|| {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            Cpu::Avx512
        } else if std::arch::is_x86_feature_detected!("popcnt") {
            Cpu::Popcnt
        } else {
            Cpu::Plain
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signs_of(row: &[f32]) -> Vec<u64> {
        let mut out = Vec::new();
        push_signs(row, &mut out);
        out
    }

    /// Twice the four-bit question's dot product with the row's signs, over `delta`,
    /// computed the slow way (the estimate differs from it by a constant).
    fn slow(query: &[f32], row: &[f32]) -> f32 {
        let largest = query.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let delta = 2.0 * largest / 15.0;
        query
            .iter()
            .zip(row)
            .map(|(v, x)| {
                let u = (v / delta + 7.5).round().clamp(0.0, 15.0);
                let s = if *x > 0.0 { 1.0 } else { -1.0 };
                2.0 * (u - 7.5) * s
            })
            .sum()
    }

    fn vectors(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        (0..n).map(|_| (0..dim).map(|_| next()).collect()).collect()
    }

    /// A store of one row per unit: its signs and `starts`.
    fn rows(rows: &[Vec<f32>]) -> (SignRows, Vec<u32>) {
        let mut signs = SignRows::new(rows.first().map_or(0, Vec::len));
        for row in rows {
            signs.push(row);
        }
        (signs, (0..=rows.len() as u32).collect())
    }

    #[test]
    fn signs_are_one_bit_per_positive_component_in_whole_words() {
        let row: Vec<f32> = (0..70)
            .map(|i| if i % 3 == 0 { 0.5 } else { -0.5 })
            .collect();
        let bits = signs_of(&row);
        assert_eq!(bits.len(), 2);
        assert_eq!(words_for(384), 6);
        for (i, value) in row.iter().enumerate() {
            assert_eq!(
                (bits[i / 64] >> (i % 64)) & 1 == 1,
                *value > 0.0,
                "component {i}"
            );
        }
        // Past the row's end, and for a 0, no bit.
        assert_eq!(bits[1] >> 6, 0);
        assert_eq!(signs_of(&[0.0f32, 1.0]), vec![0b10]);
        let mut int8 = Vec::new();
        push_signs(&[0i8, 3, -2], &mut int8);
        assert_eq!(int8, vec![0b010]);
    }

    #[test]
    fn the_estimate_is_the_four_bit_question_against_the_signs() {
        for dim in [1usize, 5, 64, 100, 384] {
            let query = &vectors(1, dim, dim as u64)[0];
            let q = SignQuery::new(query);
            let rows = vectors(20, dim, 99);
            // Differences between rows are exact, whatever the constant.
            let fast: Vec<i32> = rows
                .iter()
                .map(|r| q.estimate_generic(&signs_of(r)))
                .collect();
            let slow: Vec<f32> = rows.iter().map(|r| slow(query, r)).collect();
            for i in 1..rows.len() {
                let want = slow[i] - slow[0];
                assert!(
                    ((fast[i] - fast[0]) as f32 - want).abs() < 1e-3,
                    "dim {dim} row {i}: {} vs {want}",
                    fast[i] - fast[0]
                );
            }
            // Blocks of eight, the CPU's build and the threads give the same estimates.
            let (signs, starts) = self::rows(&rows);
            for (r, row) in rows.iter().enumerate() {
                assert_eq!(signs.row(r), signs_of(row));
            }
            assert_eq!(signs.len(), rows.len());
            for threads in [1, 2, 3, 64] {
                assert_eq!(q.estimate_units(&signs, &starts, threads, |_| true), fast);
            }
        }
    }

    #[test]
    fn a_unit_takes_its_best_row_and_a_left_out_unit_has_none() {
        let dim = 128;
        let all = vectors(6, dim, 3);
        let q = SignQuery::new(&all[4]);
        let (signs, _) = rows(&all);
        // Units: rows 0..2, 2..5 (with the question's own row 4), 5..6.
        let starts = [0u32, 2, 5, 6];
        let got = q.estimate_units(&signs, &starts, 2, |unit| unit != 2);
        let row = |r: usize| q.estimate_generic(&signs.row(r));
        assert_eq!(got, vec![row(0).max(row(1)), row(4), i32::MIN]);
        assert!(row(4) > row(2).max(row(3)));
    }

    #[test]
    fn the_estimate_orders_rows_like_their_dot_products() {
        // The row the question was made from comes first.
        let dim = 384;
        let all = vectors(500, dim, 5);
        let q = SignQuery::new(&all[17]);
        let (signs, starts) = rows(&all);
        let estimates = q.estimate_units(&signs, &starts, 1, |_| true);
        assert_eq!(best_share(&estimates, 1), vec![17]);
        assert!(SignQuery::new(&[]).planes.is_empty());
        assert_eq!(
            SignQuery::new(&[0.0; 3]).estimate_generic(&[0b111]),
            4 * 3 * 8 - 90
        );
    }

    #[test]
    fn the_best_share_cuts_at_the_depth_with_ties_in_index_order() {
        let estimates = [5, 1, i32::MIN, 5, 3, 9, 3, 3, -4];
        assert_eq!(best_share(&estimates, 1), vec![5]);
        assert_eq!(best_share(&estimates, 3), vec![0, 3, 5]);
        // Two of the three 3s: the first two.
        assert_eq!(best_share(&estimates, 5), vec![0, 3, 4, 5, 6]);
        // More than there are: all but the left-out one.
        assert_eq!(best_share(&estimates, 20), vec![0, 1, 3, 4, 5, 6, 7, 8]);
        assert_eq!(best_share(&estimates, 8), vec![0, 1, 3, 4, 5, 6, 7, 8]);
        assert!(best_share(&estimates, 0).is_empty());
        assert!(best_share(&[i32::MIN, i32::MIN], 1).is_empty());
        assert!(best_share(&[], 3).is_empty());
        // Agrees with a sort on many values.
        let many: Vec<i32> = (0..5000).map(|i| ((i * 7919) % 613) - 300).collect();
        for depth in [1, 10, 999, 4999] {
            let mut sorted: Vec<usize> = (0..many.len()).collect();
            sorted.sort_by(|a, b| many[*b].cmp(&many[*a]).then(a.cmp(b)));
            let mut want = sorted[..depth].to_vec();
            want.sort();
            assert_eq!(best_share(&many, depth), want, "depth {depth}");
        }
    }
}
