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
        mut on_frame: impl FnMut(u32, RgbImage) -> bool,
    ) -> Result<u32, DecodeError> {
        let filter = format!(
            "fps=1,scale=w='min({m},iw)':h='min({m},ih)':force_original_aspect_ratio=decrease",
            m = FRAME_MAX_SIDE
        );
        let (mut run, stdout) = self.spawn(
            path,
            &[
                "-map",
                "0:v:0",
                "-t",
                &max_seconds.to_string(),
                "-vf",
                &filter,
                "-f",
                "image2pipe",
                "-vcodec",
                "ppm",
                "pipe:1",
            ],
        )?;
        let mut reader = BufReader::with_capacity(1 << 20, stdout);
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

    fn spawn(
        &self,
        path: &Path,
        args: &[&str],
    ) -> Result<(Running, std::process::ChildStdout), DecodeError> {
        let mut command = Command::new(&self.program);
        command
            .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-i"])
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
            let deadline = Instant::now() + self.timeout;
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
mod tests {
    use super::*;

    #[test]
    fn reads_consecutive_ppm_frames() {
        let mut stream = b"P6\n2 1\n255\n".to_vec();
        stream.extend_from_slice(&[1, 2, 3, 4, 5, 6]);
        stream.extend_from_slice(b"P6 1 1 255\n");
        stream.extend_from_slice(&[7, 8, 9]);
        let mut reader = std::io::Cursor::new(stream);
        let first = read_ppm(&mut reader).unwrap().unwrap();
        assert_eq!(first.dimensions(), (2, 1));
        assert_eq!(first.get_pixel(1, 0).0, [4, 5, 6]);
        let second = read_ppm(&mut reader).unwrap().unwrap();
        assert_eq!(second.get_pixel(0, 0).0, [7, 8, 9]);
        assert!(read_ppm(&mut reader).unwrap().is_none());
    }

    /// pdftoppm prints ~130K error lines for this damaged PDF: both pipes must be drained
    /// or the render blocks until its time limit.
    #[test]
    #[cfg_attr(
        not(dentate_shared),
        ignore = "needs ../shared/corpus beside the repository"
    )]
    fn chatty_pdftoppm_does_not_block() {
        let pdf = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/corpus/realworld/Broken/qpdf issue-202 damaged xref.pdf");
        if !pdf.exists() || Command::new("pdftoppm").arg("-v").output().is_err() {
            panic!("missing: shared corpus or pdftoppm missing");
        }
        let started = Instant::now();
        let image = render_pdf_page(&pdf, 2, "72").expect("page 2 renders");
        assert!(image.width() > 100, "{:?}", image.dimensions());
        assert!(started.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn truncated_ppm_is_an_error() {
        let mut reader = std::io::Cursor::new(b"P6\n4 4\n255\n\x01\x02".to_vec());
        assert!(read_ppm(&mut reader).is_err());
        let mut reader = std::io::Cursor::new(b"P6\n4".to_vec());
        assert!(read_ppm(&mut reader).is_err());
    }
}
