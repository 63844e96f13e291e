//! Decoding audio and video with the system's `ffmpeg` program (Debian package
//! `ffmpeg`, installed by the README commands).
//!
//! * Audio: the first audio stream, resampled to 16 kHz mono signed 16-bit and converted
//!   to `f32` in [-1, 1].
//! * Video: the first video stream at one frame per second chosen by presentation
//!   timestamp (the `fps=1` filter keeps, for second *k*, the frame shown at *k* s, which
//!   is right for variable frame rates too), scaled down to at most [`FRAME_MAX_SIDE`]
//!   pixels per side and streamed as PPM images, so a long video never sits in memory.
//!
//! Every decode is bounded in time: a watchdog kills ffmpeg when the deadline passes and
//! the call returns [`DecodeError::TimedOut`]. ffmpeg's own error text is kept for the
//! per-file error message.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use image::RgbImage;
use thiserror::Error;

use super::keyframes;

/// Sample rate of decoded audio (what Silero VAD and Whisper expect).
pub const SAMPLE_RATE: usize = 16_000;
/// Frames are scaled so that neither side exceeds this many pixels.
pub const FRAME_MAX_SIDE: u32 = 1920;

#[derive(Debug, Error)]
pub enum DecodeError {
    #[error("ffmpeg is not installed (apt-get install ffmpeg): {0}")]
    NotInstalled(String),
    #[error("no {0} stream")]
    NoStream(&'static str),
    #[error("decoding gave up after {0:?} (limit per file)")]
    TimedOut(Duration),
    #[error("ffmpeg cannot decode it: {0}")]
    Failed(String),
    #[error("reading ffmpeg output: {0}")]
    Io(#[from] std::io::Error),
}

/// A second's picture, as [`Ffmpeg::seconds`] hands it over.
pub enum Picture {
    /// A picture decoded for this second.
    New(RgbImage),
    /// The same picture as the second before (a still stretch of a keyframe).
    Same,
}

/// Takes a video's seconds in order from [`Ffmpeg::seconds`].
pub trait SecondSink {
    /// Second `second` shows `picture`; `false` stops the decode (not an error).
    fn second(&mut self, second: u32, picture: Picture) -> bool;
    /// Forget every second taken: the video is read again from its start.
    fn restart(&mut self);
}

/// What [`Ffmpeg::seconds`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecondsRead {
    /// Seconds handed to the sink.
    pub seconds: u32,
    /// Pictures decoded for them (keyframes and seconds decoded one by one).
    pub decoded: u32,
    /// Whether the video was read keyframes first.
    pub keyframes_first: bool,
}

/// Frames no other frame refers to (most B-frames) are not decoded for one frame per
/// second: the second takes the frame before it, at most a few hundredths of a second
/// earlier, and decoding takes about 0.55 of the time (`docs/benchmarks.md`).
const SKIP_UNREFERENCED: [&str; 2] = ["-skip_frame", "noref"];

/// One frame a second, scaled down (see [`scale_filter`]).
fn one_a_second() -> String {
    format!("fps=1,{}", scale_filter())
}

/// The keyframes alone, scaled down: `-skip_frame nokey` spares decoding the others
/// where the decoder honours it (H.264, HEVC, MPEG-4); the filter keeps only the
/// intra pictures where it does not (libvpx decodes every VP9 frame), so the n-th
/// picture out is always the n-th keyframe.
fn keyframes_only() -> String {
    format!("select='eq(pict_type,I)',{}", scale_filter())
}

/// Frames scaled down to at most [`FRAME_MAX_SIDE`] a side.
fn scale_filter() -> String {
    format!(
        "scale=w='min({m},iw)':h='min({m},ih)':force_original_aspect_ratio=decrease",
        m = FRAME_MAX_SIDE
    )
}

/// Runs ffmpeg for one file with a time limit.
#[derive(Debug, Clone)]
pub struct Ffmpeg {
    program: PathBuf,
    timeout: Duration,
}

impl Ffmpeg {
    /// `ffmpeg` from `PATH` (or `$DENTATE_FFMPEG`), killed after `timeout` per file.
    pub fn new(timeout: Duration) -> Ffmpeg {
        let program = std::env::var_os("DENTATE_FFMPEG")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("ffmpeg"));
        Ffmpeg { program, timeout }
    }

