//! Fusing ranked lists from several retrievers into one ranking. Pure functions.

use std::collections::HashMap;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

/// How lexical and dense rankings are combined.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Fusion {
    /// Reciprocal rank fusion: `Σ 1 / (k + rank)`, rank from 1.
    Rrf { k: f32 },
    /// Min-max normalised scores, `w · lexical + (1 − w) · dense`.
    Weighted { lexical_weight: f32 },
    /// Distribution-based score fusion (Qdrant's DBSF): each list's scores mapped
    /// from `[mean − 3σ, mean + 3σ]` onto `[0, 1]`, clamped below at 0 and above at
    /// [`DBSF_CEILING`] (Qdrant clamps at 1), then summed.
    Dbsf,
}

/// The default is DBSF: on both evaluation profiles (`docs/benchmarks.md`, "Fusion by
/// default") it ranks the answer file higher than RRF, and it is level on SciFact.
impl Default for Fusion {
    fn default() -> Self {
        Fusion::Dbsf
    }
}

pub const DEFAULT_RRF_K: f32 = 60.0;

/// How far above `mean + 3σ` a DBSF-normalised score may go: up to `mean + 4.2σ`
/// (1.2). Qdrant's DBSF clamps at 1, so every unit beyond `mean + 3σ` scores the same,
/// and in a personal profile several do: the one e-mail holding the bib number asked
/// for, far above the rest on both lists, ties at 1 + 1 with units that barely pass
/// the mark, and a file's other units then decide. A little headroom keeps part of an
/// outlier's lead. Measured on both dev sets, hybrid MRR and F1@5 rise over the whole
/// range 1.1–1.3 and fall again from 1.4 (persona) and 2.0 (both), see
/// `docs/benchmarks.md`, "Headroom above DBSF's ceiling".
pub const DBSF_CEILING: f32 = 1.2;

/// Which retriever a ranked list comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// BM25 over the unit's fields.
    Lexical,
    /// Text embeddings (a unit's best window).
    Dense,
    /// Image embeddings (CLIP) of pictures and frames.
    Image,
    /// Any further list, by its name (its `explain` keys are `NAME.rank`, `NAME.score`).
    Named(&'static str),
}

impl Source {
    /// The `explain` key of an item's rank and of its raw score in this list.
    pub fn explain_keys(self) -> (String, String) {
        match self {
            Source::Lexical => ("bm25.rank".into(), "bm25.score".into()),
            Source::Dense => ("dense.rank".into(), "dense.cosine".into()),
            Source::Image => ("clip.rank".into(), "clip.cosine".into()),
            Source::Named(name) => (format!("{name}.rank"), format!("{name}.score")),
        }
    }
}

/// One ranked list to fuse: its source, its items (best first), its weight (used by
/// weighted fusion and DBSF; RRF ignores it) and how far above `mean + 3σ` DBSF lets
/// its scores go (`ceiling`, [`DBSF_CEILING`] unless fitted otherwise).
#[derive(Debug, Clone, Copy)]
pub struct RankedList<'a, K> {
    pub source: Source,
    pub items: &'a [(K, f32)],
    pub weight: f32,
    pub ceiling: f32,
    /// A factor on `weight` for each item, in the items' order (DBSF only, whose
    /// weights are the fitted ones; empty: 1 for all): the lexical list weighs an e-mail
    /// or an event less (`crate::weights::Weights::lexical_scale`). A request's own
    /// weighted fusion (`lexical_weight`) and RRF ignore it.
    pub scales: &'a [f32],
}

impl<'a, K> RankedList<'a, K> {
    /// A list of `weight` with DBSF's usual ceiling.
    pub fn new(source: Source, items: &'a [(K, f32)], weight: f32) -> Self {
        RankedList {
            source,
            items,
            weight,
            ceiling: DBSF_CEILING,
            scales: &[],
        }
    }
}

/// Where one fused item came from: its 1-based rank and raw score in each list that
/// holds it (in the order of the lists), and its fused score.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Signals {
    pub lists: Vec<(Source, usize, f32)>,
    pub fused: f32,
}

