//! Watch mode: the initial incremental run, then one more incremental pass after each
//! burst of file-system events (`notify`: inotify, FSEvents, ReadDirectoryChangesW).
//!
//! Events only say *that* something changed; every pass walks the profile and diffs it
//! against the manifest as a batch run does ([`crate::pipeline::run`]), so only what
//! changed is converted, a rename with unchanged content is a move, and nothing depends
//! on events arriving complete or in order. A queue overflow (or a watcher error)
//! therefore needs nothing special: it triggers a pass like any other event.
//!
//! Bursts are debounced: a pass starts once no event came for `debounce`, or `max_delay`
//! after the first event of a burst at the latest (an editor's save-rename dance is one
//! pass; a large copy is a few). Between bursts the loop blocks on the event channel
//! (idle CPU ≈ 0). A stop request (SIGINT/SIGTERM in the binary) ends the current pass
//! at its next batch boundary, with everything done so far committed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use notify::{Event, EventKind, RecursiveMode, Watcher};

use crate::error::IndexError;
use crate::options::{IndexOptions, Progress};
use crate::summary::RunSummary;

/// Passes after the initial run commit at least this often.
const PASS_COMMIT_INTERVAL: Duration = Duration::from_secs(2);

/// How often a blocked wait looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(200);

/// Watch-mode timing.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// A burst ends after this long without events.
    pub debounce: Duration,
    /// A pass starts at the latest this long after the first event of a burst.
    pub max_delay: Duration,
    /// Wait this long before retrying a pass that failed (the profile folder gone, the
    /// index locked by another writer).
    pub retry_delay: Duration,
}

impl Default for WatchOptions {
    fn default() -> WatchOptions {
        WatchOptions {
            debounce: Duration::from_millis(300),
            max_delay: Duration::from_secs(2),
            retry_delay: Duration::from_secs(5),
        }
    }
}

/// Why a pass ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// The initial incremental run.
    Start,
    /// A burst of this many relevant events.
    Events(usize),
    /// The watcher lost events (queue overflow) or reported an error.
    Rescan(String),
    /// A failed pass is tried again.
    Retry,
}

/// One finished (or failed) pass.
#[derive(Debug)]
pub struct Pass {
    pub trigger: Trigger,
    pub result: Result<RunSummary, IndexError>,
    /// From the first event of the burst to the end of the pass.
    pub latency: Duration,
}

/// Watches `options.profile` until `stop` is set, calling `on_pass` after each pass.
/// Fails only when the watcher cannot be started.
pub fn watch(
    options: &IndexOptions,
    timing: &WatchOptions,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
    on_pass: &mut dyn FnMut(&Pass),
) -> Result<(), IndexError> {
    let profile = options.canonical_profile()?;
    let (sender, events) = std::sync::mpsc::channel();
    // Watch before the initial run: nothing that changes during it is missed.
    let mut watcher = notify::recommended_watcher(sender)
        .and_then(|mut w| w.watch(&profile, RecursiveMode::Recursive).map(|_| w))
        .map_err(|e| IndexError::io(&profile, std::io::Error::other(e.to_string())))?;
    let result = watch_events(options, timing, progress, stop, &events, on_pass);
    let _ = watcher.unwatch(&profile);
    result
}

