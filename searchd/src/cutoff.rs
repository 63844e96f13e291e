//! A confident cut-off of a ranking: `min_score` drops results below a score, `autocut`
//! drops results after the first large break in the score curve, as Weaviate's autocut
//! does. Both are off by default, so `top_k` alone decides how many results come back
//! (HippoCamp's contract). Pure functions; the engine applies them to the file-level
//! ranking (Search: the files; Retrieve: the files of the returned units, each unit
//! kept or dropped with its file).
//!
//! The curve: scores `s_0 ≥ s_1 ≥ … ≥ s_{n-1}`, with drops `d_i = s_{i-1} − s_i` and the
//! average drop `(s_0 − s_{n-1}) / (n − 1)`. A break is where a run of above-average drops
//! ends — a local maximum of the curve's distance below the straight line between its
//! ends, Weaviate's criterion. It is *large* only when the biggest drop of its run is at
//! least [`MIN_BREAK`] of the top score ([`MIN_BREAK_DBSF`] on DBSF's curves, see
//! [`min_break`]) and [`OVER_AVERAGE`] times the average of the
//! other drops, so a smoothly decreasing or merely noisy curve is never cut. `autocut: N` keeps the results
//! before the N-th large break.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::grouping::group_by_file;

/// The smallest drop, as a fraction of the top score, that counts as a large break.
pub const MIN_BREAK: f32 = 0.15;
/// The same on the curves of DBSF-fused hybrid rankings. DBSF sums two lists' scores
/// each mapped onto [0, 1], so its top file (found by both lists) stands on a higher
/// base and the same evidence gap is a smaller share of it. Measured on both evaluation
/// profiles (`docs/benchmarks.md`, "Autocut over DBSF"): F1@5 with `autocut: 1` rises on
/// both at 0.10 and falls on both at 0.20.
pub const MIN_BREAK_DBSF: f32 = 0.10;

/// The [`MIN_BREAK`] for a ranking made in `mode` with `fusion`.
pub fn min_break(mode: crate::mode::Mode, fusion: crate::fusion::Fusion) -> f32 {
    match (mode, fusion) {
        (crate::mode::Mode::Hybrid, crate::fusion::Fusion::Dbsf) => MIN_BREAK_DBSF,
        _ => MIN_BREAK,
    }
}
/// A large break's drop is also at least this many times the average of the curve's
/// other drops (a straight or merely noisy curve has no break).
pub const OVER_AVERAGE: f32 = 2.0;
/// The curve always spans at least this many files (or all there are), so a small
/// `top_k` still sees where the evidence falls off.
pub const CURVE_FILES: usize = 10;
/// The most breaks a request may ask to pass.
pub const MAX_AUTOCUT: u32 = 10;

/// A request's cut-off options (both off by default).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Cutoff {
    /// Keep the results before the N-th large break of the score curve (0: off).
    pub autocut: u32,
    /// Drop results scoring below this (`None`: off).
    pub min_score: Option<f32>,
}

impl Cutoff {
    /// Whether this cut-off can drop anything.
    pub fn is_off(&self) -> bool {
        self.autocut == 0 && self.min_score.is_none()
    }

    /// How many files of a file ranking (scores best first) to return at most: those
    /// scoring at least `min_score`, and of those the ones before the `autocut`-th large
    /// break of the curve of the first `max(top_k, CURVE_FILES)` files; a break is a drop
    /// of at least `min_break` of the top score ([`min_break`]).
    pub fn file_limit(&self, scores: &[f32], top_k: usize, min_break: f32) -> usize {
        let above = match self.min_score {
            Some(min) => scores.iter().take_while(|&&s| s >= min).count(),
            None => scores.len(),
        };
        let curve = &scores[..above.min(top_k.max(CURVE_FILES))];
        let kept = autocut(curve, self.autocut, min_break);
        if kept < curve.len() {
            kept
        } else {
            above
        }
    }

