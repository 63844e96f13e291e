//! Where a unit is in a searcher's snapshot, by its id (a leaf shared by the embedded
//! backend, its search and the fresh-vector cache).

use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Searcher, Term};

use crate::error::IndexError;
use crate::schema::Fields;

/// Where a unit is in a searcher's snapshot (`None`: it left the index).
pub fn address_of_unit(
    searcher: &Searcher,
    fields: &Fields,
    unit_id: &str,
) -> Result<Option<DocAddress>, IndexError> {
    // The term's postings read directly: no query, weight or scorer to build.
    let term = Term::from_field_text(fields.unit_id, unit_id);
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let inverted = segment.inverted_index(fields.unit_id)?;
        let postings = inverted
            .read_postings(&term, IndexRecordOption::Basic)
            .map_err(tantivy::TantivyError::from)?;
        let Some(mut postings) = postings else {
            continue;
        };
        let alive = segment.alive_bitset();
        let mut doc = postings.doc();
        while doc != tantivy::TERMINATED {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                return Ok(Some(DocAddress::new(ord as u32, doc)));
            }
            doc = postings.advance();
        }
    }
    Ok(None)
}
