//! Lexical search as sparse vectors, in the scheme of Qdrant's own `Qdrant/bm25`: the
//! document side holds BM25's term-frequency part, the server multiplies in the IDF
//! (the collection's `bm25` sparse vector has `modifier: Idf`), and the query side holds
//! one weight per query term.
//!
//! Each lexical field group (text, title, meta, name, folders) keeps its own terms: a
//! token id is a `u32` from BLAKE3 of `"{field}:{term}"`, so the same word in the title
//! and in the text are different dimensions, like separate tantivy fields. The texts are
//! those of [`index::writer::lexical_texts`] (what the tantivy fields of the same names
//! receive) analysed with the same analyzers (`en` for text/title/meta, `path` for
//! name/folders).
//!
//! Document value of a term: `tf·(k1+1) / (tf + k1·(1−b+b·len/avg_len))`, k1 = 1.2,
//! b = 0.75, `len` the field's token count. tantivy uses the live average field length of
//! the index; here a sync takes the local index's exact averages
//! ([`AvgLengths::of_index`]) and keeps them, stored in the profile's info point, while
//! the live ones stay within 25 % of them, so a point's vector does not change with every
//! write elsewhere in the profile, yet follows the profile's real lengths. (When the
//! averages are renewed, every file of the profile is rewritten once: they are part of
//! each file's sync key.) Exact rather than rounded averages keep the scores within a
//! few tenths of a percent of tantivy's (persona lexical Recall@10 0.800 → 0.811, the
//! embedded backend's). [`avg_len`] holds the defaults for an empty index.

use std::collections::BTreeMap;

use index::api::{LexicalField, LexicalRequest, LexicalSignal};
use index::schema::{en_analyzer, path_analyzer};
use index::writer::LexicalTexts;
use tantivy::tokenizer::{TextAnalyzer, TokenStream};

/// BM25 term-frequency saturation.
pub const K1: f32 = 1.2;
/// BM25 length normalisation.
pub const B: f32 = 0.75;

/// The fixed average length (in analysed tokens) assumed for a field group: typical
/// values of a personal index (a unit's text is a page or a span of a few hundred words,
/// of which about half survive stop words; a title is a subject line or a file title).
pub fn avg_len(field: LexicalField) -> f32 {
    match field {
        LexicalField::Text => 150.0,
        LexicalField::Title => 6.0,
        LexicalField::Meta => 8.0,
        LexicalField::Name => 4.0,
        LexicalField::Folders => 4.0,
    }
}

/// Average analysed length per field group, in the order of [`LexicalField::ALL`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AvgLengths(pub [f32; 5]);

impl Default for AvgLengths {
    fn default() -> Self {
        AvgLengths(LexicalField::ALL.map(avg_len))
    }
}

impl AvgLengths {
    pub fn get(&self, field: LexicalField) -> f32 {
        let slot = LexicalField::ALL
            .iter()
            .position(|f| *f == field)
            .unwrap_or(0);
        self.0[slot]
    }

    /// The averages of a local index (tokens per unit in each field, as tantivy's BM25
    /// sees them); the defaults where a field is empty.
    pub fn of_index(handle: &index::IndexHandle) -> Result<AvgLengths, tantivy::TantivyError> {
        use tantivy::query::Bm25StatisticsProvider;
        let searcher = handle.reader.searcher();
        let docs = searcher.total_num_docs()?;
        let mut out = AvgLengths::default();
        for (slot, field) in LexicalField::ALL.into_iter().enumerate() {
            let tokens = searcher
                .total_num_tokens(index::embedded_search::field_of(&handle.fields, field))?;
            if docs > 0 && tokens > 0 {
                out.0[slot] = tokens as f32 / docs as f32;
            }
        }
        Ok(out)
    }

    /// Every field within 25 % of `other`'s.
    pub fn close_to(&self, other: &AvgLengths) -> bool {
        self.0
            .iter()
            .zip(other.0)
            .all(|(a, b)| (0.8..=1.25).contains(&(a / b.max(f32::MIN_POSITIVE))))
    }

    /// As stored in the profile's info point: five numbers separated by spaces.
    pub fn to_text(&self) -> String {
        self.0.map(|x| x.to_string()).join(" ")
    }

    pub fn parse(text: &str) -> Option<AvgLengths> {
        let values: Vec<f32> = text
            .split_whitespace()
            .map(|x| x.parse().ok().filter(|x: &f32| x.is_finite() && *x > 0.0))
            .collect::<Option<_>>()?;
        Some(AvgLengths(values.try_into().ok()?))
    }

