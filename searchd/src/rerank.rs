//! The second stage behind a request's `rerank`: the first [`DEPTH`] units of a Retrieve
//! are re-scored by their best sentence.
//!
//! A unit's vector is the mean of its whole text (and of its first 256 tokens only), so a
//! long abstract or page whose one sentence answers the question is diluted by the rest.
//! Each candidate's text is split into sentences ([`sentences`]), every sentence is
//! embedded with the question encoder, and a unit's sentence score is its best sentence's
//! cosine to the question. The new order ([`order`]) adds the two signals, each mapped onto
//! [0, 1] over the candidates: the retrieval score and [`WEIGHT`] × the sentence score.
//!
//! No cross-encoder ships in a package this project installs from (PyPI wheels with ONNX
//! weights were searched; see `docs/benchmarks.md`), so this is sentence-level
//! max-similarity with the embedding model, as the quality issue allows. It is opt-in:
//! it embeds about 40 sentences per question.

use crate::dense::Dense;
use crate::error::SearchError;
use crate::outcome::UnitHit;

/// Units re-scored (the first of the retrieval order); the rest keep their place after
/// them.
pub const DEPTH: usize = 10;
/// Weight of the best sentence's score against the retrieval score (both on [0, 1]):
/// equal (see `docs/benchmarks.md`, "A second stage: the best sentence").
pub const WEIGHT: f32 = 1.0;
/// Sentences embedded per unit at most (the first ones).
pub const MAX_SENTENCES: usize = 24;
/// Characters of one sentence embedded at most (a longer one is cut at a word, or at
/// this many characters when it has no space).
pub const MAX_SENTENCE_CHARS: usize = 400;
/// A piece of fewer words than this is joined to the next one ("Fig. 2", "Dr.", a
/// heading's number), so that no sentence is a fragment.
const MIN_WORDS: usize = 6;

/// The sentences of a unit's text: split after `.`, `!` or `?` followed by white space
/// and a letter that is not lower case (capitals, and scripts without case), a digit or
/// an opening quote/bracket; after the full-width stops `。！？`; and at line breaks.
/// Pieces of fewer than six words (or, without spaces, of fewer than 12 characters) are
/// joined to the next; at most [`MAX_SENTENCES`], each cut to [`MAX_SENTENCE_CHARS`]. A
/// text without a break is one sentence; an empty text none.
pub fn sentences(text: &str) -> Vec<String> {
    let mut pieces: Vec<&str> = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end_here = match c {
            '\n' => Some(i),
            '。' | '！' | '？' => Some(i + c.len_utf8()),
            '.' | '!' | '?' => {
                let rest = &text[i + 1..];
                let trimmed = rest.trim_start_matches([' ', '\t']);
                let spaced = trimmed.len() < rest.len();
                let next = trimmed.chars().next();
                (spaced
                    && next.is_some_and(|n| {
                        (n.is_alphabetic() && !n.is_lowercase())
                            || n.is_ascii_digit()
                            || matches!(n, '"' | '\'' | '(')
                    }))
                .then_some(i + 1)
            }
            _ => None,
        };
        if let Some(end) = end_here {
            pieces.push(&text[start..end]);
            start = end + usize::from(bytes.get(end) == Some(&b'\n'));
        }
    }
    pieces.push(&text[start.min(text.len())..]);
    let mut out: Vec<String> = Vec::new();
    let mut short = false;
    for piece in pieces.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
        match out.last_mut() {
            Some(last) if short => {
                last.push(' ');
                last.push_str(piece);
            }
            _ => out.push(piece.to_string()),
        }
        short = out.last().is_some_and(|s| {
            let words = s.split_whitespace().count();
            words < MIN_WORDS && (words > 1 || s.chars().count() < 12)
        });
        if out.len() > MAX_SENTENCES {
            break;
        }
    }
    out.truncate(MAX_SENTENCES);
    for sentence in &mut out {
        if let Some((limit, _)) = sentence.char_indices().nth(MAX_SENTENCE_CHARS) {
            let cut = sentence[..limit].rfind(' ').unwrap_or(limit);
            sentence.truncate(cut);
        }
    }
    out
}

