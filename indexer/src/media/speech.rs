//! The speech models (Silero VAD + Whisper) and the queue that feeds Whisper windows of
//! several files at once.
//!
//! A file's audio goes through VAD when it is added; its windows join one queue with
//! every other file's. Whisper takes them [`whisper::MAX_BATCH`] at a time, whatever file
//! they come from (a decoder step costs about the same for one window as for eight, see
//! [`whisper`]); a window whose decode stopped early is queued again from there
//! (Whisper's seek). A file is done when none of its windows is left, and then leaves the
//! queue with its segments in time order.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::time::Instant;

use super::{decode, vad, whisper, AsrModel, MediaError, MediaSummary, WhisperGraphs};

/// The speech models.
pub struct Speech {
    vad: vad::Vad,
    whisper: whisper::Whisper,
}

/// Audio held (16-bit samples: 17 minutes) above which a batch is half as large, so that
/// a long recording and the batch's encoder output stay within the indexer's 1 GB.
const HELD_FOR_HALF_BATCH: usize = 32 << 20;

/// Most encoder input (samples) in one batch: six windows of 30 s. A window's encoder
/// output (Whisper base) is 36 MB for 30 s, in proportion for a shorter one.
const BATCH_ENCODED_SAMPLES: usize = 6 * whisper::WINDOW_SAMPLES;

/// A window of a queued file, in ms of its audio.
#[derive(Debug, Clone, Copy)]
struct Window {
    file: usize,
    start_ms: u64,
    end_ms: u64,
}

impl Window {
    /// Its length in samples.
    fn samples(&self) -> usize {
        (self.end_ms.saturating_sub(self.start_ms)) as usize * decode::SAMPLE_RATE / 1000
    }
}

/// A file whose windows are not all heard yet.
struct Open<K> {
    key: K,
    samples: Vec<i16>,
    segments: Vec<whisper::Segment>,
    /// Its windows in the queue.
    waiting: usize,
    stats: MediaSummary,
}

/// What a file's speech gave: its key, its segments (or why there are none) and the
/// work it took.
pub type Heard<K> = (K, Result<Vec<whisper::Segment>, String>, MediaSummary);

/// Windows of several files waiting for Whisper.
pub struct SpeechQueue<K> {
    open: HashMap<usize, Open<K>>,
    windows: VecDeque<Window>,
    next: usize,
}

impl<K> Default for SpeechQueue<K> {
    fn default() -> Self {
        SpeechQueue {
            open: HashMap::new(),
            windows: VecDeque::new(),
            next: 0,
        }
    }
}

impl<K> SpeechQueue<K> {
    /// Adds a file's audio with its VAD `windows` (see [`vad::Vad::windows_of`]);
    /// returns it at once when it has no window (silence, or too short) or its VAD
    /// failed.
    pub fn push(
        &mut self,
        key: K,
        samples: Vec<i16>,
        windows: Result<Vec<vad::Span>, MediaError>,
        stats: MediaSummary,
    ) -> Vec<Heard<K>> {
        let windows = match windows {
            Ok(windows) => windows,
            Err(error) => return vec![(key, Err(error.to_string()), stats)],
        };
        let file = self.next;
        self.next += 1;
        let before = self.windows.len();
        self.windows.extend(
            windows
                .iter()
                .filter(|w| w.end_ms.saturating_sub(w.start_ms) >= 500)
                .map(|w| Window {
                    file,
                    start_ms: w.start_ms,
                    end_ms: w.end_ms,
                }),
        );
        let waiting = self.windows.len() - before;
        if waiting == 0 {
            return vec![(key, Ok(Vec::new()), stats)];
        }
        self.open.insert(
            file,
            Open {
                key,
                samples,
                segments: Vec::new(),
                waiting,
                stats,
            },
        );
        Vec::new()
    }

    /// Windows waiting.
    pub fn waiting(&self) -> usize {
        self.windows.len()
    }

    /// Bytes of audio held for files not done.
    pub fn held_bytes(&self) -> usize {
        self.open
            .values()
            .map(|o| std::mem::size_of_val(o.samples.as_slice()))
            .sum()
    }
}

impl Speech {
    pub fn load(models_dir: &Path, asr: AsrModel, threads: usize) -> Result<Speech, MediaError> {
        Speech::load_graphs(models_dir, asr, &asr.graphs(models_dir), threads)
    }

    /// Loads the speech models with these Whisper `graphs` (see [`AsrModel::graphs`]).
    pub fn load_graphs(
        models_dir: &Path,
        asr: AsrModel,
        graphs: &WhisperGraphs,
        threads: usize,
    ) -> Result<Speech, MediaError> {
        let environment = crate::onnx::runtime(models_dir)?;
        Ok(Speech {
            vad: vad::Vad::load(&environment, models_dir)?,
            whisper: whisper::Whisper::load(&environment, &asr.dir(models_dir), graphs, threads)?,
        })
    }

