//! Page-equivalents for the word processors (docx, odt), which store no pages. The
//! converters push paragraph lines and table rows into a [`PageBuilder`] and mark the
//! breaks they find; soft breaks never make an empty page, and breaks inside a table
//! wait for the end of its row. [`PageBuilder::finish`] cuts a page above the caller's
//! limit into ~[`PAGE_TARGET_TOKENS`] pieces at line boundaries (an over-long line first
//! at sentence ends) and titles every page with its first heading, else the last one
//! before it; [`pages_to_units`] makes them [`UnitKind::Page`] units.

use super::ooxml::short_title;
use crate::text::{approx_tokens, chunk_text, ChunkOptions};
use crate::{Locator, Unit, UnitKind};

/// A page-equivalent closes once it holds about this many tokens (~450 words, one
/// printed page)…
pub(crate) const PAGE_TARGET_TOKENS: usize = 500;

/// …and a line is never added past this many.
pub(crate) const PAGE_MAX_TOKENS: usize = 650;

/// Pages bounded by rendered page breaks are only split when larger than this.
pub(crate) const RENDERED_PAGE_MAX_TOKENS: usize = 1500;

/// Why a new page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PageBreak {
    /// A break that only starts a page when the current one already has text (rendered
    /// page breaks, page-break-before, section breaks): never makes an empty page.
    Soft,
    /// An explicit page break: always starts a page.
    Hard,
}

#[derive(Debug, Default)]
struct PageLine {
    text: String,
    heading: bool,
}

#[derive(Debug, Default)]
struct PageBuf {
    lines: Vec<PageLine>,
}

/// Collects paragraph lines and table rows into pages. Breaks met inside a table are
/// applied after the row they occur in, so rows are never cut.
#[derive(Debug)]
pub(crate) struct PageBuilder {
    pages: Vec<PageBuf>,
    /// Open table rows (nested tables nest), each a list of finished cells.
    rows: Vec<Vec<String>>,
    /// Open table cells, each a list of lines.
    cells: Vec<Vec<String>>,
    pending: Option<PageBreak>,
}

impl Default for PageBuilder {
    fn default() -> Self {
        PageBuilder {
            pages: vec![PageBuf::default()],
            rows: Vec::new(),
            cells: Vec::new(),
            pending: None,
        }
    }
}

/// One finished page-equivalent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Page {
    pub(crate) number: u32,
    pub(crate) title: Option<String>,
    pub(crate) text: String,
}

impl PageBuilder {
    /// Adds a paragraph (or table row) line; blank lines are dropped. A heading line
    /// may become the title of its page.
    pub(crate) fn push_line(&mut self, text: &str, heading: bool) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if let Some(cell) = self.cells.last_mut() {
            cell.push(text.to_string());
            return;
        }
        if let Some(page) = self.pages.last_mut() {
            page.lines.push(PageLine {
                text: text.to_string(),
                heading,
            });
        }
    }

    /// Whether a table cell is open (lines go to the cell, breaks are deferred).
    pub(crate) fn in_table(&self) -> bool {
        !self.rows.is_empty()
    }

    /// Starts a new page (deferred to the end of the current table row inside tables).
    pub(crate) fn page_break(&mut self, kind: PageBreak) {
        if self.in_table() {
            self.pending = self.pending.max(Some(kind));
            return;
        }
        let empty = self.pages.last().is_none_or(|p| p.lines.is_empty());
        if kind == PageBreak::Soft && empty {
            return;
        }
        self.pages.push(PageBuf::default());
    }

    pub(crate) fn start_row(&mut self) {
        self.rows.push(Vec::new());
    }

    pub(crate) fn start_cell(&mut self) {
        self.cells.push(Vec::new());
    }

    /// Closes a cell: its lines joined by spaces become one cell of the open row.
    pub(crate) fn end_cell(&mut self) {
        let Some(lines) = self.cells.pop() else {
            return;
        };
        if let Some(row) = self.rows.last_mut() {
            row.push(lines.join(" "));
        }
    }

    /// Closes a row: its cells joined by " | " become one line.
    pub(crate) fn end_row(&mut self) {
        let Some(mut cells) = self.rows.pop() else {
            return;
        };
        while cells.last().is_some_and(|c| c.trim().is_empty()) {
            cells.pop();
        }
        if !cells.is_empty() {
            self.push_line(&cells.join(" | "), false);
        }
        if !self.in_table() {
            if let Some(kind) = self.pending.take() {
                self.page_break(kind);
            }
        }
    }

    /// Finishes the pages. A page above `split_over` tokens is cut into ~500-token
    /// page-equivalents along line (paragraph) boundaries. Pages are numbered from 1;
    /// empty pages keep their number but are dropped. A page without a heading takes
    /// the last heading before it as its title.
    pub(crate) fn finish(mut self, split_over: usize) -> Vec<Page> {
        while !self.cells.is_empty() || !self.rows.is_empty() {
            if self.cells.len() >= self.rows.len() && !self.cells.is_empty() {
                self.end_cell();
            } else {
                self.end_row();
            }
        }
        let mut pieces: Vec<Vec<PageLine>> = Vec::new();
        for page in self.pages {
            let tokens: usize = page.lines.iter().map(|l| approx_tokens(&l.text)).sum();
            if tokens > split_over {
                pieces.extend(split_page(page.lines));
            } else {
                pieces.push(page.lines);
            }
        }
        let mut pages = Vec::new();
        let mut last_heading: Option<String> = None;
        for (index, lines) in pieces.into_iter().enumerate() {
            let own_heading = lines
                .iter()
                .find(|l| l.heading)
                .map(|l| short_title(&l.text));
            let title = own_heading.clone().or_else(|| last_heading.clone());
            if let Some(last) = lines.iter().rev().find(|l| l.heading) {
                last_heading = Some(short_title(&last.text));
            }
            if lines.is_empty() {
                continue;
            }
            let text = lines
                .iter()
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            pages.push(Page {
                number: u32::try_from(index + 1).unwrap_or(u32::MAX),
                title,
                text,
            });
        }
        pages
    }
}