    /// Bytes for a sync key.
    pub fn key_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

/// The sparse dimension of `term` in `field`.
pub fn token_id(field: LexicalField, term: &str) -> u32 {
    let hash = blake3::hash(format!("{}:{term}", field.as_str()).as_bytes());
    let b = hash.as_bytes();
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The analyzer of a field group (the one its tantivy field uses).
pub fn analyzer(field: LexicalField) -> TextAnalyzer {
    match field {
        LexicalField::Text | LexicalField::Title | LexicalField::Meta => en_analyzer(),
        LexicalField::Name | LexicalField::Folders => path_analyzer(),
    }
}

/// The terms of `text` as `field`'s analyzer produces them.
pub fn analyze(field: LexicalField, text: &str) -> Vec<String> {
    let mut analyzer = analyzer(field);
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(token) = stream.next() {
        out.push(token.text.clone());
    }
    out
}

/// A sparse vector: `(index, value)` sorted by index, no repeated index.
pub type Sparse = Vec<(u32, f32)>;

fn field_text(texts: &LexicalTexts, field: LexicalField) -> &str {
    match field {
        LexicalField::Text => &texts.text,
        LexicalField::Title => &texts.title,
        LexicalField::Meta => &texts.meta,
        LexicalField::Name => &texts.name,
        LexicalField::Folders => &texts.folders,
    }
}

fn finish(map: BTreeMap<u32, f32>) -> Sparse {
    map.into_iter().filter(|(_, v)| *v != 0.0).collect()
}

/// The document vector of a unit for the profile's average lengths.
pub fn document_vector(texts: &LexicalTexts, avg: &AvgLengths) -> Sparse {
    document_vector_with(texts, |field| avg.get(field))
}

/// The document vector of a unit with given average field lengths (tests use the real
/// averages of a corpus to compare with tantivy).
pub fn document_vector_with(texts: &LexicalTexts, avg: impl Fn(LexicalField) -> f32) -> Sparse {
    let mut out: BTreeMap<u32, f32> = BTreeMap::new();
    for field in LexicalField::ALL {
        let terms = analyze(field, field_text(texts, field));
        if terms.is_empty() {
            continue;
        }
        let len = terms.len() as f32;
        let mut tf: BTreeMap<&str, f32> = BTreeMap::new();
        for term in &terms {
            *tf.entry(term.as_str()).or_default() += 1.0;
        }
        let norm = K1 * (1.0 - B + B * len / avg(field).max(f32::MIN_POSITIVE));
        for (term, tf) in tf {
            // Two terms landing on one id (a hash collision) add up.
            *out.entry(token_id(field, term)).or_default() += tf * (K1 + 1.0) / (tf + norm);
        }
    }
    finish(out)
}

/// The query vector of a lexical request: each signal's terms in its field, weighted by
/// the signal's boost (summed when a term repeats).
pub fn query_vector(request: &LexicalRequest) -> Sparse {
    signals_vector(&request.signals)
}

/// The query vector of some signals of a request (one signal: its own score, for
/// `explain`).
pub fn signals_vector(signals: &[LexicalSignal]) -> Sparse {
    let mut out: BTreeMap<u32, f32> = BTreeMap::new();
    for signal in signals {
        for term in &signal.terms {
            *out.entry(token_id(signal.field, term)).or_default() += signal.boost;
        }
    }
    finish(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
    use tantivy::schema::{IndexRecordOption, TextFieldIndexing, TextOptions, STORED};
    use tantivy::{doc, Index, TantivyDocument, Term};

    const CORPUS: &[&str] = &[
        "The quarterly budget report for the finance team",
        "Budget planning meeting notes: budget cuts and hiring freeze",
        "Holiday photos from the beach in Portugal",
        "Invoice number 1234 for consulting services rendered in March",
        "Meeting agenda: quarterly review, budget, roadmap",
        "Recipe for lemon cake with fresh lemons and sugar",
        "The cat sat on the mat and watched the birds",
        "Flight booking confirmation to Lisbon, Portugal",
        "Annual finance report with detailed budget tables and finance charts",
        "Notes on rust programming: ownership, borrowing and lifetimes",
        "Tax return documents for the previous year",
        "Lemon tree care: watering, sunlight and pruning",
        "Team offsite planning: venue, catering, travel to Lisbon",
        "Consulting contract renewal and invoice schedule",
        "Birds of Portugal: a field guide",
        "Roadmap for the next quarter with hiring plans",
        "Insurance policy renewal notice for the car",
        "Car service appointment reminder at the garage",
        "Hiring plan: two engineers and one designer next quarter",
        "Cake decorating ideas for a birthday party",
        "Rust compiler errors explained: borrow checker and lifetimes",
        "Beach holiday packing list: sunscreen, towels, books",
        "Finance team weekly sync notes",
        "Garage door repair invoice",
        "Quarterly tax payment reminder",
        "The history of Lisbon and its trams",
        "Photo album: birthday party at the beach",
        "Designer portfolio review meeting",
        "Sugar free dessert recipes",
        "Budget spreadsheet for the holiday trip to Portugal",
    ];

    fn texts(text: &str) -> LexicalTexts {
        LexicalTexts {
            text: text.to_string(),
            ..LexicalTexts::default()
        }
    }

    /// BM25 over the sparse vectors (with the corpus's real average text length and a
    /// locally computed IDF, as Qdrant's `Idf` modifier computes it) ranks like tantivy.
    #[test]
    fn sparse_bm25_ranks_like_tantivy() {
        let mut builder = tantivy::schema::Schema::builder();
        let text = builder.add_text_field(
            "text",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer("en")
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            ) | STORED,
        );
        let index = Index::create_in_ram(builder.build());
        index.tokenizers().register("en", en_analyzer());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for doc_text in CORPUS {
            writer.add_document(doc!(text => *doc_text)).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();

        let lengths: Vec<usize> = CORPUS
            .iter()
            .map(|t| analyze(LexicalField::Text, t).len())
            .collect();
        let average = lengths.iter().sum::<usize>() as f32 / CORPUS.len() as f32;
        let vectors: Vec<HashMap<u32, f32>> = CORPUS
            .iter()
            .map(|t| {
                document_vector_with(&texts(t), |_| average)
                    .into_iter()
                    .collect()
            })
            .collect();
        let n = CORPUS.len() as f32;
        let idf = |id: u32| {
            let df = vectors.iter().filter(|v| v.contains_key(&id)).count() as f32;
            ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
        };

        for query in [
            "budget",
            "finance report",
            "lisbon portugal",
            "lemon cake",
            "invoice consulting",
            "hiring quarter",
            "rust lifetimes borrow",
            "beach holiday",
        ] {
            let terms = analyze(LexicalField::Text, query);
            let request = LexicalRequest {
                signals: vec![LexicalSignal {
                    name: "bm25.text",
                    field: LexicalField::Text,
                    terms: terms.clone(),
                    boost: 1.0,
                }],
            };
            let q: HashMap<u32, f32> = query_vector(&request).into_iter().collect();
            let mut sparse: Vec<(f32, usize)> = vectors
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let score = q
                        .iter()
                        .filter_map(|(id, w)| v.get(id).map(|x| w * x * idf(*id)))
                        .sum::<f32>();
                    (score, i)
                })
                .filter(|(s, _)| *s > 0.0)
                .collect();
            sparse.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

            let clauses: Vec<(Occur, Box<dyn Query>)> = terms
                .iter()
                .map(|t| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(text, t),
                        IndexRecordOption::WithFreqs,
                    ));
                    (Occur::Should, q)
                })
                .collect();
            let hits = searcher
                .search(
                    &BooleanQuery::new(clauses),
                    &TopDocs::with_limit(3).order_by_score(),
                )
                .unwrap();
            let tantivy: Vec<(f32, usize)> = hits
                .iter()
                .map(|(score, address)| {
                    let doc: TantivyDocument = searcher.doc(*address).unwrap();
                    let _ = doc;
                    (*score, address.doc_id as usize)
                })
                .collect();
            assert_eq!(tantivy.len(), sparse.len().min(3), "{query}");
            for (t, s) in tantivy.iter().zip(&sparse) {
                assert!(
                    (t.0 - s.0).abs() < 1e-3 * t.0.max(1.0),
                    "{query}: tantivy {tantivy:?} sparse {sparse:?}"
                );
                assert_eq!(t.1, s.1, "{query}: tantivy {tantivy:?} sparse {sparse:?}");
            }
        }
    }

    #[test]
    fn average_lengths_round_trip_and_tolerate_small_moves() {
        let avg = AvgLengths::default();
        assert_eq!(AvgLengths::parse(&avg.to_text()), Some(avg));
        assert_eq!(AvgLengths::parse("1 2 3"), None);
        let mut near = avg;
        near.0[0] *= 1.2;
        assert!(avg.close_to(&near));
        near.0[0] *= 1.2;
        assert!(!avg.close_to(&near));
        assert_eq!(avg.get(LexicalField::Text), avg_len(LexicalField::Text));
        assert_eq!(
            avg.get(LexicalField::Folders),
            avg_len(LexicalField::Folders)
        );
    }

    #[test]
    fn fields_are_separate_dimensions_and_boosts_add() {
        assert_ne!(
            token_id(LexicalField::Text, "budget"),
            token_id(LexicalField::Title, "budget")
        );
        let vector = document_vector(
            &LexicalTexts {
                text: "budget budget report".into(),
                title: "Budget".into(),
                name: "budget 2024 xlsx".into(),
                ..LexicalTexts::default()
            },
            &AvgLengths::default(),
        );
        assert_eq!(vector.len(), 6, "2 text + 1 title + 3 name terms");
        assert!(vector.windows(2).all(|w| w[0].0 < w[1].0));
        let request = LexicalRequest {
            signals: vec![
                LexicalSignal {
                    name: "a",
                    field: LexicalField::Text,
                    terms: vec!["budget".into(), "budget".into()],
                    boost: 1.5,
                },
                LexicalSignal {
                    name: "b",
                    field: LexicalField::Name,
                    terms: vec!["budget".into()],
                    boost: 0.5,
                },
            ],
        };
        let q = query_vector(&request);
        assert_eq!(q.len(), 2);
        let text_weight = q
            .iter()
            .find(|(id, _)| *id == token_id(LexicalField::Text, "budget"))
            .unwrap()
            .1;
        assert_eq!(text_weight, 3.0);
    }
}
