//! The vector codec: how embeddings are normalised, keyed and stored.

/// Dimension of the text embedding space.
pub const TEXT_DIM: usize = 384;

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in vector.iter_mut() {
            *x /= norm;
        }
    }
}

/// The text a unit is embedded from: its title and text.
pub fn embedding_text(title: &str, text: &str) -> String {
    if title.is_empty() || text.starts_with(title) {
        text.to_string()
    } else {
        format!("{title}\n{text}")
    }
}

/// The text a stored unit is embedded from: [`embedding_text`] headed by its file's folder
/// and name ([`file_context`]) when the title does not already hold them. A sheet's rows
/// titled "Paces", a memo's sentence titled "Speech 0:05–0:10" or a page of a report say
/// on their own nothing of the file they belong to; where the file is and what it is
/// called ("Running / Half marathon training plan", "Voice Memos / race plan") is the
/// context a person remembers them by. Lexical search has the name and the folders as
/// fields of their own; this gives the dense side the same (docs/benchmarks.md, "The
/// dense side reads where a unit is").
pub fn unit_embedding_text(path: &str, title: &str, text: &str) -> String {
    let base = embedding_text(title, text);
    headed(path, title, &base).unwrap_or(base)
}

/// `base` (a unit's [`embedding_text`]) headed by its file's [`file_context`]; `None`
/// when there is none, or the title or `base` already holds it.
fn headed(path: &str, title: &str, base: &str) -> Option<String> {
    let context = file_context(path)?;
    (!title.to_lowercase().contains(&context.to_lowercase()) && !base.starts_with(&context))
        .then(|| format!("{context}\n{base}"))
}

/// Whether a stored text vector of `vector_hash` was made from this unit as it is: from
/// [`unit_embedding_text`], or — until the next indexing run embeds it again (its file's
/// marker lacks [`NAMED_MARK`]) — from the [`embedding_text`] of before, which is still a
/// vector of the same text, and far better than none for dense search meanwhile.
pub fn vector_is_current(vector_hash: &str, path: &str, title: &str, text: &str) -> bool {
    let plain = embedding_text(title, text);
    text_hash(&plain) == vector_hash
        || headed(path, title, &plain).is_some_and(|headed| text_hash(&headed) == vector_hash)
}

/// What a file's place says of a unit: the words of the folder holding the file and of
/// the file's own name, `folder / name` ("Running / Half marathon training plan",
/// "Voice Memos / race plan"). Words are split at spaces, `_` and `.`, and a piece holding
/// a digit is left out (dates, counters, invoice numbers). The name counts only when
/// what is left of it has a word of three letters or more with a lower-case letter
/// (not `IMG_20190416_112208`, `PXL_…`, `README`); the folder when anything is left of
/// it. An attachment's folder is its container's (`Mail/Inbox/x.eml#attachment/q.pdf`:
/// `Inbox`). `None` when neither says anything (a photo in `Pictures/2025/08`, a file at
/// the profile's root without a telling name).
pub fn file_context(path: &str) -> Option<String> {
    let (container, name) = match path.split_once(crate::path::ATTACHMENT_MARKER) {
        Some((container, name)) => (container, name),
        None => (path, path),
    };
    let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.contains(' ') => stem,
        _ => name,
    };
    let words = |piece: &str| -> String {
        piece
            .split(|c: char| c.is_whitespace() || c == '_' || c == '.')
            .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_ascii_digit()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let name = words(stem);
    let telling = name.split(' ').any(|w| {
        w.chars().filter(|c| c.is_alphabetic()).count() >= 3 && w.chars().any(char::is_lowercase)
    });
    let folder = container
        .rsplit(['/', '\\'])
        .nth(1)
        .map(words)
        .filter(|f| !f.is_empty());
    match (folder, telling) {
        (Some(folder), true) => Some(format!("{folder} / {name}")),
        (Some(folder), false) => Some(folder),
        (None, true) => Some(name),
        (None, false) => None,
    }
}

/// BLAKE3 (hex, 32 chars) of the embedding text: vectors are reused for unchanged text.
pub fn text_hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..32].to_string()
}

/// The text model of vectors written before each vector recorded its model: MiniLM's
/// packaged graph (`models/minilm/model.onnx`).
pub const LEGACY_TEXT_MODEL: &str = "all-MiniLM-L6-v2-int8";

