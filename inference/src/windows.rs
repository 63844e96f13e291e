//! Windows of a long text for the text model, which sees [`MAX_TOKENS`] tokens: a text
//! longer than that is embedded as overlapping windows (each its own vector, stored
//! together as the unit's vector), so its last page is searchable by meaning too. A
//! unit's dense score is its best window's (see `index::embedded::ExactStore`).
//!
//! Windows follow the model's own tokens (the WordPiece tokenizer of the graph, no
//! truncation): each holds at most [`WINDOW_TOKENS`] of them, starts and ends on a word
//! boundary, and overlaps the one before by [`WINDOW_OVERLAP`] tokens. At most
//! [`MAX_WINDOWS`] windows are made (fewer with [`Windower::with_max_windows`], the
//! indexer's `--text-windows`); a text too long for them at the normal stride gets a
//! wider one, so its windows are spread over all of it. With one window, a long text is
//! its first window only.

use std::ops::Range;

/// Tokens per text the text model sees (longer texts are truncated).
pub const MAX_TOKENS: usize = 256;

/// Tokens of a window's text: the model's window less its two special tokens.
pub use index::vector::WINDOW_TOKENS;
const _: () = assert!(WINDOW_TOKENS == MAX_TOKENS - 2);
/// Tokens a window shares with the one before it.
pub const WINDOW_OVERLAP: usize = 64;
/// Windows of one text at most, by default (a unit's vector bytes grow by one vector
/// per window).
pub const MAX_WINDOWS: usize = index::vector::DEFAULT_TEXT_WINDOWS;

/// Splits texts into model windows with the text model's tokenizer.
#[derive(Clone)]
pub struct Windower {
    tokenizer: tokenizers::Tokenizer,
    max_windows: usize,
}

impl Windower {
    /// A windower for the tokenizer a text model runs with (its truncation and padding
    /// are switched off here: windows need every token of the text).
    pub fn new(tokenizer: &tokenizers::Tokenizer) -> Windower {
        let mut tokenizer = tokenizer.clone();
        tokenizer.with_padding(None);
        // Switching truncation off cannot fail (only a too-short limit can).
        let _ = tokenizer.with_truncation(None);
        Windower {
            tokenizer,
            max_windows: MAX_WINDOWS,
        }
    }

    /// At most `max_windows` windows per text (at least one).
    pub fn with_max_windows(mut self, max_windows: usize) -> Windower {
        self.max_windows = max_windows.max(1);
        self
    }

    /// The byte ranges of `text`'s windows, in order: one range over the whole text
    /// when it fits the model (or cannot be tokenised).
    pub fn windows(&self, text: &str) -> Vec<Range<usize>> {
        self.windows_upto(text, self.max_windows)
    }

    /// [`Windower::windows`] with at most `max_windows` windows: a text embedded as `n`
    /// windows has the same `n` windows again with `max_windows` `n`, whether or not they
    /// were spread wider.
    pub fn windows_upto(&self, text: &str, max_windows: usize) -> Vec<Range<usize>> {
        if index::vector::fits_one_window(text) {
            return whole(text);
        }
        let Ok(encoding) = self.tokenizer.encode(text, false) else {
            return whole(text);
        };
        let offsets: Vec<(usize, usize)> = encoding.get_offsets().to_vec();
        plan(&offsets, encoding.get_word_ids(), text, max_windows)
    }

    /// The texts of `text`'s windows (see [`Windower::windows`]).
    pub fn window_texts(&self, text: &str) -> Vec<String> {
        self.windows(text)
            .into_iter()
            .map(|range| text[range].to_string())
            .collect()
    }
}

/// The one window of a text the model sees whole.
fn whole(text: &str) -> Vec<Range<usize>> {
    std::iter::once(0..text.len()).collect()
}

