//! Text-like files → [`UnitKind::Span`] units, and the text helpers other converters
//! share.
//!
//! - Plain text (txt, md, log, json, code): decoded by [`decode_text`] (UTF-8, UTF-16
//!   with a BOM, else Latin-1) and cut into spans.
//! - HTML: rendered as text by [`html_to_text`] (also used for HTML-only e-mail), then
//!   cut into spans whose line numbers refer to the rendered text; `<title>` becomes the
//!   file's title.
//! - Jupyter notebooks: one unit per cell (source, then text outputs), located by the
//!   cell's line range in the raw JSON, as HippoCamp's locators do.
//!
//! Spans are line-aligned (so every unit has an exact `line_start..line_end`), sized by
//! [`approx_tokens`] (~1.3 tokens per whitespace-separated word, the ratio of WordPiece
//! on English prose; public, so the daemon counts tokens the same way), and overlap by a
//! few trailing lines. A single line longer than the budget (minified JSON, a paragraph
//! without breaks) is split at sentence ends, or at word boundaries when it has none.
//! Dates that open a span's lines (journal and log entries) become its content time and
//! weekdays. The chunker also cuts the word processors' over-long pages
//! (`office::pages`).

use crate::{Conversion, ConvertError, Input, Locator, Unit, UnitKind};

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 4;

/// Chunking budget in approximate tokens.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChunkOptions {
    /// A span closes once it reaches this many tokens…
    pub(crate) target_tokens: usize,
    /// …and never grows beyond this many.
    pub(crate) max_tokens: usize,
    /// Trailing context (in tokens) repeated at the start of the next span.
    pub(crate) overlap_tokens: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            target_tokens: 320,
            max_tokens: 480,
            overlap_tokens: 40,
        }
    }
}

/// One chunk of a text, with 1-based inclusive line numbers and 0-based char offsets
/// (in `char`s, end exclusive).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Span {
    pub(crate) text: String,
    pub(crate) line_start: u64,
    pub(crate) line_end: u64,
    pub(crate) char_start: u64,
    pub(crate) char_end: u64,
}

pub use crate::tokens::approx_tokens;

/// Decodes bytes as text: UTF-8 (BOM stripped), UTF-16 with a BOM, else Latin-1.
pub(crate) fn decode_text(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return String::from_utf8_lossy(rest).into_owned();
    }
    if bytes.len() >= 2 && (bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF")) {
        let little = bytes[0] == 0xFF;
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| {
                if little {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            })
            .collect();
        return String::from_utf16_lossy(&units);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(e) if e.valid_up_to() + 4 >= bytes.len() => String::from_utf8_lossy(bytes).into_owned(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

struct Line<'t> {
    text: &'t str,
    number: u64,
    char_start: u64,
    tokens: usize,
}

/// Splits a text into line-aligned spans of roughly `options.target_tokens` tokens.
/// Blank-only texts give no spans.
pub(crate) fn chunk_text(text: &str, options: ChunkOptions) -> Vec<Span> {
    let mut lines = Vec::new();
    let mut char_pos = 0u64;
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let number = index as u64 + 1;
        let line_chars = raw.chars().count() as u64;
        let tokens = approx_tokens(line);
        if tokens > options.max_tokens {
            let mut offset = char_pos;
            for piece in split_long_line(line, options.target_tokens) {
                let piece_chars = piece.chars().count() as u64;
                lines.push(Line {
                    text: piece,
                    number,
                    char_start: offset,
                    tokens: approx_tokens(piece),
                });
                offset += piece_chars;
            }
        } else {
            lines.push(Line {
                text: line,
                number,
                char_start: char_pos,
                tokens,
            });
        }
        char_pos += line_chars + 1;
    }

    let mut spans = Vec::new();
    let mut start = 0usize;
    while start < lines.len() {
        // Skip leading blank lines.
        while start < lines.len() && lines[start].tokens == 0 {
            start += 1;
        }
        if start >= lines.len() {
            break;
        }
        let mut end = start;
        let mut tokens = 0usize;
        while end < lines.len() {
            let next = lines[end].tokens;
            if tokens > 0 && tokens + next > options.max_tokens {
                break;
            }
            tokens += next;
            end += 1;
            if tokens >= options.target_tokens {
                // Prefer to stop at a paragraph break shortly after the target.
                break;
            }
        }
        // Trailing blank lines belong to no span: the locator ends at the last text.
        let last_text = (start..end)
            .rev()
            .find(|&k| lines[k].tokens > 0)
            .unwrap_or(start);
        let chunk = &lines[start..=last_text];
        let last = &chunk[chunk.len() - 1];
        // Lines are joined by the line break they had; pieces of one long line by nothing,
        // so the text is exactly the source's between `char_start` and `char_end` (with
        // CRLF read as LF), trailing whitespace excluded.
        let mut text = String::new();
        for (k, line) in chunk.iter().enumerate() {
            if k > 0 && line.number != chunk[k - 1].number {
                text.push('\n');
            }
            text.push_str(line.text);
        }
        let text = text.trim_end().to_string();
        spans.push(Span {
            text,
            line_start: chunk[0].number,
            line_end: last.number,
            char_start: chunk[0].char_start,
            char_end: last.char_start + last.text.trim_end().chars().count() as u64,
        });
        if end >= lines.len() {
            break;
        }
        // Overlap: step back over trailing lines worth at most `overlap_tokens`, but
        // always make progress.
        let mut back = end;
        let mut overlap = 0usize;
        while back > start + 1 && overlap + lines[back - 1].tokens <= options.overlap_tokens {
            overlap += lines[back - 1].tokens;
            back -= 1;
        }
        start = if back > start && back < end {
            back
        } else {
            end
        };
    }
    spans
}

