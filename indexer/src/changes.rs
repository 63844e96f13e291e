//! What changed in the profile since the index last saw it, as activity events
//! ([`index::activity`]): files created, modified (a new content hash, with the size
//! delta), renamed or moved (the same content at a new path) and deleted.
//!
//! A rename is found by content: a path that left the profile and a new path whose
//! bytes hash the same. Only new files whose size equals a vanished file's are hashed
//! for this, so a run without deletions reads nothing extra. A renamed file is moved in
//! the index ([`index::IndexWriter::move_file`]): its units and vectors follow it, and
//! it is neither converted nor embedded again.

use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

use index::activity::now_ms;
use index::{ActivityEvent, ActivityKind, ActivitySource, FileRecord, FileStatus};

use crate::walk::WalkedFile;

/// The source of the events of a run: its first run reads the files' own times, later
/// runs observe differences (`watch`: in watch mode).
#[derive(Debug, Clone, Copy)]
pub struct EventSource {
    pub first_run: bool,
    pub watch: bool,
}

impl EventSource {
    fn observed(self) -> ActivitySource {
        if self.watch {
            ActivitySource::Watch
        } else {
            ActivitySource::Observed
        }
    }
}

/// Pairs vanished files with new files of identical content and extension (each used
/// once).
/// `eligible` says whether a vanished record may be moved instead of converted.
pub fn find_renames<'a>(
    removed: &[&'a FileRecord],
    new_files: &[&'a WalkedFile],
    eligible: impl Fn(&FileRecord) -> bool,
    hash_of: impl Fn(&WalkedFile) -> Option<String>,
) -> Vec<(&'a FileRecord, &'a WalkedFile)> {
    // Same size and extension (the extension decides the converter: a file renamed to
    // another one is converted again).
    let mut by_shape: HashMap<(u64, String), Vec<&FileRecord>> = HashMap::new();
    for record in removed {
        if record.status == FileStatus::Indexed && record.hash.is_some() && eligible(record) {
            let shape = (record.size, converters::extension_of(&record.path));
            by_shape.entry(shape).or_default().push(record);
        }
    }
    if by_shape.is_empty() {
        return Vec::new();
    }
    let mut used: HashSet<&str> = HashSet::new();
    let mut pairs = Vec::new();
    for file in new_files {
        let shape = (file.size, converters::extension_of(&file.rel_path));
        let Some(candidates) = by_shape.get(&shape) else {
            continue;
        };
        let Some(hash) = hash_of(file) else {
            continue;
        };
        // The candidate in the same folder first (a rename), then any (a move).
        let folder = parent_folder(&file.rel_path);
        let mut matching: Vec<&&FileRecord> = candidates
            .iter()
            .filter(|r| r.hash.as_deref() == Some(hash.as_str()) && !used.contains(r.path.as_str()))
            .collect();
        matching.sort_by_key(|r| (parent_folder(&r.path) != folder, r.path.clone()));
        if let Some(record) = matching.first() {
            used.insert(record.path.as_str());
            pairs.push((**record, *file));
        }
    }
    pairs
}

fn parent_folder(path: &str) -> &str {
    path.rsplit_once('/')
        .map(|(folder, _)| folder)
        .unwrap_or("")
}

/// The record of a moved file (or of one of its attachments) at its new path.
pub fn moved_record(old: &FileRecord, old_top: &str, new_top: &str, mtime_ns: i64) -> FileRecord {
    let rebase = |path: &str| format!("{new_top}{}", &path[old_top.len().min(path.len())..]);
    let path = rebase(&old.path);
    // Everything the content determined stays, and so does the extension (a rename keeps
    // it, see `find_renames`); the path and what derives from it change. Text vectors
    // are made under the folder's and file's names (`index::vector::unit_embedding_text`):
    // where those say something else now, the file is embedded again.
    let embedded = if index::vector::file_context(&old.path) == index::vector::file_context(&path) {
        old.embedded.clone()
    } else {
        None
    };
    FileRecord {
        file_id: index::file_id_for(&path),
        embedded,
        parent_path: old.parent_path.as_deref().map(rebase),
        mtime_ns: if old.parent_path.is_none() {
            mtime_ns
        } else {
            old.mtime_ns
        },
        path,
        ..old.clone()
    }
}

/// A new file: `created` at its birth time (or modification time, whichever is
/// earlier; a copied profile has late birth times). On the first run the event comes
/// from the file's times (`birth`/`mtime`), and a later modification time adds a
/// `modified` event of source `mtime`.
pub fn created(file: &WalkedFile, source: EventSource) -> Vec<ActivityEvent> {
    let mtime_ms = file.mtime_ns.div_euclid(1_000_000);
    let birth_ms = std::fs::metadata(&file.abs_path)
        .and_then(|m| m.created())
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64);
    let (time_ms, from_birth) = match birth_ms {
        Some(birth) if birth <= mtime_ms => (birth, true),
        _ => (mtime_ms, false),
    };
    let origin = match (source.first_run, from_birth) {
        (false, _) => source.observed(),
        (true, true) => ActivitySource::Birth,
        (true, false) => ActivitySource::Mtime,
    };
    let mut event =
        ActivityEvent::new(ActivityKind::Created, origin, Some(&file.rel_path), time_ms);
    event.size_delta = Some(file.size as i64);
    let mut events = vec![event];
    // A minute apart at least: an editor's save right after creation is not news.
    if source.first_run && from_birth && mtime_ms - time_ms >= 60_000 {
        let mut modified = ActivityEvent::new(
            ActivityKind::Modified,
            ActivitySource::Mtime,
            Some(&file.rel_path),
            mtime_ms,
        );
        modified.size_delta = None;
        events.push(modified);
    }
    events
}

