//! Giving freed memory back to the operating system while the indexer runs.
//!
//! The models' tensors (ONNX Runtime allocates them with the C allocator) come and go
//! in sizes from kilobytes to tens of megabytes, on the conversion workers, the media
//! thread and ONNX Runtime's own threads. glibc's allocator keeps what they free in
//! per-thread arenas for later reuse, and its mmap threshold rises to 32 MB after the
//! first large free, so memory that a model no longer uses stays in the process: a
//! heap profile of a persona run peaks near 640 MB while the resident size reached
//! 1.0–1.4 GB. [`Trimmer`] asks glibc to return the free pages of every arena
//! (`malloc_trim`) at a steady interval while a run lasts; [`release`] does it once, at
//! the points where a phase has just dropped its models; [`limit_arenas`] keeps the
//! threads' allocations in fewer arenas.

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the [`Trimmer`] releases free memory by default.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Returns the allocator's free pages to the operating system (glibc only; elsewhere
/// nothing to do).
pub fn release() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists under its locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Arenas glibc may create: each thread that allocates gets one of its own up to 8 per
/// core, and a block freed in one arena cannot serve another thread's allocation, so
/// the conversion workers, the media thread and ONNX Runtime's threads each kept their
/// own high-water mark. Two arenas measured 50–90 MB less peak resident memory on a
/// persona run, at the same speed (`docs/benchmarks.md`).
pub const ARENAS: i32 = 2;

/// Caps the allocator's arenas at [`ARENAS`] (`MALLOC_ARENA_MAX` in the environment
/// wins); call it before the process starts its threads.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets the allocator's tunable.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, ARENAS);
        }
    }
}

/// A thread that calls [`release`] every `interval` until dropped.
pub struct Trimmer {
    /// Dropping the sender ends the thread. `None`: trimming is off.
    running: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Trimmer {
    /// Starts trimming; `DENTATE_TRIM_MS` overrides the interval (0 turns it off).
    pub fn start() -> Trimmer {
        let interval = std::env::var("DENTATE_TRIM_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_INTERVAL);
        Trimmer::every(interval)
    }

    /// Trims every `interval`; a zero interval starts nothing.
    pub fn every(interval: Duration) -> Trimmer {
        if interval.is_zero() {
            return Trimmer { running: None };
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("dentate-trim".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                    release();
                }
            });
        Trimmer {
            running: thread.ok().map(|thread| (stop, thread)),
        }
    }
}

impl Drop for Trimmer {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.running.take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anonymous resident memory of this process, in KiB.
    fn rss_anon_kib() -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|line| line.strip_prefix("RssAnon:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn release_returns_freed_blocks_held_between_live_ones() {
        // 64 KiB blocks (under glibc's mmap threshold, so they come from the heap), each
        // followed by a small block that stays alive: freeing the big ones leaves holes
        // that glibc keeps resident until it is asked to trim.
        let (mut big, mut small) = (Vec::new(), Vec::new());
        for i in 0..3_000u32 {
            big.push(vec![i as u8 | 1; 64 * 1024]);
            small.push(vec![i as u8; 64]);
        }
        let loaded = rss_anon_kib();
        drop(big);
        let freed = rss_anon_kib();
        release();
        let trimmed = rss_anon_kib();
        assert!(small.iter().all(|block| block.len() == 64));
        assert!(
            freed > trimmed + 100 * 1024,
            "resident after the free {freed} KiB, after release {trimmed} KiB (loaded {loaded} KiB)"
        );
    }

    #[test]
    fn a_trimmer_stops_when_dropped() {
        let trimmer = Trimmer::every(Duration::from_millis(5));
        std::thread::sleep(Duration::from_millis(30));
        let started = std::time::Instant::now();
        drop(trimmer);
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(Trimmer::every(Duration::ZERO));
    }
}
