//! The file tools of the engine, transport-free: listing files by glob, a file's record
//! and all its units (HippoCamp's `return_metadata` / `return_txt`), the path of its
//! original bytes, and the index statistics. Every path is checked against the profile
//! root on its canonical form (`crate::guard`).

use globset::GlobBuilder;
use index::path::ATTACHMENT_MARKER;
use index::{FileRecord, FileStatus, StoredUnit};

use index::api::SearchBackend;

use crate::error::SearchError;
use crate::guard::PathGuard;
use crate::outcome::ListOutcome;

/// Files whose relative path matches a glob (`*` stays within a folder, `**` crosses
/// folders; a pattern without `/` also matches file names anywhere).
pub fn list_files(
    backend: &dyn SearchBackend,
    pattern: &str,
    limit: usize,
    include_failed: bool,
) -> Result<ListOutcome, SearchError> {
    let pattern = pattern.trim();
    let matcher = if pattern.is_empty() {
        None
    } else {
        Some(
            GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| SearchError::invalid(format!("bad glob {pattern:?}: {e}")))?
                .compile_matcher(),
        )
    };
    let name_only = !pattern.contains('/');
    let limit = if limit == 0 { 1000 } else { limit.min(100_000) };
    let all = backend.files()?;
    let mut files = Vec::new();
    let mut truncated = false;
    let mut guard = PathGuard::of(backend);
    for record in all {
        if !include_failed && record.status != FileStatus::Indexed {
            continue;
        }
        // Skipped entries (a link that leaves the profile) are listed by name only:
        // they were never read. Anything with content must lie inside the root.
        if record.status != FileStatus::Skipped && !guard.allows(&record.path) {
            continue;
        }
        let matches = match &matcher {
            None => true,
            Some(m) => m.is_match(&record.path) || (name_only && m.is_match(record.name())),
        };
        if matches {
            if files.len() == limit {
                truncated = true;
                break;
            }
            files.push(record);
        }
    }
    Ok(ListOutcome { files, truncated })
}

/// The manifest record of one file (indexed, failed or skipped).
pub fn metadata(backend: &dyn SearchBackend, path: &str) -> Result<FileRecord, SearchError> {
    let path = normalize_path(path)?;
    let record = backend
        .file(&path)?
        .ok_or_else(|| SearchError::NotFound(format!("no file {path:?} in the index")))?;
    if record.status != FileStatus::Skipped && !PathGuard::of(backend).allows(&record.path) {
        return Err(SearchError::invalid(format!(
            "{path:?} resolves outside the profile root"
        )));
    }
    Ok(record)
}

/// The absolute path of an indexed file's original bytes, guaranteed to lie inside
/// the profile root (symlinks resolved). Attachments have no file of their own.
pub fn original_path(
    backend: &dyn SearchBackend,
    path: &str,
) -> Result<std::path::PathBuf, SearchError> {
    let record = metadata(backend, path)?;
    if record.parent_path.is_some() {
        return Err(SearchError::NotFound(format!(
            "{:?} is an attachment; its bytes are inside {:?}",
            record.path,
            record.parent_path.unwrap_or_default()
        )));
    }
    let root = std::path::Path::new(backend.profile_root());
    let canonical_root = root
        .canonicalize()
        .map_err(|e| SearchError::NotFound(format!("profile root is not readable: {e}")))?;
    let resolved = root.join(&record.path).canonicalize().map_err(|e| {
        SearchError::NotFound(format!("{:?} is no longer readable: {e}", record.path))
    })?;
    if !resolved.starts_with(&canonical_root) {
        return Err(SearchError::invalid(format!(
            "{:?} resolves outside the profile root",
            record.path
        )));
    }
    Ok(resolved)
}

/// A file's record and all its units in order.
pub fn text(
    backend: &dyn SearchBackend,
    path: &str,
) -> Result<(FileRecord, Vec<StoredUnit>), SearchError> {
    let record = metadata(backend, path)?;
    let units = backend.units_of_file(&record.file_id)?;
    Ok((record, units))
}