/// At most `max_windows` windows over tokens with these byte `offsets` and word ids in
/// `text` (see the module's documentation).
pub fn plan(
    offsets: &[(usize, usize)],
    words: &[Option<u32>],
    text: &str,
    max_windows: usize,
) -> Vec<Range<usize>> {
    let max_windows = max_windows.max(1);
    let n = offsets.len();
    if n <= WINDOW_TOKENS {
        return whole(text);
    }
    let starts_word = |i: usize| {
        i == 0
            || i >= n
            || words.get(i).copied().flatten().is_none()
            || words.get(i) != words.get(i - 1)
    };
    let spread = match max_windows {
        1 => 0,
        n_windows => (n - WINDOW_TOKENS).div_ceil(n_windows - 1),
    };
    let stride = (WINDOW_TOKENS - WINDOW_OVERLAP).max(spread);
    let byte = |at: usize| {
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut start = 0usize;
    loop {
        let mut end = (start + WINDOW_TOKENS).min(n);
        if end < n {
            // End before a word that the window would cut.
            let mut back = end;
            while back > start + 1 && !starts_word(back) {
                back -= 1;
            }
            if back > start + 1 {
                end = back;
            }
        }
        let from = if out.is_empty() {
            0
        } else {
            byte(offsets[start].0)
        };
        let to = if end >= n {
            text.len()
        } else {
            byte(offsets[end - 1].1)
        };
        if from < to {
            out.push(from..to);
        }
        if end >= n || out.len() == max_windows {
            break;
        }
        let mut next = start + stride;
        if next + WINDOW_TOKENS > n {
            // The last window ends with the text (and overlaps more).
            next = n - WINDOW_TOKENS;
        }
        while next < n && !starts_word(next) {
            next += 1;
        }
        // Past `end` only when the text is too long for `max_windows` overlapping windows.
        start = next.clamp(start + 1, n - 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` one-token words of `width` bytes each, separated by spaces.
    fn words(n: usize) -> (String, Vec<(usize, usize)>, Vec<Option<u32>>) {
        let mut text = String::new();
        let mut offsets = Vec::new();
        for i in 0..n {
            if i > 0 {
                text.push(' ');
            }
            let start = text.len();
            text.push_str(&format!("w{i:05}"));
            offsets.push((start, text.len()));
        }
        let ids = (0..n as u32).map(Some).collect();
        (text, offsets, ids)
    }

    #[test]
    fn a_text_that_fits_is_one_window() {
        let (text, offsets, ids) = words(WINDOW_TOKENS);
        assert_eq!(plan(&offsets, &ids, &text, MAX_WINDOWS), whole(&text));
    }

    #[test]
    fn long_texts_get_overlapping_windows_that_cover_them() {
        for n in [WINDOW_TOKENS + 1, 600, 1000, 3000] {
            let (text, offsets, ids) = words(n);
            let windows = plan(&offsets, &ids, &text, MAX_WINDOWS);
            assert!(windows.len() >= 2, "{n}");
            assert_eq!(windows[0].start, 0);
            assert_eq!(windows.last().unwrap().end, text.len());
            for pair in windows.windows(2) {
                // Overlapping, moving forward.
                assert!(pair[1].start < pair[0].end, "{n}: {pair:?}");
                assert!(pair[1].start > pair[0].start, "{n}: {pair:?}");
            }
            for window in &windows {
                let tokens = offsets
                    .iter()
                    .filter(|(s, e)| *s >= window.start && *e <= window.end)
                    .count();
                assert!(tokens <= WINDOW_TOKENS, "{n}: {tokens}");
                // Whole words only.
                assert!(text[window.clone()].trim().starts_with('w'), "{n}");
            }
        }
    }

    #[test]
    fn very_long_texts_spread_at_most_max_windows_over_all_of_it() {
        let (text, offsets, ids) = words(20_000);
        let windows = plan(&offsets, &ids, &text, MAX_WINDOWS);
        assert_eq!(windows.len(), MAX_WINDOWS);
        assert_eq!(windows.last().unwrap().end, text.len());
    }

    #[test]
    fn fewer_windows_spread_wider_and_one_is_the_first() {
        let (text, offsets, ids) = words(3000);
        let four = plan(&offsets, &ids, &text, 4);
        assert_eq!(four.len(), 4);
        assert_eq!((four[0].start, four[3].end), (0, text.len()));
        // A text that needs no more windows than allowed gets the same ones.
        let (short, offsets_short, ids_short) = words(600);
        assert_eq!(
            plan(&offsets_short, &ids_short, &short, 4),
            plan(&offsets_short, &ids_short, &short, MAX_WINDOWS)
        );
        // One window: the text's first WINDOW_TOKENS tokens, as vectors were before
        // windows.
        let first = plan(&offsets, &ids, &text, 1);
        assert_eq!(first, vec![0..offsets[WINDOW_TOKENS - 1].1]);
        assert_eq!(plan(&offsets, &ids, &text, 0), first);
        // A text's windows are found again from their number (the daemon's snippets).
        for (text, offsets, ids) in [words(600), words(3000)] {
            for most in [1, 2, 4, MAX_WINDOWS] {
                let made = plan(&offsets, &ids, &text, most);
                assert_eq!(plan(&offsets, &ids, &text, made.len()), made, "{most}");
            }
        }
    }

    #[test]
    fn windows_do_not_cut_a_word_in_pieces() {
        // Every word is three tokens (a piece and two continuations).
        let mut text = String::new();
        let mut offsets = Vec::new();
        let mut ids = Vec::new();
        for word in 0..400u32 {
            if word > 0 {
                text.push(' ');
            }
            for piece in ["abc", "def", "ghi"] {
                let start = text.len();
                text.push_str(piece);
                offsets.push((start, text.len()));
                ids.push(Some(word));
            }
        }
        for window in plan(&offsets, &ids, &text, MAX_WINDOWS) {
            let part = text[window].trim();
            assert!(part.starts_with("abc") && part.ends_with("ghi"), "{part}");
        }
    }

    #[test]
    fn the_model_tokenizer_splits_a_long_text() {
        let models = crate::embed::test_models_dir("minilm");
        let Ok(encoder) = crate::embed::TextEncoder::load(&models, 1) else {
            eprintln!("skipped: no text model (run scripts/fetch-models)");
            return;
        };
        let windower = encoder.windower();
        assert_eq!(windower.windows("short text"), whole("short text"));
        let text = (0..400)
            .map(|i| format!("Sentence number {i} says little."))
            .collect::<Vec<_>>()
            .join(" ");
        let windows = windower.window_texts(&text);
        assert!(windows.len() >= 8, "{}", windows.len());
        assert!(windows[0].starts_with("Sentence number 0 "));
        assert!(windows.last().unwrap().ends_with("number 399 says little."));
        let first = encoder.windower().with_max_windows(1).window_texts(&text);
        assert_eq!(first, windows[..1]);
    }
}