/// Splits an over-long line at sentence ends (". ", "? ", "! ", "; ") into pieces of
/// about `target` tokens; falls back to word boundaries, and cuts a run without
/// whitespace longer than [`max_word_chars`] at a character boundary. The pieces are
/// consecutive slices of `line` that together make it up exactly.
fn split_long_line(line: &str, target: usize) -> Vec<&str> {
    let target = target.max(1);
    let max_word = max_word_chars(target);
    let mut pieces = Vec::new();
    let mut piece_start = 0usize;
    let mut tokens = 0usize;
    // Byte offset just after the last sentence end's whitespace in this piece.
    let mut last_sentence_end: Option<usize> = None;
    let mut word: Option<(usize, usize)> = None; // (byte start, chars so far)
    for (i, ch) in line.char_indices() {
        if ch.is_whitespace() {
            let Some((ws, chars)) = word.take() else {
                continue;
            };
            tokens += 1 + chars / 6;
            let after = i + ch.len_utf8();
            if i > ws && matches!(line.as_bytes()[i - 1], b'.' | b'?' | b'!' | b';') {
                last_sentence_end = Some(after);
            }
            if tokens >= target {
                let cut = last_sentence_end
                    .filter(|&c| c > piece_start && c <= after)
                    .unwrap_or(after);
                pieces.push(&line[piece_start..cut]);
                piece_start = cut;
                // What follows the cut up to here stays in the next piece.
                tokens = approx_tokens(&line[cut..after]);
                last_sentence_end = None;
            }
        } else {
            let (ws, chars) = word.get_or_insert((i, 0));
            *chars += 1;
            if *chars > max_word {
                // A run without whitespace (minified data, base64): cut before this char.
                if i > piece_start {
                    pieces.push(&line[piece_start..i]);
                }
                piece_start = i;
                *ws = i;
                *chars = 1;
                tokens = 0;
                last_sentence_end = None;
            }
        }
    }
    if piece_start < line.len() {
        pieces.push(&line[piece_start..]);
    }
    pieces
}

/// The longest run of non-whitespace characters kept whole: about a span's worth of
/// characters at six per token.
fn max_word_chars(target_tokens: usize) -> usize {
    (target_tokens * 6).max(64)
}

