//! The tantivy schema of the unit index and the analyzers it uses.
//!
//! One tantivy document per atomic unit. Text fields are analysed with `en` (lower
//! case, ASCII folding, English stop words removed, Snowball stemming); file names and
//! folders use `path` (split on every non-alphanumeric character and on camelCase /
//! digit boundaries, lower case, no stemming of numbers).

use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, SchemaBuilder, TextFieldIndexing,
    TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer, TokenFilter,
};
use tantivy::Index;

/// Name of the analyzer for prose fields.
pub const EN_ANALYZER: &str = "en";
/// Name of the analyzer for file names and folders.
pub const PATH_ANALYZER: &str = "path";

/// Handles to every field of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// `<file_id>:<ordinal>`; unique per unit.
    pub unit_id: Field,
    /// Stable id of the file (hash of its relative path); the delete key.
    pub file_id: Field,
    /// Relative path (exact-match string).
    pub path: Field,
    /// Folder chain as a facet (`/Documents/Finance`) for prefix filters.
    pub folder: Field,
    /// File name tokens (lower weight).
    pub name: Field,
    /// Folder name tokens (lower weight).
    pub folders: Field,
    /// Unit text (stemmed, positions, stored for snippets and GetText).
    pub text: Field,
    /// Unit title (subject, summary, slide title, sheet name).
    pub title: Field,
    /// Structured field values (from, to, attendees, location…) as searchable text.
    pub meta: Field,
    /// Unit kind (`page`, `slide`, …).
    pub kind: Field,
    /// File modality (`document`, `text`, …).
    pub modality: Field,
    /// Lower-case extension without the dot.
    pub ext: Field,
    /// Detected file type (`pdf`, `docx`, …).
    pub file_type: Field,
    /// Unit content time, Unix seconds.
    pub content_time: Field,
    /// File modification time, Unix seconds.
    pub modified: Field,
    /// Weekdays of the unit (0 = Monday … 6 = Sunday); several for recurring events.
    pub weekday: Field,
    /// Hour of day (0–23) of the content time, wall clock.
    pub hour: Field,
    /// Position of the unit within its file (0-based).
    pub ordinal: Field,
    /// Locator as JSON.
    pub locator: Field,
    /// Structured fields as JSON.
    pub fields_json: Field,
    /// Content time as RFC 3339 with the original offset.
    pub content_time_text: Field,
}

impl Fields {
    /// Looks every field up in an existing schema.
    pub fn from_schema(schema: &Schema) -> tantivy::Result<Fields> {
        let get = |name: &str| schema.get_field(name);
        Ok(Fields {
            unit_id: get("unit_id")?,
            file_id: get("file_id")?,
            path: get("path")?,
            folder: get("folder")?,
            name: get("name")?,
            folders: get("folders")?,
            text: get("text")?,
            title: get("title")?,
            meta: get("meta")?,
            kind: get("kind")?,
            modality: get("modality")?,
            ext: get("ext")?,
            file_type: get("file_type")?,
            content_time: get("content_time")?,
            modified: get("modified")?,
            weekday: get("weekday")?,
            hour: get("hour")?,
            ordinal: get("ordinal")?,
            locator: get("locator")?,
            fields_json: get("fields_json")?,
            content_time_text: get("content_time_text")?,
        })
    }
}

/// Version of the schema below; a mismatch makes the indexer rebuild the index.
pub const SCHEMA_VERSION: u32 = 2;

