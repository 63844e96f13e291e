//! Speech recognition with Whisper (base, multilingual, by default; tiny.en on request),
//! run by ONNX Runtime.
//!
//! The weights come from a CTranslate2 package on PyPI; `scripts/convert-whisper` turns
//! them into two ONNX graphs (see that script for the exact contract):
//!
//! * `encoder.onnx`: up to 30 s of 16 kHz audio → log-mel (computed inside the graph) →
//!   encoder → every decoder layer's cross-attention keys and values, one audio
//!   position per 20 ms of input;
//! * `decoder.onnx`: tokens + the self-attention cache + a mask of each window's audio
//!   positions → the last token's logits + the grown cache, for several windows at once.
//!
//! Each window is encoded over its own length and a second of silence (Whisper's
//! `audio_ctx`, see [`audio_width`]), not padded to 30 s: the encoder's cost follows the
//! audio, and a voice memo of 8 s costs a third of a 30-s window. Windows of different
//! lengths share a batch: the shorter ones' keys and values are padded with zeros and
//! masked out of the cross-attention, so a window's words do not depend on its batch.
//!
//! Windows are decoded in batches ([`Whisper::transcribe_batch`]): a decoder step reads
//! every weight of the decoder once whatever the batch, so eight windows decoded in
//! lockstep cost about a third of eight decoded one by one (`docs/benchmarks.md`). The
//! start sequence (the prompt, `<|startoftranscript|>`) is fed in one step.
//!
//! Decoding is greedy with Whisper's own logit rules: the tokens of `suppress_ids`,
//! blank/end at the first step, and the timestamp rules (timestamps come in pairs, never
//! decrease, the first one is at most 1 s, and a timestamp is forced when timestamps
//! together are likelier than any text token). The timestamps cut the window's
//! transcript into segments with start and end times. A window whose first step puts the
//! `<|nocaptions|>` probability above [`NO_SPEECH_THRESHOLD`] is treated as silence, and a
//! decode that starts repeating itself is cut short.
//!
//! An initial prompt (Whisper's `initial_prompt`: here the names of the profile, see
//! [`super::vocabulary`]) is fed before the transcript as `<|startofprev|>` + its text
//! tokens + `<|startoftranscript|>`, in the first decoder step; its tokens bias the
//! spelling of what follows and are never part of the output.

mod rules;
mod tokens;

use std::path::Path;
use std::time::Instant;

use ort::session::{Session, SessionInputValue};
use ort::value::{DynValue, Tensor};

use super::MediaError;
use rules::{argmax, repeating, softmax_at, Rules, Special};
pub use tokens::PromptTokens;

/// Samples of one encoder input (30 s at 16 kHz).
pub const WINDOW_SAMPLES: usize = 480_000;
/// Samples per audio position of the encoder's output (hop 160, then a stride-2 stem).
const AUDIO_POSITION_SAMPLES: usize = 320;
/// Most tokens sampled per window (half the text context, as Whisper does).
const MAX_TOKENS: usize = 224;
/// Most prompt tokens: with the start tokens and [`MAX_TOKENS`] sampled ones, the decode
/// stays inside the text context (448 tokens).
pub const MAX_PROMPT_TOKENS: usize = 200;
/// Windows whose no-speech probability is above this, and whose tokens have a mean log
/// probability below [`LOGPROB_THRESHOLD`], are silence (Whisper's rule).
pub const NO_SPEECH_THRESHOLD: f32 = 0.6;
pub const LOGPROB_THRESHOLD: f32 = -1.0;
/// Most windows decoded together. A step's cost is the decoder's weights read once plus
/// each window's cross-attention (2 × 18 MB for Whisper base): per window, 8.7 ms alone,
/// 2.7 ms in a batch of 8, 2.3 ms in 16 (2 cores). Eight hold 290 MB of encoder output.
pub const MAX_BATCH: usize = 8;

