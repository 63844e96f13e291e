//! A request, transport-free: the parsed parameters ([`SearchParams`]) with their
//! defaults and limits, the lexical request a question becomes (BM25 over unit text,
//! title and structured fields, plus file-name and folder tokens at lower weight, as
//! plain data the storage backend evaluates) and the filter (path prefixes, modalities,
//! extensions, content-time range) as a [`index::api::UnitFilter`].

use index::api::{LexicalField, LexicalRequest, LexicalSignal};
use index::schema::{en_analyzer, path_analyzer};
use serde::{Deserialize, Serialize};
use tantivy::tokenizer::{TextAnalyzer, TokenStream};

use crate::error::SearchError;

pub use crate::mode::Mode;

/// A search request, independent of the transport.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchParams {
    pub query: String,
    /// Files (Search) or units (Retrieve) to return.
    pub top_k: usize,
    /// Best units per file (Search).
    pub units_per_file: usize,
    pub path_prefixes: Vec<String>,
    pub modalities: Vec<String>,
    pub extensions: Vec<String>,
    /// Unix seconds, inclusive.
    pub time_start: Option<i64>,
    /// Unix seconds, exclusive.
    pub time_end: Option<i64>,
    pub mode: Mode,
    /// How hybrid mode combines its rankings.
    pub fusion: crate::fusion::Fusion,
    /// Planner priors (time, whose evidence, folder affinity); all on by default.
    pub planner: crate::planner::PlannerSwitches,
    /// Unix seconds that "last week", "in October" and the like are relative to
    /// (default: the newest content time in the index).
    pub reference_time: Option<i64>,
    /// Neighbouring units (by ordinal, same file) returned around each hit.
    pub context: usize,
    pub explain: bool,
    /// Confident cut-off of the file ranking (`autocut`, `min_score`; off by default).
    pub cutoff: crate::cutoff::Cutoff,
    /// Only files with matching activity-log events (`crate::activity`).
    pub activity: Option<crate::activity::ActivityFilter>,
    /// Retrieve only: re-score the first units by their best sentence
    /// (`crate::rerank`; needs the text model).
    pub rerank: bool,
    /// Highlighted snippets in the reply (on by default). Off, a unit's text is its
    /// only excerpt: clients that read `text` alone skip the snippets' cost.
    pub snippets: bool,
    /// A query vector given by the client (`"vector"` in `/retrieve`; HyDE's averaged
    /// embeddings): the dense list searches by it instead of embedding `query`. Alone
    /// (no `query`) the search is dense only. Its length must be the text model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<std::sync::Arc<Vec<f32>>>,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            query: String::new(),
            top_k: DEFAULT_TOP_K,
            units_per_file: DEFAULT_UNITS_PER_FILE,
            path_prefixes: Vec::new(),
            modalities: Vec::new(),
            extensions: Vec::new(),
            time_start: None,
            time_end: None,
            mode: Mode::Hybrid,
            fusion: crate::fusion::Fusion::default(),
            planner: crate::planner::PlannerSwitches::default(),
            reference_time: None,
            context: 0,
            explain: false,
            cutoff: crate::cutoff::Cutoff::default(),
            activity: None,
            rerank: false,
            snippets: true,
            vector: None,
        }
    }
}

/// The longest query vector accepted (before the model's own dimension is checked).
pub const MAX_VECTOR_LEN: usize = 4096;

/// Results when a request does not say (files for Search, units for Retrieve).
pub const DEFAULT_TOP_K: usize = 10;
/// Best units per file in grouped search when a request does not say.
pub const DEFAULT_UNITS_PER_FILE: usize = 3;
/// Weight of the lexical side in weighted fusion when a request does not say.
pub const DEFAULT_LEXICAL_WEIGHT: f32 = 0.5;

