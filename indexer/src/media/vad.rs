//! Voice activity detection with Silero VAD (v6, ONNX) and the cutting of speech into
//! windows of at most [`MAX_WINDOW_S`] seconds for ASR.
//!
//! The model scores 32 ms chunks (512 samples at 16 kHz, preceded by the previous
//! chunk's last 64 samples, with a recurrent state). Speech starts where the probability
//! reaches [`THRESHOLD`] and ends after [`MIN_SILENCE_MS`] below `THRESHOLD - 0.15`, as in
//! Silero's own `get_speech_timestamps`; segments shorter than [`MIN_SPEECH_MS`] are
//! dropped and the rest padded by [`PAD_MS`]. Neighbouring segments are then packed into
//! windows of at most 30 s (Whisper's input); a longer segment is split at its quietest
//! chunk in the last third of the window.

use std::path::Path;

use ort::session::Session;
use ort::value::Tensor;

use super::MediaError;

/// Samples per scored chunk.
pub const CHUNK: usize = 512;
/// Samples of left context fed with each chunk.
const CONTEXT: usize = 64;
/// Speech probability threshold.
pub const THRESHOLD: f32 = 0.5;
/// Silence needed to end a segment.
pub const MIN_SILENCE_MS: u64 = 300;
/// Shorter segments are dropped.
pub const MIN_SPEECH_MS: u64 = 250;
/// Padding added on both sides of a segment.
pub const PAD_MS: u64 = 200;
/// Longest window handed to the recogniser.
pub const MAX_WINDOW_S: f64 = 30.0;
/// Segments further apart than this are not packed into one window.
pub const MAX_GAP_MS: u64 = 3_000;

const CHUNK_MS: f64 = CHUNK as f64 * 1000.0 / super::decode::SAMPLE_RATE as f64;

/// A span of samples, `[start, end)` in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start_ms: u64,
    pub end_ms: u64,
}

/// The loaded Silero model.
pub struct Vad {
    session: Session,
}

impl Vad {
    pub fn load(
        environment: &ort::environment::Environment,
        models_dir: &Path,
    ) -> Result<Vad, MediaError> {
        let path = super::require(models_dir.join("vad").join("silero_vad.onnx"))?;
        Ok(Vad {
            session: super::session(environment, &path, 1)?,
        })
    }

    /// The recognition windows of 16 kHz `samples` (see [`windows`]).
    pub fn windows_of(&mut self, samples: &[i16]) -> Result<Vec<Span>, MediaError> {
        let probabilities = self.probabilities(samples)?;
        let total_ms = (samples.len() as u64 * 1000) / super::decode::SAMPLE_RATE as u64;
        Ok(windows(
            &speech_segments(&probabilities, total_ms),
            &probabilities,
        ))
    }

    /// Speech probability of each 32 ms chunk of 16 kHz `samples`.
    pub fn probabilities(&mut self, samples: &[i16]) -> Result<Vec<f32>, MediaError> {
        let mut state = vec![0f32; 2 * 128];
        let mut context = [0f32; CONTEXT];
        let sr = Tensor::from_array(([1usize], vec![super::decode::SAMPLE_RATE as i64]))?;
        let mut out = Vec::with_capacity(samples.len() / CHUNK + 1);
        for chunk in samples.chunks(CHUNK) {
            let mut input = Vec::with_capacity(CONTEXT + CHUNK);
            input.extend_from_slice(&context);
            input.extend(chunk.iter().copied().map(super::decode::sample_to_float));
            input.resize(CONTEXT + CHUNK, 0.0);
            context.copy_from_slice(&input[CHUNK..]);
            let outputs = self.session.run(ort::inputs![
                "input" => Tensor::from_array(([1usize, CONTEXT + CHUNK], input))?,
                "state" => Tensor::from_array(([2usize, 1, 128], std::mem::take(&mut state)))?,
                "sr" => &sr,
            ])?;
            let (_, probability) = outputs["output"].try_extract_tensor::<f32>()?;
            out.push(probability.first().copied().unwrap_or(0.0));
            let (_, next) = outputs["stateN"].try_extract_tensor::<f32>()?;
            state = next.to_vec();
        }
        Ok(out)
    }
}

