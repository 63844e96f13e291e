//! Defence in depth for everything the daemon serves: a path from the index is only
//! returned (in a search hit, a file listing, a timeline, a file tool) when the file it
//! names lies inside the profile root on its canonical path.
//!
//! The walker already refuses links that leave the profile, but an index built by an
//! older version, or a folder replaced by a link since the last run, could still name
//! files outside it. Such entries are dropped with a warning.
//!
//! A path is judged by its on-disk container (the part before the first
//! `#attachment/`), one component at a time below the root: a component that is not a
//! link keeps the verdict of its folder (the resolved path of `folder/name` is the
//! resolved folder plus `name`), a link is resolved whole and must land inside the
//! resolved root, and a component that no longer exists leaves the verdict to the
//! nearest existing ancestor. Verdicts are kept per folder for the request, so a reply
//! of many files in few folders costs about one `lstat` per file. A profile root that
//! does not exist on this machine (a daemon serving an index whose profile lives
//! elsewhere) has nothing to check against: everything the index holds is served.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One request's path checks, with a per-folder cache (a listing of many files in few
/// folders resolves each folder once).
pub struct PathGuard {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    /// Verdicts of profile-relative folders already walked.
    folders: HashMap<String, bool>,
}

impl PathGuard {
    /// The guard of a backend's profile root.
    pub fn of(backend: &dyn index::api::SearchBackend) -> PathGuard {
        PathGuard::new(Path::new(backend.profile_root()))
    }

    pub fn new(root: &Path) -> PathGuard {
        PathGuard {
            root: root.to_path_buf(),
            canonical_root: root.canonicalize().ok(),
            folders: HashMap::new(),
        }
    }

    /// Whether the file at the profile-relative `path` may be served.
    pub fn allows(&mut self, path: &str) -> bool {
        if self.canonical_root.is_none() {
            return true;
        }
        let container = index::UnitPath::parse(path).container();
        if container.split('/').any(|part| part == "..") || container.starts_with('/') {
            return self.deny(path, "not a relative path");
        }
        let verdict = match container.rsplit_once('/') {
            Some((folder, name)) => {
                self.folder_inside(folder) && self.component_inside(container, name)
            }
            None => self.component_inside(container, container),
        };
        if verdict {
            true
        } else {
            self.deny(path, "resolves outside the profile root")
        }
    }

    /// Whether the profile-relative `folder` (whose own folder is inside) resolves
    /// inside the root; walked from the root down, each folder once per request.
    fn folder_inside(&mut self, folder: &str) -> bool {
        if folder.is_empty() {
            return true;
        }
        if let Some(&inside) = self.folders.get(folder) {
            return inside;
        }
        let (parent_inside, name) = match folder.rsplit_once('/') {
            Some((parent, name)) => (self.folder_inside(parent), name),
            None => (true, folder),
        };
        let inside = parent_inside && self.component_inside(folder, name);
        self.folders.insert(folder.to_string(), inside);
        inside
    }

    /// Whether `relative` (named `name`, in a folder already judged inside) resolves
    /// inside: plain entries and missing ones keep their folder's verdict, links are
    /// resolved whole.
    fn component_inside(&self, relative: &str, name: &str) -> bool {
        let Some(canonical_root) = &self.canonical_root else {
            return true;
        };
        if name.is_empty() || name == "." {
            return true;
        }
        let full = self.root.join(relative);
        match std::fs::symlink_metadata(&full) {
            Ok(meta) if !meta.file_type().is_symlink() => true,
            Ok(_) => full
                .canonicalize()
                .is_ok_and(|target| target.starts_with(canonical_root)),
            Err(error) => error.kind() == std::io::ErrorKind::NotFound,
        }
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
        symlink(root.join("Docs"), root.join("Inner")).unwrap();
        let mut guard = PathGuard::new(root);
        assert!(guard.allows("Docs/a.txt"));
        assert!(guard.allows("alias.txt"));
        assert!(guard.allows("Mail.eml#attachment/x.pdf"));
        assert!(guard.allows("Docs/deleted-since.txt"));
        assert!(!guard.allows("Docs/out/secret.txt"));
        assert!(!guard.allows("Docs/out/gone/deeper.txt"));
        assert!(!guard.allows("leak.txt"));
        // Through a link that stays inside, to a link that leaves.
        assert!(guard.allows("Inner/a.txt"));
        assert!(!guard.allows("Inner/out/secret.txt"));
        assert!(guard.allows("Gone/folder/file.txt"));
        assert!(!guard.allows("Docs/out"));
        // Verdicts are cached per folder, and the cache gives the same answers.
        assert!(!guard.allows("Docs/out/secret.txt"));
        assert!(guard.allows("Docs/a.txt"));
        assert!(!guard.allows("../x"));
        assert!(!guard.allows("/etc/passwd"));
    }

    #[test]
    fn a_missing_profile_root_checks_nothing() {
        let mut guard = PathGuard::new(Path::new("/nonexistent/dentate/profile"));
        assert!(guard.allows("Docs/a.txt"));
    }
}
