//! A log's records of one kind, shown with its spans when the spans tie.
//!
//! A `.log` holds, besides its line-aligned spans, one unit per recurring kind of
//! record that is not the bulk (`converters::log_records`: the thirty daily totals
//! among seven hundred hourly readings). A question about the log as a whole ("how
//! does the gauge's rainfall end up in my monthly analysis") matches its hourly spans
//! about equally: the few shown are an arbitrary pick among near-equal scores, and
//! they show the same kind of line the others would. The file's records of one kind
//! tell more: they are what the log summarises, each with its own line.
//!
//! So when a file's ranked units tie — the first unit not shown scores within
//! [`NEAR_TIE`] of the file's best — and none of those shown is such a gathered unit,
//! the gathered units that share some of the question's terms (at most [`MAX_SHOWN`],
//! the most shared first) are added as context units (`is_context`, score 0: not
//! ranked, shown for their file): the daily totals, and the warnings of the month if
//! they share a word too. The ranked units stay as they were. The planner switch
//! `record_kinds` turns this off.

use std::collections::BTreeMap;

use tantivy::tokenizer::TokenStream;

/// The first unit not shown scores at least this share below the file's best for the
/// shown ones to count as singled out.
pub const NEAR_TIE: f32 = 0.05;

/// Gathered units shown for one file at most.
pub const MAX_SHOWN: usize = 3;

/// Whether a file's ranked unit scores (best first) leave the shown ones an arbitrary
/// pick: the first of them not shown (at `shown`) is within [`NEAR_TIE`] of the best.
pub fn ranked_units_tie(scores: &[f32], shown: usize) -> bool {
    match (scores.first(), scores.get(shown)) {
        (Some(&best), Some(&next)) => best > 0.0 && next >= best * (1.0 - NEAR_TIE),
        _ => false,
    }
}

/// The kinds (indexes into `texts`) whose text holds some of the question's
/// highlighted `terms`, with that weight (each distinct term counted once): the most
/// weight first, the earlier among equals, at most [`MAX_SHOWN`].
pub fn matching_kinds(texts: &[&str], terms: &BTreeMap<String, f32>) -> Vec<(usize, f32)> {
    if terms.is_empty() {
        return Vec::new();
    }
    let mut analyzer = index::highlight::highlight_analyzer(terms.keys().map(String::as_str));
    let mut matching: Vec<(usize, f32)> = Vec::new();
    for (index, text) in texts.iter().enumerate() {
        let mut found: Vec<&str> = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            if let Some((term, _)) = terms.get_key_value(stream.token().text.as_str()) {
                if !found.contains(&term.as_str()) {
                    found.push(term.as_str());
                }
            }
        }
        let weight: f32 = found.iter().map(|term| terms[*term]).sum();
        if weight > 0.0 {
            matching.push((index, weight));
        }
    }
    // A stable sort: equals keep the order of the kinds.
    matching.sort_by(|a, b| b.1.total_cmp(&a.1));
    matching.truncate(MAX_SHOWN);
    matching
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tie_needs_a_near_equal_unit_beyond_those_shown() {
        // Hourly spans of one log: the fourth is within 5 % of the best.
        assert!(ranked_units_tie(&[1.36, 1.34, 1.32, 1.31, 1.30], 3));
        // A page that answers stands out from the rest of its file.
        assert!(!ranked_units_tie(&[1.9, 1.4, 1.3, 1.2], 3));
        assert!(!ranked_units_tie(&[1.9, 1.89, 1.88, 1.7], 3));
        // Nothing beyond the shown units: nothing was left out.
        assert!(!ranked_units_tie(&[1.36, 1.35, 1.35], 3));
        assert!(!ranked_units_tie(&[], 3));
        assert!(!ranked_units_tie(&[0.0, 0.0], 1));
    }

    fn terms(pairs: &[(&str, f32)]) -> BTreeMap<String, f32> {
        pairs.iter().map(|(t, w)| (t.to_string(), *w)).collect()
    }

    #[test]
    fn the_kinds_sharing_the_question_are_chosen_most_first() {
        let daily = "2025-10-02 00:00:01 INFO gauge: DAILY date=2025-10-01 total_in=0.00\n\
                     2025-10-03 00:00:01 INFO gauge: DAILY date=2025-10-02 total_in=0.05";
        let wifi = "2025-10-01 12:30:00 DEBUG gauge: wifi rssi=-59 dBm uptime=1d\n\
                    2025-10-02 12:30:00 DEBUG gauge: wifi rssi=-61 dBm uptime=2d";
        let warn = "2025-10-12 03:14:07 WARN sensor: no heartbeat, sensor disconnected?";
        // Stems, as the prose analyzer makes them: "daily" → "daili".
        let asked = terms(&[("gaug", 1.0), ("daili", 2.0), ("total", 1.5)]);
        assert_eq!(
            matching_kinds(&[wifi, daily, warn], &asked),
            vec![(1, 4.5), (0, 1.0)]
        );
        // Equal weight: the earlier kind first.
        assert_eq!(
            matching_kinds(&[wifi, daily], &terms(&[("gaug", 1.0)])),
            vec![(0, 1.0), (1, 1.0)]
        );
        // A term counts once however often it occurs.
        assert_eq!(
            matching_kinds(&[daily], &terms(&[("daili", 2.0)])),
            vec![(0, 2.0)]
        );
        // At most MAX_SHOWN.
        let many = [daily; 5];
        assert_eq!(matching_kinds(&many, &asked).len(), MAX_SHOWN);
        // No shared term, or no terms: none.
        assert!(matching_kinds(&[wifi, daily], &terms(&[("invoic", 1.0)])).is_empty());
        assert!(matching_kinds(&[wifi, daily], &BTreeMap::new()).is_empty());
    }
}
