//! The analyzer snippets are highlighted with: the prose analyzer, except that a word
//! is stemmed only when its stem could be one of the highlighted terms.
//!
//! A snippet re-analyses the whole text of every unit it is made for, and stemming is
//! most of that work (a top-60 reply stems every word of 60 units). The English
//! Snowball stemmer never changes a word's first letter, and leaves its first two
//! letters alone in every word longer than six bytes (suffixes are removed in R1 and
//! R2, which start after the second letter at the earliest; the exceptional forms that
//! change the second letter, "dying", "lying", "tying", are short). So a word whose
//! first letters agree with no term cannot stem to one: it is passed on unstemmed,
//! and as it does not share those letters with any term it cannot match one either.
//! The highlights are the same as with [`crate::schema::en_analyzer`].

use std::sync::Arc;

use tantivy::tokenizer::{
    Language, RawTokenizer, Stemmer, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer,
};

/// Words of at most this many bytes are always stemmed (see the module note).
const SHORT_WORD_BYTES: usize = 6;

/// The analyzer for highlighting `terms` (stems, as the prose analyzer makes them).
pub fn highlight_analyzer<'a>(terms: impl IntoIterator<Item = &'a str>) -> TextAnalyzer {
    crate::schema::en_analyzer_with(StemWhereItCanMatch::new(terms))
}

/// The first letters of the terms a word may stem to.
#[derive(Clone, Debug, Default)]
struct Gate {
    /// (first letter, first two letters) of each term.
    prefixes: Vec<(char, String)>,
}

impl Gate {
    fn new<'a>(terms: impl IntoIterator<Item = &'a str>) -> Gate {
        let mut prefixes: Vec<(char, String)> = terms
            .into_iter()
            .filter_map(|term| {
                let first = term.chars().next()?;
                Some((first, term.chars().take(2).collect()))
            })
            .collect();
        prefixes.sort();
        prefixes.dedup();
        Gate { prefixes }
    }

    /// Whether `word` (lower-cased and folded) may stem to one of the terms.
    fn may_match(&self, word: &str) -> bool {
        let Some(first) = word.chars().next() else {
            return false;
        };
        let short = word.len() <= SHORT_WORD_BYTES;
        self.prefixes
            .iter()
            .any(|(letter, two)| *letter == first && (short || word.starts_with(two.as_str())))
    }
}

/// A token filter: the English stemmer, applied only to words that pass the gate.
#[derive(Clone)]
pub struct StemWhereItCanMatch {
    gate: Arc<Gate>,
}

impl StemWhereItCanMatch {
    fn new<'a>(terms: impl IntoIterator<Item = &'a str>) -> StemWhereItCanMatch {
        StemWhereItCanMatch {
            gate: Arc::new(Gate::new(terms)),
        }
    }
}

impl TokenFilter for StemWhereItCanMatch {
    type Tokenizer<T: Tokenizer> = GatedStemmer<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> GatedStemmer<T> {
        GatedStemmer {
            gate: self.gate,
            stemmer: one_word_stemmer(),
            inner: tokenizer,
        }
    }
}

/// Stems one whole word (the stemmer of the prose analyzer).
fn one_word_stemmer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(Stemmer::new(Language::English))
        .build()
}

#[derive(Clone)]
pub struct GatedStemmer<T> {
    gate: Arc<Gate>,
    stemmer: TextAnalyzer,
    inner: T,
}

impl<T: Tokenizer> Tokenizer for GatedStemmer<T> {
    type TokenStream<'a> = GatedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        GatedStemmerStream {
            gate: &self.gate,
            stemmer: &mut self.stemmer,
            tail: self.inner.token_stream(text),
        }
    }
}

pub struct GatedStemmerStream<'a, T> {
    gate: &'a Gate,
    stemmer: &'a mut TextAnalyzer,
    tail: T,
}

impl<T: TokenStream> TokenStream for GatedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if self.gate.may_match(&token.text) {
            let mut stems = self.stemmer.token_stream(&token.text);
            if stems.advance() {
                let stem = std::mem::take(&mut stems.token_mut().text);
                drop(stems);
                token.text = stem;
            }
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    /// Every word of the repository's documents and the English forms the Snowball
    /// stemmer treats specially: a word always passes the gate of its own stem.
    #[test]
    fn a_word_always_passes_the_gate_of_its_stem() {
        let mut text = String::from(
            "dying lying tying skis skies idly gently ugly early only singly sky news howe \
             atlas cosmos bias andes owing eing aing aingly cries ties generously \
             communities arsenals yelling yields Yvonne naïve café résumé 10K 2024 \
             running runs ran happily happiness relational conditional agreed feed \
             hopping hoping fizzed sized failing filing",
        );
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut names = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
        let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        docs.retain(|p| p.extension().is_some_and(|e| e == "md"));
        docs.sort();
        names.extend(docs);
        for name in names {
            text.push(' ');
            text.push_str(&std::fs::read_to_string(name).unwrap_or_default());
        }
        // WordNet's lemmas (Debian's wordnet-base), when installed: about 150,000 words.
        for part in ["noun", "verb", "adj", "adv"] {
            let index = std::fs::read_to_string(format!("/usr/share/wordnet/index.{part}"));
            for line in index
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.starts_with(' '))
            {
                text.push(' ');
                text.push_str(line.split(' ').next().unwrap_or_default());
            }
        }
        let mut full = crate::schema::en_analyzer();
        let words = tokens(&mut full, &text);
        assert!(
            words.len() > 1000,
            "too few words to check: {}",
            words.len()
        );
        let mut plain = crate::schema::en_analyzer_with(StemWhereItCanMatch::new([]));
        let unstemmed = tokens(&mut plain, &text);
        assert_eq!(unstemmed.len(), words.len());
        for (word, stem) in unstemmed.iter().zip(&words) {
            assert!(
                Gate::new([stem.as_str()]).may_match(word),
                "{word:?} stems to {stem:?} but would not be stemmed"
            );
        }
    }

    #[test]
    fn highlights_match_the_prose_analyzer() {
        let text = "The runners were running late; a runner's run ended. Hopping, \
                    she hoped the hopes of the community would run on. Gently, generously.";
        let terms = ["run", "runner", "hope", "communiti", "gentl"];
        let mut full = crate::schema::en_analyzer();
        let mut gated = highlight_analyzer(terms);
        let all = tokens(&mut full, text);
        let some = tokens(&mut gated, text);
        assert_eq!(all.len(), some.len());
        for (a, b) in all.iter().zip(&some) {
            let wanted = terms.contains(&a.as_str());
            assert_eq!(wanted, terms.contains(&b.as_str()), "{a:?} vs {b:?}");
        }
        // Words that cannot match are left as they are (not stemmed).
        assert!(some.contains(&"ended".to_string()));
        assert!(all.contains(&"end".to_string()));
    }
}
