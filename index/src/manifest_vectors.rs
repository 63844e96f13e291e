//! Reading the manifest's vectors in bulk: counting, streaming every text vector (the
//! daemon's vector store), fetching some by unit id (exact rescoring), and one file's
//! image vectors (the Qdrant sync).

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use crate::error::IndexError;
use crate::manifest::{Manifest, VectorRow};

impl Manifest {
    /// Stored text vectors.
    pub fn vector_count(&self) -> Result<usize, IndexError> {
        self.connection
            .query_row("SELECT COUNT(*) FROM vectors", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|n| n.max(0) as usize)
            .map_err(IndexError::sql)
    }

    /// Calls `f(unit_id, file_id, text_hash, vector bytes)` for every stored text vector,
    /// in unit-id order, one row at a time.
    pub fn for_each_vector(
        &self,
        mut f: impl FnMut(String, String, String, &[u8]),
    ) -> Result<(), IndexError> {
        let mut statement = self
            .connection
            .prepare("SELECT unit_id, file_id, text_hash, vector FROM vectors ORDER BY unit_id")
            .map_err(IndexError::sql)?;
        let mut rows = statement.query([]).map_err(IndexError::sql)?;
        while let Some(row) = rows.next().map_err(IndexError::sql)? {
            let bytes = row.get_ref(3).map_err(IndexError::sql)?;
            let bytes = bytes.as_blob().unwrap_or_default();
            f(
                row.get(0).map_err(IndexError::sql)?,
                row.get(1).map_err(IndexError::sql)?,
                row.get(2).map_err(IndexError::sql)?,
                bytes,
            );
        }
        Ok(())
    }

    /// The stored vector bytes of some units (those that have one).
    pub fn vectors_by_unit_ids(
        &self,
        unit_ids: &[&str],
    ) -> Result<HashMap<String, Vec<u8>>, IndexError> {
        // One read transaction for all the lookups (a statement on its own takes and
        // drops the database's shared lock each time), in key order (neighbouring
        // lookups share b-tree pages).
        let mut sorted = unit_ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let read = self
            .connection
            .unchecked_transaction()
            .map_err(IndexError::sql)?;
        let mut out = HashMap::with_capacity(sorted.len());
        {
            let mut statement = read
                .prepare("SELECT vector FROM vectors WHERE unit_id = ?1")
                .map_err(IndexError::sql)?;
            for id in sorted {
                let vector: Option<Vec<u8>> = statement
                    .query_row(params![id], |row| row.get(0))
                    .optional()
                    .map_err(IndexError::sql)?;
                if let Some(vector) = vector {
                    out.insert(id.to_string(), vector);
                }
            }
        }
        read.finish().map_err(IndexError::sql)?;
        Ok(out)
    }

    /// Every stored vector: `(unit_id, file_id, text_hash, vector bytes)`.
    pub fn all_vectors(&self) -> Result<Vec<VectorRow>, IndexError> {
        let mut statement = self
            .connection
            .prepare("SELECT unit_id, file_id, text_hash, vector FROM vectors ORDER BY unit_id")
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map([], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .map_err(IndexError::sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }

    /// The image vectors of one file that are still fresh (computed from the file's
    /// current content): `(model, unit_id, vector bytes)`, by model then unit id.
    pub fn image_vectors_of_file(
        &self,
        file_id: &str,
    ) -> Result<Vec<(String, String, Vec<u8>)>, IndexError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT v.model, v.unit_id, v.vector FROM image_vectors v \
                 JOIN files f ON f.file_id = v.file_id AND f.hash = v.file_hash \
                 WHERE v.file_id = ?1 AND f.status = 'indexed' ORDER BY v.model, v.unit_id",
            )
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params![file_id], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })
            .map_err(IndexError::sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }
}