    /// Cuts a flat unit ranking (Retrieve) by its files: units scoring below `min_score`
    /// go, then the files are ranked as Search ranks them ([`group_by_file`]) and the
    /// units of files after the cut ([`Cutoff::file_limit`]) go too. Returns the kept
    /// items in their order, and how many files were kept of how many.
    pub fn cut_units<T>(
        &self,
        hits: Vec<(String, f32, T)>,
        top_k: usize,
        min_break: f32,
    ) -> (Vec<T>, usize, usize) {
        let hits: Vec<(String, f32, T)> = match self.min_score {
            Some(min) => hits.into_iter().filter(|h| h.1 >= min).collect(),
            None => hits,
        };
        let files = group_by_file(
            hits.iter()
                .map(|(file, score, _)| (file.clone(), *score, ())),
        );
        let scores: Vec<f32> = files.iter().map(|f| f.score).collect();
        let limit = self.file_limit(&scores, top_k, min_break);
        let kept: HashSet<&str> = files
            .iter()
            .take(limit)
            .map(|f| f.file_id.as_str())
            .collect();
        let (kept_files, all_files) = (kept.len(), files.len());
        let items = hits
            .into_iter()
            .filter(|(file, _, _)| kept.contains(file.as_str()))
            .map(|(_, _, item)| item)
            .collect();
        (items, kept_files, all_files)
    }

    /// A note for `explain` on what was cut.
    pub fn note(&self, what: &str, kept: usize, of: usize) -> String {
        let mut options = Vec::new();
        if self.autocut > 0 {
            options.push(format!("autocut {}", self.autocut));
        }
        if let Some(min) = self.min_score {
            options.push(format!("min_score {min}"));
        }
        format!(
            "cutoff ({}): kept {kept} of {of} {what}",
            options.join(", ")
        )
    }
}

/// `autocut` as JSON clients send it: `true` (one break), `false`, or a number of breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum AutocutOption {
    Switch(bool),
    Jumps(u32),
}

impl AutocutOption {
    /// The number of breaks to pass (0: off).
    pub fn jumps(self) -> u32 {
        match self {
            AutocutOption::Switch(on) => u32::from(on),
            AutocutOption::Jumps(jumps) => jumps,
        }
    }
}