impl Signals {
    /// Rank and raw score in the list of `source`, if it holds the item.
    pub fn of(&self, source: Source) -> Option<(usize, f32)> {
        self.lists
            .iter()
            .find(|(s, ..)| *s == source)
            .map(|&(_, rank, score)| (rank, score))
    }

    pub fn lexical(&self) -> Option<(usize, f32)> {
        self.of(Source::Lexical)
    }

    pub fn dense(&self) -> Option<(usize, f32)> {
        self.of(Source::Dense)
    }

    pub fn image(&self) -> Option<(usize, f32)> {
        self.of(Source::Image)
    }
}

/// Scores mapped from `[mean − 3σ, mean + 3σ]` onto `[0, 1]`, clamped to
/// `[0, ceiling]` (all 0.5 when the scores do not vary).
fn distribution_normalised(list: &[(impl Sized, f32)], ceiling: f32) -> Vec<f32> {
    if list.is_empty() {
        return Vec::new();
    }
    let n = list.len() as f64;
    let mean = list.iter().map(|x| f64::from(x.1)).sum::<f64>() / n;
    let variance = list
        .iter()
        .map(|x| (f64::from(x.1) - mean).powi(2))
        .sum::<f64>()
        / n;
    let spread = 3.0 * variance.sqrt();
    list.iter()
        .map(|x| {
            if spread > 0.0 {
                (((f64::from(x.1) - (mean - spread)) / (2.0 * spread))
                    .clamp(0.0, f64::from(ceiling.max(1.0)))) as f32
            } else {
                0.5
            }
        })
        .collect()
}

fn normalised(list: &[(impl Sized, f32)]) -> Vec<f32> {
    let max = list.iter().map(|x| x.1).fold(f32::NEG_INFINITY, f32::max);
    let min = list.iter().map(|x| x.1).fold(f32::INFINITY, f32::min);
    list.iter()
        .map(|x| {
            if max > min {
                (x.1 - min) / (max - min)
            } else {
                1.0
            }
        })
        .collect()
}

/// Fuses two ranked lists (best first); items in both are merged. The result is sorted
/// by fused score, ties broken by the better lexical rank, then the better dense rank.
pub fn fuse<K: Hash + Eq + Clone>(
    lexical: &[(K, f32)],
    dense: &[(K, f32)],
    fusion: Fusion,
) -> Vec<(K, Signals)> {
    fuse_with_images(lexical, dense, &[], fusion)
}

/// [`fuse`] with a third list of image (CLIP) hits, weighted like the dense list.
pub fn fuse_with_images<K: Hash + Eq + Clone>(
    lexical: &[(K, f32)],
    dense: &[(K, f32)],
    images: &[(K, f32)],
    fusion: Fusion,
) -> Vec<(K, Signals)> {
    fuse_weighted(
        lexical,
        dense,
        images,
        fusion,
        [1.0; 3],
        [DBSF_CEILING; 3],
        &[],
    )
}

/// [`fuse_with_images`] where DBSF weighs the lexical, dense and image lists by
/// `dbsf_weights` and clamps them at `ceilings` (the fitted
/// [`crate::weights::Weights::lists`] and [`crate::weights::Weights::ceilings`]); RRF
/// and weighted fusion keep their own weights.
pub fn fuse_weighted<K: Hash + Eq + Clone>(
    lexical: &[(K, f32)],
    dense: &[(K, f32)],
    images: &[(K, f32)],
    fusion: Fusion,
    dbsf_weights: [f32; 3],
    ceilings: [f32; 3],
    lexical_scales: &[f32],
) -> Vec<(K, Signals)> {
    let weights = list_weights(fusion, dbsf_weights);
    let lists = [
        (Source::Lexical, lexical),
        (Source::Dense, dense),
        (Source::Image, images),
    ];
    let lists: Vec<RankedList<K>> = lists
        .into_iter()
        .enumerate()
        .map(|(i, (source, items))| RankedList {
            ceiling: ceilings[i],
            scales: if i == 0 { lexical_scales } else { &[] },
            ..RankedList::new(source, items, weights[i])
        })
        .collect();
    fuse_lists(&lists, fusion)
}

