//! How far the recordings of a run are heard, for the progress bar: minutes of audio so
//! far, the rate (× real time) and an estimate of the time left, from the bytes of the
//! recordings not heard yet.

use std::time::{Duration, Instant};

/// The recordings of a run as they are heard (see [`crate::Progress::recordings`] and
/// [`crate::Progress::heard`]).
#[derive(Debug, Default)]
pub struct Hearing {
    started: Option<Instant>,
    files: usize,
    bytes: u64,
    heard_files: usize,
    heard_bytes: u64,
    audio_seconds: f64,
}

impl Hearing {
    /// The recordings start: `files` of them, `bytes` in all.
    pub fn start(&mut self, files: usize, bytes: u64) {
        self.started = Some(Instant::now());
        self.files = files;
        self.bytes = bytes;
    }

    /// One recording of `bytes` gave `audio_seconds` of sound.
    pub fn heard(&mut self, audio_seconds: f64, bytes: u64) {
        self.heard_files += 1;
        self.heard_bytes += bytes;
        self.audio_seconds += audio_seconds;
    }

    /// "12.3 min heard, 9 of 40 files, 18× real time, about 4 min left".
    pub fn status(&self) -> String {
        self.status_after(self.started.map(|s| s.elapsed()))
    }

    /// [`Hearing::status`] `elapsed` after the start. The time left assumes the bytes
    /// left are heard at the rate of the bytes heard so far (voice memos and videos
    /// differ: it is "about").
    fn status_after(&self, elapsed: Option<Duration>) -> String {
        let mut parts = vec![format!("{:.1} min heard", self.audio_seconds / 60.0)];
        if self.files > 0 {
            parts.push(format!(
                "{} of {} files",
                self.heard_files.min(self.files),
                self.files
            ));
        }
        let elapsed = elapsed.map_or(0.0, |e| e.as_secs_f64());
        if elapsed >= 1.0 && self.audio_seconds > 0.0 {
            let rate = self.audio_seconds / elapsed;
            let digits = if rate < 10.0 { 1 } else { 0 };
            parts.push(format!("{rate:.digits$}× real time"));
        }
        if elapsed >= 1.0 && self.heard_bytes > 0 && self.bytes > self.heard_bytes {
            let left = elapsed * (self.bytes - self.heard_bytes) as f64 / self.heard_bytes as f64;
            parts.push(format!("about {} left", duration(left)));
        }
        parts.join(", ")
    }
}

/// "40 s", "12 min", "2.5 h".
fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 90.0 * 60.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_gives_minutes_heard_the_rate_and_the_time_left() {
        let mut hearing = Hearing::default();
        hearing.start(4, 4_000);
        assert_eq!(
            hearing.status_after(Some(Duration::ZERO)),
            "0.0 min heard, 0 of 4 files"
        );
        hearing.heard(600.0, 1_000);
        // a quarter of the bytes in 30 s: ten minutes of sound at 20x, 90 s (2 min) to go
        assert_eq!(
            hearing.status_after(Some(Duration::from_secs(30))),
            "10.0 min heard, 1 of 4 files, 20× real time, about 2 min left"
        );
        hearing.heard(3_000.0, 500);
        assert_eq!(
            hearing.status_after(Some(Duration::from_secs(600))),
            "60.0 min heard, 2 of 4 files, 6.0× real time, about 17 min left"
        );
        hearing.heard(0.0, 2_500);
        assert_eq!(
            hearing.status_after(Some(Duration::from_secs(9_000))),
            "60.0 min heard, 3 of 4 files, 0.4× real time"
        );
    }

    #[test]
    fn without_a_start_only_the_minutes_are_given() {
        let mut hearing = Hearing::default();
        hearing.heard(90.0, 10);
        assert_eq!(hearing.status(), "1.5 min heard");
    }

    #[test]
    fn long_times_left_are_in_hours() {
        assert_eq!(duration(5_400.0), "1.5 h");
        assert_eq!(duration(5_399.0), "90 min");
        assert_eq!(duration(89.0), "89 s");
    }
}
