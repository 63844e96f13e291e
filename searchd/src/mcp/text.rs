//! Short text renderings of tool replies (an agent reads these when it ignores the
//! structured content), and snippets as plain text with `**matches**`.

/// A highlighted snippet (`<b>` marks, HTML-escaped) as plain text with `**` marks.
pub fn plain_snippet(html: &str) -> String {
    let marked = html.replace("<b>", "**").replace("</b>", "**");
    unescape(&marked)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Undoes the HTML escaping of snippets (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&#39;", '\''),
            ("&#x27;", '\''),
        ]
        .into_iter()
        .find(|(name, _)| rest.starts_with(name));
        match entity {
            Some((name, c)) => {
                out.push(c);
                rest = &rest[name.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// At most `limit` characters of `text`, with `…` when cut.
pub fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// [`clip`] for text with `**` marks: a mark left open by the cut is closed.
pub fn clip_marked(text: &str, limit: usize) -> String {
    let mut cut = clip(text, limit);
    if cut.matches("**").count() % 2 == 1 {
        cut.push_str("**");
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_inside_a_mark_closes_it() {
        assert_eq!(
            clip_marked("**Children**'s **books**", 18),
            "**Children**'s **b…**"
        );
        assert_eq!(clip_marked("a **b** c", 4), "a **…**");
        assert_eq!(clip_marked("a **b** c", 20), "a **b** c");
    }

    #[test]
    fn snippets_become_plain_text() {
        assert_eq!(
            plain_snippet("the <b>vet</b> &amp; the\n <b>invoice</b> &lt;3 &#39;ok&#39; &x"),
            "the **vet** & the **invoice** <3 'ok' &x"
        );
    }

    #[test]
    fn clipping_counts_characters() {
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("hé", 2), "hé");
    }
}