/// An item's rank in each of `lists`, in their order (`usize::MAX` where it is absent).
fn ranks<'a, K>(
    lists: &'a [RankedList<K>],
    signals: &'a Signals,
) -> impl Iterator<Item = usize> + 'a {
    lists
        .iter()
        .map(|list| signals.of(list.source).map_or(usize::MAX, |x| x.0))
}

/// The weights of the lexical, dense and image lists under `fusion`: weighted fusion's
/// `w, 1 − w, 1 − w`, RRF's ones, DBSF's `dbsf_weights`.
pub fn list_weights(fusion: Fusion, dbsf_weights: [f32; 3]) -> [f32; 3] {
    match fusion {
        Fusion::Weighted { lexical_weight } => {
            [lexical_weight, 1.0 - lexical_weight, 1.0 - lexical_weight]
        }
        Fusion::Rrf { .. } => [1.0; 3],
        Fusion::Dbsf => dbsf_weights,
    }
}

/// Fuses any number of ranked lists; items in several are merged. The result is sorted
/// by fused score, ties broken by the better rank in the first list, then the second,
/// and so on; items still tied keep the order in which the lists first named them.
pub fn fuse_lists<K: Hash + Eq + Clone>(
    lists: &[RankedList<K>],
    fusion: Fusion,
) -> Vec<(K, Signals)> {
    let mut merged: HashMap<K, Signals> = HashMap::new();
    let mut order: Vec<K> = Vec::new();
    for list in lists {
        let norm = match fusion {
            Fusion::Dbsf => distribution_normalised(list.items, list.ceiling),
            _ => normalised(list.items),
        };
        for (rank, (key, score)) in list.items.iter().enumerate() {
            let entry = merged.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                Signals::default()
            });
            entry.lists.push((list.source, rank + 1, *score));
            entry.fused += match fusion {
                Fusion::Rrf { k } => 1.0 / (k + (rank + 1) as f32),
                Fusion::Weighted { .. } => list.weight * norm[rank],
                Fusion::Dbsf => {
                    list.weight * list.scales.get(rank).copied().unwrap_or(1.0) * norm[rank]
                }
            };
        }
    }
    let mut out: Vec<(K, Signals)> = order
        .into_iter()
        .map(|key| {
            let signals = merged.remove(&key).unwrap_or_default();
            (key, signals)
        })
        .collect();
    // Compared list by list, without allocating in the sort's comparisons.
    out.sort_by(|a, b| {
        b.1.fused
            .total_cmp(&a.1.fused)
            .then_with(|| ranks(lists, &a.1).cmp(ranks(lists, &b.1)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement() {
        let lexical = [("a", 9.0), ("b", 5.0), ("c", 1.0)];
        let dense = [("d", 0.9), ("b", 0.8), ("c", 0.1)];
        let fused = fuse(&lexical, &dense, Fusion::Rrf { k: 60.0 });
        let keys: Vec<_> = fused.iter().map(|x| x.0).collect();
        // b is 2nd in both lists: 2/62 beats c's 2/63 and a's or d's single 1/61.
        assert_eq!(keys, ["b", "c", "a", "d"]);
        assert_eq!(keys.len(), 4);
        let b = fused[0].1.clone();
        assert_eq!(b.lexical(), Some((2, 5.0)));
        assert_eq!(b.dense(), Some((2, 0.8)));
        assert!((b.fused - 2.0 / 62.0).abs() < 1e-6);
    }

    #[test]
    fn weighted_fusion_uses_normalised_scores() {
        let lexical = [("a", 10.0), ("b", 0.0)];
        let dense = [("b", 0.9), ("a", 0.1)];
        let fused = fuse(
            &lexical,
            &dense,
            Fusion::Weighted {
                lexical_weight: 0.7,
            },
        );
        assert_eq!(fused[0].0, "a");
        assert!((fused[0].1.fused - 0.7).abs() < 1e-6);
        assert!((fused[1].1.fused - 0.3).abs() < 1e-6);
        let fused = fuse(
            &lexical,
            &dense,
            Fusion::Weighted {
                lexical_weight: 0.2,
            },
        );
        assert_eq!(fused[0].0, "b");
    }

    #[test]
    fn dbsf_sums_distribution_normalised_scores() {
        // Lexical scores spread widely, dense ones narrowly: each is normalised by its
        // own distribution, so a clear dense winner counts as much as a lexical one.
        let lexical = [("a", 30.0), ("b", 10.0), ("c", 9.0), ("d", 8.0)];
        let dense = [("c", 0.62), ("b", 0.55), ("a", 0.50), ("e", 0.49)];
        let fused = fuse(&lexical, &dense, Fusion::Dbsf);
        let score = |k: &str| fused.iter().find(|x| x.0 == k).unwrap().1.fused;
        for (key, _) in &fused {
            assert!((0.0..=2.0 * DBSF_CEILING).contains(&score(key)), "{key}");
        }
        // a: top lexical, bottom-ish dense; c: top dense, third lexical.
        assert!(
            score("a") > score("b") && score("c") > score("b"),
            "{fused:?}"
        );
        assert!(score("e") < score("d") + 0.5, "{fused:?}");
        // Scores that do not vary sit in the middle.
        assert_eq!(
            distribution_normalised(&[("x", 1.0), ("y", 1.0)], DBSF_CEILING),
            [0.5, 0.5]
        );
        let empty: [(&str, f32); 0] = [];
        assert!(distribution_normalised(&empty, DBSF_CEILING).is_empty());
        // The extremes of a wide list stay within [0, DBSF_CEILING].
        let wide: Vec<(usize, f32)> = (0..100)
            .map(|i| (i, if i == 0 { 1e6 } else { 1.0 }))
            .collect();
        let norm = distribution_normalised(&wide, DBSF_CEILING);
        assert!(norm.iter().all(|x| (0.0..=DBSF_CEILING).contains(x)));
        assert_eq!(norm[0], DBSF_CEILING);
        assert!(norm[0] > norm[1]);
        // Above mean + 3σ a score keeps part of its lead: of two units past the mark
        // (both 1 under Qdrant's clamp), the one far beyond it scores higher.
        let mut outliers: Vec<(usize, f32)> = (0..200).map(|i| (i, (i % 3) as f32)).collect();
        outliers.extend([(200, 5.0), (201, 8.0)]);
        let norm = distribution_normalised(&outliers, DBSF_CEILING);
        assert!(norm[200] > 1.0 && norm[200] < DBSF_CEILING, "{}", norm[200]);
        assert_eq!(norm[201], DBSF_CEILING);
        assert!(norm[2] < 1.0);
        // A list's own ceiling: Qdrant's clamp at 1 ties the two outliers, a higher
        // one keeps the far outlier's lead; below 1 is read as 1.
        let at_one = distribution_normalised(&outliers, 1.0);
        assert_eq!(at_one[200], at_one[201]);
        assert_eq!(distribution_normalised(&outliers, 0.5), at_one);
        let high = distribution_normalised(&outliers, 2.0);
        assert!(high[201] > DBSF_CEILING && high[201] > high[200]);
    }

    #[test]
    fn one_sided_and_empty_lists() {
        let none: [(&str, f32); 0] = [];
        assert!(fuse(&none, &none, Fusion::default()).is_empty());
        let fused = fuse(&[("x", 1.0)], &none, Fusion::default());
        assert_eq!(fused.len(), 1);
        assert_eq!(fused[0].1.dense(), None);
        let fused = fuse(&none, &[("x", 0.5), ("y", 0.4)], Fusion::default());
        assert_eq!(fused.iter().map(|x| x.0).collect::<Vec<_>>(), ["x", "y"]);
    }

    #[test]
    fn image_hits_join_as_a_third_list() {
        let lexical = [("a", 3.0)];
        let dense = [("b", 0.9)];
        let images = [("c", 0.8), ("b", 0.5)];
        let fused = fuse_with_images(&lexical, &dense, &images, Fusion::Rrf { k: 60.0 });
        assert_eq!(fused[0].0, "b");
        assert_eq!(fused[0].1.image(), Some((2, 0.5)));
        assert_eq!(fused.len(), 3);
        assert!(fused
            .iter()
            .any(|(k, s)| *k == "c" && s.image() == Some((1, 0.8))));
    }

    /// A new retriever is one more list: no change to fusion, its signals named by
    /// its source.
    #[test]
    fn any_number_of_lists_fuse() {
        let lexical = [("a", 9.0), ("b", 3.0)];
        let dense = [("b", 0.8), ("c", 0.7)];
        let images = [("c", 0.4)];
        let recent = [("d", 1.0), ("b", 0.9)];
        let lists = [
            RankedList::new(Source::Lexical, &lexical[..], 1.0),
            RankedList::new(Source::Dense, &dense[..], 1.0),
            RankedList::new(Source::Image, &images[..], 1.0),
            RankedList::new(Source::Named("recent"), &recent[..], 0.5),
        ];
        let fused = fuse_lists(&lists, Fusion::Rrf { k: 60.0 });
        assert_eq!(fused.len(), 4);
        // b is in three lists.
        assert_eq!(fused[0].0, "b");
        assert_eq!(fused[0].1.of(Source::Named("recent")), Some((2, 0.9)));
        assert_eq!(fused[0].1.lists.len(), 3);
        let d = fused.iter().find(|x| x.0 == "d").unwrap();
        assert_eq!(d.1.lists, vec![(Source::Named("recent"), 1, 1.0)]);
        assert_eq!(
            Source::Named("recent").explain_keys(),
            ("recent.rank".to_string(), "recent.score".to_string())
        );
        // Weights count in DBSF: a list of weight 0 changes nothing.
        let zero = [
            lists[0],
            lists[1],
            RankedList {
                weight: 0.0,
                ..lists[3]
            },
        ];
        let with = fuse_lists(&zero, Fusion::Dbsf);
        let without = fuse_lists(&lists[..2], Fusion::Dbsf);
        let score =
            |v: &[(&str, Signals)], k: &str| v.iter().find(|x| x.0 == k).map_or(0.0, |x| x.1.fused);
        for key in ["a", "b", "c"] {
            assert_eq!(score(&with, key), score(&without, key), "{key}");
        }
    }

    #[test]
    fn a_lexical_item_weighs_by_its_scale() {
        // "m" (a mail, say) leads BM25 by far; with its lexical weight scaled to 0.5 the
        // page "p", close behind on both lists, comes first.
        let lexical = [("m", 10.0), ("p", 8.0), ("x", 1.0), ("y", 1.0)];
        let dense = [("p", 0.6), ("m", 0.55), ("x", 0.1), ("y", 0.1)];
        let fused = |fusion, scales: &[f32]| {
            fuse_weighted(
                &lexical,
                &dense,
                &[],
                fusion,
                [1.0; 3],
                [DBSF_CEILING; 3],
                scales,
            )
        };
        let plain = fused(Fusion::Dbsf, &[]);
        assert_eq!(plain[0].0, "m");
        let scaled = fused(Fusion::Dbsf, &[0.5, 1.0, 1.0, 1.0]);
        assert_eq!(scaled[0].0, "p");
        let m = |v: &[(&str, Signals)]| v.iter().find(|x| x.0 == "m").unwrap().1.fused;
        // Only m's lexical part is halved; its dense part is the same.
        let lexical_part = distribution_normalised(&lexical, DBSF_CEILING)[0];
        assert!((m(&plain) - m(&scaled) - 0.5 * lexical_part).abs() < 1e-6);
        // Scales of 1 are no scales; RRF and a request's weighted fusion ignore them.
        assert_eq!(fused(Fusion::Dbsf, &[1.0; 4]), plain);
        for other in [
            Fusion::Rrf { k: 60.0 },
            Fusion::Weighted {
                lexical_weight: 0.5,
            },
        ] {
            assert_eq!(fused(other, &[0.5, 1.0, 1.0, 1.0]), fused(other, &[]));
        }
    }

    #[test]
    fn fusion_is_deterministic_under_ties() {
        let lexical = [("a", 1.0), ("b", 1.0)];
        let dense = [("b", 0.5), ("a", 0.5)];
        let first = fuse(&lexical, &dense, Fusion::default());
        for _ in 0..10 {
            assert_eq!(
                fuse(&lexical, &dense, Fusion::default())
                    .iter()
                    .map(|x| x.0)
                    .collect::<Vec<_>>(),
                first.iter().map(|x| x.0).collect::<Vec<_>>()
            );
        }
        assert_eq!(first[0].0, "a");
    }
}