/// One recognised stretch of speech, times relative to the window start.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub start_s: f64,
    pub end_s: f64,
    pub text: String,
    /// Language code detected for the window (multilingual models).
    pub language: Option<String>,
}

/// What one window gave.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    pub segments: Vec<Segment>,
    /// Detected language code ("en", "fr"…; multilingual models only).
    pub language: Option<String>,
    /// Probability of `<|nocaptions|>` at the first step.
    pub no_speech: f32,
    /// Mean log probability of the sampled tokens.
    pub avg_logprob: f32,
    /// The decode stopped at this time (s) before the end of the audio, with speech
    /// still to come: transcribe again from here.
    pub resume_at: Option<f64>,
    /// Seconds in the encoder and the decoder (a batch's time shared by its windows).
    pub encoder_s: f64,
    pub decoder_s: f64,
}

/// The loaded recogniser.
pub struct Whisper {
    encoder: Session,
    decoder: Session,
    /// Tokens of the initial prompt (empty: none).
    prompt: Vec<u32>,
    tokenizer_path: std::path::PathBuf,
    /// Token strings in GPT-2's byte-to-unicode alphabet (specials as written).
    vocab: Vec<String>,
    rules: Rules,
    layers: usize,
    heads: usize,
    head_dim: usize,
    multilingual: bool,
}

/// One window's greedy decode.
#[derive(Default)]
struct Lane {
    tokens: Vec<u32>,
    sum_logprob: f32,
    /// Ended by `<|endoftext|>`.
    finished: bool,
    /// Ended (end of text, a loop, or the token limit).
    done: bool,
    no_speech: f32,
    language: Option<String>,
}

/// The decoder's inputs that persist between steps, one row per window still decoded.
struct Batch {
    /// `self_k_0, self_v_0, self_k_1, …`
    cache: Vec<DynValue>,
    /// `cross_k_0, cross_v_0, cross_k_1, …`
    cross: Vec<DynValue>,
    /// `cross_mask`: 0 at each row's own audio positions, -1e9 at its padding.
    mask: DynValue,
    /// The lane of each row.
    rows: Vec<usize>,
}

impl Whisper {
    /// Loads the two `graphs` (float or int8, see [`super::AsrModel::graphs`]) with
    /// `<dir>/dims.json` (written by the converter; tiny.en's sizes when it is absent)
    /// and the tokenizer and configuration that came with the weights (`<dir>/ct2/`).
    pub fn load(
        environment: &ort::environment::Environment,
        dir: &Path,
        graphs: &super::WhisperGraphs,
        threads: usize,
    ) -> Result<Whisper, MediaError> {
        let dims: serde_json::Value = std::fs::read(dir.join("dims.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let dim = |key: &str, default: u64| dims[key].as_u64().unwrap_or(default) as usize;
        let encoder = super::require(graphs.encoder.clone())?;
        let decoder = super::require(graphs.decoder.clone())?;
        let tokenizer = super::require(dir.join("ct2").join("tokenizer.json"))?;
        let config = super::require(dir.join("ct2").join("config.json"))?;
        let (vocab, ids) = tokens::read_vocab(&tokenizer)?;
        let id = |name: &str| {
            ids.get(name).copied().ok_or_else(|| {
                MediaError::model(format!("{}: no token {name}", tokenizer.display()))
            })
        };
        let no_timestamps = id("<|notimestamps|>")?;
        let sot = id("<|startoftranscript|>")?;
        let translate = id("<|translate|>")?;
        let special = Special {
            eot: id("<|endoftext|>")?,
            sot,
            sot_prev: id("<|startofprev|>")?,
            transcribe: id("<|transcribe|>")?,
            languages: sot + 1..translate,
            no_speech: id("<|nocaptions|>").or_else(|_| id("<|nospeech|>"))?,
            no_timestamps,
            timestamp_begin: no_timestamps + 1,
        };
        let config: serde_json::Value = serde_json::from_slice(&crate::onnx::read(&config)?)
            .map_err(|e| MediaError::model(format!("{}: {e}", config.display())))?;
        let list = |key: &str| -> Vec<u32> {
            config[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_u64())
                        .map(|v| v as u32)
                        .collect()
                })
                .unwrap_or_default()
        };
        let decoder_session = super::session(environment, &decoder, threads)?;
        // Graphs of an older converter took 30 s of audio whatever the window (no
        // `cross_mask`), or one `token` and stacked caches: say so instead of failing
        // on the first step.
        if !decoder_session
            .inputs()
            .iter()
            .any(|i| i.name() == "cross_mask")
        {
            return Err(MediaError::model(format!(
                "{} was made by an older scripts/convert-whisper; run scripts/fetch-models \
                 (or scripts/convert-whisper --int8 again for the int8 graphs)",
                decoder.display()
            )));
        }
        Ok(Whisper {
            encoder: super::session(environment, &encoder, threads)?,
            decoder: decoder_session,
            prompt: Vec::new(),
            tokenizer_path: tokenizer,
            vocab,
            rules: Rules {
                special,
                suppress: list("suppress_ids"),
                suppress_begin: list("suppress_ids_begin"),
            },
            layers: dim("n_layers", 4),
            heads: dim("n_heads", 6),
            head_dim: dim("head_dim", 64),
            multilingual: dims["multilingual"].as_bool().unwrap_or(false),
        })
    }

