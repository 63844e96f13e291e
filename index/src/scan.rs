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

/// Keeps the `k` best of `items`, each `(score, row, payload)`, in the order of
/// [`best_rows`]: best first, ties in row order.
pub fn keep_best<P>(items: &mut Vec<(f32, usize, P)>, k: usize) {
    let order = |a: &(f32, usize, P), b: &(f32, usize, P)| {
        let scored = |item: &(f32, usize, P)| Scored {
            score: item.0,
            row: item.1,
        };
        scored(b).cmp(&scored(a))
    };
    if k == 0 {
        items.clear();
        return;
    }
    if items.len() > k {
        items.select_nth_unstable_by(k - 1, order);
        items.truncate(k);
    }
    items.sort_by(order);
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
    let score = &score;
    let mut parts = in_parts(rows, threads, |range| {
        let mut best = Best::new(k);
        best.scan(range, score);
        best
    })
    .into_iter();
    let mut best = parts.next().unwrap_or_else(|| Best::new(k));
    for other in parts {
        best.merge(other);
    }
    best.into_sorted()
}

/// `work` over `0..len` cut into `threads` contiguous ranges, one thread each (the first
/// range on the calling thread); the results in range order. A panic in a thread is
/// raised again on the caller.
pub fn in_parts<R: Send>(
    len: usize,
    threads: usize,
    work: impl Fn(std::ops::Range<usize>) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, len.max(1));
    if threads == 1 {
        return vec![work(0..len)];
    }
    let share = len.div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|t| {
                let range = (t * share).min(len)..((t + 1) * share).min(len);
                scope.spawn(move || work(range))
            })
            .collect();
        let mut out = Vec::with_capacity(threads);
        out.push(work(0..share.min(len)));
        for other in others {
            match other.join() {
                Ok(part) => out.push(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

/// `fill` over `out` cut into pieces of `share` items, one thread each (the first piece
/// on the calling thread); `fill` gets the piece's first index and the piece.
pub fn fill_parts<T: Send>(out: &mut [T], share: usize, fill: impl Fn(usize, &mut [T]) + Sync) {
    let share = share.max(1);
    let fill = &fill;
    std::thread::scope(|scope| {
        let mut pieces = out.chunks_mut(share).enumerate();
        let first = pieces.next();
        for (t, piece) in pieces {
            scope.spawn(move || fill(t * share, piece));
        }
        if let Some((_, piece)) = first {
            fill(0, piece);
        }
    });
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
    fn parts_cover_every_index_once_in_order() {
        for len in [0usize, 1, 5, 64, 1001] {
            for threads in [1, 2, 3, 7] {
                let parts = in_parts(len, threads, |range| range.collect::<Vec<_>>());
                assert_eq!(
                    parts.concat(),
                    (0..len).collect::<Vec<_>>(),
                    "{len} {threads}"
                );
                for share in [1, 8, 100] {
                    let mut out = vec![usize::MAX; len];
                    fill_parts(&mut out, share, |first, piece| {
                        for (i, slot) in piece.iter_mut().enumerate() {
                            *slot = first + i;
                        }
                    });
                    assert_eq!(out, (0..len).collect::<Vec<_>>(), "{len} {share}");
                }
            }
        }
    }

    #[test]
    fn keep_best_orders_as_the_scan_does() {
        let mut items = vec![(0.5, 4, 'a'), (0.9, 7, 'b'), (0.5, 2, 'c'), (0.1, 0, 'd')];
        keep_best(&mut items, 3);
        assert_eq!(items, [(0.9, 7, 'b'), (0.5, 2, 'c'), (0.5, 4, 'a')]);
        let scores = [0.5, 0.1, 0.5, 0.9];
        let rows = best_rows(4, 3, 1, |row| Some(scores[row]));
        assert_eq!(rows, [(0.9, 3), (0.5, 0), (0.5, 2)]);
        keep_best(&mut items, 0);
        assert!(items.is_empty());
    }

    #[test]
    fn threads_grow_with_the_rows_up_to_the_cap() {
        assert_eq!(threads_for(10), 1);
        assert_eq!(threads_for(PARALLEL_ROWS - 1), 1);
        assert!(threads_for(100 * PARALLEL_ROWS) >= 1);
    }
}
