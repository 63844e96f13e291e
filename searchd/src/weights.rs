//! The ranking's fitted weights: how much each retriever's list counts in DBSF fusion,
//! how strongly each prior acts, and the bounds that keep priors behind evidence.
//!
//! They are not hand-set: `eval/fit/fit_ranking.py fit` chooses them on the tuning parts
//! of the evaluation profiles and writes `weights.json` beside this file, which is built
//! into the daemon (see `docs/evaluation.md`). A prior factor `f` of the planner
//! (`crate::planner::Factors`) acts as `f^strength`; the product of a unit's factors is
//! kept within `[1/cap, cap]` and applies only to units whose content score is at least
//! `gate` × the best content score: a date, a name or a folder alone never lifts a unit
//! that the evidence puts far behind.

use std::sync::OnceLock;

use serde::Deserialize;

use converters::UnitKind;

use crate::planner::Factors;

/// The weights, as `weights.json` holds them.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// Weight of the lexical (BM25), dense and image (CLIP) lists in DBSF fusion.
    pub lexical: f32,
    pub dense: f32,
    pub image: f32,
    /// Strength of each prior: its factor is raised to this power (0: off, 1: as the
    /// planner sets it).
    pub time: f32,
    pub whose: f32,
    pub activity: f32,
    pub event: f32,
    /// Priors act only on units scoring at least `gate` × the best fused score.
    pub gate: f32,
    /// The product of a unit's prior factors stays within `[1/cap, cap]`.
    pub cap: f32,
    /// How far above `mean + 3σ` DBSF lets each list's scores go (lexical, dense,
    /// image; see `crate::fusion::DBSF_CEILING`).
    pub lexical_ceiling: f32,
    pub dense_ceiling: f32,
    pub image_ceiling: f32,
    /// BM25's weight of each field of a unit (`crate::query::lexical_query`): its text,
    /// its title (a page's heading, a mail's subject), its structured fields
    /// (participants, places), its file's name and its folders' names.
    pub text_boost: f32,
    pub title_boost: f32,
    pub meta_boost: f32,
    pub name_boost: f32,
    pub folders_boost: f32,
    /// BM25's list weight for an e-mail and for a calendar event, against every other
    /// unit's: a mail's or an event's words (names, dates, a subject) are shared by many
    /// questions they do not answer (#42's failures: where dense search alone had the
    /// answer first and hybrid did not, hybrid's first file was a mail or a calendar in 16
    /// of 20). A page, a span or a row keeps its full lexical weight.
    #[serde(default = "one")]
    pub lexical_message: f32,
    #[serde(default = "one")]
    pub lexical_event: f32,
}

fn one() -> f32 {
    1.0
}

#[derive(Deserialize)]
struct File {
    weights: Weights,
}

impl Weights {
    /// The weights built into the daemon (`weights.json`).
    pub fn fitted() -> Weights {
        static FITTED: OnceLock<Weights> = OnceLock::new();
        *FITTED.get_or_init(|| {
            serde_json::from_str::<File>(include_str!("weights.json"))
                .expect("searchd/src/weights.json is valid (checked by a test)")
                .weights
        })
    }

    /// DBSF's ceiling for the lexical, dense and image lists.
    pub fn ceilings(&self) -> [f32; 3] {
        [self.lexical_ceiling, self.dense_ceiling, self.image_ceiling]
    }

    /// The weights of the lexical, dense and image lists in DBSF fusion.
    pub fn lists(&self) -> [f32; 3] {
        [self.lexical, self.dense, self.image]
    }

    /// The factor on the lexical list's weight for a unit of `kind`
    /// ([`Weights::lexical_message`], [`Weights::lexical_event`]; 1 for other kinds).
    pub fn lexical_scale(&self, kind: UnitKind) -> f32 {
        match kind {
            UnitKind::Message => self.lexical_message,
            UnitKind::Event => self.lexical_event,
            _ => 1.0,
        }
    }

    /// Whether every kind keeps the lexical list's weight (nothing to look up).
    pub fn lexical_scales_neutral(&self) -> bool {
        self.lexical_message == 1.0 && self.lexical_event == 1.0
    }

    /// The factor a unit's score is multiplied by: its priors at their fitted strength,
    /// within the cap; 1 when its score is below the gate.
    pub fn prior(&self, factors: &Factors, score: f32, best: f32) -> f32 {
        if score < self.gate * best {
            return 1.0;
        }
        let total = factors.time.powf(self.time)
            * factors.whose.powf(self.whose)
            * factors.activity.powf(self.activity)
            * factors.event.powf(self.event);
        let cap = self.cap.max(1.0);
        total.clamp(1.0 / cap, cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn factors(time: f32) -> Factors {
        Factors {
            time,
            whose: 1.0,
            activity: 1.0,
            event: 1.0,
        }
    }

    #[test]
    fn the_built_in_weights_parse_and_are_sane() {
        let w = Weights::fitted();
        for value in [
            w.lexical, w.dense, w.image, w.time, w.whose, w.activity, w.event,
        ] {
            assert!((0.0..=4.0).contains(&value), "{w:?}");
        }
        assert!((0.0..=1.0).contains(&w.gate) && w.cap >= 1.0, "{w:?}");
        assert!(
            w.ceilings().iter().all(|c| (1.0..=4.0).contains(c)),
            "{w:?}"
        );
        for boost in [
            w.lexical_message,
            w.lexical_event,
            w.text_boost,
            w.title_boost,
            w.meta_boost,
            w.name_boost,
            w.folders_boost,
        ] {
            assert!((0.0..=4.0).contains(&boost), "{w:?}");
        }
    }

    #[test]
    fn priors_act_only_near_the_best_and_within_the_cap() {
        let w = Weights {
            lexical: 1.0,
            dense: 1.0,
            image: 1.0,
            time: 0.5,
            whose: 1.0,
            activity: 1.0,
            event: 1.0,
            gate: 0.8,
            cap: 1.2,
            lexical_ceiling: 1.2,
            dense_ceiling: 1.2,
            image_ceiling: 1.2,
            text_boost: 1.0,
            title_boost: 1.5,
            meta_boost: 0.8,
            name_boost: 0.6,
            folders_boost: 0.3,
            lexical_message: 0.7,
            lexical_event: 0.8,
        };
        assert_eq!(w.lexical_scale(UnitKind::Message), 0.7);
        assert_eq!(w.lexical_scale(UnitKind::Event), 0.8);
        assert_eq!(w.lexical_scale(UnitKind::Page), 1.0);
        assert!(!w.lexical_scales_neutral());
        // Below the gate: no prior, however strong.
        assert_eq!(w.prior(&factors(1.5), 0.7, 1.0), 1.0);
        // Near the best: the factor at its strength (1.5^0.5 ≈ 1.22), capped at 1.2.
        assert_eq!(w.prior(&factors(1.5), 0.9, 1.0), 1.2);
        assert!((w.prior(&factors(1.3), 0.9, 1.0) - 1.3f32.sqrt()).abs() < 1e-6);
        // A discount is bounded too.
        assert!((w.prior(&factors(0.1), 1.0, 1.0) - 1.0 / 1.2).abs() < 1e-6);
        // Strength 0: off.
        let off = Weights { time: 0.0, ..w };
        assert_eq!(off.prior(&factors(1.5), 1.0, 1.0), 1.0);
    }
}