    /// Gives Whisper an initial prompt (see [`whisper`]); returns its number of tokens.
    pub fn set_prompt(&mut self, text: &str) -> Result<usize, MediaError> {
        self.whisper.set_prompt(text)
    }

    /// Speech segments of 16 kHz mono `samples`, with absolute times.
    pub fn transcribe(
        &mut self,
        samples: Vec<i16>,
        stats: &mut MediaSummary,
    ) -> Result<Vec<whisper::Segment>, MediaError> {
        let mut queue = SpeechQueue::default();
        let mut heard = self.add(&mut queue, (), samples, MediaSummary::default());
        while queue.waiting() > 0 {
            heard.extend(self.hear(&mut queue));
        }
        let ((), segments, work) = heard
            .pop()
            .ok_or_else(|| MediaError::model("no transcript"))?;
        stats.add(&work);
        segments.map_err(MediaError::model)
    }

    /// Adds a file's audio to `queue` (its VAD runs now); returns it at once when it
    /// has no window (silence, or too short).
    pub fn add<K>(
        &mut self,
        queue: &mut SpeechQueue<K>,
        key: K,
        samples: Vec<i16>,
        mut stats: MediaSummary,
    ) -> Vec<Heard<K>> {
        let started = Instant::now();
        let windows = self.vad.windows_of(&samples);
        stats.vad_seconds += started.elapsed().as_secs_f64();
        queue.push(key, samples, windows, stats)
    }

    /// Hears the next [`whisper::MAX_BATCH`] windows of `queue`; returns the files
    /// that are now done. A failed batch fails its files (their other windows go).
    pub fn hear<K>(&mut self, queue: &mut SpeechQueue<K>) -> Vec<Heard<K>> {
        // Each window of a batch holds 36 MB of encoder output (Whisper base): with more
        // than HELD_FOR_HALF_BATCH of audio held (a long recording), half as many.
        let most = if queue.held_bytes() > HELD_FOR_HALF_BATCH {
            whisper::MAX_BATCH / 2
        } else {
            whisper::MAX_BATCH
        };
        // and at most BATCH_ENCODED_SAMPLES of encoder input: eight short memos, six
        // windows of 30 s
        let mut encoded = 0;
        let take = queue
            .windows
            .iter()
            .take(most.max(1))
            .take_while(|w| {
                encoded += whisper::audio_width(w.samples());
                encoded <= BATCH_ENCODED_SAMPLES
            })
            .count()
            .max(1)
            .min(queue.windows.len());
        let batch: Vec<Window> = queue.windows.drain(..take).collect();
        let at = |samples: &[i16], ms: u64| {
            (ms as usize * decode::SAMPLE_RATE / 1000).min(samples.len())
        };
        let heard = {
            let audio: Vec<Vec<f32>> = batch
                .iter()
                .map(|w| {
                    let samples = &queue.open[&w.file].samples;
                    decode::to_float(&samples[at(samples, w.start_ms)..at(samples, w.end_ms)])
                })
                .collect();
            let views: Vec<&[f32]> = audio.iter().map(Vec::as_slice).collect();
            self.whisper.transcribe_batch(&views)
        };
        let mut done = Vec::new();
        let transcripts = match heard {
            Ok(transcripts) => transcripts,
            Err(error) => {
                let failed: Vec<usize> = batch.iter().map(|w| w.file).collect();
                queue.windows.retain(|w| !failed.contains(&w.file));
                for file in failed {
                    if let Some(open) = queue.open.remove(&file) {
                        done.push((open.key, Err(error.to_string()), open.stats));
                    }
                }
                return done;
            }
        };
        for (window, transcript) in batch.into_iter().zip(transcripts) {
            let Some(open) = queue.open.get_mut(&window.file) else {
                continue;
            };
            open.waiting -= 1;
            let stats = &mut open.stats;
            stats.asr_windows += 1;
            stats.asr_encoder_seconds += transcript.encoder_s;
            stats.asr_decoder_seconds += transcript.decoder_s;
            let offset = window.start_ms as f64 / 1000.0;
            let window_end = window.end_ms as f64 / 1000.0;
            let language = transcript.language.clone();
            open.segments
                .extend(transcript.segments.into_iter().map(|s| whisper::Segment {
                    start_s: offset + s.start_s,
                    end_s: (offset + s.end_s).min(window_end),
                    text: s.text,
                    language: language.clone(),
                }));
            if let Some(resume) = transcript.resume_at.filter(|&r| r >= 1.0) {
                let from = window.start_ms + (resume * 1000.0) as u64;
                if window.end_ms.saturating_sub(from) >= 500 {
                    open.waiting += 1;
                    queue.windows.push_back(Window {
                        start_ms: from,
                        ..window
                    });
                }
            }
            if open.waiting == 0 {
                if let Some(mut open) = queue.open.remove(&window.file) {
                    open.segments
                        .sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
                    done.push((open.key, Ok(open.segments), open.stats));
                }
            }
        }
        done
    }
}
