//! The token budget's measure, shared by the text, sheet and log converters (a leaf).

/// Approximate token count of a text (WordPiece-like: ~1.3 per word, long words more).
pub fn approx_tokens(text: &str) -> usize {
    text.split_whitespace()
        .map(|w| 1 + w.chars().count() / 6)
        .sum()
}
