//! Whisper's greedy decoding rules over one window's logits: suppression, the
//! timestamp rules, loops, and how the sampled tokens become timed segments.

use super::Segment;

/// Seconds per timestamp token step.
pub(super) const TIMESTAMP_STEP_S: f64 = 0.02;
/// Latest first timestamp (in steps of 20 ms).
const MAX_INITIAL_TIMESTAMP: u32 = 50;

/// The special tokens decoding needs.
pub(super) struct Special {
    pub eot: u32,
    pub sot: u32,
    /// `<|startofprev|>`: opens a prompt.
    pub sot_prev: u32,
    /// `<|transcribe|>` (multilingual models).
    pub transcribe: u32,
    /// Language tokens `<|en|>`…, a contiguous range after `sot` (multilingual models).
    pub languages: std::ops::Range<u32>,
    pub no_speech: u32,
    pub no_timestamps: u32,
    pub timestamp_begin: u32,
}

/// What may come next: the suppressed tokens and the special ids.
pub(super) struct Rules {
    pub special: Special,
    pub suppress: Vec<u32>,
    pub suppress_begin: Vec<u32>,
}

impl Rules {
    /// Whisper's suppression and timestamp rules for the next token after `tokens`.
    pub fn apply(&self, tokens: &[u32], logits: &mut [f32]) {
        let s = &self.special;
        let ts = s.timestamp_begin as usize;
        let ninf = f32::NEG_INFINITY;
        for &id in &self.suppress {
            if let Some(l) = logits.get_mut(id as usize) {
                *l = ninf;
            }
        }
        logits[s.no_timestamps as usize] = ninf;
        if tokens.is_empty() {
            for &id in &self.suppress_begin {
                if let Some(l) = logits.get_mut(id as usize) {
                    *l = ninf;
                }
            }
            // The first token is a timestamp of at most 1 s.
            logits[..ts].fill(ninf);
            let last_allowed = (ts + MAX_INITIAL_TIMESTAMP as usize + 1).min(logits.len());
            logits[last_allowed..].fill(ninf);
            return;
        }
        let is_ts = |t: u32| t >= s.timestamp_begin;
        let last_was = tokens.last().is_some_and(|&t| is_ts(t));
        let penultimate_was = tokens.len() < 2 || is_ts(tokens[tokens.len() - 2]);
        if last_was {
            if penultimate_was {
                logits[ts..].fill(ninf);
            } else {
                logits[..s.eot as usize].fill(ninf);
            }
        }
        if let Some(&last_ts) = tokens.iter().rev().find(|&&t| is_ts(t)) {
            let floor = if last_was && !penultimate_was {
                last_ts
            } else {
                last_ts + 1
            };
            let end = (floor as usize).min(logits.len());
            logits[ts..end].fill(ninf);
        }
        // Timestamps together likelier than any single text token: take a timestamp.
        let max = logits.iter().copied().fold(ninf, f32::max);
        if max.is_finite() {
            let total: f32 = logits.iter().map(|l| (l - max).exp()).sum();
            let log_z = max + total.ln();
            let ts_mass: f32 = logits[ts..].iter().map(|l| (l - max).exp()).sum();
            let ts_logprob = max + ts_mass.ln() - log_z;
            let text_max = logits[..ts].iter().copied().fold(ninf, f32::max) - log_z;
            if ts_logprob > text_max {
                logits[..ts].fill(ninf);
            }
        }
    }

    /// Cuts the sampled tokens into timed segments (`text` gives a run of ids' text).
    pub fn segments(
        &self,
        tokens: &[u32],
        duration_s: f64,
        text: impl Fn(&[u32]) -> String,
    ) -> Vec<Segment> {
        let ts_begin = self.special.timestamp_begin;
        let time = |t: u32| ((t - ts_begin) as f64 * TIMESTAMP_STEP_S).min(duration_s.max(0.0));
        let mut segments = Vec::new();
        let mut start: Option<f64> = None;
        let mut text_tokens: Vec<u32> = Vec::new();
        for &t in tokens {
            if t >= ts_begin {
                let at = time(t);
                match start {
                    Some(s) if !text_tokens.is_empty() => {
                        segments.push((s, at.max(s), std::mem::take(&mut text_tokens)));
                        start = None;
                    }
                    _ => start = Some(at),
                }
            } else if t < self.special.eot {
                text_tokens.push(t);
            }
        }
        if !text_tokens.is_empty() {
            // Ran out before the closing timestamp: the segment lasts to the window end.
            segments.push((start.unwrap_or(0.0), duration_s, text_tokens));
        }
        segments
            .into_iter()
            .filter_map(|(start_s, end_s, ids)| {
                let text = text(&ids).trim().to_string();
                (!text.is_empty()).then_some(Segment {
                    start_s,
                    end_s,
                    text,
                    language: None,
                })
            })
            .collect()
    }

