//! Copies of one file count once.
//!
//! A personal folder keeps the same bytes in several places: an e-mail attachment and
//! the copy saved from it, a document and its "- copy" on the Desktop, a download saved
//! twice. Their units have the same text, so they score the same and take two (or
//! three) of an answer's places with nothing new. When two ranked units have the same
//! text and ordinal and their files the same content hash, the files are copies: the units of every
//! copy but one are folded into that one's unit of the same ordinal (which keeps the
//! better of the two scores).
//!
//! The one kept is a file on disk before an attachment (what the user saved is what
//! they find again), then a name that does not say it is a copy ("x - copy.docx",
//! "copy of x", "x (2).pdf"), then the better ranked. A copy's unit whose twin in the
//! kept file is not among the candidates stays: it is evidence all the same.

use std::collections::{HashMap, HashSet};

use index::UnitPath;

/// One ranked unit, as far as copies are concerned.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate<'a> {
    pub(crate) file_id: &'a str,
    pub(crate) path: &'a str,
    pub(crate) ordinal: u64,
    pub(crate) text: &'a str,
}

/// The unit at index `from` is the same as the one at `into`, in a kept file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fold {
    pub(crate) from: usize,
    pub(crate) into: usize,
}

/// A copy folded into the file kept: `(copy path, kept path)`.
pub(crate) type Folded<'a> = (&'a str, &'a str);

/// The folds among ranked `candidates` (best first). `content_hashes` gives files'
/// content hashes by file id; it is asked once, for the files that share a unit (text
/// and ordinal) with another file, and not at all when none do.
pub(crate) fn folds<'a, E>(
    candidates: &[Candidate<'a>],
    content_hashes: impl FnOnce(&[&str]) -> Result<HashMap<String, String>, E>,
) -> Result<(Vec<Fold>, Vec<Folded<'a>>), E> {
    // Files that share some unit (the same text at the same ordinal) with another file.
    // Keyed by ordinal and length, so that texts are compared only when those agree.
    let mut seen: HashMap<(u64, usize), Vec<&Candidate>> = HashMap::new();
    let mut twinned: Vec<&str> = Vec::new();
    for candidate in candidates.iter().filter(|c| !c.text.trim().is_empty()) {
        let same = seen
            .entry((candidate.ordinal, candidate.text.len()))
            .or_default();
        if let Some(twin) = same
            .iter()
            .find(|o| o.file_id != candidate.file_id && o.text == candidate.text)
        {
            for file in [twin.file_id, candidate.file_id] {
                if !twinned.contains(&file) {
                    twinned.push(file);
                }
            }
        }
        same.push(candidate);
    }
    if twinned.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    // Those files grouped by content.
    let hashes = content_hashes(&twinned)?;
    let mut by_hash: HashMap<&str, Vec<&str>> = HashMap::new();
    for file in twinned {
        if let Some(hash) = hashes.get(file).filter(|h| !h.is_empty()) {
            by_hash.entry(hash).or_default().push(file);
        }
    }
    // Each file's first rank and path, in one pass.
    let mut files: HashMap<&str, (usize, &str)> = HashMap::new();
    for (rank, candidate) in candidates.iter().enumerate() {
        files
            .entry(candidate.file_id)
            .or_insert((rank, candidate.path));
    }
    let first_seen = |file: &str| files.get(file).map(|&(rank, _)| rank);
    let path_of = |file: &str| files.get(file).map(|&(_, path)| path).unwrap_or_default();
    let mut folds = Vec::new();
    let mut folded = Vec::new();
    let mut groups: Vec<Vec<&str>> = by_hash.into_values().filter(|g| g.len() > 1).collect();
    groups.sort_by_key(|g| g.iter().filter_map(|f| first_seen(f)).min());
    for group in groups {
        let Some(&kept) = group
            .iter()
            .min_by_key(|f| (preference(path_of(f)), first_seen(f)))
        else {
            continue;
        };
        let kept_units: HashMap<u64, usize> = candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| c.file_id == kept)
            .map(|(i, c)| (c.ordinal, i))
            .collect();
        let copies: HashSet<&str> = group.iter().copied().filter(|f| *f != kept).collect();
        for copy in &copies {
            let mut any = false;
            for (from, candidate) in candidates.iter().enumerate() {
                if candidate.file_id != *copy {
                    continue;
                }
                if let Some(&into) = kept_units.get(&candidate.ordinal) {
                    folds.push(Fold { from, into });
                    any = true;
                }
            }
            if any {
                folded.push((path_of(copy), path_of(kept)));
            }
        }
    }
    folds.sort_by_key(|f| f.from);
    folded.sort();
    Ok((folds, folded))
}

/// Lower is kept first: (an attachment, a name that says it is a copy).
fn preference(path: &str) -> (bool, bool) {
    let path = UnitPath::parse(path);
    (path.is_attachment(), names_a_copy(path.name()))
}

