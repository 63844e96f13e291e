//! Snippets: a unit's highlighted best fragment, else its escaped beginning (or the
//! window that found it), cut to [`SNIPPET_CHARS`].

use tantivy::snippet::SnippetGenerator;

/// Snippet length in characters.
pub(crate) const SNIPPET_CHARS: usize = 240;

/// A unit's snippet: the highlighted best fragment, else its escaped beginning.
pub(crate) fn snippet_of(snippets: Option<&SnippetGenerator>, text: &str) -> String {
    snippet_in(snippets, text, || None)
}

/// [`snippet_of`], where a text without a highlighted fragment starts at the byte `from`
/// gives (the window that found it; asked only then), after an ellipsis.
pub(crate) fn snippet_in(
    snippets: Option<&SnippetGenerator>,
    text: &str,
    from: impl FnOnce() -> Option<usize>,
) -> String {
    if let Some(snippet) = snippets.map(|g| g.snippet(text)).filter(|s| !s.is_empty()) {
        return snippet.to_html();
    }
    match from().filter(|&at| text.is_char_boundary(at)) {
        Some(at) => format!(
            "…{}",
            html_escape(&truncate_chars(text[at..].trim_start(), SNIPPET_CHARS))
        ),
        None => html_escape(&truncate_chars(text, SNIPPET_CHARS)),
    }
}

pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

pub(crate) fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
