//! Audio and video content: speech windows (Silero VAD + Whisper) and on-screen text of
//! video frames (1 fps, perceptual-hash deduplication, PP-OCRv5), turned into units with
//! time locators.
//!
//! The converters give every audio/video file one metadata unit from its headers; this
//! stage, run by the indexer for files on disk, adds:
//!
//! * one unit per recognised speech segment (`track` = `speech`), with its start and end
//!   in milliseconds; Whisper's timestamps cut each VAD window (≤ 30 s) into segments;
//! * for videos, one unit per run of consecutive seconds showing the same text and
//!   visual tags (`track` = `screen`); a frame whose perceptual hash is within
//!   [`frames::DUPLICATE_DISTANCE`] bits of the last frame read is not read again but
//!   carries that frame's text and tags.
//!
//! Decoding is done by the system's ffmpeg ([`decode`]), bounded in time per file.

pub mod asr;
pub mod decode;
pub mod frames;
pub mod keyframes;
mod screen;
pub mod speech;
pub mod vad;
pub mod vocabulary;
pub mod whisper;

pub use asr::{AsrModel, WhisperGraphs};
pub use speech::Speech;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset};
use converters::unit::{Locator, Unit, UnitKind};
use ort::session::Session;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ocr::OcrEngine;
use crate::tags::Tagger;

/// Audio/video files whose content was analysed name the models in
/// `FileRecord.stages.media`, so a run with (other) models available redoes the others.
pub use index::stage::MEDIA_KEY;
/// Longest stretch of a file that is analysed.
pub const MAX_MEDIA_SECONDS: u32 = 4 * 3600;
/// Field of a media unit saying where its text comes from: `speech` or `screen`.
pub const TRACK_KEY: &str = "track";
/// A speech unit's language, when Whisper named it.
const LANGUAGE_KEY: &str = "language";
/// How many frames (seconds) a screen unit's text was shown.
const FRAMES_KEY: &str = "frames";
/// Speech segments are joined into sentences of at most this many seconds.
pub const MAX_SENTENCE_S: f64 = 15.0;
/// A pause this long (s) ends a sentence.
const SENTENCE_PAUSE_S: f64 = 2.0;

#[derive(Debug, Error)]
pub enum MediaError {
    #[error(transparent)]
    Model(#[from] crate::onnx::ModelError),
    #[error(transparent)]
    Decode(#[from] decode::DecodeError),
}

impl From<ort::Error> for MediaError {
    fn from(error: ort::Error) -> MediaError {
        MediaError::Model(error.into())
    }
}

impl MediaError {
    /// A failure of a model's own run (bad output, wrong shapes).
    pub(crate) fn model(detail: impl Into<String>) -> MediaError {
        MediaError::Model(crate::onnx::ModelError::Model(detail.into()))
    }
}

fn require(path: PathBuf) -> Result<PathBuf, MediaError> {
    Ok(crate::onnx::require("speech", path)?)
}

fn session(
    environment: &ort::environment::Environment,
    path: &Path,
    threads: usize,
) -> Result<Session, MediaError> {
    Ok(crate::onnx::session(environment, path, threads)?)
}

/// Whisper's prompt for the profile of `files` (`(relative path, path on disk, size)`,
/// see [`vocabulary`]): the ranked names, and the prompt text made of as many of them as
/// fit in [`whisper::MAX_PROMPT_TOKENS`] tokens of the model in `asr_dir`.
pub fn names_prompt<'a>(
    asr_dir: &Path,
    files: impl IntoIterator<Item = (&'a str, &'a Path, u64)>,
) -> Result<(Vec<String>, String), MediaError> {
    let tokens = whisper::PromptTokens::load(&asr_dir.join("ct2").join("tokenizer.json"))?;
    // A single word that is one token in lower case is common language Whisper knows.
    let common = |name: &str| {
        !name.contains(' ')
            && tokens
                .encode(&format!(" {}", name.to_lowercase()))
                .is_ok_and(|ids| ids.len() == 1)
    };
    let names: Vec<String> = vocabulary::Vocabulary::from_files(files)
        .ranked(usize::MAX)
        .into_iter()
        .filter(|name| !common(name))
        .take(vocabulary::MAX_NAMES)
        .collect();
    let text = vocabulary::prompt_text(&names, whisper::MAX_PROMPT_TOKENS, |t| {
        tokens.encode(t).map_or(usize::MAX, |ids| ids.len())
    });
    Ok((names, text))
}

/// What the media stage did in a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct MediaSummary {
    /// `done`, `unused`, `disabled`, `skipped` (models or ffmpeg missing) or `failed`.
    pub status: crate::stage_status::StageStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Audio and video files analysed.
    pub files: u64,
    /// Seconds of audio decoded and of video frames read.
    pub audio_seconds: f64,
    pub video_seconds: f64,
    /// Units added: speech segments and on-screen text runs.
    pub speech_units: u64,
    pub screen_units: u64,
    /// Frames read by OCR (the others were near-duplicates).
    pub frames_ocr: u64,
    /// Video frames decoded for those seconds: keyframes, and one a second where the
    /// picture changes between keyframes (see [`keyframes`]).
    #[serde(default)]
    pub frames_decoded: u64,
    /// Worker seconds in each stage.
    pub decode_seconds: f64,
    pub vad_seconds: f64,
    pub asr_windows: u64,
    pub asr_encoder_seconds: f64,
    pub asr_decoder_seconds: f64,
    pub ocr_seconds: f64,
    /// Visual tags of frames (part of the frame reading).
    #[serde(default)]
    pub tag_seconds: f64,
    /// Files converted again with unchanged bytes whose speech and screen units were
    /// taken over from their earlier analysis (see `crate::stages::Earlier`); they are
    /// not counted in `files`.
    #[serde(default)]
    pub carried: u64,
    /// Whisper's prompt of the profile's names (see [`vocabulary`]): names and tokens
    /// in it, a hash of its text, and the seconds its pre-pass took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptSummary>,
}