    /// Sets the initial prompt of every window from now on (empty text: none); returns
    /// its number of tokens.
    pub fn set_prompt(&mut self, text: &str) -> Result<usize, MediaError> {
        self.prompt = if text.trim().is_empty() {
            Vec::new()
        } else {
            PromptTokens::load(&self.tokenizer_path)?.prompt(text)?
        };
        Ok(self.prompt.len())
    }

    /// Transcribes up to 30 s of 16 kHz mono audio.
    pub fn transcribe(&mut self, samples: &[f32]) -> Result<Transcript, MediaError> {
        let mut transcripts = self.transcribe_batch(&[samples])?;
        transcripts
            .pop()
            .ok_or_else(|| MediaError::model("no transcript"))
    }

    /// Transcribes windows of up to 30 s of 16 kHz mono audio each, decoded together
    /// (callers keep batches to [`MAX_BATCH`]); one transcript per window, in order.
    pub fn transcribe_batch(&mut self, windows: &[&[f32]]) -> Result<Vec<Transcript>, MediaError> {
        if windows.is_empty() {
            return Ok(Vec::new());
        }
        let started = Instant::now();
        let mut batch = self.encode(windows)?;
        let encoder_s = started.elapsed().as_secs_f64() / windows.len() as f64;

        let started = Instant::now();
        let mut lanes: Vec<Lane> = windows.iter().map(|_| Lane::default()).collect();
        let special = &self.rules.special;
        // Start: [<|startofprev|> prompt…] <|startoftranscript|>, and for multilingual
        // models the detected language and <|transcribe|>.
        let start = tokens::start_sequence(special.sot_prev, &self.prompt, special.sot);
        let (no_speech, transcribe) = (special.no_speech, special.transcribe);
        let languages = special.languages.clone();
        let mut logits = self.step(&vec![start; windows.len()], &mut batch)?;
        let width = logits.len() / windows.len();
        for (lane, row) in lanes.iter_mut().zip(logits.chunks(width)) {
            lane.no_speech = softmax_at(row, no_speech);
        }
        if self.multilingual && !languages.is_empty() {
            let mut feed = Vec::with_capacity(lanes.len());
            for (lane, row) in lanes.iter_mut().zip(logits.chunks(width)) {
                let (start, end) = (
                    languages.start as usize,
                    (languages.end as usize).min(width),
                );
                let lang = languages.start + argmax(&row[start..end]);
                lane.language = self.vocab.get(lang as usize).map(|t| {
                    t.trim_start_matches("<|")
                        .trim_end_matches("|>")
                        .to_string()
                });
                feed.push(vec![lang, transcribe]);
            }
            logits = self.step(&feed, &mut batch)?;
        }
        loop {
            let mut feed = Vec::with_capacity(batch.rows.len());
            for (&lane, row) in batch.rows.iter().zip(logits.chunks_mut(width)) {
                let lane = &mut lanes[lane];
                let token = self.next_token(lane, row);
                feed.push(vec![token.unwrap_or(self.rules.special.eot)]);
            }
            let running = batch.rows.iter().filter(|&&l| !lanes[l].done).count();
            if running == 0 {
                break;
            }
            // Rows whose window ended still ride along until half the rows have ended;
            // then the batch keeps only the running ones.
            if running * 2 <= batch.rows.len() {
                let keep: Vec<usize> = (0..batch.rows.len())
                    .filter(|&r| !lanes[batch.rows[r]].done)
                    .collect();
                feed = keep.iter().map(|&r| feed[r].clone()).collect();
                batch.keep(&keep)?;
            }
            logits = self.step(&feed, &mut batch)?;
        }
        let decoder_s = started.elapsed().as_secs_f64() / windows.len() as f64;
        Ok(lanes
            .into_iter()
            .zip(windows)
            .map(|(lane, samples)| {
                let duration_s =
                    samples.len().min(WINDOW_SAMPLES) as f64 / super::decode::SAMPLE_RATE as f64;
                self.transcript(lane, duration_s, encoder_s, decoder_s)
            })
            .collect())
    }