/// The loop of [`watch`], fed by any event channel (tests send their own events).
pub fn watch_events(
    options: &IndexOptions,
    timing: &WatchOptions,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
    events: &Receiver<notify::Result<Event>>,
    on_pass: &mut dyn FnMut(&Pass),
) -> Result<(), IndexError> {
    let filter = EventFilter::new(options);
    let mut initial = options.clone();
    initial.stop = Some(stop.clone());
    let mut pass_options = initial.clone();
    pass_options.watching = true;
    // A large copy's pass commits in small steps: each batch is searchable within
    // seconds of the burst.
    pass_options.commit_interval = pass_options.commit_interval.min(PASS_COMMIT_INTERVAL);

    let mut trigger = Trigger::Start;
    let mut burst_start = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let options = if trigger == Trigger::Start {
            &initial
        } else {
            &pass_options
        };
        let result = crate::pipeline::run(options, progress);
        let failed = result.is_err();
        on_pass(&Pass {
            trigger: trigger.clone(),
            result,
            latency: burst_start.elapsed(),
        });
        if failed {
            // Events during the wait are folded into the retry.
            if wait_or_stop(timing.retry_delay, stop) {
                return Ok(());
            }
            while events.try_recv().is_ok() {}
            trigger = Trigger::Retry;
            burst_start = Instant::now();
            continue;
        }
        match next_burst(events, &filter, timing, stop) {
            None => return Ok(()),
            Some((next, started)) => {
                trigger = next;
                burst_start = started;
            }
        }
    }
}

