//! What went wrong with the disk, in one line: a full disk, a read-only folder, a
//! folder that vanished (an unmounted drive). Libraries below us often hide the cause
//! ("An index writer was killed"), so the error chain is searched for an I/O error, and
//! when none says more, the index folder's free space is measured.

use std::error::Error;
use std::path::Path;

/// Below this many free bytes a failed write is put down to a full disk.
const NEARLY_FULL: u64 = 64 * 1024 * 1024;

/// The storage problem behind `error` while writing the index at `dir`, as one line
/// naming the cause and the path, if the error is one.
pub fn storage_problem(error: &(dyn Error + 'static), dir: &Path) -> Option<String> {
    let shown = dir.display();
    let mut source: Option<&(dyn Error + 'static)> = Some(error);
    let mut texts = Vec::new();
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            if let Some(line) = io_cause(io, dir) {
                return Some(line);
            }
        }
        texts.push(current.to_string().to_lowercase());
        source = current.source();
    }
    let text = texts.join(": ");
    // SQLite says SQLITE_FULL in words of its own.
    if text.contains("no space left")
        || text.contains("os error 28")
        || text.contains("database or disk is full")
    {
        return Some(full(dir));
    }
    if text.contains("read-only file system") || text.contains("os error 30") {
        return Some(format!(
            "the index folder {shown} is on a read-only file system"
        ));
    }
    if !dir.exists() {
        return Some(format!(
            "the index folder {shown} is gone (was its drive unmounted?)"
        ));
    }
    // The writer's threads keep the cause to themselves: measure.
    let writing = ["writer", "io error", "i/o", "write", "commit", "flush"]
        .iter()
        .any(|w| text.contains(w));
    match free_bytes(dir) {
        Some(free) if writing && free < NEARLY_FULL => Some(full(dir)),
        _ => None,
    }
}

fn full(dir: &Path) -> String {
    let free = free_bytes(dir)
        .map(|b| format!(" ({} free)", human(b)))
        .unwrap_or_default();
    format!(
        "no space left on device while writing the index in {}{free}; free some space and run the same command again (what was committed is kept and the run goes on from there)",
        dir.display()
    )
}

fn io_cause(io: &std::io::Error, dir: &Path) -> Option<String> {
    let shown = dir.display();
    match io.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => Some(full(dir)),
        Some(libc::EROFS) => Some(format!(
            "the index folder {shown} is on a read-only file system"
        )),
        Some(libc::EACCES) | Some(libc::EPERM) => Some(format!(
            "permission denied while writing the index in {shown}"
        )),
        Some(libc::ENOTCONN) | Some(libc::ESTALE) | Some(libc::EIO) | Some(libc::ENODEV) => Some(
            format!("the drive holding {shown} stopped answering ({io}); is it still mounted?"),
        ),
        Some(libc::ENOENT) if !dir.exists() => Some(format!(
            "the index folder {shown} is gone (was its drive unmounted?)"
        )),
        _ => None,
    }
}

/// Free bytes for an unprivileged writer on the file system holding `dir` (or its
/// nearest existing ancestor).
pub fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let existing = dir.ancestors().find(|p| p.exists())?;
    let path = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a zeroed out-structure of the right type.
    let status = unsafe { libc::statvfs(path.as_ptr(), &mut stats) };
    (status == 0).then(|| stats.f_bavail as u64 * stats.f_frsize as u64)
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b => format!("{} KiB", b / 1024),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrapped(std::io::Error);

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("lexical index: commit failed")
        }
    }

    impl Error for Wrapped {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn an_io_error_deep_in_the_chain_names_its_cause() {
        let dir = tempfile::tempdir().unwrap();
        let full = Wrapped(std::io::Error::from_raw_os_error(libc::ENOSPC));
        let line = storage_problem(&full, dir.path()).unwrap();
        assert!(line.starts_with("no space left on device while writing the index in "));
        assert!(line.contains(&dir.path().display().to_string()));
        let read_only = Wrapped(std::io::Error::from_raw_os_error(libc::EROFS));
        assert!(storage_problem(&read_only, dir.path())
            .unwrap()
            .contains("read-only file system"));
        let gone = dir.path().join("unmounted/index");
        let vanished = Wrapped(std::io::Error::from_raw_os_error(libc::ENOENT));
        assert!(storage_problem(&vanished, &gone)
            .unwrap()
            .contains("is gone"));
    }

    #[test]
    fn sqlite_says_full_in_words_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let full = Wrapped(std::io::Error::other(
            "manifest: database or disk is full: Error code 13",
        ));
        assert!(storage_problem(&full, dir.path())
            .unwrap()
            .starts_with("no space left on device"));
    }

    #[test]
    fn other_errors_are_not_put_down_to_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let parse = Wrapped(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "bad json",
        ));
        // Plenty of space on the test machine's temporary folder.
        assert!(free_bytes(dir.path()).unwrap() > NEARLY_FULL);
        assert_eq!(storage_problem(&parse, dir.path()), None);
    }
}
