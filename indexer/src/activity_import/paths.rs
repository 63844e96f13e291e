//! Maps a path written by another tool (a trace recorded on another machine, a
//! `recently-used.xbel` of the home folder the profile was copied from) onto a
//! profile-relative path.
//!
//! In order: a path below the profile's own absolute root loses that root; else the
//! longest trailing part of the path that is a whole file or folder known to the
//! manifest (`/sandbox/ws/Docs/a.txt` → `Docs/a.txt`), or the one known path that ends
//! with a relative path (`a.txt` → `Work/a.txt`); else a prefix *learned* from the
//! paths matched so: when `/sandbox/ws/Docs/a.txt` matched `Docs/a.txt`, the trace's
//! `/sandbox/ws` is the profile root, and `/sandbox/ws/Docs/old.txt` (a file deleted
//! since) maps to `Docs/old.txt`. A prefix seen with two different meanings is not used.
//! Anything else stays unmapped.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The component that marks an absolute path (so `/a/b` and `a/b` never compare equal).
const ROOT_MARK: &str = "/";

/// The profile root itself, as a profile-relative path.
pub const PROFILE_ROOT: &str = ".";

/// A path's components: separators `/` and `\`, empty and `.` components dropped, a
/// leading [`ROOT_MARK`] for an absolute path (`/…`, `\…` or `C:\…`).
pub fn components(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && (bytes[2] == b'\\' || bytes[2] == b'/');
    if path.starts_with('/') || path.starts_with('\\') || drive {
        out.push(ROOT_MARK.to_string());
    }
    out.extend(
        path.split(['/', '\\'])
            .filter(|c| !c.is_empty() && *c != ".")
            .map(str::to_string),
    );
    out
}

fn join(components: &[String]) -> String {
    if components.is_empty() {
        PROFILE_ROOT.to_string()
    } else {
        components.join("/")
    }
}

/// A profile-relative path is only produced from components without `..` or a root mark.
fn is_plain(components: &[String]) -> bool {
    components.iter().all(|c| c != ".." && c != ROOT_MARK)
}