/// The planner priors a request switches off by name (`time`, `whose`, `folders`,
/// `people`, `weekday_sense`, `activity`, `diversify`, `copies`, `event_context`, `record_kinds` or `all`),
/// shared by every transport.
pub fn planner_switches(
    disabled: &[String],
) -> Result<crate::planner::PlannerSwitches, SearchError> {
    let mut planner = crate::planner::PlannerSwitches::default();
    for name in disabled {
        if !planner.disable(name) {
            return Err(SearchError::invalid(format!(
                "unknown planner feature {name:?} (expected time, whose, folders, people, weekday_sense, activity, diversify, copies, event_context, record_kinds or all)"
            )));
        }
    }
    Ok(planner)
}

/// The kinds of fusion a request can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FusionKind {
    Rrf,
    Weighted,
    Dbsf,
}

impl FusionKind {
    /// `rrf`, `weighted` or `dbsf`.
    pub fn parse(name: &str) -> Option<FusionKind> {
        match name {
            "rrf" => Some(FusionKind::Rrf),
            "weighted" => Some(FusionKind::Weighted),
            "dbsf" => Some(FusionKind::Dbsf),
            _ => None,
        }
    }

    /// The fusion of a request that names none: RRF when it gives `rrf_k`, weighted
    /// when it gives `lexical_weight`, else DBSF (the default, see
    /// [`crate::fusion::Fusion::default`]).
    pub fn unnamed(rrf_k: Option<f32>, lexical_weight: Option<f32>) -> FusionKind {
        if rrf_k.is_some() {
            FusionKind::Rrf
        } else if lexical_weight.is_some() {
            FusionKind::Weighted
        } else {
            FusionKind::Dbsf
        }
    }
}

/// The fusion a request asks for, the defaults filled in: weighted with its lexical
/// weight, RRF with its k, or DBSF.
pub fn fusion_of(
    kind: FusionKind,
    rrf_k: Option<f32>,
    lexical_weight: Option<f32>,
) -> crate::fusion::Fusion {
    match kind {
        FusionKind::Weighted => crate::fusion::Fusion::Weighted {
            lexical_weight: lexical_weight.unwrap_or(DEFAULT_LEXICAL_WEIGHT),
        },
        FusionKind::Rrf => crate::fusion::Fusion::Rrf {
            k: rrf_k.unwrap_or(crate::fusion::DEFAULT_RRF_K),
        },
        FusionKind::Dbsf => crate::fusion::Fusion::Dbsf,
    }
}

pub const MAX_TOP_K: usize = 1000;
pub const MAX_QUERY_CHARS: usize = 4096;
/// Neighbours per side at most (`context`).
pub const MAX_CONTEXT: usize = 10;