    /// Picks a running lane's next token from its `logits` (its row of the step's
    /// output) and records it; `None` when the lane has ended (now or before).
    fn next_token(&self, lane: &mut Lane, logits: &mut [f32]) -> Option<u32> {
        if lane.done {
            return None;
        }
        self.rules.apply(&lane.tokens, logits);
        let token = argmax(logits);
        lane.sum_logprob += softmax_at(logits, token).max(1e-30).ln();
        if token == self.rules.special.eot {
            lane.finished = true;
            lane.done = true;
            return None;
        }
        lane.tokens.push(token);
        if repeating(&lane.tokens) || lane.tokens.len() >= MAX_TOKENS {
            lane.done = true;
            return None;
        }
        Some(token)
    }

    /// A decoded lane as the window's transcript.
    fn transcript(
        &self,
        lane: Lane,
        duration_s: f64,
        encoder_s: f64,
        decoder_s: f64,
    ) -> Transcript {
        let avg_logprob =
            lane.sum_logprob / (lane.tokens.len() + usize::from(lane.finished)).max(1) as f32;
        let silent = lane.no_speech > NO_SPEECH_THRESHOLD && avg_logprob < LOGPROB_THRESHOLD;
        let segments = if silent {
            Vec::new()
        } else {
            self.rules
                .segments(&lane.tokens, duration_s, |ids| self.decode(ids))
        };
        Transcript {
            segments,
            resume_at: self
                .rules
                .resume_at(&lane.tokens, lane.finished, silent, duration_s),
            language: lane.language,
            no_speech: lane.no_speech,
            avg_logprob,
            encoder_s,
            decoder_s,
        }
    }