/// "x - copy.docx", "x copy.pdf", "x (copy).txt", "copy of x.md", "x (2).pdf", "x(1).csv".
pub(crate) fn names_a_copy(name: &str) -> bool {
    let lower = name.to_lowercase();
    let stem = match lower.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.len() <= 5 => stem,
        _ => lower.as_str(),
    };
    let stem = stem.trim_end();
    if stem.starts_with("copy of ") || stem.ends_with(" copy") || stem.ends_with("(copy)") {
        return true;
    }
    // A trailing "(n)", as browsers and file managers number a second save.
    stem.strip_suffix(')')
        .and_then(|s| s.rsplit_once('('))
        .is_some_and(|(before, n)| {
            !before.trim().is_empty()
                && !n.is_empty()
                && n.len() <= 3
                && n.chars().all(|c| c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<'a>(file_id: &'a str, path: &'a str, ordinal: u64, text: &'a str) -> Candidate<'a> {
        Candidate {
            file_id,
            path,
            ordinal,
            text,
        }
    }

    type Hashes = Result<HashMap<String, String>, ()>;

    fn hashes(pairs: &'static [(&'static str, &'static str)]) -> impl FnOnce(&[&str]) -> Hashes {
        move |files| {
            Ok(pairs
                .iter()
                .filter(|(f, _)| files.contains(f))
                .map(|(f, h)| (f.to_string(), h.to_string()))
                .collect())
        }
    }

    #[test]
    fn an_attachment_folds_into_the_saved_file() {
        let mail = "Mail/a.eml#attachment/Guide.pdf";
        let saved = "Docs/Guide.pdf";
        let ranked = [
            c("att", mail, 3, "After the race"),
            c("saved", saved, 3, "After the race"),
            c("other", "Docs/Results.pdf", 0, "Results"),
            c("att", mail, 1, "Waves"),
            c("saved", saved, 1, "Waves"),
            c("att", mail, 2, "Parking"),
        ];
        let (found, folded) = folds(&ranked, hashes(&[("att", "h1"), ("saved", "h1")])).unwrap();
        assert_eq!(
            found,
            vec![Fold { from: 0, into: 1 }, Fold { from: 3, into: 4 }]
        );
        // The attachment's page 2 has no twin among the candidates: it stays.
        assert_eq!(folded, vec![(mail, saved)]);
    }

    #[test]
    fn the_same_text_in_different_files_is_not_a_copy() {
        let ranked = [
            c("a", "x/report.pdf", 0, "Confidential"),
            c("b", "y/other.pdf", 0, "Confidential"),
        ];
        let (found, folded) = folds(&ranked, hashes(&[("a", "h1"), ("b", "h2")])).unwrap();
        assert!(found.is_empty() && folded.is_empty());
        // Unknown hashes never fold.
        let (found, _) = folds(&ranked, |_| Hashes::Ok(HashMap::new())).unwrap();
        assert!(found.is_empty());
        let (found, _) = folds(&ranked, hashes(&[("a", ""), ("b", "")])).unwrap();
        assert!(found.is_empty());
        // A failed lookup is the caller's error.
        assert!(folds(&ranked, |_| Hashes::Err(())).is_err());
    }

    #[test]
    fn no_hash_is_asked_without_a_shared_text() {
        let ranked = [c("a", "a.txt", 0, "one"), c("b", "b.txt", 0, "two")];
        let (found, _) = folds(&ranked, |f| -> Hashes { panic!("asked for {f:?}") }).unwrap();
        assert!(found.is_empty());
    }

    #[test]
    fn the_original_name_is_kept_over_a_named_copy() {
        let ranked = [
            c("copy", "Desktop/itinerary v2 - copy.docx", 0, "Day 1"),
            c("orig", "Work/itinerary v2.docx", 0, "Day 1"),
            c("third", "Downloads/itinerary v2 (1).docx", 0, "Day 1"),
        ];
        let (found, folded) = folds(
            &ranked,
            hashes(&[("copy", "h"), ("orig", "h"), ("third", "h")]),
        )
        .unwrap();
        assert_eq!(
            found,
            vec![Fold { from: 0, into: 1 }, Fold { from: 2, into: 1 }]
        );
        assert_eq!(folded.len(), 2);
        // Two plain names: the better ranked is kept.
        let ranked = [c("a", "A/notes.md", 0, "x"), c("b", "B/notes.md", 0, "x")];
        let (found, _) = folds(&ranked, hashes(&[("a", "h"), ("b", "h")])).unwrap();
        assert_eq!(found, vec![Fold { from: 1, into: 0 }]);
    }

    #[test]
    fn copy_names() {
        for name in [
            "Belfast itinerary v2 - copy.docx",
            "Copy of budget.xlsx",
            "scan copy.pdf",
            "scan (copy).pdf",
            "report (2).pdf",
            "report(1).csv",
            "notes - Copy",
        ] {
            assert!(names_a_copy(name), "{name}");
        }
        for name in [
            "copy.txt",
            "(1).pdf",
            "Copywriting notes.md",
            "Budget (draft).xlsx",
            "Chapter (2024).pdf",
            "report 2.pdf",
            "photocopy.pdf",
        ] {
            assert!(!names_a_copy(name), "{name}");
        }
    }
}