/// The names prompt of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PromptSummary {
    pub names: u64,
    pub tokens: u64,
    pub hash: String,
    pub seconds: f64,
}

impl MediaSummary {
    fn add(&mut self, other: &MediaSummary) {
        self.files += other.files;
        self.audio_seconds += other.audio_seconds;
        self.video_seconds += other.video_seconds;
        self.speech_units += other.speech_units;
        self.screen_units += other.screen_units;
        self.frames_ocr += other.frames_ocr;
        self.frames_decoded += other.frames_decoded;
        self.decode_seconds += other.decode_seconds;
        self.vad_seconds += other.vad_seconds;
        self.asr_windows += other.asr_windows;
        self.asr_encoder_seconds += other.asr_encoder_seconds;
        self.asr_decoder_seconds += other.asr_decoder_seconds;
        self.ocr_seconds += other.ocr_seconds;
        self.tag_seconds += other.tag_seconds;
    }
}

/// The run's media stage: models loaded on the first file, shared by the workers.
pub struct MediaStage {
    models_dir: PathBuf,
    asr: AsrModel,
    /// The Whisper graphs of this run ([`AsrModel::graphs`], chosen once).
    graphs: WhisperGraphs,
    threads: usize,
    ffmpeg: decode::Ffmpeg,
    /// ffmpeg runs and the speech models are present.
    available: Result<(), String>,
    /// Prompt Whisper with the profile's names, read from these files
    /// `(relative path, path on disk, size)` (see [`vocabulary`]).
    names: bool,
    name_sources: Mutex<Vec<(String, PathBuf, u64)>>,
    speech: OnceLock<Result<Mutex<Speech>, String>>,
    /// Speech heard ahead by [`MediaStage::prepare`], by path, until the file's turn.
    prepared: Mutex<HashMap<PathBuf, Prepared>>,
    stats: Mutex<MediaSummary>,
}

/// A file's speech heard ahead: its segments (or why there are none) and the work.
type Prepared = (Result<Vec<whisper::Segment>, String>, MediaSummary);

/// Audio held by [`MediaStage::prepare`] for files not heard yet (64 MB: 35 minutes),
/// beyond which it hears what is queued before it decodes the next file.
const PREPARE_HELD_BYTES: usize = 64 << 20;