impl SearchParams {
    /// Checks limits and normalises values; errors are the caller's fault.
    pub fn validate(mut self) -> Result<SearchParams, SearchError> {
        if self.query.chars().count() > MAX_QUERY_CHARS {
            return Err(SearchError::invalid(format!(
                "query longer than {MAX_QUERY_CHARS} characters"
            )));
        }
        if self.top_k == 0 {
            self.top_k = DEFAULT_TOP_K;
        }
        if let Some(vector) = &self.vector {
            if vector.is_empty() || vector.len() > MAX_VECTOR_LEN {
                return Err(SearchError::invalid(format!(
                    "vector must have 1 to {MAX_VECTOR_LEN} numbers (the text model's dimension)"
                )));
            }
            if vector.iter().any(|x| !x.is_finite()) {
                return Err(SearchError::invalid(
                    "vector holds a number that is not finite",
                ));
            }
            // Scores are cosines: an averaged (HyDE) vector is made unit length.
            let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm == 0.0 {
                return Err(SearchError::invalid("vector is all zeros"));
            }
            if (norm - 1.0).abs() > 1e-4 {
                let unit = vector.iter().map(|x| x / norm).collect();
                self.vector = Some(std::sync::Arc::new(unit));
            }
        }
        if self.top_k > MAX_TOP_K {
            return Err(SearchError::invalid(format!(
                "top_k must be at most {MAX_TOP_K}"
            )));
        }
        if self.units_per_file == 0 {
            self.units_per_file = DEFAULT_UNITS_PER_FILE;
        }
        self.units_per_file = self.units_per_file.min(50);
        if self.context > MAX_CONTEXT {
            return Err(SearchError::invalid(format!(
                "context must be at most {MAX_CONTEXT}"
            )));
        }
        for modality in &self.modalities {
            if converters::Modality::parse(&modality.to_ascii_lowercase()).is_none() {
                return Err(SearchError::invalid(format!(
                    "unknown modality {modality:?} (expected document, text, image, audio, video or binary)"
                )));
            }
        }
        self.modalities = self
            .modalities
            .iter()
            .map(|m| m.to_ascii_lowercase())
            .collect();
        self.extensions = self
            .extensions
            .iter()
            .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
            .collect();
        match self.fusion {
            crate::fusion::Fusion::Rrf { k } if !(k.is_finite() && k > 0.0) => {
                return Err(SearchError::invalid("rrf_k must be a positive number"));
            }
            crate::fusion::Fusion::Weighted { lexical_weight }
                if !(0.0..=1.0).contains(&lexical_weight) =>
            {
                return Err(SearchError::invalid(
                    "lexical_weight must be between 0 and 1",
                ));
            }
            _ => {}
        }
        if self.cutoff.autocut > crate::cutoff::MAX_AUTOCUT {
            return Err(SearchError::invalid(format!(
                "autocut must be at most {}",
                crate::cutoff::MAX_AUTOCUT
            )));
        }
        if self.cutoff.min_score.is_some_and(|m| !m.is_finite()) {
            return Err(SearchError::invalid("min_score must be a finite number"));
        }
        if let (Some(start), Some(end)) = (self.time_start, self.time_end) {
            if start >= end {
                return Err(SearchError::invalid(
                    "content_time range is empty (start >= end)",
                ));
            }
        }
        if let Some(activity) = &self.activity {
            crate::activity::parse_kinds(&activity.kinds)?;
            if let (Some(start), Some(end)) = (activity.start, activity.end) {
                if start >= end {
                    return Err(SearchError::invalid(
                        "activity range is empty (start >= end)",
                    ));
                }
            }
            if let Some(when) = &activity.when {
                if activity.start.is_some() || activity.end.is_some() {
                    return Err(SearchError::invalid(
                        "activity: give either start/end or when, not both",
                    ));
                }
                if when.chars().count() > MAX_QUERY_CHARS {
                    return Err(SearchError::invalid(format!(
                        "activity.when longer than {MAX_QUERY_CHARS} characters"
                    )));
                }
            }
        }
        for prefix in &self.path_prefixes {
            if prefix.split('/').any(|p| p == "..") {
                return Err(SearchError::invalid(format!(
                    "path prefix {prefix:?} contains \"..\""
                )));
            }
        }
        Ok(self)
    }

    /// The request's filters as predicates on units (the storage boundary's form).
    pub fn unit_filter(&self) -> index::api::UnitFilter {
        index::api::UnitFilter {
            path_prefixes: self.path_prefixes.clone(),
            modalities: self.modalities.clone(),
            extensions: self.extensions.clone(),
            kinds: Vec::new(),
            time_start: self.time_start,
            time_end: self.time_end,
        }
    }

    pub fn has_filters(&self) -> bool {
        !self.path_prefixes.is_empty()
            || !self.modalities.is_empty()
            || !self.extensions.is_empty()
            || self.time_start.is_some()
            || self.time_end.is_some()
            || self.activity.is_some()
    }
}

