//! Speech recognition with Whisper (base, multilingual, by default; tiny.en on request),
//! run by ONNX Runtime.
//!
//! The weights come from a CTranslate2 package on PyPI; `scripts/convert-whisper` turns
//! them into two ONNX graphs (see that script for the exact contract):
//!
//! * `encoder.onnx`: 30 s of 16 kHz audio → log-mel (computed inside the graph) →
//!   encoder → every decoder layer's cross-attention keys and values;
//! * `decoder.onnx`: one token + the self-attention cache → next-token logits + the
//!   grown cache.
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
//! tokens + `<|startoftranscript|>`, one decoder step per token; its tokens bias the
//! spelling of what follows and are never part of the output.

use std::collections::HashMap;
use std::path::Path;

use ort::session::Session;
use ort::value::{DynValue, Tensor};

use super::MediaError;

/// Samples of one encoder input (30 s at 16 kHz).
pub const WINDOW_SAMPLES: usize = 480_000;
/// Seconds per timestamp token step.
const TIMESTAMP_STEP_S: f64 = 0.02;
/// Most tokens sampled per window (half the text context, as Whisper does).
const MAX_TOKENS: usize = 224;
/// Most prompt tokens: with the start tokens and [`MAX_TOKENS`] sampled ones, the decode
/// stays inside the text context (448 tokens).
pub const MAX_PROMPT_TOKENS: usize = 200;
/// Latest first timestamp (in steps of 20 ms).
const MAX_INITIAL_TIMESTAMP: u32 = 50;
/// Windows whose no-speech probability is above this, and whose tokens have a mean log
/// probability below [`LOGPROB_THRESHOLD`], are silence (Whisper's rule).
pub const NO_SPEECH_THRESHOLD: f32 = 0.6;
pub const LOGPROB_THRESHOLD: f32 = -1.0;

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
    /// Seconds in the encoder and the decoder.
    pub encoder_s: f64,
    pub decoder_s: f64,
}

struct Special {
    eot: u32,
    sot: u32,
    /// `<|startofprev|>`: opens a prompt.
    sot_prev: u32,
    /// `<|transcribe|>` (multilingual models).
    transcribe: u32,
    /// Language tokens `<|en|>`…, a contiguous range after `sot` (multilingual models).
    languages: std::ops::Range<u32>,
    no_speech: u32,
    no_timestamps: u32,
    timestamp_begin: u32,
}

/// Text → token ids with Whisper's own byte-level BPE, and the decoder's start sequence.
pub struct PromptTokens {
    tokenizer: tokenizers::Tokenizer,
    sot_prev: u32,
    sot: u32,
}

impl PromptTokens {
    /// Reads `tokenizer.json` (as shipped with the weights, `<model dir>/ct2/`).
    pub fn load(path: &Path) -> Result<PromptTokens, MediaError> {
        let tokenizer = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| MediaError::model(format!("{}: {e}", path.display())))?;
        let id = |name: &str| {
            tokenizer
                .token_to_id(name)
                .ok_or_else(|| MediaError::model(format!("{}: no token {name}", path.display())))
        };
        Ok(PromptTokens {
            sot_prev: id("<|startofprev|>")?,
            sot: id("<|startoftranscript|>")?,
            tokenizer,
        })
    }

    /// Text tokens of `text` (no special tokens added).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, MediaError> {
        self.tokenizer
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| MediaError::model(format!("prompt: {e}")))
    }

    /// Text of token ids.
    pub fn decode(&self, ids: &[u32]) -> Result<String, MediaError> {
        self.tokenizer
            .decode(ids, false)
            .map_err(|e| MediaError::model(format!("prompt: {e}")))
    }

    /// The prompt's tokens: `text` (given a leading space, as Whisper does), the last
    /// [`MAX_PROMPT_TOKENS`] kept.
    pub fn prompt(&self, text: &str) -> Result<Vec<u32>, MediaError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Vec::new());
        }
        let ids = self.encode(&format!(" {text}"))?;
        Ok(ids[ids.len().saturating_sub(MAX_PROMPT_TOKENS)..].to_vec())
    }

    /// What the decoder is fed before the language: `<|startoftranscript|>`, preceded by
    /// `<|startofprev|>` and the prompt when there is one.
    pub fn start_sequence(&self, prompt: &[u32]) -> Vec<u32> {
        start_sequence(self.sot_prev, prompt, self.sot)
    }
}