impl MediaStage {
    pub fn new(
        models_dir: &Path,
        asr: AsrModel,
        threads: usize,
        timeout: Duration,
        names: bool,
    ) -> MediaStage {
        let ffmpeg = decode::Ffmpeg::new(timeout);
        let graphs = asr.graphs(models_dir);
        let wanted = [
            &models_dir.join("vad").join("silero_vad.onnx"),
            &graphs.encoder,
            &graphs.decoder,
        ];
        let available = if !ffmpeg.available() {
            Err("ffmpeg is not installed (apt-get install ffmpeg)".to_string())
        } else if let Some(missing) = wanted.iter().find(|p| !p.exists()) {
            Err(format!(
                "{} is missing; run scripts/fetch-models",
                missing.display()
            ))
        } else {
            Ok(())
        };
        MediaStage {
            models_dir: models_dir.to_path_buf(),
            asr,
            graphs,
            threads: threads.max(1),
            ffmpeg,
            available,
            names,
            name_sources: Mutex::new(Vec::new()),
            speech: OnceLock::new(),
            prepared: Mutex::new(HashMap::new()),
            stats: Mutex::new(MediaSummary::default()),
        }
    }

    pub fn available(&self) -> bool {
        self.available.is_ok()
    }

    /// What analysed files are marked with (see [`MEDIA_KEY`]).
    pub fn marker(&self) -> String {
        self.asr.marker(&self.graphs, self.names)
    }

