//! The units of one request on their way to the reply: ranked hits (a key and a score,
//! with the fusion signals and priors that made it), the units and snippets already
//! made, and turning a hit into a [`UnitHit`] with its snippet and `explain` signals.

use std::collections::{BTreeMap, HashMap};

use index::api::{LexicalRequest, SearchSnapshot, UnitKey};
use index::StoredUnit;
use tantivy::snippet::SnippetGenerator;

use crate::dense::Dense;
use crate::error::SearchError;
use crate::fusion::Signals;
use crate::outcome::UnitHit;
use crate::planner::Factors;
use crate::snippets::{snippet_in, SNIPPET_CHARS};

/// One ranked unit: its (fused) score, key in the request's snapshot, and where it
/// came from.
#[derive(Debug, Clone)]
pub(crate) struct RankedHit {
    pub(crate) score: f32,
    pub(crate) key: UnitKey,
    /// Set when more than one retriever ran.
    pub(crate) fusion: Option<Signals>,
    /// Planner priors applied to the score.
    pub(crate) factors: Option<Factors>,
}

impl RankedHit {
    /// A hit with its score from one ranked list (no fusion signals, no priors yet).
    pub(crate) fn ranked(key: UnitKey, score: f32) -> RankedHit {
        RankedHit {
            score,
            key,
            fusion: None,
            factors: None,
        }
    }
}

/// Ranked units with what produced them.
#[derive(Default)]
pub(crate) struct Ranked {
    pub(crate) hits: Vec<RankedHit>,
    /// Units that matched lexically (or dense candidates when only dense ran).
    pub(crate) total: u64,
    pub(crate) notes: Vec<String>,
    /// Units the priors read and snippets made while the question was being embedded,
    /// kept for the reply.
    pub(crate) ready: Ready,
    /// The generator of those snippets, when some were made.
    pub(crate) snippets: Option<SnippetGenerator>,
}

/// Stored units already read in this request, by key.
pub(crate) type LoadedUnits = HashMap<UnitKey, std::sync::Arc<StoredUnit>>;

/// What the reply's units reuse: units read and snippets made earlier in the request
/// (snippets of the best lexical hits, made while the encoder embeds the question).
#[derive(Default)]
pub(crate) struct Ready {
    pub(crate) units: LoadedUnits,
    pub(crate) snippets: HashMap<UnitKey, String>,
}

/// Makes the snippets of the units `keys` that have none yet (reading them into
/// `ready`): the highlighted best fragment; else the window whose vector found it,
/// asked of the backend for all of them at once (a remote one reads their vectors
/// back), when that was not the first; else the text's beginning.
pub(crate) fn make_snippets(
    dense: Option<&Dense>,
    snapshot: &dyn SearchSnapshot,
    keys: &[UnitKey],
    snippets: Option<&SnippetGenerator>,
    ready: &mut Ready,
) -> Result<(), SearchError> {
    let mut plain = HashMap::new();
    for &key in keys {
        if ready.snippets.contains_key(&key) || plain.contains_key(&key) {
            continue;
        }
        let unit = match ready.units.get(&key) {
            Some(unit) => unit.clone(),
            None => {
                let unit = snapshot.shared_unit(key)?;
                ready.units.insert(key, unit.clone());
                unit
            }
        };
        match snippets
            .map(|g| g.snippet(&unit.text))
            .filter(|s| !s.is_empty())
        {
            Some(snippet) => {
                ready.snippets.insert(key, snippet.to_html());
            }
            None => {
                plain.insert(key, unit);
            }
        }
    }
    if plain.is_empty() {
        return Ok(());
    }
    let windows = match dense {
        Some(_) => snapshot.text_windows(&plain.keys().copied().collect::<Vec<_>>()),
        None => HashMap::new(),
    };
    for (key, unit) in plain {
        let start = || {
            let &(window, count) = windows.get(&key)?;
            let dense = dense?;
            dense.window_start(&unit.path, &unit.title, &unit.text, window, count)
        };
        ready
            .snippets
            .insert(key, snippet_in(None, &unit.text, start));
    }
    Ok(())
}