/// Blocks until a burst of relevant events is over; `None` when asked to stop or when
/// the watcher is gone.
fn next_burst(
    events: &Receiver<notify::Result<Event>>,
    filter: &EventFilter,
    timing: &WatchOptions,
    stop: &AtomicBool,
) -> Option<(Trigger, Instant)> {
    let mut count = 0usize;
    let mut rescan: Option<String> = None;
    let mut started: Option<Instant> = None;
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let wait = match started {
            None => STOP_POLL,
            Some(start) => {
                let left = timing.max_delay.saturating_sub(start.elapsed());
                if left.is_zero() {
                    break;
                }
                timing.debounce.min(left)
            }
        };
        match events.recv_timeout(wait) {
            Ok(Ok(event)) => {
                if event.need_rescan() {
                    rescan = Some("the event queue overflowed".to_string());
                } else if !filter.relevant(&event) {
                    continue;
                } else {
                    count += 1;
                }
                started.get_or_insert_with(Instant::now);
            }
            Ok(Err(error)) => {
                rescan = Some(format!("watcher error: {error}"));
                started.get_or_insert_with(Instant::now);
            }
            Err(RecvTimeoutError::Timeout) => {
                if started.is_some() {
                    break;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return None,
        }
    }
    let trigger = match rescan {
        Some(reason) => Trigger::Rescan(reason),
        None => Trigger::Events(count),
    };
    Some((trigger, started.unwrap_or_else(Instant::now)))
}

/// Sleeps `delay` unless a stop comes first; `true` when stopping.
fn wait_or_stop(delay: Duration, stop: &AtomicBool) -> bool {
    let until = Instant::now() + delay;
    while Instant::now() < until {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        std::thread::sleep(STOP_POLL.min(until.saturating_duration_since(Instant::now())));
    }
    stop.load(Ordering::Relaxed)
}

/// Which events can change the index: not accesses, not the index folder's own writes
/// (when it lies inside the profile), not hidden files and folders (never indexed).
struct EventFilter {
    profile: PathBuf,
    index_dir: Option<PathBuf>,
}

impl EventFilter {
    fn new(options: &IndexOptions) -> EventFilter {
        EventFilter {
            profile: options
                .profile
                .canonicalize()
                .unwrap_or_else(|_| options.profile.clone()),
            index_dir: options.index_dir.canonicalize().ok(),
        }
    }

    fn relevant(&self, event: &Event) -> bool {
        if matches!(event.kind, EventKind::Access(_)) {
            return false;
        }
        event.paths.is_empty() || event.paths.iter().any(|p| self.relevant_path(p))
    }

    fn relevant_path(&self, path: &Path) -> bool {
        if let Some(index) = &self.index_dir {
            if path.starts_with(index) {
                return false;
            }
        }
        match path.strip_prefix(&self.profile) {
            Ok(rel) => !rel
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.')),
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use notify::event::{CreateKind, Flag};

    use super::*;
    use crate::options::NoProgress;

    fn options(profile: &Path, index: &Path) -> IndexOptions {
        IndexOptions::lexical_only(profile, index)
    }

    fn timing() -> WatchOptions {
        WatchOptions {
            debounce: Duration::from_millis(20),
            max_delay: Duration::from_millis(200),
            retry_delay: Duration::from_millis(50),
        }
    }

    /// Runs the loop on `events` in a thread; the passes come back on a channel.
    fn run_loop(
        options: IndexOptions,
        events: Receiver<notify::Result<Event>>,
        stop: Arc<AtomicBool>,
    ) -> (
        Receiver<(Trigger, Option<RunSummary>)>,
        std::thread::JoinHandle<()>,
    ) {
        let (sender, passes) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            watch_events(
                &options,
                &timing(),
                &NoProgress,
                &stop,
                &events,
                &mut |pass| {
                    let _ = sender.send((pass.trigger.clone(), pass.result.as_ref().ok().cloned()));
                },
            )
            .unwrap();
        });
        (passes, thread)
    }

    #[test]
    fn an_overflow_rescans_and_finds_every_change_it_was_not_told_about() {
        let dir = tempfile::tempdir().unwrap();
        let (profile, index) = (dir.path().join("p"), dir.path().join("i"));
        std::fs::create_dir(&profile).unwrap();
        std::fs::write(profile.join("a.txt"), "alpha\n").unwrap();
        let (sender, events) = std::sync::mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (passes, thread) = run_loop(options(&profile, &index), events, stop.clone());
        let wait = || passes.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!(wait().0, Trigger::Start);

        // Changes whose events were lost: only the overflow marker arrives.
        std::fs::write(profile.join("b.txt"), "beta\n").unwrap();
        std::fs::remove_file(profile.join("a.txt")).unwrap();
        sender
            .send(Ok(Event::new(EventKind::Other).set_flag(Flag::Rescan)))
            .unwrap();
        let (trigger, summary) = wait();
        assert!(matches!(trigger, Trigger::Rescan(_)), "{trigger:?}");
        let summary = summary.unwrap();
        assert_eq!((summary.converted, summary.removed), (1, 1));

        // Events about hidden files and accesses are no reason for a pass; a real one is.
        let hidden = profile.join(".b.txt.swp");
        sender
            .send(Ok(
                Event::new(EventKind::Create(CreateKind::File)).add_path(hidden)
            ))
            .unwrap();
        sender
            .send(Ok(Event::new(EventKind::Access(
                notify::event::AccessKind::Any,
            ))
            .add_path(profile.join("b.txt"))))
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            passes.try_recv().is_err(),
            "a pass ran for irrelevant events"
        );
        std::fs::write(profile.join("c.txt"), "gamma\n").unwrap();
        for _ in 0..3 {
            sender
                .send(Ok(
                    Event::new(EventKind::Create(CreateKind::File)).add_path(profile.join("c.txt"))
                ))
                .unwrap();
        }
        let (trigger, summary) = wait();
        assert_eq!(trigger, Trigger::Events(3));
        assert_eq!(summary.unwrap().converted, 1);

        stop.store(true, Ordering::Relaxed);
        thread.join().unwrap();
    }

    #[test]
    fn a_failed_pass_is_retried_and_a_stop_ends_the_loop() {
        let dir = tempfile::tempdir().unwrap();
        let (profile, index) = (dir.path().join("p"), dir.path().join("i"));
        std::fs::create_dir(&profile).unwrap();
        // The index folder is held by another writer: passes fail until it lets go.
        let other = crate::store::IndexLayout::new(&index);
        let held =
            index::IndexWriter::open(&other, &profile.canonicalize().unwrap(), 1, 15_000_000)
                .unwrap();
        let (_sender, events) = std::sync::mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (passes, thread) = run_loop(options(&profile, &index), events, stop.clone());
        let wait = || passes.recv_timeout(Duration::from_secs(30)).unwrap();
        let (trigger, summary) = wait();
        assert_eq!(trigger, Trigger::Start);
        assert!(summary.is_none());
        drop(held);
        let (trigger, summary) = wait();
        assert_eq!(trigger, Trigger::Retry);
        assert!(summary.is_some());
        stop.store(true, Ordering::Relaxed);
        thread.join().unwrap();
    }
}