    /// Runs the encoder on each window (one at a time: a batched encoder's attention
    /// would hold 70 MB per window more), each over its own length (see [`audio_width`]),
    /// and stacks their cross-attention keys and values into one batch, the shorter ones
    /// padded and masked, with an empty cache.
    fn encode(&mut self, windows: &[&[f32]]) -> Result<Batch, MediaError> {
        let names = cross_names(self.layers);
        let widths: Vec<usize> = windows.iter().map(|w| audio_width(w.len())).collect();
        // audio positions after the encoder's stride-2 stem: one per 320 samples
        let positions: Vec<usize> = widths.iter().map(|w| w / AUDIO_POSITION_SAMPLES).collect();
        let longest = positions.iter().copied().max().unwrap_or(0);
        let mut stacked: Vec<(Vec<i64>, Vec<f32>)> = vec![(Vec::new(), Vec::new()); names.len()];
        for ((samples, &width), &c) in windows.iter().zip(&widths).zip(&positions) {
            let mut audio = samples[..samples.len().min(width)].to_vec();
            audio.resize(width, 0.0);
            let encoded = self.encoder.run(ort::inputs![
                "audio" => Tensor::from_array(([1usize, width], audio))?
            ])?;
            for (name, (shape, data)) in names.iter().zip(stacked.iter_mut()) {
                let value = encoded
                    .get(name.as_str())
                    .ok_or_else(|| MediaError::model(format!("encoder has no output {name}")))?;
                let (dims, values) = value.try_extract_tensor::<f32>()?;
                let keys = name.starts_with("cross_k");
                // cross_k [1, H, Dh, C], cross_v [1, H, C, Dh]
                let axis = if keys { 3 } else { 2 };
                if dims.len() != 4 || dims[axis] as usize != c {
                    return Err(MediaError::model(format!(
                        "encoder output {name} has shape {dims:?}, expected {c} audio positions"
                    )));
                }
                if shape.is_empty() {
                    *shape = dims.to_vec();
                    shape[axis] = longest as i64;
                    data.reserve(values.len() / c.max(1) * longest * windows.len());
                }
                // pad each (head, dim) row of the keys, each head of the values, to
                // the longest window with zeros (masked in the decoder)
                let (run, pad) = if keys {
                    (c, longest - c)
                } else {
                    (c * self.head_dim, (longest - c) * self.head_dim)
                };
                for part in values.chunks(run.max(1)) {
                    data.extend_from_slice(part);
                    data.resize(data.len() + pad, 0.0);
                }
            }
        }
        let rows = windows.len();
        let cross = stacked
            .into_iter()
            .map(|(shape, data)| tensor(rows, &shape, data))
            .collect::<Result<_, _>>()?;
        let mask: Vec<f32> = positions
            .iter()
            .flat_map(|&c| (0..longest).map(move |p| if p < c { 0.0 } else { -1e9 }))
            .collect();
        let mask = Tensor::from_array(([rows, longest], mask))?.into_dyn();
        let empty = [rows, self.heads, 0, self.head_dim];
        let cache = (0..2 * self.layers)
            .map(|_| Ok(Tensor::from_array((empty, Vec::<f32>::new()))?.into_dyn()))
            .collect::<Result<_, MediaError>>()?;
        Ok(Batch {
            cache,
            cross,
            mask,
            rows: (0..rows).collect(),
        })
    }

    /// Feeds each row its tokens (every row the same number); returns the last token's
    /// logits of every row, one after the other, and grows the cache.
    fn step(&mut self, feed: &[Vec<u32>], batch: &mut Batch) -> Result<Vec<f32>, MediaError> {
        let width = feed.first().map_or(0, Vec::len);
        let ids: Vec<i64> = feed.iter().flatten().map(|&t| t as i64).collect();
        let mut inputs: Vec<(String, SessionInputValue<'_>)> = vec![(
            "tokens".into(),
            Tensor::from_array(([feed.len(), width], ids))?.into(),
        )];
        for (name, value) in cache_names(self.layers, "").into_iter().zip(&batch.cache) {
            inputs.push((name, value.into()));
        }
        for (name, value) in cross_names(self.layers).into_iter().zip(&batch.cross) {
            inputs.push((name, value.into()));
        }
        inputs.push(("cross_mask".into(), (&batch.mask).into()));
        let mut outputs = self.decoder.run(inputs)?;
        let logits = {
            let (_, logits) = outputs["logits"].try_extract_tensor::<f32>()?;
            logits.to_vec()
        };
        for (name, slot) in cache_names(self.layers, "new_")
            .into_iter()
            .zip(batch.cache.iter_mut())
        {
            *slot = outputs
                .remove(name.as_str())
                .ok_or_else(|| MediaError::model(format!("decoder has no output {name}")))?;
        }
        Ok(logits)
    }

    /// Text of token ids (byte-level BPE).
    pub fn decode(&self, ids: &[u32]) -> String {
        tokens::text_of(&self.vocab, ids)
    }
}