/// Speech segments from chunk probabilities (`total_ms`: length of the audio).
pub fn speech_segments(probabilities: &[f32], total_ms: u64) -> Vec<Span> {
    let chunk_start = |i: usize| (i as f64 * CHUNK_MS) as u64;
    let low = THRESHOLD - 0.15;
    let mut segments = Vec::new();
    let mut start: Option<usize> = None;
    let mut silent_since: Option<usize> = None;
    for (i, &p) in probabilities.iter().enumerate() {
        match start {
            None if p >= THRESHOLD => {
                start = Some(i);
                silent_since = None;
            }
            None => {}
            Some(s) => {
                if p >= THRESHOLD {
                    silent_since = None;
                } else if p < low {
                    let since = *silent_since.get_or_insert(i);
                    if chunk_start(i + 1) - chunk_start(since) >= MIN_SILENCE_MS {
                        segments.push((chunk_start(s), chunk_start(since)));
                        start = None;
                        silent_since = None;
                    }
                }
            }
        }
    }
    if let Some(s) = start {
        let end = silent_since.map(chunk_start).unwrap_or(total_ms);
        segments.push((chunk_start(s), end));
    }
    let mut spans: Vec<Span> = Vec::new();
    for (s, e) in segments {
        if e.saturating_sub(s) < MIN_SPEECH_MS {
            continue;
        }
        let span = Span {
            start_ms: s.saturating_sub(PAD_MS),
            end_ms: (e + PAD_MS).min(total_ms),
        };
        match spans.last_mut() {
            Some(last) if span.start_ms <= last.end_ms => last.end_ms = span.end_ms,
            _ => spans.push(span),
        }
    }
    spans
}

/// Packs speech segments into recognition windows of at most [`MAX_WINDOW_S`]; a longer
/// segment is split at its quietest chunk between 20 s and 30 s into the window.
pub fn windows(segments: &[Span], probabilities: &[f32]) -> Vec<Span> {
    let max_ms = (MAX_WINDOW_S * 1000.0) as u64;
    let mut pieces = Vec::new();
    for segment in segments {
        let mut start = segment.start_ms;
        while segment.end_ms - start > max_ms {
            let from = ((start + max_ms * 2 / 3) as f64 / CHUNK_MS) as usize;
            let to = (((start + max_ms) as f64 / CHUNK_MS) as usize).min(probabilities.len());
            let cut = (from..to)
                .min_by(|&a, &b| probabilities[a].total_cmp(&probabilities[b]))
                .map(|i| (i as f64 * CHUNK_MS) as u64)
                .filter(|&c| c > start && c <= start + max_ms)
                .unwrap_or(start + max_ms);
            pieces.push(Span {
                start_ms: start,
                end_ms: cut,
            });
            start = cut;
        }
        pieces.push(Span {
            start_ms: start,
            end_ms: segment.end_ms,
        });
    }
    let mut windows: Vec<Span> = Vec::new();
    for piece in pieces {
        match windows.last_mut() {
            Some(last)
                if piece.end_ms - last.start_ms <= max_ms
                    && piece.start_ms.saturating_sub(last.end_ms) <= MAX_GAP_MS =>
            {
                last.end_ms = piece.end_ms
            }
            _ => windows.push(piece),
        }
    }
    windows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probs(pattern: &[(f32, usize)]) -> Vec<f32> {
        pattern
            .iter()
            .flat_map(|&(p, n)| std::iter::repeat_n(p, n))
            .collect()
    }

    #[test]
    fn segments_follow_speech_with_padding() {
        // 1 s silence, 2 s speech, 1 s silence (32 ms chunks).
        let p = probs(&[(0.0, 31), (0.9, 63), (0.0, 31)]);
        let total = (p.len() as f64 * CHUNK_MS) as u64;
        let spans = speech_segments(&p, total);
        assert_eq!(spans.len(), 1);
        let span = spans[0];
        assert!((750..=800).contains(&span.start_ms), "{span:?}");
        assert!((3000..=3250).contains(&span.end_ms), "{span:?}");
    }

    #[test]
    fn short_blips_and_short_pauses() {
        // A 100 ms blip is dropped; a 100 ms pause does not split speech.
        let p = probs(&[
            (0.9, 3),
            (0.0, 40),
            (0.9, 30),
            (0.1, 3),
            (0.9, 30),
            (0.0, 20),
        ]);
        let total = (p.len() as f64 * CHUNK_MS) as u64;
        let spans = speech_segments(&p, total);
        assert_eq!(spans.len(), 1, "{spans:?}");
        assert!(spans[0].end_ms - spans[0].start_ms > 1900);
    }

    #[test]
    fn long_speech_is_split_into_30s_windows() {
        let mut p = probs(&[(0.9, 2000)]); // 64 s
        p[800] = 0.2; // a breath at 25.6 s
        let spans = speech_segments(&p, 64_000);
        let w = windows(&spans, &p);
        assert!(w.len() >= 3, "{w:?}");
        assert!(w.iter().all(|s| s.end_ms - s.start_ms <= 30_000), "{w:?}");
        assert_eq!(w[0].end_ms, 25_600);
        assert_eq!(w[0].end_ms, w[1].start_ms);
    }

    #[test]
    fn close_segments_share_a_window_far_ones_do_not() {
        let a = Span {
            start_ms: 0,
            end_ms: 5_000,
        };
        let b = Span {
            start_ms: 6_000,
            end_ms: 10_000,
        };
        let c = Span {
            start_ms: 20_000,
            end_ms: 22_000,
        };
        let w = windows(&[a, b, c], &[]);
        assert_eq!(
            w,
            vec![
                Span {
                    start_ms: 0,
                    end_ms: 10_000
                },
                c
            ]
        );
    }
}