    /// The profile's files, for the names prompt (read only when some audio is
    /// transcribed; see [`vocabulary`]).
    pub fn name_sources<'a>(&self, files: impl IntoIterator<Item = (&'a str, &'a Path, u64)>) {
        if !self.names {
            return;
        }
        let wanted = files
            .into_iter()
            .filter(|(rel, _, _)| vocabulary::wanted(rel))
            .map(|(rel, abs, size)| (rel.to_string(), abs.to_path_buf(), size))
            .collect();
        *self.name_sources.lock().unwrap_or_else(|e| e.into_inner()) = wanted;
    }

    /// Loads the speech models, with the names prompt when it is on.
    fn load_speech(&self) -> Result<Speech, MediaError> {
        let mut speech =
            Speech::load_graphs(&self.models_dir, self.asr, &self.graphs, self.threads)?;
        if self.names {
            let started = Instant::now();
            let sources =
                std::mem::take(&mut *self.name_sources.lock().unwrap_or_else(|e| e.into_inner()));
            let (names, text) = names_prompt(
                &self.asr.dir(&self.models_dir),
                sources
                    .iter()
                    .map(|(rel, abs, size)| (rel.as_str(), abs.as_path(), *size)),
            )?;
            let count = speech.set_prompt(&text)?;
            tracing::info!(names = names.len(), tokens = count, prompt = %text, "speech prompt");
            self.stats.lock().unwrap_or_else(|e| e.into_inner()).prompt = Some(PromptSummary {
                names: text.split(", ").filter(|n| !n.is_empty()).count() as u64,
                tokens: count as u64,
                hash: vocabulary::prompt_hash(&text),
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        Ok(speech)
    }

    /// Analyses one file: appends its speech and screen units. Problems are logged and
    /// returned as a note (the file stays indexed with what it has).
    pub fn apply(
        &self,
        path: &Path,
        video: bool,
        created: Option<DateTime<FixedOffset>>,
        ocr: Option<&Mutex<OcrEngine>>,
        tagger: Option<&Mutex<Tagger>>,
        units: &mut Vec<Unit>,
    ) -> Option<String> {
        if self.available.is_err() {
            return None;
        }
        let mut stats = MediaSummary {
            files: 1,
            ..MediaSummary::default()
        };
        let mut notes = Vec::new();
        // Speech, heard ahead with other files' or now.
        let prepared = self
            .prepared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(path);
        let started = Instant::now();
        if let Some((segments, work)) = prepared {
            stats.add(&work);
            match segments {
                Ok(segments) => units.extend(speech_units(segments, created, &mut stats)),
                Err(error) => notes.push(format!("speech recognition failed: {error}")),
            }
        } else {
            match self.ffmpeg.audio(path, MAX_MEDIA_SECONDS) {
                Ok(samples) => {
                    stats.decode_seconds += started.elapsed().as_secs_f64();
                    stats.audio_seconds += samples.len() as f64 / decode::SAMPLE_RATE as f64;
                    match self.speech_units(samples, created, &mut stats) {
                        Ok(speech) => units.extend(speech),
                        Err(error) => notes.push(format!("speech recognition failed: {error}")),
                    }
                }
                Err(decode::DecodeError::NoStream(_)) => {}
                Err(error) => notes.push(format!("audio: {error}")),
            }
        }
        // Screen text. Without OCR (off, or its models missing: the run's choice, reported
        // in the OCR summary) the frames are not read, which is no damage to the file.
        if let (true, Some(ocr)) = (video, ocr) {
            match self.screen_units(path, created, ocr, tagger, &mut stats) {
                Ok(screen) => units.extend(screen),
                Err(MediaError::Decode(decode::DecodeError::NoStream(_))) => {}
                Err(error) => notes.push(format!("video: {error}")),
            }
        }
        self.stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(&stats);
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// Takes the speech and screen units over from an earlier analysis of the same
    /// bytes (see `crate::stages::Earlier`), dated from `created` as [`MediaStage::apply`]
    /// dates them.
    pub fn carry(
        &self,
        earlier: &[crate::StoredUnit],
        created: Option<DateTime<FixedOffset>>,
        units: &mut Vec<Unit>,
    ) {
        units.extend(
            earlier
                .iter()
                .filter_map(|unit| carried_unit(unit, created)),
        );
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).carried += 1;
    }

    /// The speech models, loaded on first use.
    fn speech(&self) -> Result<&Mutex<Speech>, MediaError> {
        crate::onnx::load_once(&self.speech, true, "speech recognition", || {
            self.load_speech()
        })
        .ok_or_else(|| {
            let why = self.speech.get().and_then(|r| r.as_ref().err());
            MediaError::model(why.cloned().unwrap_or_default())
        })
    }

    fn speech_units(
        &self,
        samples: Vec<i16>,
        created: Option<DateTime<FixedOffset>>,
        stats: &mut MediaSummary,
    ) -> Result<Vec<Unit>, MediaError> {
        if samples.len() < decode::SAMPLE_RATE / 4 {
            return Ok(Vec::new());
        }
        let speech = self.speech()?;
        let segments = {
            let mut speech = speech.lock().unwrap_or_else(|e| e.into_inner());
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                speech.transcribe(samples, stats)
            }))
            .map_err(|_| MediaError::model("speech recognition panicked"))??
        };
        Ok(speech_units(segments, created, stats))
    }

    /// Hears the speech of these audio and video files (on disk) ahead of the stage,
    /// their windows decoded together (see [`speech`]); each file's
    /// [`MediaStage::apply`] then takes its segments instead of hearing it alone. A
    /// file that ffmpeg cannot read is left to `apply`, which reports it. `heard` is
    /// told each file's path and seconds of audio as it is done (a chunk of one
    /// recording too, so that the progress counts every recording heard).
    pub fn prepare(&self, files: &[&Path], heard_one: &dyn Fn(&Path, f64)) {
        if self.available.is_err() || files.is_empty() {
            return;
        }
        let Ok(speech) = self.speech() else {
            return;
        };
        let mut speech = speech.lock().unwrap_or_else(|e| e.into_inner());
        let heard = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // ffmpeg decodes the next files while Whisper hears the queued windows.
            // Audio decoded and not heard yet: sent to Whisper's thread and not taken
            // (`pending`), and held in its queue (`held`). The decoding thread runs ahead
            // only while their sum is under PREPARE_HELD_BYTES, so at most the budget (or
            // one long file) and the file being decoded are held.
            use std::sync::atomic::{AtomicUsize, Ordering};
            let (pending, held) = (&AtomicUsize::new(0), &AtomicUsize::new(0));
            let bytes = |samples: &[i16]| std::mem::size_of_val(samples);
            std::thread::scope(|scope| {
                let (send, decoded) = std::sync::mpsc::channel();
                scope.spawn(move || {
                    for &path in files {
                        while pending.load(Ordering::Acquire) + held.load(Ordering::Acquire)
                            > PREPARE_HELD_BYTES
                        {
                            std::thread::sleep(Duration::from_millis(20));
                        }
                        let started = Instant::now();
                        let Ok(samples) = self.ffmpeg.audio(path, MAX_MEDIA_SECONDS) else {
                            continue;
                        };
                        let work = MediaSummary {
                            decode_seconds: started.elapsed().as_secs_f64(),
                            audio_seconds: samples.len() as f64 / decode::SAMPLE_RATE as f64,
                            ..MediaSummary::default()
                        };
                        if samples.len() < decode::SAMPLE_RATE / 4 {
                            continue;
                        }
                        pending.fetch_add(bytes(&samples), Ordering::AcqRel);
                        if send.send((path, samples, work)).is_err() {
                            break;
                        }
                    }
                });
                let mut queue = speech::SpeechQueue::default();
                let mut heard = Vec::new();
                let mut done = |files: Vec<speech::Heard<PathBuf>>| {
                    for (path, _, work) in &files {
                        heard_one(path, work.audio_seconds);
                    }
                    heard.extend(files);
                };
                for (path, samples, work) in decoded {
                    pending.fetch_sub(bytes(&samples), Ordering::AcqRel);
                    done(speech.add(&mut queue, path.to_path_buf(), samples, work));
                    while queue.waiting() >= whisper::MAX_BATCH
                        || (queue.waiting() > 0 && queue.held_bytes() > PREPARE_HELD_BYTES)
                    {
                        done(speech.hear(&mut queue));
                    }
                    held.store(queue.held_bytes(), Ordering::Release);
                }
                while queue.waiting() > 0 {
                    done(speech.hear(&mut queue));
                }
                heard
            })
        }));
        // A panic leaves the files to `apply`, which hears them one by one.
        let Ok(heard) = heard else {
            tracing::warn!("speech recognition panicked while hearing files together");
            return;
        };
        let mut prepared = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        for (path, segments, work) in heard {
            prepared.insert(path, (segments, work));
        }
    }

    fn screen_units(
        &self,
        path: &Path,
        created: Option<DateTime<FixedOffset>>,
        ocr: &Mutex<OcrEngine>,
        tagger: Option<&Mutex<Tagger>>,
        stats: &mut MediaSummary,
    ) -> Result<Vec<Unit>, MediaError> {
        let started = Instant::now();
        let mut reader = screen::ScreenReader::new(ocr, tagger);
        let decoded = self.ffmpeg.seconds(path, MAX_MEDIA_SECONDS, &mut reader);
        stats.ocr_seconds += reader.ocr_seconds;
        stats.tag_seconds += reader.tag_seconds;
        stats.frames_ocr += reader.frames_ocr;
        stats.decode_seconds +=
            (started.elapsed().as_secs_f64() - reader.ocr_seconds - reader.tag_seconds).max(0.0);
        stats.video_seconds += reader.texts.len() as f64;
        let read = decoded?;
        stats.frames_decoded += u64::from(read.decoded);
        if let Some(failure) = reader.failure {
            return Err(MediaError::model(failure));
        }
        let texts = reader.texts;
        let runs = frames::text_runs(&texts);
        stats.screen_units += runs.len() as u64;
        Ok(runs
            .into_iter()
            .map(|run| {
                let text = run.text;
                let mut unit = media_unit(
                    run.first as u64 * 1000,
                    (run.last as u64 + 1) * 1000,
                    "screen",
                    text,
                    created,
                );
                unit.fields
                    .insert(FRAMES_KEY.into(), (run.last - run.first + 1).to_string());
                unit
            })
            .collect())
    }

    pub fn summary(stage: Option<&MediaStage>) -> MediaSummary {
        let Some(stage) = stage else {
            return MediaSummary {
                status: crate::stage_status::StageStatus::Disabled,
                ..MediaSummary::default()
            };
        };
        let mut summary = stage
            .stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match (&stage.available, stage.speech.get()) {
            (Err(why), _) => {
                summary.status = crate::stage_status::StageStatus::Skipped;
                summary.message = Some(why.clone());
            }
            (Ok(()), Some(Err(error))) => {
                summary.status = crate::stage_status::StageStatus::Failed;
                summary.message = Some(error.clone());
            }
            (Ok(()), _) if summary.files == 0 && summary.carried == 0 => {
                summary.status = crate::stage_status::StageStatus::Unused
            }
            (Ok(()), _) => summary.status = crate::stage_status::StageStatus::Done,
        }
        summary
    }
}

