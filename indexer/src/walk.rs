//! Walking a profile folder: which files are candidates for indexing, which are junk,
//! and which cannot be read.
//!
//! Pruned silently (never recorded): hidden files and folders (`.git`, `.cache`, …),
//! dependency and cache folders (`node_modules`, `__pycache__`, `.venv`, folders tagged
//! with a `CACHEDIR.TAG`), OS folders (`$RECYCLE.BIN`, `System Volume Information`), and
//! the index folder itself when it lies inside the profile.
//! Recorded as skipped: OS/application junk and lock files (`Thumbs.db`, `desktop.ini`,
//! Office `~$` owner files, partial downloads), non-regular files (FIFOs, sockets,
//! devices), and symbolic links that are not followed (below). Recorded as failed:
//! entries that cannot be read (permissions, I/O errors).
//!
//! Symbolic links. The walk never follows a link to a folder: a folder link that leaves
//! the profile (at any depth, through any chain of links, however recently it was
//! made) is recorded as `symlink_outside_profile`; one that stays inside the profile is
//! recorded as `symlink_folder` (its files are indexed once, at their own path, so there
//! are no duplicates and no loops) or `symlink_loop` when it points at one of its own
//! ancestors. A link to a file is indexed at the link's path when its resolved target
//! lies inside the profile (outside hidden folders and the index folder) and is
//! recorded as `symlink_outside_profile` otherwise. Every decision is made on the
//! canonical (fully resolved) path.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use index::path::ATTACHMENT_MARKER;
use walkdir::{DirEntry, WalkDir};

/// A regular file found in the profile.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    /// Relative path with `/` separators.
    pub rel_path: String,
    /// Where the bytes are read from: the entry itself, or for a file symlink its
    /// resolved target (checked to lie inside the profile).
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
    /// Short category (`junk`, `not_regular_file`, `symlink_outside_profile`,
    /// `symlink_folder`, `symlink_loop`, `broken_symlink`, `reserved_name`, `io`).
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

/// The profile root and the index folder, resolved once per walk.
struct Bounds {
    canonical_root: PathBuf,
    canonical_exclude: Option<PathBuf>,
}

/// Walks `root`, never entering `exclude` (the index folder).
pub fn walk(root: &Path, exclude: Option<&Path>) -> WalkResult {
    let bounds = Bounds {
        canonical_root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
        canonical_exclude: exclude.and_then(|e| e.canonicalize().ok()),
    };
    let mut result = WalkResult::default();
    // Links are never followed by the walker itself (the root is, if it is one): each
    // link is resolved and judged below.
    let walker = WalkDir::new(root)
        .follow_links(false)
        .follow_root_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0 || !is_pruned(entry, bounds.canonical_exclude.as_deref())
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
            continue;
        }
        let rel_path = relative(root, entry.path());
        if rel_path.contains(ATTACHMENT_MARKER) {
            result.issues.push(WalkIssue {
                rel_path,
                skipped: true,
                reason: "reserved_name",
                message: format!(
                    "a folder name ending in \"{}\" collides with the paths of attachments; rename the folder to index its files",
                    ATTACHMENT_MARKER.trim_end_matches('/')
                ),
            });
            continue;
        }
        let (abs_path, metadata) = if entry.path_is_symlink() {
            match bounds.resolve_link(&entry, &rel_path) {
                Ok(target) => target,
                Err(issue) => {
                    result.issues.push(issue);
                    continue;
                }
            }
        } else {
            (
                entry.path().to_path_buf(),
                entry.metadata().map_err(std::io::Error::from),
            )
        };
        let metadata = match metadata {
            Ok(metadata) => metadata,
            Err(error) => {
                result.issues.push(WalkIssue {
                    rel_path,
                    skipped: false,
                    reason: "io",
                    message: error.to_string(),
                });
                continue;
            }
        };
        if !metadata.is_file() {
            result.issues.push(WalkIssue {
                rel_path,
                skipped: true,
                reason: "not_regular_file",
                message: format!("{} (not a regular file)", special_kind(&metadata)),
            });
            continue;
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
        let mtime_ns = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        result.files.push(WalkedFile {
            rel_path,
            abs_path,
            size: metadata.len(),
            mtime_ns,
        });
    }
    result
}

impl Bounds {
    /// Judges a symbolic link on its fully resolved target: a file inside the profile
    /// gives its target path and metadata; anything else is an issue.
    fn resolve_link(
        &self,
        entry: &DirEntry,
        rel_path: &str,
    ) -> Result<(PathBuf, std::io::Result<std::fs::Metadata>), WalkIssue> {
        let issue = |reason: &'static str, message: String| WalkIssue {
            rel_path: rel_path.to_string(),
            skipped: true,
            reason,
            message,
        };
        let target = match entry.path().canonicalize() {
            Ok(target) => target,
            Err(error) if is_loop_error(&error) => {
                return Err(issue("symlink_loop", format!("symlink loop: {error}")))
            }
            Err(error) => return Err(issue("broken_symlink", format!("broken symlink: {error}"))),
        };
        if !target.starts_with(&self.canonical_root) {
            return Err(issue(
                "symlink_outside_profile",
                format!("symlink points outside the profile to {}", target.display()),
            ));
        }
        if let Some(exclude) = &self.canonical_exclude {
            if target.starts_with(exclude) {
                return Err(issue(
                    "symlink_outside_profile",
                    "symlink points into the index folder".to_string(),
                ));
            }
        }
        let inside = target.strip_prefix(&self.canonical_root).unwrap_or(&target);
        if inside
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            return Err(issue(
                "symlink_outside_profile",
                format!(
                    "symlink points into a hidden folder ({}), which is not indexed",
                    inside.display()
                ),
            ));
        }
        let metadata = std::fs::metadata(&target);
        if metadata.as_ref().is_ok_and(|m| m.is_dir()) {
            let link_folder = entry
                .path()
                .parent()
                .and_then(|p| p.canonicalize().ok())
                .unwrap_or_default();
            let shown = relative(&self.canonical_root, &target);
            if link_folder.starts_with(&target) {
                return Err(issue(
                    "symlink_loop",
                    format!("folder link to its own ancestor {shown:?}; not followed"),
                ));
            }
            return Err(issue(
                "symlink_folder",
                format!(
                    "folder link to {shown:?} inside the profile; not followed (its files are indexed at their own path)"
                ),
            ));
        }
        Ok((target, metadata))
    }
}