/// A file whose content hash changed: `modified` at its new modification time.
pub fn modified(old: &FileRecord, new: &FileRecord, source: EventSource) -> Option<ActivityEvent> {
    if old.hash.is_none() || new.hash.is_none() || old.hash == new.hash {
        return None;
    }
    let mut event = ActivityEvent::new(
        ActivityKind::Modified,
        source.observed(),
        Some(&new.path),
        new.mtime_ns.div_euclid(1_000_000),
    );
    event.size_delta = Some(new.size as i64 - old.size as i64);
    event.hash = new.hash.clone();
    Some(event)
}

/// A file moved with its content unchanged: `renamed` within its folder, else
/// `moved`, at its change time (a rename updates it) or now.
pub fn renamed(old: &FileRecord, new: &WalkedFile, source: EventSource) -> ActivityEvent {
    let kind = if parent_folder(&old.path) == parent_folder(&new.rel_path) {
        ActivityKind::Renamed
    } else {
        ActivityKind::Moved
    };
    let mut event = ActivityEvent::new(
        kind,
        source.observed(),
        Some(&new.rel_path),
        change_time_ms(new),
    );
    event.old_path = Some(old.path.clone());
    event.hash = old.hash.clone();
    event
}

/// A file gone from the profile, seen now.
pub fn deleted(old: &FileRecord, source: EventSource) -> ActivityEvent {
    let mut event = ActivityEvent::new(
        ActivityKind::Deleted,
        source.observed(),
        Some(&old.path),
        now_ms(),
    );
    event.size_delta = Some(-(old.size as i64));
    event.hash = old.hash.clone();
    event
}

#[cfg(unix)]
fn change_time_ms(file: &WalkedFile) -> i64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(&file.abs_path)
        .map(|m| m.ctime() * 1000 + m.ctime_nsec() / 1_000_000)
        .unwrap_or_else(|_| now_ms())
}