/// Speech units of a file's segments, joined into sentences.
fn speech_units(
    segments: Vec<whisper::Segment>,
    created: Option<DateTime<FixedOffset>>,
    stats: &mut MediaSummary,
) -> Vec<Unit> {
    let segments = sentences(segments);
    stats.speech_units += segments.len() as u64;
    segments
        .into_iter()
        .map(|s| {
            let (start_ms, end_ms) = ((s.start_s * 1000.0) as u64, (s.end_s * 1000.0) as u64);
            let mut unit = media_unit(start_ms, end_ms, "speech", s.text, created);
            if let Some(language) = s.language {
                unit.fields.insert(LANGUAGE_KEY.into(), language);
            }
            unit
        })
        .collect()
}

/// Joins Whisper's segments (often half-sentences) into sentences: a unit ends at
/// closing punctuation, at a pause of [`SENTENCE_PAUSE_S`], or before it would exceed
/// [`MAX_SENTENCE_S`].
pub fn sentences(segments: Vec<whisper::Segment>) -> Vec<whisper::Segment> {
    let mut out: Vec<whisper::Segment> = Vec::new();
    let mut open = false;
    for segment in segments {
        match out.last_mut() {
            Some(last)
                if open
                    && segment.start_s - last.end_s < SENTENCE_PAUSE_S
                    && segment.end_s - last.start_s <= MAX_SENTENCE_S =>
            {
                last.end_s = segment.end_s;
                last.text.push(' ');
                last.text.push_str(&segment.text);
            }
            _ => out.push(segment),
        }
        let text = out.last().map(|s| s.text.trim_end()).unwrap_or_default();
        open = !text.ends_with(['.', '?', '!', '。', '？', '！']);
    }
    out
}