    /// Whisper's seek rule: a decode that ended on a timestamp pair, or was cut short,
    /// did not transcribe the speech after its last timestamp; where to start again.
    pub fn resume_at(
        &self,
        tokens: &[u32],
        finished: bool,
        silent: bool,
        duration_s: f64,
    ) -> Option<f64> {
        let ts = |t: &u32| *t >= self.special.timestamp_begin;
        let last_ts = tokens
            .iter()
            .rev()
            .find(|t| ts(t))
            .map(|&t| (t - self.special.timestamp_begin) as f64 * TIMESTAMP_STEP_S);
        let pair_at_end = tokens.len() >= 2 && tokens[tokens.len() - 2..].iter().all(ts);
        match last_ts {
            Some(at) if !silent && (pair_at_end || !finished) && at < duration_s - 1.0 => Some(at),
            _ => None,
        }
    }
}

pub(super) fn argmax(values: &[f32]) -> u32 {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if *v > values[best] {
            best = i;
        }
    }
    best as u32
}

pub(super) fn softmax_at(logits: &[f32], at: u32) -> f32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let total: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    logits
        .get(at as usize)
        .map_or(0.0, |l| (l - max).exp() / total)
}

/// The last few tokens have already come three times in a row (a decoding loop).
pub(super) fn repeating(tokens: &[u32]) -> bool {
    (1..=8).any(|n| {
        let need = if n == 1 { 6 } else { n * 3 };
        tokens.len() >= need && {
            let tail = &tokens[tokens.len() - need..];
            tail.chunks(n).all(|c| c == &tail[..n])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules {
            special: Special {
                eot: 10,
                sot: 11,
                sot_prev: 12,
                transcribe: 13,
                languages: 14..16,
                no_speech: 16,
                no_timestamps: 17,
                timestamp_begin: 18,
            },
            suppress: vec![3],
            suppress_begin: vec![4],
        }
    }

    #[test]
    fn detects_decoding_loops() {
        assert!(repeating(&[5, 6, 7, 6, 7, 6, 7]));
        assert!(repeating(&[9, 9, 9, 9, 9, 9]));
        assert!(!repeating(&[9, 9, 9, 9]));
        assert!(!repeating(&[1, 2, 3, 4, 5, 6, 7]));
        assert!(!repeating(&[1, 1, 1]));
    }

    #[test]
    fn a_window_opens_with_an_early_timestamp_and_timestamps_come_in_pairs() {
        let rules = rules();
        let mut logits = vec![0.0f32; 18 + 100];
        rules.apply(&[], &mut logits);
        assert!(logits[..18].iter().all(|l| l.is_infinite()), "text first");
        assert!(logits[18..=18 + 50].iter().all(|l| l.is_finite()));
        assert!(
            logits[18 + 51..].iter().all(|l| l.is_infinite()),
            "after 1 s"
        );
        // After text then one timestamp, the next is a timestamp no earlier, or the end.
        let mut logits = vec![0.0f32; 118];
        logits[10] = 10.0; // the end likelier than all timestamps together
        rules.apply(&[18, 5, 40], &mut logits);
        assert!(logits[..10].iter().all(|l| l.is_infinite()));
        assert!(logits[18..40].iter().all(|l| l.is_infinite()));
        assert!(logits[40].is_finite() && logits[10].is_finite());
        // Timestamps together likelier than any text token: a timestamp is forced.
        let mut logits = vec![0.0f32; 118];
        rules.apply(&[18, 5, 40], &mut logits);
        assert!(logits[10].is_infinite() && logits[40].is_finite());
    }

    #[test]
    fn tokens_become_timed_segments_and_a_cut_decode_resumes_at_its_last_timestamp() {
        let rules = rules();
        let text = |ids: &[u32]| ids.iter().map(|i| format!("w{i}")).collect::<String>();
        // <0.00> w1 w2 <1.00> <1.20> w3 (cut short)
        let tokens = [18, 1, 2, 18 + 50, 18 + 60, 3];
        let segments = rules.segments(&tokens, 5.0, text);
        assert_eq!(segments.len(), 2);
        assert_eq!((segments[0].start_s, segments[0].end_s), (0.0, 1.0));
        assert_eq!(segments[0].text, "w1w2");
        assert_eq!((segments[1].start_s, segments[1].end_s), (1.2, 5.0));
        assert_eq!(rules.resume_at(&tokens, false, false, 5.0), Some(1.2));
        // Finished on text: nothing to resume; silent: never.
        assert_eq!(rules.resume_at(&tokens, true, false, 5.0), None);
        assert_eq!(rules.resume_at(&tokens, false, true, 5.0), None);
    }
}
