//! Which text vectors still belong to their unit's current text, for one searcher
//! generation.
//!
//! A dense hit needs its unit's live address (the key fusion and snippets use) and the
//! check that the unit's text is still the one its vector was computed from (between a
//! commit and the embedding phase that follows it, a changed unit's old vector must not
//! be served). Both answers change only when the searcher does, so they are kept until
//! the searcher's generation changes, instead of looking up, loading and hashing every
//! hit's document on every query.

use std::collections::HashMap;
use std::sync::Mutex;

use tantivy::{DocAddress, Searcher, TantivyDocument};

use crate::address::address_of_unit;
use crate::error::IndexError;
use crate::schema::Fields;
use crate::store::StoredUnit;
use crate::vector::vector_is_current;

/// Verdicts kept at most (then they are dropped and found again).
const MAX_VERDICTS: usize = 200_000;

/// Unit id → (the text hash a vector was checked against, the unit's address when that
/// hash is its current text's), for one searcher generation.
#[derive(Default)]
struct Verdicts {
    generation: u64,
    by_unit: HashMap<String, (String, Option<DocAddress>)>,
}

/// The verdicts of the searcher generation last asked about.
#[derive(Default)]
pub(crate) struct FreshVectors {
    verdicts: Mutex<Verdicts>,
}

impl FreshVectors {
    /// The live address of `unit_id` in `searcher` when its current text hashes to
    /// `vector_hash` (the hash its vector was computed from); `None` when the unit left
    /// the index or changed since.
    pub fn address(
        &self,
        searcher: &Searcher,
        fields: &Fields,
        unit_id: &str,
        vector_hash: &str,
    ) -> Result<Option<DocAddress>, IndexError> {
        let generation = searcher.generation().generation_id();
        {
            let mut verdicts = self.verdicts.lock().unwrap_or_else(|p| p.into_inner());
            if verdicts.generation != generation {
                verdicts.by_unit.clear();
                verdicts.generation = generation;
            }
            if let Some((hash, verdict)) = verdicts.by_unit.get(unit_id) {
                if hash == vector_hash {
                    return Ok(*verdict);
                }
            }
        }
        let verdict = check(searcher, fields, unit_id, vector_hash)?;
        let mut verdicts = self.verdicts.lock().unwrap_or_else(|p| p.into_inner());
        if verdicts.generation == generation {
            if verdicts.by_unit.len() >= MAX_VERDICTS {
                verdicts.by_unit.clear();
            }
            verdicts
                .by_unit
                .insert(unit_id.to_string(), (vector_hash.to_string(), verdict));
        }
        Ok(verdict)
    }
}

fn check(
    searcher: &Searcher,
    fields: &Fields,
    unit_id: &str,
    vector_hash: &str,
) -> Result<Option<DocAddress>, IndexError> {
    let Some(address) = address_of_unit(searcher, fields, unit_id)? else {
        return Ok(None); // the unit left the index; its vector is stale
    };
    let doc: TantivyDocument = searcher.doc(address)?;
    let unit = StoredUnit::from_doc(fields, &doc);
    // A changed unit's new vector is not written yet.
    Ok(vector_is_current(vector_hash, &unit.path, &unit.title, &unit.text).then_some(address))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::FileRecord;
    use crate::store::{IndexHandle, IndexLayout};
    use crate::vector::{embedding_text, text_hash, unit_embedding_text};
    use crate::writer::{file_id_for, IndexWriter};
    use converters::{Locator, Unit, UnitKind};

    fn write(writer: &mut IndexWriter, text: &str) {
        let mtime = chrono::DateTime::parse_from_rfc3339("2024-03-01T10:00:00+00:00").unwrap();
        let record = FileRecord {
            size: 1,
            hash: Some(format!("hash-{text}")),
            converter_version: 1,
            file_type: Some(converters::FileType::Text),
            modality: Some(converters::Modality::Text),
            ext: "txt".into(),
            unit_count: 1,
            ..FileRecord::new("notes.txt")
        };
        writer.delete_units(&file_id_for("notes.txt"));
        let unit = Unit::new(UnitKind::Span, Locator::default(), text.to_string());
        writer.add_file(record, &[unit], mtime).unwrap();
        writer.commit().unwrap();
    }

    #[test]
    fn verdicts_follow_the_searcher_and_the_units_text() {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut writer =
            IndexWriter::open(&IndexLayout::new(dir.path()), profile.path(), 1, 15_000_000)
                .unwrap();
        write(&mut writer, "first text");
        let handle = IndexHandle::open(dir.path()).unwrap();
        let unit_id = format!("{}:0", file_id_for("notes.txt"));
        let (old, new) = (
            text_hash(&unit_embedding_text("notes.txt", "", "first text")),
            text_hash(&unit_embedding_text("notes.txt", "", "second text")),
        );
        let fresh = FreshVectors::default();
        let searcher = handle.reader.searcher();
        let fields = &handle.fields;
        let first = fresh.address(&searcher, fields, &unit_id, &old).unwrap();
        assert!(first.is_some(), "the vector of the current text");
        assert_eq!(
            fresh.address(&searcher, fields, &unit_id, &old).unwrap(),
            first
        );
        assert_eq!(
            fresh.address(&searcher, fields, &unit_id, &new).unwrap(),
            None
        );
        assert_eq!(
            fresh.address(&searcher, fields, "nobody:0", &old).unwrap(),
            None
        );
        // A vector made before units were headed by their file's name ("notes") still
        // serves until the next run embeds the unit again; one of another text does not.
        let before = text_hash(&embedding_text("", "first text"));
        assert_ne!(before, old);
        assert_eq!(
            fresh.address(&searcher, fields, &unit_id, &before).unwrap(),
            first
        );
        let other_before = text_hash(&embedding_text("", "second text"));
        assert_eq!(
            fresh
                .address(&searcher, fields, &unit_id, &other_before)
                .unwrap(),
            None
        );

        // The unit's text changes: in the new searcher the old vector is stale and the
        // new one is the unit's, at its new address.
        write(&mut writer, "second text");
        handle.reader.reload().unwrap();
        let searcher = handle.reader.searcher();
        assert_eq!(
            fresh.address(&searcher, fields, &unit_id, &old).unwrap(),
            None
        );
        let second = fresh.address(&searcher, fields, &unit_id, &new).unwrap();
        assert!(second.is_some());
        assert_eq!(
            searcher
                .doc::<TantivyDocument>(second.unwrap())
                .map(|d| StoredUnit::from_doc(fields, &d).text)
                .unwrap(),
            "second text"
        );
    }
}