/// Number of equal trailing components.
fn common_tail(a: &[String], b: &[String]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Maps foreign paths onto profile-relative ones (see the module docs).
pub struct PathMapper {
    root: Vec<String>,
    /// Known files and folders (profile-relative components), by last component.
    by_name: HashMap<String, Vec<Vec<String>>>,
    /// Learned `(foreign prefix → profile prefix)`, longest foreign prefix first.
    learned: Vec<(Vec<String>, Vec<String>)>,
}

impl PathMapper {
    /// `root`: the profile's canonical absolute path; `known`: profile-relative paths of
    /// the files the manifest knows (their folders are known too).
    pub fn new<'a>(root: &str, known: impl IntoIterator<Item = &'a str>) -> PathMapper {
        let mut all: HashSet<Vec<String>> = HashSet::new();
        for path in known {
            let parts = components(path);
            if parts.is_empty() || !is_plain(&parts) {
                continue;
            }
            for end in 1..=parts.len() {
                all.insert(parts[..end].to_vec());
            }
        }
        let mut by_name: HashMap<String, Vec<Vec<String>>> = HashMap::new();
        for parts in all {
            if let Some(name) = parts.last() {
                by_name.entry(name.clone()).or_default().push(parts);
            }
        }
        PathMapper {
            root: components(root),
            by_name,
            learned: Vec::new(),
        }
    }

    /// Learns foreign prefixes from the paths that map by their known tail; call once
    /// with every path of a source before mapping its paths.
    pub fn learn<'a>(&mut self, paths: impl IntoIterator<Item = &'a str>) {
        let mut votes: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for path in paths {
            let parts = components(path);
            if self.strip_root(&parts).is_some() {
                continue;
            }
            if let Some((known, tail)) = self.by_known_tail(&parts) {
                let foreign = parts[..parts.len() - tail].to_vec();
                let profile = known[..known.len() - tail].to_vec();
                votes.entry(foreign).or_default().insert(profile);
            }
        }
        let mut learned: Vec<(Vec<String>, Vec<String>)> = votes
            .into_iter()
            .filter(|(_, meanings)| meanings.len() == 1)
            .filter_map(|(foreign, meanings)| Some((foreign, meanings.into_iter().next()?)))
            .collect();
        learned.sort_by_key(|(foreign, _)| std::cmp::Reverse(foreign.len()));
        self.learned = learned;
    }

    /// The profile-relative path of `path`, or `None` when it cannot be placed.
    pub fn map(&self, path: &str) -> Option<String> {
        let parts = components(path);
        if parts.is_empty() {
            return None;
        }
        if let Some(rest) = self.strip_root(&parts) {
            return Some(join(rest));
        }
        if let Some((known, _)) = self.by_known_tail(&parts) {
            return Some(join(known));
        }
        for (foreign, profile) in &self.learned {
            if parts.len() >= foreign.len() && parts[..foreign.len()] == foreign[..] {
                let rest = &parts[foreign.len()..];
                if is_plain(rest) {
                    let mut mapped = profile.clone();
                    mapped.extend(rest.iter().cloned());
                    return Some(join(&mapped));
                }
            }
        }
        None
    }

    /// The rest of an absolute path below the profile root.
    fn strip_root<'p>(&self, parts: &'p [String]) -> Option<&'p [String]> {
        let rest = parts.strip_prefix(self.root.as_slice())?;
        is_plain(rest).then_some(rest)
    }

    /// The known path matched by `parts`' tail, with the number of components matched:
    /// the longest known path that is a whole tail of `parts`, else the only known path
    /// ending with all of a relative `parts`.
    fn by_known_tail(&self, parts: &[String]) -> Option<(&[String], usize)> {
        let candidates = self.by_name.get(parts.last()?)?;
        let whole_known = candidates
            .iter()
            .map(|known| (known, common_tail(known, parts)))
            .filter(|(known, tail)| *tail == known.len())
            .max_by_key(|(_, tail)| *tail);
        if let Some((known, tail)) = whole_known {
            return Some((known, tail));
        }
        if !is_plain(parts) {
            return None;
        }
        let mut within = candidates
            .iter()
            .filter(|known| common_tail(known, parts) == parts.len());
        match (within.next(), within.next()) {
            (Some(known), None) => Some((known, parts.len())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alice() -> PathMapper {
        PathMapper::new(
            "/data/profiles/alice",
            [
                "Docs/budget.xlsx",
                "Docs/Trips/tacoma.md",
                "Work/report.md",
                "notes.txt",
            ],
        )
    }

    #[test]
    fn components_mark_absolute_paths_and_drop_empty_parts() {
        assert_eq!(components("/a//b/./c"), ["/", "a", "b", "c"]);
        assert_eq!(components("a\\b"), ["a", "b"]);
        assert_eq!(components("C:\\Users\\x"), ["/", "C:", "Users", "x"]);
        assert!(components("").is_empty());
    }

    #[test]
    fn paths_map_by_root_known_tail_and_learned_prefix() {
        let mut mapper = alice();
        // Below the profile root.
        assert_eq!(
            mapper.map("/data/profiles/alice/Docs/new.md").as_deref(),
            Some("Docs/new.md")
        );
        assert_eq!(mapper.map("/data/profiles/alice").as_deref(), Some("."));
        // A known tail of a foreign absolute path; folders are known too.
        assert_eq!(
            mapper.map("/sandbox/ws/Docs/budget.xlsx").as_deref(),
            Some("Docs/budget.xlsx")
        );
        assert_eq!(
            mapper.map("/sandbox/ws/Docs/Trips").as_deref(),
            Some("Docs/Trips")
        );
        // A relative path inside exactly one known path.
        assert_eq!(mapper.map("report.md").as_deref(), Some("Work/report.md"));
        // Unknown files under a foreign root need a learned prefix.
        assert_eq!(mapper.map("/sandbox/ws/Docs/old.md"), None);
        mapper.learn(["/sandbox/ws/Docs/budget.xlsx", "/sandbox/ws/notes.txt"]);
        assert_eq!(
            mapper.map("/sandbox/ws/Docs/old.md").as_deref(),
            Some("Docs/old.md")
        );
        assert_eq!(mapper.map("/sandbox/ws").as_deref(), Some("."));
        // Never outside the profile.
        assert_eq!(mapper.map("/sandbox/ws/../etc/passwd"), None);
        assert_eq!(mapper.map("/data/profiles/alice/../bob/x"), None);
        assert_eq!(mapper.map("/etc/hosts"), None);
        assert_eq!(mapper.map(""), None);
    }

    #[test]
    fn a_prefix_with_two_meanings_is_not_learned() {
        // Relative paths: `report.md` says the trace's folder is `Work`, `budget.xlsx`
        // says it is `Docs`.
        let mut mapper = alice();
        mapper.learn(["report.md", "budget.xlsx"]);
        assert_eq!(mapper.map("gone.txt"), None);
        // One meaning: learned.
        let mut mapper = alice();
        mapper.learn(["report.md"]);
        assert_eq!(mapper.map("gone.txt").as_deref(), Some("Work/gone.txt"));
        // A foreign path sharing only a file name with a known path teaches nothing.
        let mut mapper = alice();
        mapper.learn(["/y/report.md"]);
        assert_eq!(mapper.map("/y/gone.txt"), None);
        // A relative path shared by two known paths is ambiguous.
        let twice = PathMapper::new("/p", ["A/x.txt", "B/x.txt"]);
        assert_eq!(twice.map("x.txt"), None);
    }
}