    /// Whether the program can be started.
    pub fn available(&self) -> bool {
        Command::new(&self.program)
            .arg("-version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The first audio stream of `path` as 16 kHz mono 16-bit samples, at most
    /// `max_seconds` (kept as ffmpeg gives them: half the memory of floats, 115 MB an
    /// hour; [`to_float`] makes a stretch of them Whisper's input).
    pub fn audio(&self, path: &Path, max_seconds: u32) -> Result<Vec<i16>, DecodeError> {
        let (run, mut stdout) = self.spawn(
            &[],
            path,
            &[
                "-map",
                "0:a:0",
                "-t",
                &max_seconds.to_string(),
                "-ac",
                "1",
                "-ar",
                &SAMPLE_RATE.to_string(),
                "-f",
                "s16le",
                "-acodec",
                "pcm_s16le",
                "pipe:1",
            ],
            Instant::now() + self.timeout,
        )?;
        let mut samples = Vec::new();
        let mut block = vec![0u8; 1 << 16];
        let mut odd: Option<u8> = None;
        let read = loop {
            match stdout.read(&mut block) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    let mut bytes = &block[..n];
                    if let Some(low) = odd.take() {
                        samples.push(i16::from_le_bytes([low, bytes[0]]));
                        bytes = &bytes[1..];
                    }
                    let pairs = bytes.chunks_exact(2);
                    odd = pairs.remainder().first().copied();
                    samples.extend(pairs.map(|b| i16::from_le_bytes([b[0], b[1]])));
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        run.finish("audio", read)?;
        samples.shrink_to_fit();
        Ok(samples)
    }

    /// Calls `on_frame(second, image)` for each second of the first video stream (at
    /// most `max_seconds`); returns the number of frames. `on_frame` returning `false`
    /// stops the decode early (not an error).
    pub fn frames(
        &self,
        path: &Path,
        max_seconds: u32,
        on_frame: impl FnMut(u32, RgbImage) -> bool,
    ) -> Result<u32, DecodeError> {
        self.frames_until(path, max_seconds, Instant::now() + self.timeout, on_frame)
    }

    fn frames_until(
        &self,
        path: &Path,
        max_seconds: u32,
        deadline: Instant,
        mut on_frame: impl FnMut(u32, RgbImage) -> bool,
    ) -> Result<u32, DecodeError> {
        let limit = max_seconds.to_string();
        let (mut run, mut reader) = self.spawn_frames(
            &SKIP_UNREFERENCED,
            path,
            &limit,
            &[],
            &one_a_second(),
            deadline,
        )?;
        let mut count = 0u32;
        let read = loop {
            match read_ppm(&mut reader) {
                Ok(Some(image)) => {
                    let keep_going = on_frame(count, image);
                    count += 1;
                    if !keep_going {
                        run.kill();
                        break Ok(());
                    }
                }
                Ok(None) => break Ok(()),
                Err(error) => break Err(error),
            }
        };
        drop(reader);
        run.finish("video", read)?;
        Ok(count)
    }

    /// Hands `sink` each second of the first video stream (at most `max_seconds`),
    /// keyframes first (see [`keyframes`]): the seconds of a still stretch take its
    /// keyframe's picture, and only the stretches that change are decoded at one frame
    /// per second. A video the plan does not fit is decoded every second, as by
    /// [`Ffmpeg::frames`] (the sink is told to start again if the plan failed midway).
    pub fn seconds(
        &self,
        path: &Path,
        max_seconds: u32,
        sink: &mut impl SecondSink,
    ) -> Result<SecondsRead, DecodeError> {
        let deadline = Instant::now() + self.timeout;
        if let Some(plan) = self.plan(path, max_seconds, deadline) {
            match self.read_planned(path, &plan, sink, deadline) {
                Ok(Some(read)) => return Ok(read),
                Ok(None) => sink.restart(),
                Err(error) => return Err(error),
            }
        }
        let frames = self.frames_until(path, max_seconds, deadline, |second, image| {
            sink.second(second, Picture::New(image))
        })?;
        Ok(SecondsRead {
            seconds: frames,
            decoded: frames,
            keyframes_first: false,
        })
    }

    /// The keyframes-first plan of a video, from its packets (copied out, not decoded);
    /// `None` when there is none or the listing fails (the full decode then reports why).
    fn plan(&self, path: &Path, max_seconds: u32, deadline: Instant) -> Option<keyframes::Plan> {
        let limit = max_seconds.to_string();
        let args = [
            "-map", "0:v:0", "-t", &limit, "-c", "copy", "-f", "framecrc", "pipe:1",
        ];
        let (run, mut stdout) = self.spawn(&[], path, &args, deadline).ok()?;
        let mut text = String::new();
        let read = stdout.read_to_string(&mut text).map(|_| ());
        run.finish("video", read).ok()?;
        keyframes::parse_framecrc(&text)?.plan(max_seconds)
    }

    /// Reads a video by its plan; `None` when the stream did not match it (fewer
    /// keyframes or frames than planned).
    fn read_planned(
        &self,
        path: &Path,
        plan: &keyframes::Plan,
        sink: &mut impl SecondSink,
        deadline: Instant,
    ) -> Result<Option<SecondsRead>, DecodeError> {
        let limit = plan.seconds.to_string();
        let (mut keys, mut key_frames) = self.spawn_frames(
            &["-skip_frame", "nokey"],
            path,
            &limit,
            &["-fps_mode", "passthrough"],
            &keyframes_only(),
            deadline,
        )?;
        let (mut next_key, mut decoded) = (0usize, 0u32);
        let mut shown = false;
        let mut outcome: Result<Option<()>, DecodeError> = Ok(Some(()));
        'spans: for span in &plan.spans {
            match span.source {
                keyframes::Source::Key(index) => {
                    let mut picture = None;
                    while next_key <= index {
                        match read_ppm(&mut key_frames) {
                            Ok(Some(image)) => picture = Some(image),
                            Ok(None) => {
                                outcome = Ok(None);
                                break 'spans;
                            }
                            Err(error) => {
                                outcome = Err(error.into());
                                break 'spans;
                            }
                        }
                        next_key += 1;
                        decoded += 1;
                    }
                    let Some(picture) = picture else {
                        outcome = Ok(None);
                        break 'spans;
                    };
                    let mut picture = Some(Picture::New(picture));
                    for second in span.first..span.first + span.count {
                        let now = picture.take().unwrap_or(Picture::Same);
                        if !sink.second(second, now) {
                            break 'spans;
                        }
                    }
                    shown = true;
                }
                keyframes::Source::Decode => {
                    match self.decode_span(path, span, sink, shown, deadline)? {
                        Some((frames, keep_going)) => {
                            decoded += frames;
                            shown = true;
                            if !keep_going {
                                break 'spans;
                            }
                        }
                        None => {
                            outcome = Ok(None);
                            break 'spans;
                        }
                    }
                }
            }
        }
        drop(key_frames);
        // the keyframes after the last second planned are not wanted
        keys.kill();
        keys.finish("video", Ok(()))?;
        Ok(outcome?.map(|()| SecondsRead {
            seconds: plan.seconds,
            decoded,
            keyframes_first: true,
        }))
    }

    /// Decodes one span of seconds at one frame per second (seeking to its first
    /// second); returns the frames decoded and whether the sink wants more, or `None`
    /// when the span gave no frame at all. Seconds past the stream's last frame show it.
    fn decode_span(
        &self,
        path: &Path,
        span: &keyframes::Span,
        sink: &mut impl SecondSink,
        shown: bool,
        deadline: Instant,
    ) -> Result<Option<(u32, bool)>, DecodeError> {
        let (start, count) = (span.first.to_string(), span.count.to_string());
        let seek = [SKIP_UNREFERENCED[0], SKIP_UNREFERENCED[1], "-ss", &start];
        let (mut run, mut reader) =
            self.spawn_frames(&seek, path, &count, &[], &one_a_second(), deadline)?;
        let mut frames = 0u32;
        let mut keep_going = true;
        let mut read = Ok(());
        let mut ended = false;
        for second in span.first..span.first + span.count {
            let picture = if ended {
                Picture::Same
            } else {
                match read_ppm(&mut reader) {
                    Ok(Some(image)) => {
                        frames += 1;
                        Picture::New(image)
                    }
                    Ok(None) if frames > 0 || shown => {
                        ended = true;
                        Picture::Same
                    }
                    Ok(None) => break,
                    Err(error) => {
                        read = Err(error);
                        break;
                    }
                }
            };
            if !sink.second(second, picture) {
                keep_going = false;
                break;
            }
        }
        drop(reader);
        run.kill();
        run.finish("video", read)?;
        Ok((frames > 0 || shown).then_some((frames, keep_going)))
    }

    /// Starts ffmpeg streaming the first video stream's frames of at most `seconds` as
    /// PPM images through `filter`.
    fn spawn_frames(
        &self,
        before_input: &[&str],
        path: &Path,
        seconds: &str,
        output: &[&str],
        filter: &str,
        deadline: Instant,
    ) -> Result<(Running, BufReader<std::process::ChildStdout>), DecodeError> {
        let mut args = vec!["-map", "0:v:0", "-t", seconds];
        args.extend_from_slice(output);
        args.extend([
            "-vf",
            filter,
            "-f",
            "image2pipe",
            "-vcodec",
            "ppm",
            "pipe:1",
        ]);
        let (run, stdout) = self.spawn(before_input, path, &args, deadline)?;
        Ok((run, BufReader::with_capacity(1 << 20, stdout)))
    }

    /// Starts ffmpeg on `path` (`before_input` are input options, such as a seek) and a
    /// watchdog that kills it at `deadline`.
    fn spawn(
        &self,
        before_input: &[&str],
        path: &Path,
        args: &[&str],
        deadline: Instant,
    ) -> Result<(Running, std::process::ChildStdout), DecodeError> {
        let mut command = Command::new(&self.program);
        command
            .args(["-nostdin", "-hide_banner", "-loglevel", "error"])
            .args(before_input)
            .arg("-i")
            .arg(path)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| DecodeError::NotInstalled(format!("{}: {e}", self.program.display())))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let errors = std::thread::spawn(move || {
            // Keep the first 4 KiB: ffmpeg's first complaint is the informative one.
            let mut text = Vec::new();
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                if text.len() < 4096 {
                    text.extend_from_slice(&buffer[..n.min(4096 - text.len())]);
                }
            }
            String::from_utf8_lossy(&text).trim().to_string()
        });
        let child = Arc::new(Mutex::new(child));
        let done = Arc::new(AtomicBool::new(false));
        let timed_out = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let (child, done, timed_out) = (child.clone(), done.clone(), timed_out.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Acquire) {
                    if Instant::now() >= deadline {
                        timed_out.store(true, Ordering::Release);
                        let _ = child.lock().unwrap_or_else(|e| e.into_inner()).kill();
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
        };
        let running = Running {
            child,
            errors: Some(errors),
            done,
            timed_out,
            watchdog: Some(watchdog),
            timeout: self.timeout,
            killed: false,
        };
        Ok((running, stdout))
    }
}

/// A running ffmpeg with its watchdog.
struct Running {
    child: Arc<Mutex<Child>>,
    errors: Option<std::thread::JoinHandle<String>>,
    done: Arc<AtomicBool>,
    timed_out: Arc<AtomicBool>,
    watchdog: Option<std::thread::JoinHandle<()>>,
    timeout: Duration,
    /// Stopped on purpose (the caller had enough).
    killed: bool,
}

impl Running {
    fn kill(&mut self) {
        self.killed = true;
        let _ = self.child.lock().unwrap_or_else(|e| e.into_inner()).kill();
    }