/// "m:ss" of milliseconds.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// A speech or screen unit of an earlier analysis, made again as [`media_unit`] makes it;
/// `None` for the converter's own units.
fn carried_unit(
    stored: &crate::StoredUnit,
    created: Option<DateTime<FixedOffset>>,
) -> Option<Unit> {
    let track = stored.fields.get(TRACK_KEY)?.as_str();
    if stored.kind != UnitKind::Media || !matches!(track, "speech" | "screen") {
        return None;
    }
    let start_ms = stored.locator.t_start_ms?;
    let end_ms = stored.locator.t_end_ms.unwrap_or(start_ms);
    let mut unit = media_unit(start_ms, end_ms, track, stored.text.clone(), created);
    for key in [LANGUAGE_KEY, FRAMES_KEY] {
        if let Some(value) = stored.fields.get(key) {
            unit.fields.insert(key.to_string(), value.clone());
        }
    }
    Some(unit)
}

fn media_unit(
    start_ms: u64,
    end_ms: u64,
    track: &str,
    text: String,
    created: Option<DateTime<FixedOffset>>,
) -> Unit {
    let locator = Locator {
        t_start_ms: Some(start_ms),
        t_end_ms: Some(end_ms.max(start_ms)),
        ..Locator::default()
    };
    let title = format!(
        "{} {}–{}",
        if track == "speech" {
            "Speech"
        } else {
            "Screen"
        },
        clock(start_ms),
        clock(end_ms)
    );
    let mut unit = Unit::new(UnitKind::Media, locator, text)
        .with_title(title)
        .with_time(created);
    unit.fields.insert(TRACK_KEY.into(), track.into());
    unit
}

#[cfg(test)]
mod tests {
    use super::whisper::Segment;
    use super::*;

    fn seg(start_s: f64, end_s: f64, text: &str) -> Segment {
        Segment {
            start_s,
            end_s,
            text: text.to_string(),
            language: None,
        }
    }

    #[test]
    fn half_sentences_are_joined_full_ones_kept_apart() {
        let joined = sentences(vec![
            seg(
                0.0,
                7.9,
                "And so my fellow Americans ask not what your country can do for you",
            ),
            seg(7.9, 10.6, "ask what you can do for your country."),
            seg(11.0, 13.0, "Thank you."),
            seg(13.0, 20.0, "A long clause without an end"),
            seg(20.0, 29.0, "that goes on past the limit"),
            seg(33.0, 35.0, "after a pause"),
        ]);
        let spans: Vec<(f64, f64)> = joined.iter().map(|s| (s.start_s, s.end_s)).collect();
        assert_eq!(
            spans,
            vec![
                (0.0, 10.6),
                (11.0, 13.0),
                (13.0, 20.0),
                (20.0, 29.0),
                (33.0, 35.0)
            ]
        );
        assert!(joined[0].text.contains("for you ask what"));
    }

    #[test]
    fn clock_formats() {
        assert_eq!(clock(65_000), "1:05");
        assert_eq!(clock(3_725_000), "1:02:05");
    }
}