/// The mark of text vectors whose long texts were embedded as windows, one vector each
/// (see [`embedded_marker`]).
pub const WINDOWS_MARK: &str = "+windows";

/// Tokens of text one window holds: the text model's 256 less its two special tokens
/// (see `indexer::windows`).
pub const WINDOW_TOKENS: usize = 254;

/// Whether a text surely fits one window without tokenising it: a token covers at
/// least one character.
pub fn fits_one_window(text: &str) -> bool {
    text.len() <= WINDOW_TOKENS || text.chars().count() <= WINDOW_TOKENS
}

/// Windows of one long text at most, unless a run says otherwise (`--text-windows`).
pub const DEFAULT_TEXT_WINDOWS: usize = 16;

/// The mark of text vectors made with at most `windows` windows per text: none for one
/// (a long text's first window only, as vectors were before windows), [`WINDOWS_MARK`]
/// for [`DEFAULT_TEXT_WINDOWS`], `+windowsN` otherwise.
pub fn windows_mark(windows: usize) -> String {
    match windows {
        0 | 1 => String::new(),
        DEFAULT_TEXT_WINDOWS => WINDOWS_MARK.to_string(),
        n => format!("{WINDOWS_MARK}{n}"),
    }
}

/// What a file's `embedded` column holds once its text vectors are complete for
/// `content_hash` under `model` with at most `windows` windows per text:
/// `hash@model+windows+named` by default (see [`windows_mark`], [`NAMED_MARK`]). A file whose marker differs
/// is embedded again, so a model change re-embeds every file on the next run; a file
/// embedded with other windows (or before long texts had windows: its marker is the bare
/// hash for [`LEGACY_TEXT_MODEL`], else `hash@model`) is visited again, and only its
/// long texts go through the model (the others' vectors are reused).
pub fn embedded_marker(content_hash: &str, model: &str, windows: usize) -> String {
    format!(
        "{content_hash}@{model}{}{NAMED_MARK}",
        windows_mark(windows)
    )
}

/// The mark, last in a file's `embedded` marker, of text vectors made from
/// [`unit_embedding_text`] (headed by the file's name). A file embedded before has no
/// such mark: it is visited again and its units embedded anew (their texts changed), but
/// it does not count as another model's.
pub const NAMED_MARK: &str = "+named";

/// The vectors of some stored vector bytes: one per window of the unit's text (one for
/// a text the model saw whole), each of `dim` components; `None` when the bytes are
/// not a whole number of such vectors.
pub fn windows_from_bytes(bytes: &[u8], dim: usize) -> Option<Vec<f32>> {
    from_bytes(bytes).filter(|v| dim > 0 && !v.is_empty() && v.len().is_multiple_of(dim))
}

/// The best dot product of `query` with any of the `windows` (consecutive vectors of
/// `query`'s length), and that window's index.
pub fn best_window(
    query: &[f32],
    windows: &[f32],
    dot: impl Fn(&[f32], &[f32]) -> f32,
) -> Option<(f32, usize)> {
    if query.is_empty() {
        return None;
    }
    let n = query.len();
    best_of(windows.len() / n, |i| {
        dot(query, &windows[i * n..(i + 1) * n])
    })
}

/// The best of `n` scores (`score(0)`…`score(n - 1)`) and its index, the first among
/// equals; `None` when `n` is 0.
pub fn best_of(n: usize, score: impl Fn(usize) -> f32) -> Option<(f32, usize)> {
    (0..n)
        .map(|i| (score(i), i))
        .fold(None, |best: Option<(f32, usize)>, (score, i)| match best {
            Some((b, _)) if b >= score => best,
            _ => Some((score, i)),
        })
}