fn is_loop_error(error: &std::io::Error) -> bool {
    // ELOOP: 40 on Linux, 62 on macOS and the BSDs.
    matches!(error.raw_os_error(), Some(40) | Some(62))
}

#[cfg(unix)]
fn special_kind(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_fifo() {
        "named pipe (FIFO)"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "device"
    } else {
        "special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_metadata: &std::fs::Metadata) -> &'static str {
    "special file"
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

/// The type of the file at `on_disk` (named `rel_path`), from its first bytes.
pub fn sniff_type(on_disk: &Path, rel_path: &str) -> Option<converters::FileType> {
    use std::io::Read;
    let mut head = Vec::with_capacity(converters::detect::SNIFF_LEN);
    std::fs::File::open(on_disk)
        .ok()?
        .take(converters::detect::SNIFF_LEN as u64)
        .read_to_end(&mut head)
        .ok()?;
    Some(converters::detect(rel_path, &head))
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
        let alias = &result.files[1];
        assert_eq!(
            alias.abs_path,
            root.join("a/in.txt").canonicalize().unwrap()
        );
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

    #[cfg(unix)]
    #[test]
    fn folder_links_leaving_the_profile_are_never_entered() {
        use std::os::unix::fs::symlink;
        let canary = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(canary.path().join("deep")).unwrap();
        std::fs::write(canary.path().join("secret.txt"), "canary").unwrap();
        std::fs::write(canary.path().join("deep/more.txt"), "canary").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("Docs/sub")).unwrap();
        std::fs::write(root.join("Docs/a.txt"), "inside").unwrap();
        // Directly, nested deeper, and through a link to a link.
        symlink(canary.path(), root.join("outlink")).unwrap();
        symlink(canary.path().join("deep"), root.join("Docs/sub/deeplink")).unwrap();
        symlink(root.join("outlink"), root.join("Docs/chain")).unwrap();
        // A file link through a folder link that leaves the profile.
        symlink(root.join("outlink/secret.txt"), root.join("Docs/via.txt")).unwrap();
        let result = walk(root, None);
        let files: Vec<_> = result.files.iter().map(|f| f.rel_path.as_str()).collect();
        assert_eq!(files, vec!["Docs/a.txt"]);
        for path in ["outlink", "Docs/sub/deeplink", "Docs/chain", "Docs/via.txt"] {
            let issue = result
                .issues
                .iter()
                .find(|i| i.rel_path == path)
                .unwrap_or_else(|| panic!("{path} not reported: {:?}", result.issues));
            assert!(issue.skipped);
            assert_eq!(issue.reason, "symlink_outside_profile", "{issue:?}");
        }
        assert_eq!(result.issues.len(), 4, "{:?}", result.issues);
    }

    #[cfg(unix)]
    #[test]
    fn folder_links_inside_the_profile_are_recorded_not_followed() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("Real/inner")).unwrap();
        std::fs::write(root.join("Real/inner/x.txt"), "x").unwrap();
        std::fs::create_dir_all(root.join(".hidden")).unwrap();
        std::fs::write(root.join(".hidden/key.txt"), "private").unwrap();
        symlink(root.join("Real"), root.join("Alias")).unwrap();
        symlink(root.join(".hidden/key.txt"), root.join("key.txt")).unwrap();
        let result = walk(root, None);
        let files: Vec<_> = result.files.iter().map(|f| f.rel_path.as_str()).collect();
        assert_eq!(
            files,
            vec!["Real/inner/x.txt"],
            "no duplicate through Alias"
        );
        let reasons: Vec<_> = result
            .issues
            .iter()
            .map(|i| (i.rel_path.as_str(), i.reason))
            .collect();
        assert!(
            reasons.contains(&("Alias", "symlink_folder")),
            "{reasons:?}"
        );
        assert!(
            reasons.contains(&("key.txt", "symlink_outside_profile")),
            "{reasons:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn fifos_are_recorded_as_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.txt"), "x").unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(root.join("pipe"))
            .status()
            .expect("mkfifo");
        assert!(status.success());
        let result = walk(root, None);
        let files: Vec<_> = result.files.iter().map(|f| f.rel_path.as_str()).collect();
        assert_eq!(files, vec!["a.txt"]);
        assert_eq!(result.issues.len(), 1, "{:?}", result.issues);
        assert_eq!(result.issues[0].rel_path, "pipe");
        assert_eq!(result.issues[0].reason, "not_regular_file");
        assert!(result.issues[0].message.contains("FIFO"));
    }
}