/// How many of `scores` (best first) come before the `jumps`-th large break (a drop of
/// at least `min_break` of the top score, [`min_break`]); all of them when the curve has
/// fewer breaks. `jumps` 0 keeps everything.
pub fn autocut(scores: &[f32], jumps: u32, min_break: f32) -> usize {
    let n = scores.len();
    if jumps == 0 || n < 3 {
        // Two results are no curve: nothing says which side of a break either is on.
        return n;
    }
    let top = scores[0];
    let spread = top - scores[n - 1];
    // Also false for NaN: such a curve is kept whole.
    let positive = |x: f32| x > 0.0;
    if !positive(top) || !positive(spread) {
        return n;
    }
    let average_drop = spread / (n - 1) as f32;
    let drop = |i: usize| scores[i - 1] - scores[i];
    // Large: against the top score and against the average of all the other drops.
    let large = |d: f32| {
        let others = (spread - d) / (n - 2) as f32;
        d >= min_break * top && d >= OVER_AVERAGE * others
    };
    let mut seen = 0;
    for i in 1..n - 1 {
        // A run of above-average drops ends at i.
        if !(drop(i) > average_drop && drop(i + 1) <= average_drop) {
            continue;
        }
        let run_drop = (1..=i)
            .rev()
            .map(drop)
            .take_while(|&d| d > average_drop)
            .fold(0.0f32, f32::max);
        if large(run_drop) {
            seen += 1;
            if seen == jumps {
                return i;
            }
        }
    }
    // A break before the last result alone (the curve ends right after it).
    if seen + 1 == jumps && large(drop(n - 1)) {
        return n - 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_clear_winner_is_kept_alone() {
        assert_eq!(autocut(&[1.0, 0.5, 0.45, 0.4, 0.35], 1, MIN_BREAK), 1);
        assert_eq!(autocut(&[1.0, 0.3, 0.25], 1, MIN_BREAK), 1);
    }

    #[test]
    fn two_close_winners_are_kept_together() {
        assert_eq!(autocut(&[1.0, 0.95, 0.5, 0.45, 0.4], 1, MIN_BREAK), 2);
    }

    #[test]
    fn a_steady_decline_is_not_cut() {
        assert_eq!(autocut(&[1.0, 0.9, 0.8, 0.7, 0.6], 1, MIN_BREAK), 5);
        assert_eq!(autocut(&[1.0, 0.8, 0.6, 0.4, 0.2, 0.0], 1, MIN_BREAK), 6);
    }

    #[test]
    fn small_wiggles_are_not_breaks() {
        // Uneven, but no drop reaches 15 % of the top score.
        assert_eq!(
            autocut(&[1.0, 0.99, 0.93, 0.925, 0.92, 0.86], 1, MIN_BREAK),
            6
        );
    }

    #[test]
    fn a_run_of_large_drops_is_one_break_after_its_end() {
        // 1.0 → 0.6 → 0.3 are both large drops, then the tail is flat: the first
        // break keeps the two results above the flat tail.
        assert_eq!(autocut(&[1.0, 0.6, 0.3, 0.28, 0.27, 0.26], 1, MIN_BREAK), 2);
    }

    #[test]
    fn more_jumps_pass_more_breaks() {
        let curve = [1.0, 0.97, 0.6, 0.57, 0.55, 0.2, 0.18, 0.17];
        assert_eq!(autocut(&curve, 1, MIN_BREAK), 2);
        assert_eq!(autocut(&curve, 2, MIN_BREAK), 5);
        assert_eq!(autocut(&curve, 3, MIN_BREAK), 8);
    }

    #[test]
    fn a_last_result_far_below_the_rest_is_cut() {
        assert_eq!(autocut(&[1.0, 0.98, 0.97, 0.96, 0.3], 1, MIN_BREAK), 4);
    }

    #[test]
    fn degenerate_curves_are_kept_whole() {
        assert_eq!(autocut(&[], 1, MIN_BREAK), 0);
        assert_eq!(autocut(&[0.7], 1, MIN_BREAK), 1);
        assert_eq!(autocut(&[1.0, 0.1], 1, MIN_BREAK), 2);
        assert_eq!(autocut(&[0.5, 0.5, 0.5], 1, MIN_BREAK), 3);
        assert_eq!(autocut(&[0.0, -0.5, -0.9], 1, MIN_BREAK), 3);
        assert_eq!(autocut(&[1.0, 0.2], 0, MIN_BREAK), 2);
    }

    #[test]
    fn rrf_scale_curves_behave_like_unit_scale_ones() {
        // Fused RRF scores: the first file agrees in both lists, the rest in one.
        let rrf = [0.0328, 0.0164, 0.0161, 0.0159, 0.0156];
        assert_eq!(autocut(&rrf, 1, MIN_BREAK), 1);
        let scaled: Vec<f32> = [1.0f32, 0.95, 0.5, 0.45, 0.4]
            .iter()
            .map(|s| s * 0.03)
            .collect();
        assert_eq!(autocut(&scaled, 1, MIN_BREAK), 2);
    }

    #[test]
    fn dbsf_curves_break_at_a_smaller_share_of_the_top() {
        use crate::fusion::Fusion;
        use crate::mode::Mode;
        // A drop of 12 % of the top score: a break on a DBSF curve, not on others.
        let curve = [1.8, 1.58, 1.55, 1.53, 1.51, 1.49];
        assert_eq!(min_break(Mode::Hybrid, Fusion::Dbsf), MIN_BREAK_DBSF);
        assert_eq!(min_break(Mode::Lexical, Fusion::Dbsf), MIN_BREAK);
        assert_eq!(min_break(Mode::Hybrid, Fusion::Rrf { k: 60.0 }), MIN_BREAK);
        let cut = Cutoff {
            autocut: 1,
            min_score: None,
        };
        assert_eq!(cut.file_limit(&curve, 5, MIN_BREAK_DBSF), 1);
        assert_eq!(cut.file_limit(&curve, 5, MIN_BREAK), 6);
    }

    #[test]
    fn min_score_comes_first_then_autocut() {
        let curve = [0.9, 0.85, 0.4, 0.35, 0.1];
        let min_only = Cutoff {
            autocut: 0,
            min_score: Some(0.3),
        };
        assert_eq!(min_only.file_limit(&curve, 5, MIN_BREAK), 4);
        let both = Cutoff {
            autocut: 1,
            min_score: Some(0.3),
        };
        assert_eq!(both.file_limit(&curve, 5, MIN_BREAK), 2);
        assert_eq!(Cutoff::default().file_limit(&curve, 5, MIN_BREAK), 5);
        assert!(Cutoff::default().is_off() && !both.is_off());
        let none = Cutoff {
            autocut: 0,
            min_score: Some(2.0),
        };
        assert_eq!(none.file_limit(&curve, 5, MIN_BREAK), 0);
    }

    #[test]
    fn the_curve_spans_at_least_ten_files_and_no_break_means_no_limit() {
        // Twelve files: a break after the first two, then a gentle decline.
        let mut curve = vec![1.0, 0.95];
        curve.extend((0..10).map(|i| 0.5 - 0.01 * i as f32));
        let cut = Cutoff {
            autocut: 1,
            min_score: None,
        };
        // top_k 1 still sees the break after two files.
        assert_eq!(cut.file_limit(&curve, 1, MIN_BREAK), 2);
        let flat: Vec<f32> = (0..30).map(|i| 1.0 - 0.01 * i as f32).collect();
        assert_eq!(cut.file_limit(&flat, 5, MIN_BREAK), 30);
    }

    #[test]
    fn autocut_reads_a_switch_or_a_number() {
        for (json, jumps) in [("true", 1), ("false", 0), ("0", 0), ("3", 3)] {
            let option: AutocutOption = serde_json::from_str(json).unwrap();
            assert_eq!(option.jumps(), jumps, "{json}");
        }
        assert!(serde_json::from_str::<AutocutOption>("-1").is_err());
        assert!(serde_json::from_str::<AutocutOption>("\"yes\"").is_err());
    }

    #[test]
    fn units_are_cut_with_their_files() {
        // Units in rank order: file a twice at the top, then b, c, d, e far below.
        let hits: Vec<(String, f32, u32)> = [
            ("a", 1.0, 1),
            ("a", 0.9, 2),
            ("b", 0.4, 3),
            ("a", 0.35, 4),
            ("c", 0.38, 5),
            ("d", 0.36, 6),
            ("e", 0.34, 7),
        ]
        .into_iter()
        .map(|(f, s, i)| (f.to_string(), s, i))
        .collect();
        let cut = Cutoff {
            autocut: 1,
            min_score: None,
        };
        let (items, kept, of) = cut.cut_units(hits.clone(), 5, MIN_BREAK);
        assert_eq!((items, kept, of), (vec![1, 2, 4], 1, 5));
        let min_only = Cutoff {
            autocut: 0,
            min_score: Some(0.37),
        };
        let (items, kept, of) = min_only.cut_units(hits.clone(), 5, MIN_BREAK);
        assert_eq!((items, kept, of), (vec![1, 2, 3, 5], 3, 3));
        let (items, ..) = Cutoff::default().cut_units(hits, 5, MIN_BREAK);
        assert_eq!(items, vec![1, 2, 3, 4, 5, 6, 7]);
    }
}
