//! HippoCamp's file listings, as pure functions: its "glob or prefix" patterns and its
//! nested file tree.

use globset::GlobBuilder;
use serde_json::{json, Value};

/// HippoCamp's "glob or prefix": a pattern ending in `/` lists that folder's files; a
/// pattern with `*`, `?` or `[` is a glob on the path or the file name (`*` also
/// crosses folders, as Python's fnmatch does); anything else is a prefix of the path
/// or the exact file name. An empty pattern lists every file.
pub struct ListPattern(Option<Matcher>);

enum Matcher {
    Prefix(String),
    Glob(globset::GlobMatcher),
}

impl ListPattern {
    pub fn parse(pattern: &str) -> Result<ListPattern, String> {
        let pattern = pattern.trim();
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        if pattern.is_empty() {
            return Ok(ListPattern(None));
        }
        if pattern.contains(['*', '?', '[']) {
            let glob = GlobBuilder::new(pattern)
                .literal_separator(false)
                .build()
                .map_err(|e| format!("bad pattern {pattern:?}: {e}"))?;
            return Ok(ListPattern(Some(Matcher::Glob(glob.compile_matcher()))));
        }
        Ok(ListPattern(Some(Matcher::Prefix(pattern.to_string()))))
    }

    pub fn matches(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        match &self.0 {
            None => true,
            Some(Matcher::Prefix(prefix)) => path.starts_with(prefix.as_str()) || name == prefix,
            Some(Matcher::Glob(glob)) => glob.is_match(path) || glob.is_match(name),
        }
    }
}

/// Nests sorted paths into HippoCamp's tree nodes.
pub fn tree(paths: &[String]) -> Vec<Value> {
    #[derive(Default)]
    struct Folder {
        folders: std::collections::BTreeMap<String, Folder>,
        files: Vec<String>,
    }
    let mut root = Folder::default();
    for path in paths {
        let mut folder = &mut root;
        let mut parts: Vec<&str> = path.split('/').collect();
        let Some(_name) = parts.pop() else { continue };
        for part in parts {
            folder = folder.folders.entry(part.to_string()).or_default();
        }
        folder.files.push(path.clone());
    }
    fn nodes(folder: &Folder, prefix: &str) -> Vec<Value> {
        let mut out: Vec<(String, Value)> = Vec::new();
        for (name, child) in &folder.folders {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let children = nodes(child, &path);
            out.push((
                name.clone(),
                json!({ "name": name, "path": path, "type": "directory", "children": children }),
            ));
        }
        for path in &folder.files {
            let name = path.rsplit('/').next().unwrap_or(path).to_string();
            let ext = name
                .rsplit_once('.')
                .map(|(_, e)| format!(".{}", e.to_lowercase()))
                .unwrap_or_default();
            out.push((
                name.clone(),
                json!({ "name": name, "path": path, "type": "file", "ext": ext }),
            ));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out.into_iter().map(|(_, node)| node).collect()
    }
    nodes(&root, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_glob_or_prefix() {
        let paths = [
            "Documents/a.pdf",
            "Documents/Notes/b.txt",
            "c.pdf",
            "Music/x.mp3",
        ];
        let list = |p: &str| -> Vec<&str> {
            let pattern = ListPattern::parse(p).unwrap();
            paths
                .iter()
                .copied()
                .filter(|x| pattern.matches(x))
                .collect()
        };
        assert_eq!(list(""), paths.to_vec());
        assert_eq!(list("*.pdf"), vec!["Documents/a.pdf", "c.pdf"]);
        assert_eq!(
            list("Documents/"),
            vec!["Documents/a.pdf", "Documents/Notes/b.txt"]
        );
        assert_eq!(
            list("Documents/*"),
            vec!["Documents/a.pdf", "Documents/Notes/b.txt"]
        );
        assert_eq!(
            list("Docu"),
            vec!["Documents/a.pdf", "Documents/Notes/b.txt"]
        );
        assert_eq!(list("b.txt"), vec!["Documents/Notes/b.txt"]);
        assert_eq!(list("./Music"), vec!["Music/x.mp3"]);
        assert!(ListPattern::parse("[").is_err());
    }

    #[test]
    fn trees_nest_folders_before_sorting_by_name() {
        let paths: Vec<String> = ["A/b.txt", "A/Sub/c.PDF", "z.md"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let tree = tree(&paths);
        assert_eq!(tree.len(), 2);
        assert_eq!(tree[0]["type"], "directory");
        assert_eq!(tree[0]["path"], "A");
        let children = tree[0]["children"].as_array().unwrap();
        assert_eq!(children[0]["name"], "Sub");
        assert_eq!(children[0]["children"][0]["ext"], ".pdf");
        assert_eq!(children[1]["path"], "A/b.txt");
        assert_eq!(
            tree[1],
            json!({"name": "z.md", "path": "z.md", "type": "file", "ext": ".md"})
        );
    }
}
