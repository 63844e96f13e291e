//! Paths of indexed files: relative to the profile root with `/` separators, and for a
//! file found inside another (an e-mail attachment) `<container>#attachment/<name>`,
//! nested as deep as attachments go.
//!
//! The separator is the whole `#attachment/` marker, never a bare `#`: real names may
//! contain `#` (`C#/notes.md`, `invoice #12.pdf`) and are left as they are. A real path
//! can only contain the marker through a folder whose name ends in `#attachment`; the
//! walker records such files as skipped instead of mistaking them for attachments.
//! Attachment names are cleaned of `/`, `\` and `#` when they are made.

/// Stable id of a file: the first 16 hex digits of BLAKE3 over its relative path.
pub fn file_id_for(path: &str) -> String {
    blake3::hash(path.as_bytes()).to_hex()[..16].to_string()
}

/// What separates a container from an attachment inside it.
pub const ATTACHMENT_MARKER: &str = "#attachment/";

/// A parsed path (borrowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitPath<'a> {
    full: &'a str,
}

impl<'a> UnitPath<'a> {
    pub fn parse(full: &'a str) -> UnitPath<'a> {
        UnitPath { full }
    }

    /// The path of `name` attached to `parent` (the name cleaned of separators).
    pub fn attachment(parent: &str, name: &str) -> String {
        format!(
            "{parent}{ATTACHMENT_MARKER}{}",
            name.replace(['/', '\\', '#'], "_")
        )
    }

    pub fn as_str(&self) -> &'a str {
        self.full
    }

    /// The file on disk holding this one (itself, for a file that is not an attachment).
    pub fn container(&self) -> &'a str {
        self.full
            .split_once(ATTACHMENT_MARKER)
            .map_or(self.full, |(container, _)| container)
    }

    pub fn is_attachment(&self) -> bool {
        self.full.contains(ATTACHMENT_MARKER)
    }

    /// The innermost file's name: the attachment's name, else the last path component.
    pub fn name(&self) -> &'a str {
        match self.full.rsplit_once(ATTACHMENT_MARKER) {
            Some((_, name)) => name,
            None => self.full.rsplit('/').next().unwrap_or(self.full),
        }
    }

    /// The folder of the file on disk (`""` at the profile root).
    pub fn folder(&self) -> &'a str {
        self.container()
            .rsplit_once('/')
            .map_or("", |(folder, _)| folder)
    }

    /// The folder's components.
    pub fn folder_parts(&self) -> impl Iterator<Item = &'a str> {
        self.folder().split('/').filter(|p| !p.is_empty())
    }

    /// The folders a unit of this file is filed under (its folder facet): the folder of
    /// the file on disk, and for an attachment the containing file itself, so a filter
    /// on `Mail/x.eml` finds the message and its attachments.
    pub fn filed_under(&self) -> impl Iterator<Item = &'a str> {
        let place = if self.is_attachment() {
            self.container()
        } else {
            self.folder()
        };
        place.split('/').filter(|p| !p.is_empty())
    }

    /// Whether `other` is this path or an attachment inside it (at any depth).
    pub fn contains(&self, other: &str) -> bool {
        other == self.full
            || other
                .strip_prefix(self.full)
                .is_some_and(|rest| rest.starts_with(ATTACHMENT_MARKER))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachments_split_at_the_marker_only() {
        let plain = UnitPath::parse("Docs/Finance/r.pdf");
        assert_eq!(plain.container(), "Docs/Finance/r.pdf");
        assert_eq!(plain.name(), "r.pdf");
        assert_eq!(plain.folder(), "Docs/Finance");
        assert!(!plain.is_attachment());

        let nested = UnitPath::parse("Mail/x.eml#attachment/y.eml#attachment/z.pdf");
        assert_eq!(nested.container(), "Mail/x.eml");
        assert_eq!(nested.name(), "z.pdf");
        assert_eq!(nested.folder(), "Mail");
        assert!(nested.is_attachment());

        // Real names with `#`, `%` and newlines are themselves.
        for real in [
            "Notes/C#/x#1.md",
            "invoice #12.pdf",
            "a%20b/c\nd.txt",
            "#/#.txt",
        ] {
            let path = UnitPath::parse(real);
            assert_eq!(path.container(), real);
            assert!(!path.is_attachment());
        }
        let hash = UnitPath::parse("Notes/C#/x#1.md");
        assert_eq!(hash.name(), "x#1.md");
        assert_eq!(hash.folder(), "Notes/C#");
        assert_eq!(hash.folder_parts().collect::<Vec<_>>(), ["Notes", "C#"]);
        assert_eq!(UnitPath::parse("top.txt").folder(), "");
        assert_eq!(hash.filed_under().collect::<Vec<_>>(), ["Notes", "C#"]);
        assert_eq!(
            nested.filed_under().collect::<Vec<_>>(),
            ["Mail", "x.eml"],
            "attachments are filed under their message"
        );
    }

    #[test]
    fn attachment_paths_are_made_and_recognised() {
        let made = UnitPath::attachment("Mail/x.eml", "a/b#c.pdf");
        assert_eq!(made, "Mail/x.eml#attachment/a_b_c.pdf");
        let parent = UnitPath::parse("Mail/x.eml");
        assert!(parent.contains(&made));
        assert!(parent.contains("Mail/x.eml"));
        assert!(!parent.contains("Mail/x.eml2"));
        assert!(!parent.contains("Mail/x.eml#other"));
        assert_eq!(UnitPath::parse(&made).name(), "a_b_c.pdf");
    }
}