/// Turns spans into text units.
pub(crate) fn spans_to_units(spans: Vec<Span>) -> Vec<Unit> {
    spans
        .into_iter()
        .map(|span| {
            let locator = Locator {
                line_start: Some(span.line_start),
                line_end: Some(span.line_end),
                char_start: Some(span.char_start),
                char_end: Some(span.char_end),
                ..Locator::default()
            };
            let dates = crate::record_dates::entry_dates(&span.text);
            Unit::new(UnitKind::Span, locator, span.text).with_record_dates(&dates)
        })
        .collect()
}

/// txt, md, log, json, code: line-aligned spans of the decoded text; a `.log` also
/// gets a unit per recurring kind of record ([`crate::log_records`]).
pub(crate) fn convert_text(input: &Input) -> Result<Conversion, ConvertError> {
    let text = decode_text(input.bytes);
    if text.trim().is_empty() {
        return Ok(Conversion::default());
    }
    let options = ChunkOptions::default();
    let mut units = spans_to_units(chunk_text(&text, options));
    if crate::detect::extension_of(input.name) == "log" {
        units.extend(crate::log_records::record_units(&text, options.max_tokens));
    }
    Ok(Conversion::from_units(units))
}

/// HTML: converted to text; line numbers refer to the converted text.
pub(crate) fn convert_html(input: &Input) -> Result<Conversion, ConvertError> {
    let text = html_to_text(input.bytes);
    let mut conversion =
        Conversion::from_units(spans_to_units(chunk_text(&text, ChunkOptions::default())));
    conversion.meta.title = html_title(&decode_text(input.bytes));
    Ok(conversion)
}

/// Renders HTML as plain text (tables and lists kept readable, links dropped).
pub(crate) fn html_to_text(bytes: &[u8]) -> String {
    html2text::config::plain()
        .string_from_read(bytes, 100)
        .unwrap_or_else(|_| decode_text(bytes))
}

fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title")?;
    let title = html.get(open_end..close)?.trim();
    (!title.is_empty()).then(|| title.to_string())
}

/// Jupyter notebooks: one span group per cell (markdown and code, plus text outputs).
/// Line numbers refer to the raw JSON file, as HippoCamp's locators do: each cell's
/// `source` lines are found in the raw text in order.
pub(crate) fn convert_notebook(input: &Input) -> Result<Conversion, ConvertError> {
    let raw = decode_text(input.bytes);
    let json: serde_json::Value = serde_json::from_str(&raw)
        .map_err(|e| ConvertError::corrupt("ipynb", format!("invalid JSON: {e}")))?;
    let cells = json
        .get("cells")
        .and_then(|c| c.as_array())
        .ok_or_else(|| ConvertError::corrupt("ipynb", "no \"cells\" array"))?;
    let raw_lines: Vec<&str> = raw.lines().collect();
    let mut search_from = 0usize;
    let mut units = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        let cell_type = cell
            .get("cell_type")
            .and_then(|t| t.as_str())
            .unwrap_or("code");
        let source = join_source(cell.get("source"));
        let mut text = source.clone();
        if let Some(outputs) = cell.get("outputs").and_then(|o| o.as_array()) {
            for output in outputs {
                let out = join_source(output.get("text")).to_string()
                    + &join_source(output.get("data").and_then(|d| d.get("text/plain")));
                if !out.trim().is_empty() {
                    text.push_str("\n[output]\n");
                    text.push_str(out.trim_end());
                }
            }
        }
        if text.trim().is_empty() {
            continue;
        }
        // Locate the cell's source in the raw JSON by its first non-blank line.
        let (line_start, line_end) =
            locate_cell_lines(&raw_lines, &source, &mut search_from).unwrap_or((0, 0));
        let mut locator = Locator {
            part: Some(format!("cell {} ({cell_type})", index + 1)),
            ..Locator::default()
        };
        if line_start > 0 {
            locator.line_start = Some(line_start);
            locator.line_end = Some(line_end);
        }
        units.push(Unit::new(UnitKind::Span, locator, text));
    }
    Ok(Conversion::from_units(units))
}

fn join_source(value: Option<&serde_json::Value>) -> String {
    match value {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.as_str())
            .collect::<Vec<_>>()
            .concat(),
        _ => String::new(),
    }
}