fn start_sequence(sot_prev: u32, prompt: &[u32], sot: u32) -> Vec<u32> {
    let mut sequence = Vec::with_capacity(prompt.len() + 2);
    if !prompt.is_empty() {
        sequence.push(sot_prev);
        sequence.extend_from_slice(&prompt[prompt.len().saturating_sub(MAX_PROMPT_TOKENS)..]);
    }
    sequence.push(sot);
    sequence
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
    special: Special,
    suppress: Vec<u32>,
    suppress_begin: Vec<u32>,
    layers: usize,
    heads: usize,
    head_dim: usize,
    multilingual: bool,
}

/// The self-attention cache of one decode.
struct Cache {
    k: DynValue,
    v: DynValue,
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
        let (vocab, ids) = read_vocab(&tokenizer)?;
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
        Ok(Whisper {
            encoder: super::session(environment, &encoder, threads)?,
            decoder: super::session(environment, &decoder, threads)?,
            prompt: Vec::new(),
            tokenizer_path: tokenizer,
            vocab,
            special,
            suppress: list("suppress_ids"),
            suppress_begin: list("suppress_ids_begin"),
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

    /// Feeds one token; returns the next-token logits and grows the cache.
    fn step(
        &mut self,
        token: u32,
        cache: &mut Cache,
        cross_k: &DynValue,
        cross_v: &DynValue,
    ) -> Result<Vec<f32>, MediaError> {
        let mut outputs = self.decoder.run(ort::inputs![
            "token" => Tensor::from_array(([1usize, 1], vec![token as i64]))?,
            "self_k" => &cache.k,
            "self_v" => &cache.v,
            "cross_k" => cross_k,
            "cross_v" => cross_v,
        ])?;
        let logits = {
            let (_, logits) = outputs["logits"].try_extract_tensor::<f32>()?;
            logits.to_vec()
        };
        let missing = |name: &str| MediaError::model(format!("decoder has no output {name}"));
        cache.k = outputs
            .remove("new_self_k")
            .ok_or_else(|| missing("new_self_k"))?;
        cache.v = outputs
            .remove("new_self_v")
            .ok_or_else(|| missing("new_self_v"))?;
        Ok(logits)
    }

    /// Transcribes up to 30 s of 16 kHz mono audio.
    pub fn transcribe(&mut self, samples: &[f32]) -> Result<Transcript, MediaError> {
        let started = std::time::Instant::now();
        let mut audio = samples[..samples.len().min(WINDOW_SAMPLES)].to_vec();
        let duration_s = audio.len() as f64 / super::decode::SAMPLE_RATE as f64;
        audio.resize(WINDOW_SAMPLES, 0.0);
        let mut encoded = self
            .encoder
            .run(ort::inputs!["audio" => Tensor::from_array(([1usize, WINDOW_SAMPLES], audio))?])?;
        let take = |outputs: &mut ort::session::SessionOutputs, name: &str| {
            outputs
                .remove(name)
                .ok_or_else(|| MediaError::model(format!("encoder has no output {name}")))
        };
        let cross_k: DynValue = take(&mut encoded, "cross_k")?;
        let cross_v: DynValue = take(&mut encoded, "cross_v")?;
        drop(encoded);
        let encoder_s = started.elapsed().as_secs_f64();

        let started = std::time::Instant::now();
        let empty = [self.layers, 1, self.heads, 0, self.head_dim];
        let mut cache = Cache {
            k: Tensor::from_array((empty, Vec::<f32>::new()))?.into_dyn(),
            v: Tensor::from_array((empty, Vec::<f32>::new()))?.into_dyn(),
        };
        let mut tokens: Vec<u32> = Vec::new();
        let mut sum_logprob = 0f32;
        let mut finished = false;
        // Start: [<|startofprev|> prompt…] <|startoftranscript|>, and for multilingual
        // models the detected language and <|transcribe|>.
        let mut logits = Vec::new();
        for token in start_sequence(self.special.sot_prev, &self.prompt, self.special.sot) {
            logits = self.step(token, &mut cache, &cross_k, &cross_v)?;
        }
        let no_speech = softmax_at(&logits, self.special.no_speech);
        let mut language = None;
        if self.multilingual && !self.special.languages.is_empty() {
            let range = self.special.languages.clone();
            let start = range.start as usize;
            let end = (range.end as usize).min(logits.len());
            let lang = range.start + argmax(&logits[start..end]);
            language = self.vocab.get(lang as usize).map(|t| {
                t.trim_start_matches("<|")
                    .trim_end_matches("|>")
                    .to_string()
            });
            self.step(lang, &mut cache, &cross_k, &cross_v)?;
            logits = self.step(self.special.transcribe, &mut cache, &cross_k, &cross_v)?;
        }
        while tokens.len() < MAX_TOKENS {
            self.apply_rules(&tokens, &mut logits);
            let token = argmax(&logits);
            sum_logprob += softmax_at(&logits, token).max(1e-30).ln();
            if token == self.special.eot {
                finished = true;
                break;
            }
            tokens.push(token);
            if repeating(&tokens) {
                break;
            }
            logits = self.step(token, &mut cache, &cross_k, &cross_v)?;
        }
        let avg_logprob = sum_logprob / (tokens.len() + usize::from(finished)).max(1) as f32;
        let silent = no_speech > NO_SPEECH_THRESHOLD && avg_logprob < LOGPROB_THRESHOLD;
        let segments = if silent {
            Vec::new()
        } else {
            self.segments(&tokens, duration_s)
        };
        // Whisper's seek rule: ending on a timestamp pair (or being cut short) means the
        // speech after the last timestamp was not transcribed yet.
        let ts = |t: &u32| *t >= self.special.timestamp_begin;
        let last_ts = tokens
            .iter()
            .rev()
            .find(|t| ts(t))
            .map(|&t| (t - self.special.timestamp_begin) as f64 * TIMESTAMP_STEP_S);
        let pair_at_end = tokens.len() >= 2 && tokens[tokens.len() - 2..].iter().all(ts);
        let resume_at = match last_ts {
            Some(at) if !silent && (pair_at_end || !finished) && at < duration_s - 1.0 => Some(at),
            _ => None,
        };
        Ok(Transcript {
            segments,
            language,
            no_speech,
            avg_logprob,
            resume_at,
            encoder_s,
            decoder_s: started.elapsed().as_secs_f64(),
        })
    }

    /// Whisper's suppression and timestamp rules for the next token after `tokens`.
    fn apply_rules(&self, tokens: &[u32], logits: &mut [f32]) {
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

    /// Cuts the sampled tokens into timed segments.
    fn segments(&self, tokens: &[u32], duration_s: f64) -> Vec<Segment> {
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
                let text = self.decode(&ids).trim().to_string();
                (!text.is_empty()).then_some(Segment {
                    start_s,
                    end_s,
                    text,
                    language: None,
                })
            })
            .collect()
    }

    /// Text of token ids (byte-level BPE).
    pub fn decode(&self, ids: &[u32]) -> String {
        let table = unicode_to_byte();
        let mut bytes = Vec::new();
        for &id in ids {
            let Some(piece) = self.vocab.get(id as usize) else {
                continue;
            };
            for ch in piece.chars() {
                match table.get(&ch) {
                    Some(&b) => bytes.push(b),
                    None => {
                        let mut buffer = [0u8; 4];
                        bytes.extend_from_slice(ch.encode_utf8(&mut buffer).as_bytes());
                    }
                }
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Vocabulary (id → token string) and name → id for the added tokens.
fn read_vocab(path: &Path) -> Result<(Vec<String>, HashMap<String, u32>), MediaError> {
    let bytes = crate::onnx::read(path)?;
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| MediaError::model(format!("{}: {e}", path.display())))?;
    let bad = || MediaError::model(format!("{}: no BPE vocabulary", path.display()));
    let mut entries: Vec<(u32, String)> = json["model"]["vocab"]
        .as_object()
        .ok_or_else(bad)?
        .iter()
        .filter_map(|(k, v)| Some((v.as_u64()? as u32, k.clone())))
        .collect();
    let mut names = HashMap::new();
    for added in json["added_tokens"].as_array().into_iter().flatten() {
        if let (Some(id), Some(content)) = (added["id"].as_u64(), added["content"].as_str()) {
            entries.push((id as u32, content.to_string()));
            names.insert(content.to_string(), id as u32);
        }
    }
    let size = entries
        .iter()
        .map(|(id, _)| *id as usize + 1)
        .max()
        .ok_or_else(bad)?;
    let mut vocab = vec![String::new(); size];
    for (id, token) in entries {
        vocab[id as usize] = token;
    }
    Ok((vocab, names))
}

/// GPT-2's reversible byte ↔ printable-unicode map, reversed.
fn unicode_to_byte() -> &'static HashMap<char, u8> {
    static TABLE: std::sync::OnceLock<HashMap<char, u8>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let printable = |b: u32| {
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b)
        };
        let mut extra = 0u32;
        (0u32..256)
            .map(|b| {
                let ch = if printable(b) {
                    b
                } else {
                    extra += 1;
                    255 + extra
                };
                (char::from_u32(ch).unwrap_or('?'), b as u8)
            })
            .collect()
    })
}