impl Batch {
    /// Keeps the rows `keep` (ascending) of every tensor.
    fn keep(&mut self, keep: &[usize]) -> Result<(), MediaError> {
        let rows = self.rows.len();
        let mask = std::iter::once(&mut self.mask);
        for value in self
            .cache
            .iter_mut()
            .chain(self.cross.iter_mut())
            .chain(mask)
        {
            let (shape, data) = value.try_extract_tensor::<f32>()?;
            let per_row = data.len() / rows.max(1);
            let mut kept = Vec::with_capacity(per_row * keep.len());
            for &r in keep {
                kept.extend_from_slice(&data[r * per_row..(r + 1) * per_row]);
            }
            let shape = shape.to_vec();
            *value = tensor(keep.len(), &shape, kept)?;
        }
        self.rows = keep.iter().map(|&r| self.rows[r]).collect();
        Ok(())
    }
}

/// Samples of the encoder input for a window of `samples`: its own length and a second
/// of silence after it (without that second a window's last words are often lost),
/// rounded up to whole seconds, at least 5 s and at most 30 s. Whisper's encoder costs
/// in proportion to its input (0.57 s for 30 s, 0.14 s for 10 s on 2 cores); the
/// original pads every window to 30 s, and a voice memo is often a few seconds.
pub fn audio_width(samples: usize) -> usize {
    const SECOND: usize = super::decode::SAMPLE_RATE;
    let seconds = samples.div_ceil(SECOND) + 1;
    (seconds.max(5) * SECOND).min(WINDOW_SAMPLES)
}

/// A float tensor of `shape` with its first dimension set to `rows`.
fn tensor(rows: usize, shape: &[i64], data: Vec<f32>) -> Result<DynValue, MediaError> {
    let mut dims: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(first) = dims.first_mut() {
        *first = rows;
    }
    Ok(Tensor::from_array((dims, data))?.into_dyn())
}

/// `cross_k_0, cross_v_0, cross_k_1, …`
fn cross_names(layers: usize) -> Vec<String> {
    (0..layers)
        .flat_map(|i| [format!("cross_k_{i}"), format!("cross_v_{i}")])
        .collect()
}

/// `{prefix}self_k_0, {prefix}self_v_0, …`
fn cache_names(layers: usize, prefix: &str) -> Vec<String> {
    (0..layers)
        .flat_map(|i| [format!("{prefix}self_k_{i}"), format!("{prefix}self_v_{i}")])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: usize = 16_000;

    #[test]
    fn a_window_is_encoded_over_its_length_and_a_second_of_silence() {
        // at least 5 s
        assert_eq!(audio_width(0), 5 * SECOND);
        assert_eq!(audio_width(SECOND / 2), 5 * SECOND);
        // its length rounded up to whole seconds, and one more
        assert_eq!(audio_width(6 * SECOND), 7 * SECOND);
        assert_eq!(audio_width(6 * SECOND + 1), 8 * SECOND);
        // never more than Whisper's 30 s
        assert_eq!(audio_width(29 * SECOND + 1), WINDOW_SAMPLES);
        assert_eq!(audio_width(WINDOW_SAMPLES), WINDOW_SAMPLES);
        assert_eq!(audio_width(2 * WINDOW_SAMPLES), WINDOW_SAMPLES);
        // a whole number of audio positions
        for samples in [0, 12_345, 7 * SECOND + 3, WINDOW_SAMPLES] {
            assert_eq!(audio_width(samples) % AUDIO_POSITION_SAMPLES, 0);
        }
    }
}
