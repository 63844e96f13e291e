//! The exact scan behind [`crate::embedded::ExactStore`]: every row is scored, the best
//! `k` are kept in a bounded heap while the scan runs (no score list as long as the
//! store), and a large store is split across threads, one contiguous share each.
//!
//! Order is total and deterministic: a higher score first, and among equal scores the
//! lower row, both while scanning and when the threads' bests are merged, so a
//! split scan returns exactly what one pass would.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Stores with fewer rows than this are scanned on the calling thread: below it, a
/// thread's start costs more than its share of the scan saves.
pub const PARALLEL_ROWS: usize = 50_000;

/// Threads a scan of `rows` uses: one per [`PARALLEL_ROWS`], at most the cores (and
/// `DENTATE_SCAN_THREADS` when set, read once).
pub fn threads_for(rows: usize) -> usize {
    static CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cap = *CAP.get_or_init(|| {
        std::env::var("DENTATE_SCAN_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    });
    (rows / PARALLEL_ROWS).clamp(1, cap)
}

/// A row and its score, ordered so that "greater" is "better".
#[derive(Debug, Clone, Copy)]
struct Scored {
    score: f32,
    row: usize,
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.row.cmp(&self.row))
    }
}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Scored {}

/// The best `k` seen so far; the worst of them on top.
struct Best {
    k: usize,
    heap: BinaryHeap<Reverse<Scored>>,
}

impl Best {
    fn new(k: usize) -> Best {
        Best {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
        }
    }

    #[inline]
    fn offer(&mut self, candidate: Scored) {
        if self.heap.len() < self.k {
            self.heap.push(Reverse(candidate));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if candidate > worst.0 {
                *worst = Reverse(candidate);
            }
        }
    }

    fn scan(&mut self, rows: std::ops::Range<usize>, score: &impl Fn(usize) -> Option<f32>) {
        for row in rows {
            if let Some(score) = score(row) {
                self.offer(Scored { score, row });
            }
        }
    }

    fn merge(&mut self, other: Best) {
        for Reverse(scored) in other.heap {
            self.offer(scored);
        }
    }

    /// `(score, row)`, best first.
    fn into_sorted(self) -> Vec<(f32, usize)> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|Reverse(s)| (s.score, s.row))
            .collect()
    }
}

/// The `k` best of `rows` rows by `score` (`None`: the row is left out), best first, ties
/// in row order; split across `threads` threads (see [`threads_for`]).
pub fn best_rows(
    rows: usize,
    k: usize,
    threads: usize,
    score: impl Fn(usize) -> Option<f32> + Sync,
) -> Vec<(f32, usize)> {
    if k == 0 || rows == 0 {
        return Vec::new();
    }
    let threads = threads.clamp(1, rows);
    let mut best = Best::new(k);
    if threads == 1 {
        best.scan(0..rows, &score);
        return best.into_sorted();
    }
    let share = rows.div_ceil(threads);
    let score = &score;
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|t| {
                let range = t * share..((t + 1) * share).min(rows);
                scope.spawn(move || {
                    let mut best = Best::new(k);
                    best.scan(range, score);
                    best
                })
            })
            .collect();
        best.scan(0..share.min(rows), score);
        for other in others {
            match other.join() {
                Ok(other) => best.merge(other),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    best.into_sorted()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row scored, sorted by score then row, cut at `k`.
    fn naive(scores: &[Option<f32>], k: usize) -> Vec<(f32, usize)> {
        let mut all: Vec<(f32, usize)> = scores
            .iter()
            .enumerate()
            .filter_map(|(row, s)| s.map(|s| (s, row)))
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(k);
        all
    }

    #[test]
    fn any_split_returns_what_a_full_sort_does_ties_included() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for rows in [1usize, 2, 3, 17, 1000, 10_007] {
            // Few distinct values: many exact ties; every fifth row filtered out.
            let scores: Vec<Option<f32>> = (0..rows)
                .map(|_| {
                    let v = next();
                    (v % 5 != 0).then_some((v % 13) as f32 - 6.0)
                })
                .collect();
            for k in [1, 2, 10, 100, rows, rows + 5] {
                let want = naive(&scores, k);
                for threads in [1, 2, 3, 8] {
                    assert_eq!(
                        best_rows(rows, k, threads, |row| scores[row]),
                        want,
                        "rows {rows} k {k} threads {threads}"
                    );
                }
            }
        }
        assert!(best_rows(0, 5, 2, |_| Some(1.0)).is_empty());
        assert!(best_rows(5, 0, 2, |_| Some(1.0)).is_empty());
    }

    #[test]
    fn threads_grow_with_the_rows_up_to_the_cap() {
        assert_eq!(threads_for(10), 1);
        assert_eq!(threads_for(PARALLEL_ROWS - 1), 1);
        assert!(threads_for(100 * PARALLEL_ROWS) >= 1);
    }
}