/// Builds the unit schema.
pub fn build_schema() -> Schema {
    let mut builder = SchemaBuilder::new();
    let prose = |stored: bool| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(EN_ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let options = TextOptions::default().set_indexing_options(indexing);
        if stored {
            options.set_stored()
        } else {
            options
        }
    };
    let path_tokens = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(PATH_ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let keyword = STRING | STORED | FAST;
    let number = NumericOptions::default()
        .set_indexed()
        .set_fast()
        .set_stored();

    builder.add_text_field("unit_id", STRING | STORED | FAST);
    builder.add_text_field("file_id", STRING | STORED | FAST);
    builder.add_text_field("path", STRING | STORED);
    builder.add_facet_field("folder", INDEXED | STORED);
    builder.add_text_field("name", path_tokens.clone());
    builder.add_text_field("folders", path_tokens);
    builder.add_text_field("text", prose(true));
    builder.add_text_field("title", prose(true));
    builder.add_text_field("meta", prose(false));
    builder.add_text_field("kind", keyword.clone());
    builder.add_text_field("modality", keyword.clone());
    builder.add_text_field("ext", keyword.clone());
    builder.add_text_field("file_type", keyword);
    builder.add_i64_field("content_time", number.clone());
    builder.add_i64_field("modified", number.clone());
    builder.add_u64_field(
        "weekday",
        NumericOptions::default().set_indexed().set_fast(),
    );
    builder.add_u64_field("hour", NumericOptions::default().set_indexed().set_fast());
    builder.add_u64_field("ordinal", number);
    builder.add_text_field("locator", STORED);
    builder.add_text_field("fields_json", STORED);
    builder.add_text_field("content_time_text", STORED);
    builder.build()
}

/// Registers the analyzers every index needs (call on each open).
pub fn register_analyzers(index: &Index) {
    let manager = index.tokenizers();
    manager.register(EN_ANALYZER, en_analyzer());
    manager.register(PATH_ANALYZER, path_analyzer());
}

/// The prose analyzer (also used to analyse queries).
pub fn en_analyzer() -> TextAnalyzer {
    en_analyzer_with(Stemmer::new(Language::English))
}

/// The prose analyzer with `stemmer` as its last step (see [`crate::highlight`]).
pub(crate) fn en_analyzer_with<F: TokenFilter>(stemmer: F) -> TextAnalyzer {
    let builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter);
    match StopWordFilter::new(Language::English) {
        Some(stop_words) => builder.filter(stop_words).filter(stemmer).build(),
        None => builder.filter(stemmer).build(),
    }
}

/// The path analyzer: names are pre-split by [`split_path_words`] before indexing, so
/// this only lower-cases and folds.
pub fn path_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// Splits a file or folder name into words: at non-alphanumerics, camelCase humps and
/// letter/digit boundaries ("FosterCreek_v2.docx" → "Foster Creek v 2 docx"). The
/// original alphanumeric runs are kept too, so "10K" still matches "10k".
pub fn split_path_words(name: &str) -> String {
    let mut out = String::with_capacity(name.len() * 2);
    for run in name.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        out.push_str(run);
        out.push(' ');
        let pieces = split_humps(run);
        if pieces.len() > 1 {
            for piece in pieces {
                out.push_str(piece);
                out.push(' ');
            }
        }
    }
    out.trim_end().to_string()
}

fn split_humps(run: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    for window in chars.windows(2) {
        let (_, a) = window[0];
        let (index, b) = window[1];
        let boundary = (a.is_lowercase() && b.is_uppercase())
            || (a.is_alphabetic() && b.is_numeric())
            || (a.is_numeric() && b.is_alphabetic());
        if boundary {
            pieces.push(&run[start..index]);
            start = index;
        }
    }
    pieces.push(&run[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::TokenStream;

    fn tokens(mut analyzer: TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(token) = stream.next() {
            out.push(token.text.clone());
        }
        out
    }

    #[test]
    fn prose_is_stemmed_and_stop_words_dropped() {
        assert_eq!(
            tokens(en_analyzer(), "The Purchases of Équipment"),
            vec!["purchas", "equip"]
        );
    }

    #[test]
    fn path_words_split_humps_and_digits() {
        assert_eq!(
            split_path_words("3M_2018_10K.pdf"),
            "3M 3 M 2018 10K 10 K pdf"
        );
        assert_eq!(
            split_path_words("FosterCreek v2.docx"),
            "FosterCreek Foster Creek v2 v 2 docx"
        );
    }

    #[test]
    fn schema_fields_resolve() {
        let schema = build_schema();
        assert!(Fields::from_schema(&schema).is_ok());
    }
}