    /// Waits for ffmpeg and turns its exit into a result.
    fn finish(
        mut self,
        stream: &'static str,
        read: Result<(), std::io::Error>,
    ) -> Result<(), DecodeError> {
        let status = self.child.lock().unwrap_or_else(|e| e.into_inner()).wait();
        self.done.store(true, Ordering::Release);
        if let Some(watchdog) = self.watchdog.take() {
            let _ = watchdog.join();
        }
        let errors = self
            .errors
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if self.timed_out.load(Ordering::Acquire) {
            return Err(DecodeError::TimedOut(self.timeout));
        }
        if self.killed {
            return Ok(());
        }
        let status = status?;
        if !status.success() {
            if errors.contains("matches no streams")
                || errors.contains("does not contain any stream")
            {
                return Err(DecodeError::NoStream(stream));
            }
            let first = errors.lines().next().unwrap_or("").trim();
            let detail = if first.is_empty() {
                format!("ffmpeg exited with {status}")
            } else {
                first.to_string()
            };
            return Err(DecodeError::Failed(detail));
        }
        read?;
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.watchdog.is_some() {
            self.done.store(true, Ordering::Release);
            let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Renders one page of a PDF at `dpi` with poppler's `pdftoppm` (bounded in time).
pub fn render_pdf_page(path: &Path, page: u32, dpi: &str) -> Result<RgbImage, DecodeError> {
    let page = page.to_string();
    let args: Vec<&std::ffi::OsStr> = ["-f", &page, "-l", &page, "-r", dpi, "-singlefile"]
        .into_iter()
        .map(std::ffi::OsStr::new)
        .chain([path.as_os_str()])
        .collect();
    let output =
        crate::process::run_limited("pdftoppm", "poppler-utils", &args, Duration::from_secs(60))
            .map_err(|error| match error {
                crate::process::ToolError::NotInstalled { .. } => {
                    DecodeError::NotInstalled(error.to_string())
                }
                crate::process::ToolError::TimedOut { after, .. } => DecodeError::TimedOut(after),
                other => DecodeError::Failed(other.to_string()),
            })?;
    if !output.status.success() || output.stdout.is_empty() {
        let first = if output.first_error.is_empty() {
            "no image".to_string()
        } else {
            output.first_error
        };
        return Err(DecodeError::Failed(format!("pdftoppm: {first}")));
    }
    read_ppm(&mut std::io::Cursor::new(output.stdout))?
        .ok_or_else(|| DecodeError::Failed("pdftoppm produced no image".into()))
}

/// Reads one binary PPM (P6, maxval 255) image; `None` at a clean end of stream.
fn read_ppm(reader: &mut impl BufRead) -> Result<Option<RgbImage>, std::io::Error> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut fields = Vec::with_capacity(4);
    while fields.len() < 4 {
        let mut token = Vec::new();
        loop {
            let buffer = reader.fill_buf()?;
            let Some(&byte) = buffer.first() else {
                if fields.is_empty() && token.is_empty() {
                    return Ok(None);
                }
                return Err(bad("truncated PPM header"));
            };
            reader.consume(1);
            if byte == b'#' {
                let mut comment = Vec::new();
                reader.read_until(b'\n', &mut comment)?;
                continue;
            }
            if byte.is_ascii_whitespace() {
                if token.is_empty() {
                    continue;
                }
                break;
            }
            token.push(byte);
            if token.len() > 16 {
                return Err(bad("bad PPM header"));
            }
        }
        fields.push(String::from_utf8_lossy(&token).to_string());
    }
    if fields[0] != "P6" || fields[3] != "255" {
        return Err(bad("not an 8-bit P6 PPM frame"));
    }
    let width: u32 = fields[1].parse().map_err(|_| bad("bad PPM width"))?;
    let height: u32 = fields[2].parse().map_err(|_| bad("bad PPM height"))?;
    if width == 0 || height == 0 || width > 16_384 || height > 16_384 {
        return Err(bad("PPM frame size out of range"));
    }
    let mut data = vec![0u8; width as usize * height as usize * 3];
    reader.read_exact(&mut data)?;
    Ok(RgbImage::from_raw(width, height, data))
}

/// 16-bit samples as Whisper's and Silero's floats in [-1, 1).
pub fn to_float(samples: &[i16]) -> Vec<f32> {
    samples.iter().copied().map(sample_to_float).collect()
}

/// One 16-bit sample as a float in [-1, 1).
pub fn sample_to_float(sample: i16) -> f32 {
    f32::from(sample) / 32768.0
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