fn locate_cell_lines(
    raw_lines: &[&str],
    source: &str,
    search_from: &mut usize,
) -> Option<(u64, u64)> {
    let source_lines: Vec<&str> = source.lines().filter(|l| !l.trim().is_empty()).collect();
    let first = json_escape_fragment(source_lines.first()?);
    let last = json_escape_fragment(source_lines.last()?);
    let start = (*search_from..raw_lines.len()).find(|&i| raw_lines[i].contains(&first))?;
    let end = (start..raw_lines.len())
        .find(|&i| raw_lines[i].contains(&last))
        .unwrap_or(start);
    *search_from = end + 1;
    Some((start as u64 + 1, end as u64 + 1))
}

fn json_escape_fragment(line: &str) -> String {
    let quoted = serde_json::to_string(line.trim()).unwrap_or_default();
    quoted.trim_matches('"').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{self, Rng};

    fn options(target: usize, max: usize, overlap: usize) -> ChunkOptions {
        ChunkOptions {
            target_tokens: target,
            max_tokens: max,
            overlap_tokens: overlap,
        }
    }

    #[test]
    fn short_text_is_one_span_with_lines() {
        let spans = chunk_text("alpha beta\ngamma\n\ndelta", ChunkOptions::default());
        assert_eq!(spans.len(), 1);
        assert_eq!(spans[0].line_start, 1);
        assert_eq!(spans[0].line_end, 4);
        assert_eq!(spans[0].char_start, 0);
        assert_eq!(spans[0].char_end, 23);
    }

    #[test]
    fn long_text_is_split_with_overlap_and_covers_every_line() {
        let text: String = (1..=200)
            .map(|i| format!("line number {i} has five words"))
            .collect::<Vec<_>>()
            .join("\n");
        let spans = chunk_text(&text, options(60, 80, 12));
        assert!(spans.len() > 5, "{} spans", spans.len());
        assert_eq!(spans[0].line_start, 1);
        assert_eq!(spans.last().unwrap().line_end, 200);
        for pair in spans.windows(2) {
            assert!(pair[1].line_start <= pair[0].line_end + 1, "no gap");
            assert!(pair[1].line_start > pair[0].line_start, "progress");
            assert!(pair[1].line_start <= pair[0].line_end, "overlap");
        }
        for span in &spans {
            assert!(approx_tokens(&span.text) <= 80);
        }
    }

    #[test]
    fn char_offsets_point_into_the_text() {
        let text = "first line\nsecond line here\nthird";
        let spans = chunk_text(text, options(3, 4, 0));
        let chars: Vec<char> = text.chars().collect();
        for span in spans {
            let slice: String = chars[span.char_start as usize..span.char_end as usize]
                .iter()
                .collect();
            assert_eq!(slice, span.text);
        }
    }

    #[test]
    fn very_long_line_is_split_at_sentences() {
        let line = "This is a sentence with several words in it. ".repeat(100);
        let spans = chunk_text(&line, options(50, 70, 0));
        assert!(spans.len() > 5);
        assert!(spans.iter().all(|s| s.line_start == 1 && s.line_end == 1));
        assert!(spans[0].text.trim_end().ends_with('.'));
    }

    #[test]
    fn decoding_handles_boms_and_latin1() {
        assert_eq!(decode_text(b"\xEF\xBB\xBFhi"), "hi");
        assert_eq!(decode_text(b"\xFF\xFEh\0i\0"), "hi");
        assert_eq!(
            decode_text(b"caf\xE9 au lait, tr\xE8s bien"),
            "café au lait, très bien"
        );
    }

    #[test]
    fn notebook_cells_get_raw_json_lines() {
        let nb = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "source": [
    "# Rainfall\n",
    "October totals"
   ]
  },
  {
   "cell_type": "code",
   "outputs": [{"text": ["42.1 mm\n"]}],
   "source": [
    "total = df.sum()\n",
    "print(total)"
   ]
  }
 ]
}"##;
        let input = Input::detect("a.ipynb", nb.as_bytes());
        let conversion = convert_notebook(&input).unwrap();
        assert_eq!(conversion.units.len(), 2);
        assert_eq!(conversion.units[0].locator.line_start, Some(6));
        assert_eq!(conversion.units[0].locator.line_end, Some(7));
        assert_eq!(conversion.units[1].locator.line_start, Some(14));
        assert!(conversion.units[1].text.contains("42.1 mm"));
        assert!(convert_notebook(&Input::detect("b.ipynb", b"{\"cells\": 3")).is_err());
    }

    #[test]
    fn dated_entries_set_time_and_weekdays() {
        let journal = "# August\n2025-08-16 (Sat) long run, then a cinnamon bun\nnotes\n- 2025-08-20: pantry shift\n";
        let units = spans_to_units(chunk_text(journal, ChunkOptions::default()));
        let unit = &units[0];
        assert_eq!(unit.fields["date_start"], "2025-08-16");
        assert_eq!(unit.fields["date_end"], "2025-08-20");
        assert_eq!(unit.fields["weekdays"], "Wed,Sat");
        assert_eq!(
            unit.content_time.unwrap().to_rfc3339(),
            "2025-08-16T00:00:00+00:00"
        );
        // A date in the middle of a line is a mention, not an entry.
        let prose = spans_to_units(chunk_text(
            "the deadline is 2025-12-01 for this",
            ChunkOptions::default(),
        ));
        assert!(prose[0].fields.is_empty());
        assert_eq!(
            crate::record_dates::dates_in("9/14/2025, 14/9/2025 and 2025-09-14").len(),
            3
        );
    }

    #[test]
    fn html_becomes_text() {
        let html = b"<html><head><title>Pantry hours</title></head><body><h1>Hours</h1><p>Open <b>Wednesday</b> 5-8pm</p></body></html>";
        let conversion = convert_html(&Input::detect("a.html", html)).unwrap();
        assert_eq!(conversion.meta.title.as_deref(), Some("Pantry hours"));
        let text = &conversion.units[0].text;
        assert!(text.contains("Hours"), "{text}");
        assert!(
            text.contains("Wednesday") && text.contains("5-8pm"),
            "{text}"
        );
        assert!(!text.contains('<'), "{text}");
    }

    /// Random text stressing the cut points: long lines, no whitespace, only whitespace,
    /// multi-byte characters at every boundary, sentence marks right at the cut, CRLF.
    fn random_text(rng: &mut Rng) -> String {
        const PIECES: &[&str] = &[
            "a", "word", "é", "€", "𝄞", "漢字", " ", " ", "  ", "\t", ". ", "? ", "! ", "; ", ".",
            "\n", "\r\n", "\n\n", "\r", "\u{a0}", "\u{2003}", "x.y", "…",
        ];
        let mut out = String::new();
        let len = match rng.below(4) {
            0 => rng.below(20),
            1 => rng.below(400),
            _ => rng.below(4000),
        };
        // Some texts are one long run of one piece (no whitespace, or only whitespace).
        if rng.below(6) == 0 {
            let piece = PIECES[rng.below(PIECES.len())];
            return piece.repeat(len);
        }
        for _ in 0..len {
            out.push_str(PIECES[rng.below(PIECES.len())]);
        }
        out
    }

    /// Checks the chunker's contract on one text: spans in order, each span's text is
    /// exactly the source between its char offsets (CRLF read as LF), its line numbers are those of its first and last character, and every
    /// non-whitespace character lies in some span.
    fn check_spans(text: &str, options: ChunkOptions) {
        let spans = chunk_text(text, options);
        let chars: Vec<char> = text.chars().collect();
        let line_of = |pos: usize| 1 + chars[..pos].iter().filter(|&&c| c == '\n').count() as u64;
        let mut covered = vec![false; chars.len()];
        let mut previous: Option<&Span> = None;
        for span in &spans {
            let (start, end) = (span.char_start as usize, span.char_end as usize);
            assert!(start < end && end <= chars.len(), "{span:?} in {text:?}");
            if let Some(previous) = previous {
                assert!(span.char_start > previous.char_start, "order: {spans:?}");
                assert!(span.line_start >= previous.line_start, "order: {spans:?}");
            }
            let source: String = chars[start..end].iter().collect();
            assert_eq!(span.text, source.replace("\r\n", "\n"), "text of {span:?}");
            assert!(!span.text.trim().is_empty(), "blank span {span:?}");
            assert_eq!(span.line_start, line_of(start), "line_start of {span:?}");
            assert_eq!(span.line_end, line_of(end - 1), "line_end of {span:?}");
            covered[start..end].iter_mut().for_each(|c| *c = true);
            previous = Some(span);
        }
        for (pos, c) in chars.iter().enumerate() {
            assert!(
                covered[pos] || c.is_whitespace(),
                "char {pos} ({c:?}) is in no span of {text:?}"
            );
        }
    }

    #[test]
    fn chunker_never_panics_and_keeps_its_contract_on_random_text() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..3000 {
            let text = random_text(&mut rng);
            let target = 1 + rng.below(40);
            let options = ChunkOptions {
                target_tokens: target,
                max_tokens: target + rng.below(30),
                overlap_tokens: rng.below(10),
            };
            check_spans(&text, options);
            check_spans(&text, ChunkOptions::default());
        }
    }

    #[test]
    fn split_long_line_makes_up_the_line_exactly() {
        let mut rng = Rng(42);
        for _ in 0..3000 {
            let text = random_text(&mut rng).replace(['\n', '\r'], " ");
            let target = 1 + rng.below(50);
            let pieces = split_long_line(&text, target);
            assert_eq!(pieces.concat(), text);
            assert!(pieces.iter().all(|p| !p.is_empty()));
            let max_word = max_word_chars(target);
            for piece in &pieces {
                assert!(
                    piece
                        .split_whitespace()
                        .all(|w| w.chars().count() <= max_word),
                    "an over-long word survived in {piece:?}"
                );
            }
        }
    }

    #[test]
    fn one_paragraph_abstracts_are_chunked_without_loss() {
        // The SciFact shape that panicked: one long line whose cut falls on a whitespace
        // right after a sentence end.
        let sentence =
            "The results of a survey of 769 patients attending the clinic were analysed. ";
        for extra in 0..40 {
            let mut line = "w ".repeat(extra);
            while line.len() < 6000 {
                line.push_str(sentence);
            }
            check_spans(&line, ChunkOptions::default());
            check_spans(line.trim_end(), ChunkOptions::default());
        }
        // Minified JSON: no whitespace at all is cut into bounded spans.
        let json = "{\"k\":\"v\"},".repeat(5000);
        let spans = chunk_text(&json, ChunkOptions::default());
        assert!(spans.len() > 1);
        assert!(spans
            .iter()
            .all(|s| s.text.chars().count() <= max_word_chars(320)));
        check_spans(&json, ChunkOptions::default());
    }

    const NOTEBOOK: &str = r##"{
 "cells": [
  {"cell_type": "markdown", "source": ["# Rainfall\n", "October totals"]},
  {"cell_type": "code", "outputs": [{"text": ["42.1 mm\n"]}],
   "source": ["total = df.sum()\n", "print(total)"]}
 ]
}"##;

    #[test]
    fn html_title_is_the_trimmed_text_between_the_tags() {
        // Pieces without '<', so the only tags are the ones placed here.
        let pieces: Vec<&str> = testutil::TEXT_PIECES
            .iter()
            .copied()
            .filter(|p| !p.contains('<'))
            .collect();
        let mut rng = Rng(0xA5A5_1234_5678_9ABC);
        for _ in 0..2000 {
            let before = testutil::random_text(&mut rng, &pieces, 40);
            let inner = testutil::random_text(&mut rng, &pieces, 40);
            let after = testutil::random_text(&mut rng, testutil::TEXT_PIECES, 40);
            let open = *rng.pick(&["<title>", "<TITLE>", "<title lang=\"é\">", "<Title\n>"]);
            let close = *rng.pick(&["</title>", "</TITLE >", "</title"]);
            let html = format!("{before}{open}{inner}{close}{after}");
            let expected = Some(inner.trim()).filter(|t| !t.is_empty());
            assert_eq!(html_title(&html).as_deref(), expected, "{html:?}");
            // Arbitrary soup (tags cut, unclosed, doubled): a title is always a
            // trimmed, non-empty slice of the page.
            let soup = format!(
                "{}{}",
                testutil::random_text(&mut rng, &["<title", "</title", ">", "<", "é"], 8),
                testutil::mutate_text(&mut rng, &html, testutil::TEXT_PIECES)
            );
            if let Some(title) = html_title(&soup) {
                assert!(!title.is_empty() && title == title.trim(), "{soup:?}");
                assert!(soup.contains(&title), "{title:?} not in {soup:?}");
            }
        }
    }

    #[test]
    fn decode_text_never_panics_and_keeps_utf8_and_utf16() {
        let mut rng = Rng(0x1357_9BDF_2468_ACE0);
        for _ in 0..2000 {
            let bytes = testutil::random_bytes(&mut rng, 64);
            let _ = decode_text(&bytes);
            let text = testutil::random_text(&mut rng, testutil::TEXT_PIECES, 40);
            if !text.starts_with('\u{feff}') && !text.as_bytes().starts_with(b"\xFF\xFE") {
                assert_eq!(decode_text(text.as_bytes()), text);
            }
            let with_bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
            assert_eq!(decode_text(&with_bom), text);
            let mut utf16le = vec![0xFF, 0xFE];
            let mut utf16be = vec![0xFE, 0xFF];
            for unit in text.encode_utf16() {
                utf16le.extend(unit.to_le_bytes());
                utf16be.extend(unit.to_be_bytes());
            }
            assert_eq!(decode_text(&utf16le), text);
            assert_eq!(decode_text(&utf16be), text);
            // A cut UTF-16 file (odd length) keeps its complete units.
            utf16le.pop();
            let _ = decode_text(&utf16le);
        }
    }

    #[test]
    fn damaged_notebooks_do_not_panic_and_locate_real_lines() {
        let mut rng = Rng(0x0BAD_CE11_0BAD_CE11);
        for i in 0..600 {
            let raw = if i % 2 == 0 {
                testutil::mutate_text(&mut rng, NOTEBOOK, testutil::TEXT_PIECES)
            } else {
                String::from_utf8_lossy(&testutil::mutate(&mut rng, NOTEBOOK.as_bytes()))
                    .into_owned()
            };
            let input = Input::detect("n.ipynb", raw.as_bytes());
            let Ok(conversion) = convert_notebook(&input) else {
                continue;
            };
            testutil::check_conversion(&conversion, &raw);
            let line_count = decode_text(raw.as_bytes()).lines().count() as u64;
            for unit in &conversion.units {
                if let Some(end) = unit.locator.line_end {
                    assert!(end <= line_count, "{unit:?} in {raw:?}");
                }
            }
        }
    }

    #[test]
    fn text_and_html_converters_survive_random_and_damaged_input() {
        let html = "<html><head><title>Pantry é</title></head><body><h1>Hours</h1>\
                    <table><tr><td>Mon</td><td>5–8pm</td></tr></table><p>Open <b>漢字</b></p>\
                    <ul><li>one<li>two</ul></body></html>";
        let mut rng = Rng(0x7777_1111_3333_5555);
        for _ in 0..300 {
            let bytes = match rng.below(3) {
                0 => testutil::random_bytes(&mut rng, 300),
                1 => testutil::mutate(&mut rng, html.as_bytes()),
                _ => testutil::random_text(&mut rng, testutil::TEXT_PIECES, 300).into_bytes(),
            };
            let chars = decode_text(&bytes).chars().count() as u64;
            let text = convert_text(&Input::detect("t.txt", &bytes)).expect("text");
            testutil::check_conversion(&text, "text");
            for unit in &text.units {
                assert!(
                    unit.locator.char_end.is_some_and(|e| e <= chars),
                    "{unit:?}"
                );
            }
            let page = convert_html(&Input::detect("p.html", &bytes)).expect("html");
            testutil::check_conversion(&page, "html");
        }
    }
}