/// Splits one over-long page into ~[`PAGE_TARGET_TOKENS`] pieces at line boundaries;
/// a single over-long line is first cut at sentence ends.
fn split_page(lines: Vec<PageLine>) -> Vec<Vec<PageLine>> {
    let options = ChunkOptions {
        target_tokens: PAGE_TARGET_TOKENS,
        max_tokens: PAGE_MAX_TOKENS,
        overlap_tokens: 0,
    };
    let mut expanded = Vec::new();
    for line in lines {
        if approx_tokens(&line.text) > PAGE_MAX_TOKENS {
            let flat = line.text.replace('\n', " ");
            for (i, span) in chunk_text(&flat, options).into_iter().enumerate() {
                expanded.push(PageLine {
                    text: span.text,
                    heading: line.heading && i == 0,
                });
            }
        } else {
            expanded.push(line);
        }
    }
    let mut pieces = Vec::new();
    let mut current: Vec<PageLine> = Vec::new();
    let mut tokens = 0usize;
    for line in expanded {
        let next = approx_tokens(&line.text);
        if tokens > 0 && tokens + next > PAGE_MAX_TOKENS {
            pieces.push(std::mem::take(&mut current));
            tokens = 0;
        }
        tokens += next;
        current.push(line);
        if tokens >= PAGE_TARGET_TOKENS {
            pieces.push(std::mem::take(&mut current));
            tokens = 0;
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Turns pages into page units.
pub(crate) fn pages_to_units(pages: Vec<Page>) -> Vec<Unit> {
    pages
        .into_iter()
        .map(|page| {
            let unit = Unit::new(UnitKind::Page, Locator::page(page.number), page.text);
            match page.title {
                Some(title) => unit.with_title(title),
                None => unit,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{self, Rng};

    #[test]
    fn builder_breaks_and_splits() {
        let mut b = PageBuilder::default();
        b.page_break(PageBreak::Soft); // ignored: empty page
        b.push_line("Intro", true);
        b.push_line("one", false);
        b.page_break(PageBreak::Soft);
        b.page_break(PageBreak::Soft); // ignored
        b.push_line("two", false);
        b.start_row();
        b.start_cell();
        b.push_line("a", false);
        b.page_break(PageBreak::Hard); // deferred to row end
        b.end_cell();
        b.start_cell();
        b.push_line("b", false);
        b.end_cell();
        b.end_row();
        b.push_line("three", false);
        let pages = b.finish(RENDERED_PAGE_MAX_TOKENS);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages[1].text, "two\na | b");
        assert_eq!(pages[1].title.as_deref(), Some("Intro"));
        assert_eq!(pages[2].number, 3);

        let mut long = PageBuilder::default();
        for i in 0..300 {
            long.push_line(&format!("paragraph {i} with some words in it"), false);
        }
        let pages = long.finish(PAGE_MAX_TOKENS);
        assert!(pages.len() > 3, "{}", pages.len());
        assert!(pages
            .iter()
            .all(|p| approx_tokens(&p.text) <= PAGE_MAX_TOKENS));
    }

    #[test]
    fn page_builder_keeps_every_line_under_random_structure() {
        let mut rng = Rng(0x0C0C_0000_0000_0003);
        for _ in 0..500 {
            let mut builder = PageBuilder::default();
            let mut lines = Vec::new();
            // Tables nest as the converters drive them: cells inside rows, rows at the
            // top level or inside cells; whatever is open at the end is left to `finish`.
            let mut open: Vec<bool> = Vec::new(); // true: a cell, false: a row
            for _ in 0..rng.size(60) {
                match rng.below(7) {
                    0..=2 => {
                        let line = testutil::random_text(&mut rng, testutil::TEXT_PIECES, 12);
                        builder.push_line(&line, rng.one_in(4));
                        if !line.trim().is_empty() {
                            lines.push(line.trim().to_string());
                        }
                    }
                    3 => builder.page_break(*rng.pick(&[PageBreak::Soft, PageBreak::Hard])),
                    4 if open.last() != Some(&false) => {
                        builder.start_row();
                        open.push(false);
                    }
                    4 => {
                        builder.start_cell();
                        open.push(true);
                    }
                    _ => match open.pop() {
                        Some(true) => builder.end_cell(),
                        Some(false) => builder.end_row(),
                        None => {}
                    },
                }
            }
            let pages = builder.finish(usize::MAX);
            for pair in pages.windows(2) {
                assert!(pair[0].number < pair[1].number);
            }
            assert!(pages
                .iter()
                .all(|p| p.number >= 1 && !p.text.trim().is_empty()));
            let all: String = pages
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            for line in &lines {
                assert!(all.contains(line.as_str()), "{line:?} lost from {all:?}");
            }
        }
    }
}