#[cfg(not(unix))]
fn change_time_ms(_file: &WalkedFile) -> i64 {
    now_ms()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, size: u64, hash: &str) -> FileRecord {
        FileRecord {
            size,
            hash: Some(hash.into()),
            ..FileRecord::new(path)
        }
    }

    fn walked(path: &str, size: u64) -> WalkedFile {
        WalkedFile {
            rel_path: path.into(),
            abs_path: path.into(),
            size,
            mtime_ns: 0,
        }
    }

    #[test]
    fn renames_pair_by_content_preferring_the_same_folder() {
        let (a, b, c) = (
            record("Docs/a.txt", 5, "h1"),
            record("Old/a.txt", 5, "h1"),
            record("Docs/c.txt", 7, "h2"),
        );
        let removed = [&b, &a, &c];
        let (x, y, z) = (
            walked("Docs/x.txt", 5),
            walked("New/y.txt", 5),
            walked("Docs/z.txt", 9),
        );
        // The same content under another extension is converted again: never read here.
        let md = walked("Docs/a.md", 5);
        let new_files = [&md, &x, &y, &z];
        let hashes: HashMap<&str, &str> = [
            ("Docs/a.md", "h1"),
            ("Docs/x.txt", "h1"),
            ("New/y.txt", "h1"),
            ("Docs/z.txt", "h2"),
        ]
        .into();
        let read = std::cell::RefCell::new(Vec::new());
        let pairs = find_renames(
            &removed,
            &new_files,
            |_| true,
            |f| {
                read.borrow_mut().push(f.rel_path.clone());
                hashes.get(f.rel_path.as_str()).map(|h| h.to_string())
            },
        );
        let names: Vec<_> = pairs
            .iter()
            .map(|(r, f)| (r.path.as_str(), f.rel_path.as_str()))
            .collect();
        assert_eq!(
            names,
            [("Docs/a.txt", "Docs/x.txt"), ("Old/a.txt", "New/y.txt")]
        );
        // z's size and a.md's extension match no vanished file: never read.
        assert_eq!(*read.borrow(), ["Docs/x.txt", "New/y.txt"]);
        assert_eq!(
            renamed(
                &a,
                &x,
                EventSource {
                    first_run: false,
                    watch: true
                }
            )
            .kind,
            ActivityKind::Renamed
        );
        assert_eq!(
            renamed(
                &b,
                &y,
                EventSource {
                    first_run: false,
                    watch: false
                }
            )
            .kind,
            ActivityKind::Moved
        );
    }

    #[test]
    fn a_moved_record_keeps_its_content_and_rebases_attachments() {
        let mut parent = record("Mail/m.eml", 10, "h");
        parent.unit_count = 3;
        parent.embedded = Some("h".into());
        let mut child = record("Mail/m.eml#attachment/n.txt", 4, "c");
        child.parent_path = Some("Mail/m.eml".into());
        let moved = moved_record(&parent, "Mail/m.eml", "Archive/m2.eml", 99);
        assert_eq!(moved.path, "Archive/m2.eml");
        assert_eq!(moved.file_id, index::file_id_for("Archive/m2.eml"));
        assert_eq!((moved.unit_count, moved.mtime_ns), (3, 99));
        // Its text vectors were made under "Mail"; now it is in "Archive": embedded again.
        assert_eq!(moved.embedded, None);
        let moved_child = moved_record(&child, "Mail/m.eml", "Archive/m2.eml", 99);
        assert_eq!(moved_child.path, "Archive/m2.eml#attachment/n.txt");
        assert_eq!(moved_child.parent_path.as_deref(), Some("Archive/m2.eml"));
        // A move that leaves the folder's and the file's telling names as they were keeps
        // its vectors.
        let kept = moved_record(&parent, "Mail/m.eml", "Archive/Mail/m2.eml", 99);
        assert_eq!(kept.embedded.as_deref(), Some("h"));
    }

    #[test]
    fn modified_needs_a_new_hash_and_reports_the_size_delta() {
        let old = record("a.txt", 10, "h1");
        let same = record("a.txt", 12, "h1");
        let changed = FileRecord {
            mtime_ns: 5_000_000,
            ..record("a.txt", 4, "h2")
        };
        let source = EventSource {
            first_run: false,
            watch: false,
        };
        assert!(modified(&old, &same, source).is_none());
        let event = modified(&old, &changed, source).unwrap();
        assert_eq!((event.size_delta, event.time_ms), (Some(-6), 5));
        assert_eq!(event.source, ActivitySource::Observed);
    }
}