/// Little-endian f32 bytes of a vector (the storage format).
pub fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The inverse of [`to_bytes`]; `None` for a length that is not a multiple of 4.
pub fn from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_is_embedded_under_its_folder_and_file_name_when_they_say_something() {
        let context = |path| file_context(path);
        assert_eq!(
            context("Documents/Running/Half marathon training plan.xlsx").as_deref(),
            Some("Running / Half marathon training plan")
        );
        assert_eq!(
            context("Voice Memos/race plan 2025-10-16.wav").as_deref(),
            Some("Voice Memos / race plan")
        );
        // An attachment: its own name, its container's folder (nested ones too).
        assert_eq!(
            context("Mail/Inbox/x.eml#attachment/Site_visit.notes.pdf").as_deref(),
            Some("Inbox / Site visit notes")
        );
        assert_eq!(
            context("Mail/x.eml#attachment/y.eml#attachment/Budget.xlsx").as_deref(),
            Some("Mail / Budget")
        );
        // A name without telling words leaves the folder; a folder of digits, the name.
        assert_eq!(
            context("Business/Invoices/INV-2025-008.pdf").as_deref(),
            Some("Invoices")
        );
        assert_eq!(
            context("Pictures/Camera Roll/IMG_1234.HEIC").as_deref(),
            Some("Camera Roll")
        );
        assert_eq!(
            context("Notes/2025/weekly review.md").as_deref(),
            Some("weekly review")
        );
        assert_eq!(context("survey.md").as_deref(), Some("survey"));
        for nothing in [
            "Pictures/2025/08/PXL_20250817_103050.jpg",
            "README",
            "4983.txt",
        ] {
            assert_eq!(context(nothing), None, "{nothing}");
        }
        assert_eq!(
            unit_embedding_text(
                "Running/Half marathon training plan.xlsx",
                "Paces",
                "Goal | 1:50"
            ),
            "Running / Half marathon training plan\nPaces\nGoal | 1:50"
        );
        // A title that already holds the context is not headed twice.
        assert_eq!(
            unit_embedding_text("survey.md", "survey.md", "Soil"),
            "survey.md\nSoil"
        );
        assert_eq!(
            unit_embedding_text("Pictures/2025/PXL_20250817_103050.jpg", "", "a dog"),
            "a dog"
        );
    }

    #[test]
    fn a_vector_of_the_text_before_file_names_serves_until_it_is_replaced() {
        let (path, title, text) = ("Running/plan.xlsx", "Paces", "Goal | 1:50");
        let now = text_hash(&unit_embedding_text(path, title, text));
        let before = text_hash(&embedding_text(title, text));
        assert!(vector_is_current(&now, path, title, text));
        assert!(vector_is_current(&before, path, title, text));
        assert!(!vector_is_current(&before, path, title, "Goal | 1:45"));
        // Made under another file's name (before a move): stale.
        let elsewhere = text_hash(&unit_embedding_text("Archive/old plan.xlsx", title, text));
        assert!(!vector_is_current(&elsewhere, path, title, text));
    }

    #[test]
    fn bytes_round_trip_and_normalisation() {
        let mut v = vec![3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
        assert_eq!(from_bytes(&to_bytes(&v)).unwrap(), v);
        assert!(from_bytes(&[1, 2, 3]).is_none());
        assert_eq!(embedding_text("T", "T and more"), "T and more");
        assert_eq!(embedding_text("T", "body"), "T\nbody");
        assert_eq!(text_hash("x").len(), 32);
        assert_eq!(
            embedded_marker("h", LEGACY_TEXT_MODEL, DEFAULT_TEXT_WINDOWS),
            "h@all-MiniLM-L6-v2-int8+windows+named"
        );
        assert_eq!(embedded_marker("h", "m-q8", 16), "h@m-q8+windows+named");
        // One window is what vectors were before windows; other counts are marked.
        assert_eq!(embedded_marker("h", "m-q8", 1), "h@m-q8+named");
        assert_eq!(embedded_marker("h", "m-q8", 4), "h@m-q8+windows4+named");
    }

    #[test]
    fn a_unit_scores_by_its_best_window() {
        let windows = [1.0, 0.0, 0.0, 1.0, 0.6, 0.8];
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        assert_eq!(best_window(&[0.0, 1.0], &windows, dot), Some((1.0, 1)));
        assert_eq!(best_window(&[1.0, 0.0], &windows, dot), Some((1.0, 0)));
        assert_eq!(best_window(&[], &windows, dot), None);
        let bytes = to_bytes(&windows);
        assert_eq!(windows_from_bytes(&bytes, 2).unwrap().len(), 6);
        assert!(windows_from_bytes(&bytes, 4).is_none());
        assert!(windows_from_bytes(&[], 2).is_none());
    }
}