pub(crate) fn unit_hit(
    dense: Option<&Dense>,
    snapshot: &dyn SearchSnapshot,
    hit: RankedHit,
    lexical: Option<&LexicalRequest>,
    snippets: Option<&SnippetGenerator>,
    explain: bool,
    ready: &mut Ready,
) -> Result<UnitHit, SearchError> {
    let RankedHit {
        score,
        key,
        fusion,
        factors,
    } = hit;
    if !ready.snippets.contains_key(&key) {
        make_snippets(dense, snapshot, &[key], snippets, ready)?;
    }
    let unit = match ready.units.remove(&key) {
        Some(unit) => std::sync::Arc::unwrap_or_clone(unit),
        None => snapshot.unit(key)?,
    };
    let snippet = Some(ready.snippets.remove(&key).unwrap_or_default());
    let mut signals = BTreeMap::new();
    if explain {
        if let Some(lexical) = lexical {
            signals = snapshot.signal_scores(lexical, key)?;
        }
        if let Some(fusion) = fusion {
            for &(source, rank, value) in &fusion.lists {
                let (rank_key, score_key) = source.explain_keys();
                signals.insert(rank_key, rank as f64);
                signals.insert(score_key, f64::from(value));
            }
            signals.insert("fused".to_string(), f64::from(fusion.fused));
        }
        if let Some(factors) = factors {
            signals.insert("prior.time".to_string(), f64::from(factors.time));
            signals.insert("prior.whose".to_string(), f64::from(factors.whose));
            if factors.activity != 1.0 {
                signals.insert("prior.activity".to_string(), f64::from(factors.activity));
            }
            if factors.event != 1.0 {
                signals.insert("prior.event_context".to_string(), f64::from(factors.event));
            }
        }
        signals.insert("score".to_string(), f64::from(score));
    }
    Ok(UnitHit {
        unit,
        score,
        snippet,
        signals,
        is_context: false,
    })
}

/// Units of several files first, and for a routine question (`by_day`) of several days
/// (`crate::diversify`).
pub(crate) fn spread_hits(
    snapshot: &dyn SearchSnapshot,
    hits: Vec<RankedHit>,
    loaded: &LoadedUnits,
    limit: usize,
    by_day: bool,
) -> Result<Vec<RankedHit>, SearchError> {
    let mut items = Vec::with_capacity(hits.len());
    for hit in hits {
        let day = loaded
            .get(&hit.key)
            .filter(|_| by_day)
            .and_then(|u| u.content_time_text.get(..10).map(str::to_string));
        let file = snapshot.file_id(hit.key)?;
        items.push((hit, file, day));
    }
    let per_file = if by_day {
        crate::diversify::ROUTINE_PER_FILE
    } else {
        crate::diversify::PER_FILE
    };
    Ok(crate::diversify::spread(items, limit, per_file))
}

/// The generator `made` earlier in the request, else a new one.
pub(crate) fn snippet_generator_or(
    made: Option<SnippetGenerator>,
    snapshot: &dyn SearchSnapshot,
    lexical: Option<&LexicalRequest>,
) -> Result<Option<SnippetGenerator>, SearchError> {
    match made {
        Some(generator) => Ok(Some(generator)),
        None => snippet_generator(snapshot, lexical),
    }
}

/// Highlights the request's text terms in snippets (the same analyzer as the text
/// field, rarer terms preferred).
pub(crate) fn snippet_generator(
    snapshot: &dyn SearchSnapshot,
    lexical: Option<&LexicalRequest>,
) -> Result<Option<SnippetGenerator>, SearchError> {
    let Some(lexical) = lexical else {
        return Ok(None);
    };
    let terms = snapshot.highlight_terms(lexical)?;
    if terms.is_empty() {
        return Ok(None);
    }
    // The field is only used to read whole documents, which this never does.
    let field = tantivy::schema::Field::from_field_id(0);
    let analyzer = index::highlight::highlight_analyzer(terms.keys().map(String::as_str));
    Ok(Some(SnippetGenerator::new(
        terms,
        analyzer,
        field,
        SNIPPET_CHARS,
    )))
}