fn argmax(values: &[f32]) -> u32 {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if *v > values[best] {
            best = i;
        }
    }
    best as u32
}

fn softmax_at(logits: &[f32], at: u32) -> f32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let total: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    logits
        .get(at as usize)
        .map_or(0.0, |l| (l - max).exp() / total)
}

/// The last few tokens have already come three times in a row (a decoding loop).
fn repeating(tokens: &[u32]) -> bool {
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

    #[test]
    fn byte_level_alphabet_round_trips() {
        let table = unicode_to_byte();
        assert_eq!(table.len(), 256);
        assert_eq!(table[&'Ġ'], b' ');
        assert_eq!(table[&'a'], b'a');
        assert_eq!(table[&'Ċ'], b'\n');
    }

    #[test]
    fn decoder_input_opens_with_the_prompt_and_closes_it_with_start_of_transcript() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let path = models.join("whisper-base/ct2/tokenizer.json");
        if !path.exists() {
            eprintln!("whisper tokenizer missing: skipping (run scripts/fetch-models)");
            return;
        }
        let tokens = PromptTokens::load(&path).unwrap();
        let (prev, sot) = (
            tokens.tokenizer.token_to_id("<|startofprev|>").unwrap(),
            tokens
                .tokenizer
                .token_to_id("<|startoftranscript|>")
                .unwrap(),
        );
        let prompt = tokens.prompt("Zofia Kowalczyk, Tomás").unwrap();
        let sequence = tokens.start_sequence(&prompt);
        assert_eq!(sequence[0], prev);
        assert_eq!(*sequence.last().unwrap(), sot);
        assert_eq!(&sequence[1..sequence.len() - 1], prompt.as_slice());
        // Text tokens only, Whisper's leading space included; they decode back.
        assert!(prompt.iter().all(|&t| t < tokens.sot_prev.min(sot)));
        assert_eq!(tokens.decode(&prompt).unwrap(), " Zofia Kowalczyk, Tomás");
        // No prompt: the plain start.
        assert_eq!(tokens.start_sequence(&[]), vec![sot]);
        assert!(tokens.prompt("  ").unwrap().is_empty());
        // A long prompt keeps its last MAX_PROMPT_TOKENS tokens.
        let long = vec!["Zofia Kowalczyk"; 200].join(", ") + ", Tomás";
        let ids = tokens.prompt(&long).unwrap();
        assert_eq!(ids.len(), MAX_PROMPT_TOKENS);
        assert!(tokens.decode(&ids).unwrap().ends_with(", Tomás"));
        assert_eq!(tokens.start_sequence(&ids).len(), MAX_PROMPT_TOKENS + 2);
    }

    #[test]
    fn detects_decoding_loops() {
        assert!(repeating(&[5, 6, 7, 6, 7, 6, 7]));
        assert!(repeating(&[9, 9, 9, 9, 9, 9]));
        assert!(!repeating(&[9, 9, 9, 9]));
        assert!(!repeating(&[1, 2, 3, 4, 5, 6, 7]));
        assert!(!repeating(&[1, 1, 1]));
    }
}