/// Values mapped onto [0, 1] (the lowest 0, the highest 1); all 0 when they are equal.
fn unit_range(values: &[f32]) -> Vec<f32> {
    let low = values.iter().copied().fold(f32::INFINITY, f32::min);
    let high = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    values
        .iter()
        .map(|v| {
            if high > low {
                (v - low) / (high - low)
            } else {
                0.0
            }
        })
        .collect()
}

/// The combined score of each candidate: its retrieval score and its best sentence's
/// score (`None`: a unit without text, counted as the lowest), each on [0, 1] over the
/// candidates, the second weighted by [`WEIGHT`].
pub fn combined(retrieval: &[f32], best_sentence: &[Option<f32>]) -> Vec<f32> {
    let lowest = best_sentence
        .iter()
        .flatten()
        .copied()
        .fold(f32::INFINITY, f32::min);
    let sentence: Vec<f32> = best_sentence
        .iter()
        .map(|s| s.unwrap_or(if lowest.is_finite() { lowest } else { 0.0 }))
        .collect();
    unit_range(retrieval)
        .into_iter()
        .zip(unit_range(&sentence))
        .map(|(r, s)| r + WEIGHT * s)
        .collect()
}

/// The candidates' new order (indexes into them) by [`combined`], ties in the old order.
pub fn order(combined: &[f32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..combined.len()).collect();
    order.sort_by(|a, b| combined[*b].total_cmp(&combined[*a]).then(a.cmp(b)));
    order
}

/// The cosine of the best of `vectors` to `query` (all unit length), `None` without any.
pub fn best_cosine<'a>(query: &[f32], vectors: impl IntoIterator<Item = &'a [f32]>) -> Option<f32> {
    vectors
        .into_iter()
        .map(|v| index::embedded::dot(v, query))
        .reduce(f32::max)
}

