//! Running an external tool (poppler's `pdftoppm`, `ffmpeg`) with a time limit: both
//! output pipes are drained at once (a damaged file can make a tool print megabytes of
//! complaints, which would otherwise block it on a full pipe), and the tool is killed
//! when it runs too long. Used for rendering PDF pages and video frames (page OCR, the
//! daemon's `Render`); the streaming ffmpeg decoder of `media::decode` has its own
//! watchdog because it hands frames over while the tool still runs.

use std::ffi::OsStr;
use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ToolError {
    #[error("{tool} is not installed (Debian package {package}): {source}")]
    NotInstalled {
        tool: String,
        package: &'static str,
        source: std::io::Error,
    },
    #[error("{tool} took longer than {} s", after.as_secs())]
    TimedOut { tool: String, after: Duration },
    #[error("{tool}: {source}")]
    Io {
        tool: String,
        source: std::io::Error,
    },
}

/// What a tool wrote and how it ended.
#[derive(Debug)]
pub struct ToolOutput {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    /// The first line it wrote to stderr (the rest is read and dropped).
    pub first_error: String,
}

/// Runs `tool` (from Debian's `package`) with `args`, no stdin, for at most `timeout`.
pub fn run_limited<S: AsRef<OsStr>>(
    tool: &str,
    package: &'static str,
    args: &[S],
    timeout: Duration,
) -> Result<ToolOutput, ToolError> {
    let io = |source| ToolError::Io {
        tool: tool.to_string(),
        source,
    };
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ToolError::NotInstalled {
            tool: tool.to_string(),
            package,
            source,
        })?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let complaints = std::thread::spawn(move || first_line(stderr));
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(io)? {
            Some(status) => break status,
            None if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ToolError::TimedOut {
                    tool: tool.to_string(),
                    after: timeout,
                });
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let stdout = reader
        .join()
        .map_err(|_| io(std::io::Error::other("output reader panicked")))?
        .map_err(io)?;
    Ok(ToolOutput {
        status,
        stdout,
        first_error: complaints.join().unwrap_or_default(),
    })
}

/// The first line of a stream, reading (and dropping) the rest.
pub fn first_line(stream: impl Read) -> String {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(stream);
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    let _ = std::io::copy(&mut reader, &mut std::io::sink());
    first.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_errors_and_time_limits() {
        let out = run_limited(
            "sh",
            "dash",
            &["-c", "echo out; echo err >&2; exit 3"],
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out.stdout, b"out\n");
        assert_eq!(out.first_error, "err");
        assert_eq!(out.status.code(), Some(3));
        // A chatty tool does not block on a full stderr pipe.
        let chatty = run_limited(
            "sh",
            "dash",
            &["-c", "yes complaint | head -c 5000000 >&2; echo done"],
            Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(chatty.stdout, b"done\n");
        let slow =
            run_limited("sleep", "coreutils", &["5"], Duration::from_millis(200)).unwrap_err();
        assert!(matches!(slow, ToolError::TimedOut { .. }), "{slow}");
        let missing = run_limited(
            "no-such-tool-here",
            "nothing",
            &["x"],
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(
            missing.to_string().contains("Debian package nothing"),
            "{missing}"
        );
    }
}