/// Normalises a client-supplied relative path; rejects absolute paths and `..`.
pub fn normalize_path(path: &str) -> Result<String, SearchError> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err(SearchError::invalid("path is empty"));
    }
    if trimmed.starts_with('/') || trimmed.starts_with('\\') || trimmed.contains(":\\") {
        return Err(SearchError::invalid(format!(
            "path {trimmed:?} must be relative to the profile root"
        )));
    }
    // `\` separates folders too, also in front of the attachment marker (positions are
    // the same in both spellings: both separators are one byte).
    let (file_part, attachment) = match trimmed.replace('\\', "/").find(ATTACHMENT_MARKER) {
        Some(at) => (
            &trimmed[..at],
            Some(&trimmed[at + ATTACHMENT_MARKER.len()..]),
        ),
        None => (trimmed, None),
    };
    let escape = || SearchError::invalid(format!("path {trimmed:?} must not contain \"..\""));
    if attachment.is_some_and(|rest| rest.split(['/', '\\']).any(|p| p == "..")) {
        return Err(escape());
    }
    let mut parts: Vec<&str> = file_part
        .split(['/', '\\'])
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    // Whitespace around the whole path is no part of it, also where it appears once `.`
    // and empty parts are gone ("./ notes.md", "notes.md /."), so a normalised path
    // normalises to itself.
    while let Some(first) = parts.first_mut() {
        *first = first.trim_start();
        if !first.is_empty() && *first != "." {
            break;
        }
        parts.remove(0);
    }
    if attachment.is_none() {
        while let Some(last) = parts.last_mut() {
            *last = last.trim_end();
            if !last.is_empty() && *last != "." {
                break;
            }
            parts.pop();
        }
    }
    if parts.contains(&"..") {
        return Err(escape());
    }
    if parts.is_empty() {
        return Err(SearchError::invalid(format!(
            "path {trimmed:?} names no file"
        )));
    }
    let mut normal = parts.join("/");
    if let Some(rest) = attachment {
        normal.push_str(ATTACHMENT_MARKER);
        normal.push_str(rest);
    }
    Ok(normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_and_escapes_rejected() {
        assert_eq!(normalize_path("a//b/./c.pdf").unwrap(), "a/b/c.pdf");
        assert_eq!(
            normalize_path("Mail/x.eml#attachment/r.pdf").unwrap(),
            "Mail/x.eml#attachment/r.pdf"
        );
        assert_eq!(
            normalize_path("Notes/C#//x#1.md").unwrap(),
            "Notes/C#/x#1.md"
        );
        assert!(normalize_path("Mail/x.eml#attachment/../../etc").is_err());
        assert!(normalize_path("../etc/passwd").is_err());
        assert!(normalize_path("a/../../b").is_err());
        assert!(normalize_path("/etc/passwd").is_err());
        assert!(normalize_path("C:\\Windows").is_err());
        assert!(normalize_path("").is_err());
    }

    /// Found by fuzzing (`dentate-fuzz path`): paths that named nothing (an attachment
    /// of no file, only `.` parts) and whitespace that a second normalisation removed.
    #[test]
    fn normalised_paths_name_a_file_and_normalise_to_themselves() {
        for nothing in [
            "./",
            "./.",
            ".///",
            ".\r\n\r\n",
            "#attachment/a b.txt",
            ".#attachment/x",
        ] {
            assert!(normalize_path(nothing).is_err(), "{nothing:?}");
        }
        for (input, normal) in [
            ("./\r\n\r\nDocuments//notes.md", "Documents/notes.md"),
            ("Mailobj\u{b}/", "Mailobj"),
            ("./ ./x", "x"),
            ("x/#attachment\\/a", "x#attachment//a"),
            ("Docs/a b/ c.txt", "Docs/a b/ c.txt"),
        ] {
            assert_eq!(normalize_path(input).unwrap(), normal, "{input:?}");
            assert_eq!(normalize_path(normal).unwrap(), normal, "{input:?}");
        }
        assert!(normalize_path("x/..\r\n\r\n/.").is_err());
        assert!(normalize_path("./ ../x").is_err());
    }
}