/// Re-scores the first [`crate::rerank::DEPTH`] of `hits` by their best sentence
/// (`crate::rerank`) and puts them in the new order. The scores stay sorted: the
/// candidates' retrieval scores, sorted, one per place (a routine question's spread list
/// keeps its units; only their order changes); with `explain`, a unit's
/// signals add `rerank.sentence` (its best sentence's cosine), `rerank.score` (the
/// combined score) and `retrieval.score`. Returns the number of sentences embedded.
pub(crate) fn rerank_hits(
    dense: &Dense,
    query: &str,
    hits: &mut Vec<UnitHit>,
    explain: bool,
) -> Result<usize, SearchError> {
    let n = hits.len().min(crate::rerank::DEPTH);
    if n < 2 {
        return Ok(0);
    }
    let question = dense.embed_query(query)?;
    let sentences: Vec<Vec<String>> = hits[..n]
        .iter()
        .map(|hit| crate::rerank::sentences(&hit.unit.text))
        .collect();
    let counts: Vec<usize> = sentences.iter().map(Vec::len).collect();
    let all: Vec<String> = sentences.into_iter().flatten().collect();
    let mut vectors = dense.embed_many(&all)?.into_iter();
    let best: Vec<Option<f32>> = counts
        .iter()
        .map(|&count| {
            let of_unit: Vec<_> = vectors.by_ref().take(count).collect();
            crate::rerank::best_cosine(&question, of_unit.iter().map(|v| v.as_slice()))
        })
        .collect();
    let retrieval: Vec<f32> = hits[..n].iter().map(|hit| hit.score).collect();
    let combined = crate::rerank::combined(&retrieval, &best);
    let mut places = retrieval.clone();
    places.sort_by(|a, b| b.total_cmp(a));
    let mut head: Vec<Option<UnitHit>> = hits.drain(..n).map(Some).collect();
    let reordered: Vec<UnitHit> = crate::rerank::order(&combined)
        .into_iter()
        .zip(places)
        .filter_map(|(i, place_score)| {
            let mut hit = head[i].take()?;
            if explain {
                let signals = &mut hit.signals;
                if let Some(sentence) = best[i] {
                    signals.insert("rerank.sentence".into(), f64::from(sentence));
                }
                signals.insert("rerank.score".into(), f64::from(combined[i]));
                signals.insert("retrieval.score".into(), f64::from(hit.score));
            }
            hit.score = place_score;
            Some(hit)
        })
        .collect();
    hits.splice(0..0, reordered);
    Ok(all.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_at_stops_and_lines_and_join_fragments() {
        let text = "Fig. 2 shows it. The pump ran dry on Tuesday night after the fuse blew.\n\
                    It was fixed on Wednesday morning by the plumber from town! \
                    was it? yes. Costs were 40 euro in total for the new part and labour.";
        let got = sentences(text);
        assert_eq!(
            got,
            vec![
                // "Fig. 2 shows it." is two words short of a sentence: joined to the next.
                "Fig. 2 shows it. The pump ran dry on Tuesday night after the fuse blew.",
                // A stop before a lower-case word is not a break.
                "It was fixed on Wednesday morning by the plumber from town! was it? yes.",
                "Costs were 40 euro in total for the new part and labour.",
            ]
        );
    }

    #[test]
    fn sentences_of_odd_texts() {
        assert!(sentences("").is_empty());
        assert!(sentences(" \n\n ").is_empty());
        assert_eq!(sentences("no stop at all"), vec!["no stop at all"]);
        assert_eq!(sentences("3.14 is pi."), vec!["3.14 is pi."]);
        // Many lines: at most MAX_SENTENCES, the first ones.
        let lines: Vec<String> = (0..100)
            .map(|i| format!("line {i} of the long log file here"))
            .collect();
        let got = sentences(&lines.join("\n"));
        assert_eq!(got.len(), MAX_SENTENCES);
        assert_eq!(got[0], lines[0]);
        // A long sentence is cut at a word, within the limit (in characters).
        let long = "ééé ".repeat(200);
        let got = sentences(&long);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].chars().count(), MAX_SENTENCE_CHARS - 1);
        assert!(got[0].ends_with("ééé"));
        // Without spaces: at the limit.
        let got = sentences(&"字".repeat(1000));
        assert_eq!(got[0].chars().count(), MAX_SENTENCE_CHARS);
        // Full-width stops end sentences; a short one joins the next.
        let got =
            sentences("今天下雨了，我们在家里看了一部很长的电影。好。明天我们要去公园散步和野餐。");
        assert_eq!(
            got,
            vec![
                "今天下雨了，我们在家里看了一部很长的电影。",
                "好。 明天我们要去公园散步和野餐。"
            ]
        );
        // A caseless letter after a stop and a space starts a sentence.
        let got = sentences("Das Treffen war lang und sehr anstrengend für uns. مرحبا بكم في الاجتماع السنوي للشركة الكبيرة");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn a_unit_whose_one_sentence_answers_moves_up_but_not_past_a_far_better_one() {
        // Retrieval: a (1.0) > b (0.9) > c (0.8) > d (0.1). c has the best sentence.
        let retrieval = [1.0, 0.9, 0.8, 0.1];
        let best = [Some(0.30), Some(0.20), Some(0.70), Some(0.40)];
        let scores = combined(&retrieval, &best);
        // On [0, 1]: retrieval 1, 0.889, 0.778, 0; sentences 0.2, 0, 1, 0.4.
        // a: 1.2; b: 0.889; c: 1.778; d: 0.4.
        assert_eq!(order(&scores), vec![2, 0, 1, 3]);
        assert!((scores[0] - (1.0 + WEIGHT * 0.2)).abs() < 1e-6);
        // Without a sentence, a unit counts as the lowest sentence score.
        let scores = combined(&retrieval, &[None, Some(0.2), Some(0.7), Some(0.69)]);
        assert_eq!(scores[0], 1.0);
        // Equal values: no signal, the old order.
        assert_eq!(order(&combined(&[1.0, 1.0], &[None, None])), vec![0, 1]);
    }

    #[test]
    fn best_cosine_is_the_best_sentence() {
        let q = [1.0, 0.0];
        let sentences = [[0.0, 1.0], [0.6, 0.8]];
        assert_eq!(best_cosine(&q, sentences.iter().map(|s| &s[..])), Some(0.6));
        assert_eq!(best_cosine(&q, []), None);
    }
}
