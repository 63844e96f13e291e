//! Defence in depth for everything the daemon serves: a path from the index is only
//! returned (in a search hit, a file listing, a timeline, a file tool) when the file it
//! names lies inside the profile root on its canonical path.
//!
//! The walker already refuses links that leave the profile, but an index built by an
//! older version, or a folder replaced by a link since the last run, could still name
//! files outside it. Such entries are dropped with a warning.
//!
//! A path is judged by its on-disk container (the part before the first
//! `#attachment/`): when it exists, its fully resolved path must start with the resolved
//! root; when it no longer exists, its nearest existing ancestor must. A profile root
//! that does not exist on this machine (a daemon serving an index whose profile lives
//! elsewhere) has nothing to check against: everything the index holds is served.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One request's path checks, with a per-folder cache (a listing of many files in few
/// folders resolves each folder once).
pub struct PathGuard {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    folders: HashMap<PathBuf, bool>,
}

impl PathGuard {
    pub fn new(root: &Path) -> PathGuard {
        PathGuard {
            root: root.to_path_buf(),
            canonical_root: root.canonicalize().ok(),
            folders: HashMap::new(),
        }
    }

    /// Whether the file at the profile-relative `path` may be served.
    pub fn allows(&mut self, path: &str) -> bool {
        let Some(canonical_root) = self.canonical_root.clone() else {
            return true;
        };
        let container = index::UnitPath::parse(path).container();
        if container.split('/').any(|part| part == "..") || container.starts_with('/') {
            return self.deny(path, "not a relative path");
        }
        let full = self.root.join(container);
        let verdict = match std::fs::symlink_metadata(&full) {
            // A plain file or folder: its folder decides.
            Ok(meta) if !meta.file_type().is_symlink() => match full.parent() {
                Some(folder) => self.folder_inside(folder, &canonical_root),
                None => false,
            },
            // A link: resolve it whole.
            Ok(_) => full
                .canonicalize()
                .is_ok_and(|target| target.starts_with(&canonical_root)),
            // Gone since indexing: the nearest existing ancestor decides.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let mut folder = full.parent();
                loop {
                    match folder {
                        Some(f) if std::fs::symlink_metadata(f).is_ok() => {
                            break self.folder_inside(f, &canonical_root)
                        }
                        Some(f) => folder = f.parent(),
                        None => break false,
                    }
                }
            }
            Err(_) => false,
        };
        if verdict {
            true
        } else {
            self.deny(path, "resolves outside the profile root")
        }
    }

    fn folder_inside(&mut self, folder: &Path, canonical_root: &Path) -> bool {
        if let Some(&inside) = self.folders.get(folder) {
            return inside;
        }
        let inside = folder
            .canonicalize()
            .is_ok_and(|f| f.starts_with(canonical_root));
        self.folders.insert(folder.to_path_buf(), inside);
        inside
    }

    fn deny(&self, path: &str, why: &str) -> bool {
        tracing::warn!(
            path,
            "index entry {why}; not served (re-run dentate-index to remove it)"
        );
        false
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn judges_on_the_canonical_path() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("Docs")).unwrap();
        std::fs::write(root.join("Docs/a.txt"), "a").unwrap();
        std::fs::write(root.join("Mail.eml"), "m").unwrap();
        symlink(outside.path(), root.join("Docs/out")).unwrap();
        symlink(outside.path().join("secret.txt"), root.join("leak.txt")).unwrap();
        symlink(root.join("Docs/a.txt"), root.join("alias.txt")).unwrap();
        let mut guard = PathGuard::new(root);
        assert!(guard.allows("Docs/a.txt"));
        assert!(guard.allows("alias.txt"));
        assert!(guard.allows("Mail.eml#attachment/x.pdf"));
        assert!(guard.allows("Docs/deleted-since.txt"));
        assert!(!guard.allows("Docs/out/secret.txt"));
        assert!(!guard.allows("Docs/out/gone/deeper.txt"));
        assert!(!guard.allows("leak.txt"));
        assert!(!guard.allows("../x"));
        assert!(!guard.allows("/etc/passwd"));
    }

    #[test]
    fn a_missing_profile_root_checks_nothing() {
        let mut guard = PathGuard::new(Path::new("/nonexistent/dentate/profile"));
        assert!(guard.allows("Docs/a.txt"));
    }
}
