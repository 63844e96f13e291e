//! Walking a profile folder: which files are candidates for indexing, which are junk,
//! and which cannot be read.
//!
//! Pruned silently (never recorded): hidden files and folders (`.git`, `.cache`, …),
//! dependency and cache folders (`node_modules`, `__pycache__`, `.venv`, folders tagged
//! with a `CACHEDIR.TAG`), OS folders (`$RECYCLE.BIN`, `System Volume Information`), and
//! the index folder itself when it lies inside the profile.
//! Recorded as skipped: OS/application junk and lock files (`Thumbs.db`, `desktop.ini`,
//! Office `~$` owner files, partial downloads), symlinks that leave the profile, symlink
//! loops. Recorded as failed: entries that cannot be read (permissions, I/O errors).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use walkdir::{DirEntry, WalkDir};

/// A regular file found in the profile.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    /// Relative path with `/` separators.
    pub rel_path: String,
    pub abs_path: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
}

/// A path that is recorded but not converted.
#[derive(Debug, Clone)]
pub struct WalkIssue {
    pub rel_path: String,
    /// `true`: skipped on purpose; `false`: failed (could not be read).
    pub skipped: bool,
    /// Short category (`junk`, `symlink_outside_profile`, `symlink_loop`, `io`).
    pub reason: &'static str,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct WalkResult {
    pub files: Vec<WalkedFile>,
    pub issues: Vec<WalkIssue>,
}

const PRUNED_DIRS: &[&str] = &[
    "node_modules",
    "__pycache__",
    "$RECYCLE.BIN",
    "System Volume Information",
    "site-packages",
    "Caches",
];

/// Walks `root`, never entering `exclude` (the index folder).
pub fn walk(root: &Path, exclude: Option<&Path>) -> WalkResult {
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let canonical_exclude = exclude.and_then(|e| e.canonicalize().ok());
    let mut result = WalkResult::default();
    let walker = WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0 || !is_pruned(entry, canonical_exclude.as_deref())
        });
    for item in walker {
        let entry = match item {
            Ok(entry) => entry,
            Err(error) => {
                let rel_path = error.path().map(|p| relative(root, p)).unwrap_or_default();
                let is_loop = error.loop_ancestor().is_some();
                result.issues.push(WalkIssue {
                    rel_path,
                    skipped: is_loop,
                    reason: if is_loop { "symlink_loop" } else { "io" },
                    message: error.to_string(),
                });
                continue;
            }
        };
        if entry.depth() == 0 || entry.file_type().is_dir() {
            if entry.path_is_symlink() && entry.depth() > 0 {
                if let Some(issue) = outside_root(root, &canonical_root, &entry) {
                    result.issues.push(issue);
                }
            }
            continue;
        }
        let rel_path = relative(root, entry.path());
        if entry.path_is_symlink() {
            if let Some(issue) = outside_root(root, &canonical_root, &entry) {
                result.issues.push(issue);
                continue;
            }
        }
        if !entry.file_type().is_file() {
            continue; // sockets, fifos, devices
        }
        if let Some(reason) = junk_reason(&entry) {
            result.issues.push(WalkIssue {
                rel_path,
                skipped: true,
                reason: "junk",
                message: reason.to_string(),
            });
            continue;
        }
        match entry.metadata() {
            Ok(metadata) => {
                let mtime_ns = metadata
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map(|d| d.as_nanos() as i64)
                    .unwrap_or(0);
                result.files.push(WalkedFile {
                    rel_path,
                    abs_path: entry.path().to_path_buf(),
                    size: metadata.len(),
                    mtime_ns,
                });
            }
            Err(error) => result.issues.push(WalkIssue {
                rel_path,
                skipped: false,
                reason: "io",
                message: error.to_string(),
            }),
        }
    }
    result
}

