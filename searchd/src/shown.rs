//! What a file shows besides its hits: the neighbouring units of a hit (`context`) and
//! a log's records of one kind beside its tied spans (`crate::record_kinds`).

use std::collections::{BTreeMap, HashSet};

use index::api::{LexicalRequest, SearchSnapshot};
use index::{FileRecord, StoredUnit};
use tantivy::snippet::SnippetGenerator;

use crate::error::SearchError;
use crate::outcome::UnitHit;
use crate::snippets::{html_escape, snippet_of, truncate_chars, SNIPPET_CHARS};

/// The units within `context` ordinals of any of `ordinals` in one file, except those in
/// `exclude`, in ordinal order, flagged as context.
pub(crate) fn neighbours(
    snapshot: &dyn SearchSnapshot,
    file_id: &str,
    ordinals: &[u64],
    context: usize,
    exclude: &HashSet<String>,
    snippets: bool,
) -> Result<Vec<UnitHit>, SearchError> {
    let mut wanted: Vec<u64> = ordinals
        .iter()
        .flat_map(|&o| {
            let context = context as u64;
            o.saturating_sub(context)..=o.saturating_add(context)
        })
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let unit_ids: Vec<String> = wanted
        .into_iter()
        .map(|ordinal| format!("{file_id}:{ordinal}"))
        .filter(|unit_id| !exclude.contains(unit_id))
        .collect();
    // None: before the first or after the last unit.
    Ok(snapshot
        .units_by_id(&unit_ids)?
        .into_iter()
        .flatten()
        .map(|unit| UnitHit {
            snippet: snippets.then(|| html_escape(&truncate_chars(&unit.text, SNIPPET_CHARS))),
            unit,
            score: 0.0,
            signals: BTreeMap::new(),
            is_context: true,
        })
        .collect())
}

/// What [`record_kinds`] looks at: a file's ranked unit scores (best first) and the
/// units shown for it.
pub(crate) struct RecordKindsShown<'a> {
    pub(crate) scores: &'a [f32],
    pub(crate) units: &'a [UnitHit],
    pub(crate) lexical: Option<&'a LexicalRequest>,
    pub(crate) snippets: Option<&'a SnippetGenerator>,
    pub(crate) explain: bool,
}

/// A log's records of one kind shown with its tied spans (`crate::record_kinds`), as
/// context units, with the note for `explain`. `terms`: the question's highlighted
/// terms, read on first need and kept for the request's other files.
pub(crate) fn record_kinds(
    snapshot: &dyn SearchSnapshot,
    file: &FileRecord,
    shown: RecordKindsShown<'_>,
    terms: &mut Option<BTreeMap<String, f32>>,
) -> Result<(Vec<UnitHit>, Option<String>), SearchError> {
    let none = Ok((Vec::new(), None));
    let gathered = |unit: &StoredUnit| !unit.locator.lines.is_empty();
    let (Some(lexical), Some(last)) = (shown.lexical, u64::from(file.unit_count).checked_sub(1))
    else {
        return none;
    };
    if !file.ext.eq_ignore_ascii_case("log")
        || shown.units.iter().any(|hit| gathered(&hit.unit))
        || !crate::record_kinds::ranked_units_tie(shown.scores, shown.units.len())
    {
        return none;
    }
    // The gathered units are a log's last: its last units, read at once, from the
    // first gathered one that runs to the end.
    let first = last.saturating_sub(converters::MAX_GATHERED_UNITS as u64 - 1);
    let unit_ids: Vec<String> = (first..=last)
        .map(|ordinal| format!("{}:{ordinal}", file.file_id))
        .collect();
    let mut kinds: Vec<StoredUnit> = Vec::new();
    for unit in snapshot.units_by_id(&unit_ids)? {
        match unit {
            Some(unit) if gathered(&unit) => kinds.push(unit),
            _ => kinds.clear(),
        }
    }
    let texts: Vec<&str> = kinds.iter().map(|unit| unit.text.as_str()).collect();
    let terms = match terms {
        Some(terms) => terms,
        None => terms.insert(snapshot.highlight_terms(lexical)?),
    };
    let matching = crate::record_kinds::matching_kinds(&texts, terms);
    let mut kinds: Vec<Option<StoredUnit>> = kinds.into_iter().map(Some).collect();
    let mut hits = Vec::with_capacity(matching.len());
    for (index, weight) in matching {
        let Some(unit) = kinds[index].take() else {
            continue;
        };
        let mut signals = BTreeMap::new();
        if shown.explain {
            signals.insert("record_kind.terms".to_string(), f64::from(weight));
        }
        hits.push(UnitHit {
            snippet: Some(snippet_of(shown.snippets, &unit.text)),
            unit,
            score: 0.0,
            signals,
            is_context: true,
        });
    }
    let note = (shown.explain && !hits.is_empty()).then(|| {
        let lines: Vec<String> = hits
            .iter()
            .map(|hit| hit.unit.locator.lines.len().to_string())
            .collect();
        format!(
            "record_kinds: {:?}: its ranked units tie (within {:.0} %); {} of its records of one kind ({} lines) shown as context",
            file.path,
            crate::record_kinds::NEAR_TIE * 100.0,
            hits.len(),
            lines.join(" + ")
        )
    });
    Ok((hits, note))
}