/// The `meta` signal for people named in a query (their analysed tokens); `None` when
/// the names have no searchable tokens.
pub fn people_signal(names: &[String], boost: f32) -> Option<LexicalSignal> {
    let mut terms: Vec<String> = Vec::new();
    for name in names {
        for term in analyse(en_analyzer(), name) {
            if !terms.contains(&term) {
                terms.push(term);
            }
        }
    }
    (!terms.is_empty()).then_some(LexicalSignal {
        name: "people.meta",
        field: LexicalField::Meta,
        terms,
        boost,
    })
}

fn analyse(mut analyzer: TextAnalyzer, text: &str) -> Vec<String> {
    let mut stream = analyzer.token_stream(text);
    let mut out: Vec<String> = Vec::new();
    while let Some(token) = stream.next() {
        if !out.contains(&token.text) {
            out.push(token.text.clone());
        }
    }
    out
}

/// The BM25 request for a question: its analysed terms in unit text, title and
/// structured fields, and its path tokens in file and folder names at lower weight;
/// `None` when the text has no searchable terms.
pub fn lexical_query(text: &str) -> Option<LexicalRequest> {
    let prose_terms = analyse(en_analyzer(), text);
    // Path tokens: not stemmed, and only words the prose analyser keeps (no stop words).
    let path_terms: Vec<String> = analyse(path_analyzer(), text)
        .into_iter()
        .filter(|t| !analyse(en_analyzer(), t).is_empty())
        .collect();
    // The fields' weights are fitted (`crate::weights`, `eval/fit/fit_ranking.py`).
    let w = crate::weights::Weights::fitted();
    let groups = [
        ("bm25.text", LexicalField::Text, &prose_terms, w.text_boost),
        (
            "bm25.title",
            LexicalField::Title,
            &prose_terms,
            w.title_boost,
        ),
        ("bm25.meta", LexicalField::Meta, &prose_terms, w.meta_boost),
        ("bm25.name", LexicalField::Name, &path_terms, w.name_boost),
        (
            "bm25.folders",
            LexicalField::Folders,
            &path_terms,
            w.folders_boost,
        ),
    ];
    let signals: Vec<LexicalSignal> = groups
        .into_iter()
        .filter(|(_, _, terms, _)| !terms.is_empty())
        .map(|(name, field, terms, boost)| LexicalSignal {
            name,
            field,
            terms: terms.clone(),
            boost,
        })
        .collect();
    (!signals.is_empty()).then_some(LexicalRequest { signals })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_given_vector_is_checked_and_made_unit_length() {
        let with = |vector: Vec<f32>| {
            SearchParams {
                vector: Some(std::sync::Arc::new(vector)),
                ..SearchParams::default()
            }
            .validate()
        };
        let unit = with(vec![3.0, 4.0]).unwrap().vector.unwrap();
        assert!((unit[0] - 0.6).abs() < 1e-6 && (unit[1] - 0.8).abs() < 1e-6);
        assert!(with(vec![0.0, 0.0]).is_err());
        assert!(with(vec![f32::NAN]).is_err());
        assert!(with(Vec::new()).is_err());
        assert!(with(vec![0.1; MAX_VECTOR_LEN + 1]).is_err());
    }

    use super::*;
    use crate::fusion::Fusion;

    fn params(query: &str) -> SearchParams {
        SearchParams {
            query: query.to_string(),
            ..SearchParams::default()
        }
    }

    #[test]
    fn validation_fills_defaults_and_rejects_what_is_wrong() {
        let valid = SearchParams {
            top_k: 0,
            units_per_file: 0,
            modalities: vec!["Document".into()],
            extensions: vec![".PDF".into()],
            ..params("budget")
        }
        .validate()
        .unwrap();
        assert_eq!(valid.top_k, DEFAULT_TOP_K);
        assert_eq!(valid.units_per_file, DEFAULT_UNITS_PER_FILE);
        assert_eq!(valid.modalities, ["document"]);
        assert_eq!(valid.extensions, ["pdf"]);
        let capped = SearchParams {
            units_per_file: 500,
            ..params("x")
        };
        assert_eq!(capped.validate().unwrap().units_per_file, 50);
        let wrong = [
            SearchParams {
                top_k: MAX_TOP_K + 1,
                ..params("x")
            },
            params(&"x".repeat(MAX_QUERY_CHARS + 1)),
            SearchParams {
                context: MAX_CONTEXT + 1,
                ..params("x")
            },
            SearchParams {
                modalities: vec!["smell".into()],
                ..params("x")
            },
            SearchParams {
                path_prefixes: vec!["Docs/../..".into()],
                ..params("x")
            },
            SearchParams {
                time_start: Some(10),
                time_end: Some(10),
                ..params("x")
            },
            SearchParams {
                fusion: Fusion::Rrf { k: 0.0 },
                ..params("x")
            },
            SearchParams {
                cutoff: crate::cutoff::Cutoff {
                    autocut: crate::cutoff::MAX_AUTOCUT + 1,
                    min_score: None,
                },
                ..params("x")
            },
            SearchParams {
                cutoff: crate::cutoff::Cutoff {
                    autocut: 0,
                    min_score: Some(f32::NAN),
                },
                ..params("x")
            },
            SearchParams {
                fusion: Fusion::Weighted {
                    lexical_weight: 1.5,
                },
                ..params("x")
            },
            SearchParams {
                activity: Some(crate::activity::ActivityFilter {
                    kinds: vec!["teleported".into()],
                    ..Default::default()
                }),
                ..params("x")
            },
            SearchParams {
                activity: Some(crate::activity::ActivityFilter {
                    start: Some(10),
                    end: Some(5),
                    ..Default::default()
                }),
                ..params("x")
            },
            SearchParams {
                activity: Some(crate::activity::ActivityFilter {
                    start: Some(10),
                    when: Some("yesterday".into()),
                    ..Default::default()
                }),
                ..params("x")
            },
        ];
        for request in wrong {
            let shown = format!("{request:?}");
            assert!(
                matches!(request.validate(), Err(SearchError::InvalidArgument(_))),
                "{shown}"
            );
        }
    }

    #[test]
    fn switches_and_fusion_are_read_the_same_way_by_every_transport() {
        let off = planner_switches(&["time".into(), "people".into()]).unwrap();
        assert!(!off.time && !off.people && off.whose && off.folders);
        let none = planner_switches(&["all".into()]).unwrap();
        assert!(!none.time && !none.whose && !none.folders && !none.people);
        assert!(planner_switches(&["weather".into()]).is_err());
        assert_eq!(
            fusion_of(FusionKind::Rrf, None, Some(0.9)),
            Fusion::Rrf {
                k: crate::fusion::DEFAULT_RRF_K
            }
        );
        assert_eq!(
            fusion_of(FusionKind::Weighted, Some(5.0), None),
            Fusion::Weighted {
                lexical_weight: DEFAULT_LEXICAL_WEIGHT
            }
        );
        assert_eq!(
            fusion_of(FusionKind::Dbsf, Some(5.0), Some(0.2)),
            Fusion::Dbsf
        );
        assert_eq!(FusionKind::parse("dbsf"), Some(FusionKind::Dbsf));
        assert_eq!(FusionKind::parse("borda"), None);
    }

    #[test]
    fn filters_become_unit_predicates() {
        let request = SearchParams {
            path_prefixes: vec!["Mail".into()],
            modalities: vec!["document".into()],
            time_start: Some(5),
            ..params("x")
        };
        let filter = request.unit_filter();
        assert_eq!(filter.path_prefixes, ["Mail"]);
        assert_eq!(filter.modalities, ["document"]);
        assert_eq!(filter.time_start, Some(5));
        assert!(filter.kinds.is_empty() && filter.time_end.is_none());
        assert!(params("x").unit_filter().is_empty());
        assert!(request.has_filters() && !params("x").has_filters());
    }
}