/// Relative path with `/` separators.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn is_pruned(entry: &DirEntry, exclude: Option<&Path>) -> bool {
    let name = entry.file_name().to_string_lossy();
    if name.starts_with('.') {
        return true;
    }
    if entry.file_type().is_dir() {
        if PRUNED_DIRS.contains(&name.as_ref()) {
            return true;
        }
        if entry.path().join("CACHEDIR.TAG").exists() {
            return true;
        }
        if let Some(exclude) = exclude {
            if entry.path().canonicalize().ok().as_deref() == Some(exclude) {
                return true;
            }
        }
    }
    false
}

fn junk_reason(entry: &DirEntry) -> Option<&'static str> {
    let name = entry.file_name().to_string_lossy();
    let lower = name.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "thumbs.db" | "desktop.ini" | "ehthumbs.db" | "icon\r"
    ) {
        return Some("operating system metadata file");
    }
    if name.starts_with("~$") {
        return Some("office owner/lock file");
    }
    if lower.ends_with(".crdownload") || lower.ends_with(".part") || lower.ends_with(".partial") {
        return Some("incomplete download");
    }
    if lower.ends_with(".tmp") || lower.ends_with(".swp") || lower.ends_with('~') {
        return Some("temporary or backup file");
    }
    None
}

fn outside_root(root: &Path, canonical_root: &Path, entry: &DirEntry) -> Option<WalkIssue> {
    match entry.path().canonicalize() {
        Ok(target) if target.starts_with(canonical_root) => None,
        Ok(target) => Some(WalkIssue {
            rel_path: relative(root, entry.path()),
            skipped: true,
            reason: "symlink_outside_profile",
            message: format!("symlink points outside the profile to {}", target.display()),
        }),
        Err(error) => Some(WalkIssue {
            rel_path: relative(root, entry.path()),
            skipped: true,
            reason: "broken_symlink",
            message: error.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prunes_hidden_and_caches_and_records_junk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("Docs/.git")).unwrap();
        std::fs::create_dir_all(root.join("Code/node_modules/x")).unwrap();
        std::fs::create_dir_all(root.join("Cache")).unwrap();
        std::fs::write(
            root.join("Cache/CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();
        std::fs::write(root.join("Cache/blob.txt"), "x").unwrap();
        std::fs::write(root.join("Docs/a.txt"), "hello").unwrap();
        std::fs::write(root.join("Docs/.git/config"), "x").unwrap();
        std::fs::write(root.join("Docs/.hidden.txt"), "x").unwrap();
        std::fs::write(root.join("Docs/~$report.docx"), "x").unwrap();
        std::fs::write(root.join("Docs/Thumbs.db"), "x").unwrap();
        std::fs::write(root.join("Code/node_modules/x/i.js"), "x").unwrap();
        let result = walk(root, None);
        let files: Vec<_> = result.files.iter().map(|f| f.rel_path.as_str()).collect();
        assert_eq!(files, vec!["Docs/a.txt"]);
        let junk: Vec<_> = result.issues.iter().map(|i| i.rel_path.as_str()).collect();
        assert_eq!(junk, vec!["Docs/Thumbs.db", "Docs/~$report.docx"]);
        assert!(result
            .issues
            .iter()
            .all(|i| i.skipped && i.reason == "junk"));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_outside_and_loops_are_skipped() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/in.txt"), "inside").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("a/leak.txt"))
            .unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("a/loop")).unwrap();
        std::os::unix::fs::symlink(root.join("a/in.txt"), root.join("alias.txt")).unwrap();
        let result = walk(root, None);
        let files: Vec<_> = result.files.iter().map(|f| f.rel_path.as_str()).collect();
        assert_eq!(files, vec!["a/in.txt", "alias.txt"]);
        let reasons: Vec<_> = result
            .issues
            .iter()
            .map(|i| (i.rel_path.as_str(), i.reason))
            .collect();
        assert!(
            reasons.contains(&("a/leak.txt", "symlink_outside_profile")),
            "{reasons:?}"
        );
        assert!(reasons.contains(&("a/loop", "symlink_loop")), "{reasons:?}");
    }
}
