//! Reading the manifest's vectors in bulk: counting, streaming every text vector (the
//! daemon's vector store), fetching some by unit id (exact rescoring), and one file's
//! image vectors (the Qdrant sync).

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use crate::error::IndexError;
use crate::manifest::{bump_generation, Manifest, VectorRow};
use crate::vector::LEGACY_TEXT_MODEL;

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

/// The text and image vectors' rows: which files need embedding, replacing a file's
/// vectors, orphans, the generation log.
impl Manifest {
    /// Indexed files with units whose vectors are missing, stale, or made by a text
    /// model other than `model` or with other than `windows` windows per long text:
    /// `(path, file_id, hash)`.
    pub fn files_needing_embedding(
        &self,
        model: &str,
        windows: usize,
    ) -> Result<Vec<(String, String, String)>, IndexError> {
        // The marker's suffix after the content hash (see `vector::embedded_marker`).
        let suffix = crate::vector::embedded_marker("", model, windows);
        let mut statement = self
            .connection
            .prepare(
                "SELECT path, file_id, COALESCE(hash, '') FROM files \
                 WHERE status = 'indexed' AND unit_count > 0 \
                 AND (embedded IS NULL OR embedded != COALESCE(hash, '') || ?1) ORDER BY path",
            )
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map([suffix], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .map_err(IndexError::sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }

    /// Indexed files whose text vectors are complete for their current content but were
    /// made by a text model other than `model` (so a run with `model` embeds them again;
    /// vectors of `model` with other windows do not count).
    pub fn files_embedded_by_other_models(&self, model: &str) -> Result<u64, IndexError> {
        // `hash@model`, `hash@model+windows…`, `hash@model+named` (one window), and the
        // bare hash of the legacy model.
        let (bare, windowed, named) = (
            format!("@{model}"),
            format!("@{model}{}", crate::vector::WINDOWS_MARK),
            format!("@{model}{}", crate::vector::NAMED_MARK),
        );
        self.connection
            .query_row(
                "SELECT COUNT(*) FROM files WHERE status = 'indexed' AND unit_count > 0 \
                 AND embedded IS NOT NULL \
                 AND (embedded = COALESCE(hash, '') OR embedded LIKE COALESCE(hash, '') || '@%') \
                 AND embedded != COALESCE(hash, '') || ?1 \
                 AND substr(embedded, 1, length(COALESCE(hash, '') || ?2)) != COALESCE(hash, '') || ?2 \
                 AND embedded != COALESCE(hash, '') || ?4 \
                 AND NOT (embedded = COALESCE(hash, '') AND ?3)",
                params![bare, windowed, model == LEGACY_TEXT_MODEL, named],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(IndexError::sql)
    }

    /// Stored vectors of one file, whatever their model: `unit_id → (text_hash, vector
    /// bytes)`.
    pub fn vectors_of_file(
        &self,
        file_id: &str,
    ) -> Result<std::collections::HashMap<String, (String, Vec<u8>)>, IndexError> {
        self.file_vectors(file_id, None)
    }

    /// The stored vectors of one file that `model` made (those an embedding pass with
    /// it may reuse).
    pub fn vectors_of_file_by(
        &self,
        file_id: &str,
        model: &str,
    ) -> Result<std::collections::HashMap<String, (String, Vec<u8>)>, IndexError> {
        self.file_vectors(file_id, Some(model))
    }

    fn file_vectors(
        &self,
        file_id: &str,
        model: Option<&str>,
    ) -> Result<std::collections::HashMap<String, (String, Vec<u8>)>, IndexError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT unit_id, text_hash, vector FROM vectors WHERE file_id = ?1 \
                 AND (?2 IS NULL OR COALESCE(model, ?3) = ?2)",
            )
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params![file_id, model, LEGACY_TEXT_MODEL], |row| {
                Ok((row.get::<_, String>(0)?, (row.get(1)?, row.get(2)?)))
            })
            .map_err(IndexError::sql)?
            .collect::<Result<_, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }

    /// Any stored vector of `bytes` bytes that `model` computed from text with this hash
    /// (to avoid re-embedding). The length tells the number of windows: a vector of the
    /// same text cut into other windows (another `--text-windows`) is passed over, not
    /// taken for the only one.
    pub fn vector_for_text(
        &self,
        text_hash: &str,
        model: &str,
        bytes: usize,
    ) -> Result<Option<Vec<u8>>, IndexError> {
        self.connection
            .query_row(
                "SELECT vector FROM vectors WHERE text_hash = ?1 \
                 AND COALESCE(model, ?3) = ?2 AND length(vector) = ?4 LIMIT 1",
                params![text_hash, model, LEGACY_TEXT_MODEL, bytes as i64],
                |row| row.get(0),
            )
            .optional()
            .map_err(IndexError::sql)
    }

    /// Replaces a file's vectors with `rows` (`unit_id, text_hash, vector`), all made by
    /// `model`, and marks it embedded for `hash` by `model`, in one transaction, so a
    /// crash leaves either the old or the new complete set.
    pub fn replace_file_vectors(
        &mut self,
        path: &str,
        file_id: &str,
        hash: &str,
        model: &str,
        windows: usize,
        rows: &[(String, String, Vec<u8>)],
    ) -> Result<(), IndexError> {
        let transaction = self.connection.transaction().map_err(IndexError::sql)?;
        transaction
            .execute("DELETE FROM vectors WHERE file_id = ?1", params![file_id])
            .map_err(IndexError::sql)?;
        {
            let mut insert = transaction
                .prepare(
                    "INSERT OR REPLACE INTO vectors (unit_id, file_id, text_hash, vector, \
                     model) VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(IndexError::sql)?;
            for (unit_id, text_hash, vector) in rows {
                insert
                    .execute(params![unit_id, file_id, text_hash, vector, model])
                    .map_err(IndexError::sql)?;
            }
        }
        transaction
            .execute(
                "UPDATE files SET embedded = ?2 WHERE path = ?1",
                params![path, crate::vector::embedded_marker(hash, model, windows)],
            )
            .map_err(IndexError::sql)?;
        bump_generation(&transaction, &[file_id])?;
        transaction.commit().map_err(IndexError::sql)
    }

    /// Drops vectors whose file is no longer indexed.
    pub fn delete_orphan_vectors(&mut self) -> Result<usize, IndexError> {
        let transaction = self.connection.transaction().map_err(IndexError::sql)?;
        let orphans: Vec<String> = {
            let mut statement = transaction
                .prepare(
                    "SELECT file_id FROM vectors WHERE file_id NOT IN \
                     (SELECT file_id FROM files WHERE status = 'indexed') \
                     UNION SELECT file_id FROM image_vectors WHERE file_id NOT IN \
                     (SELECT file_id FROM files WHERE status = 'indexed')",
                )
                .map_err(IndexError::sql)?;
            let rows = statement
                .query_map([], |row| row.get(0))
                .map_err(IndexError::sql)?;
            rows.collect::<Result<_, _>>().map_err(IndexError::sql)?
        };
        let deleted = transaction
            .execute(
                "DELETE FROM vectors WHERE file_id NOT IN \
                 (SELECT file_id FROM files WHERE status = 'indexed')",
                [],
            )
            .map_err(IndexError::sql)?
            + transaction
                .execute(
                    "DELETE FROM image_vectors WHERE file_id NOT IN \
                     (SELECT file_id FROM files WHERE status = 'indexed')",
                    [],
                )
                .map_err(IndexError::sql)?;
        if deleted > 0 {
            let orphans: Vec<&str> = orphans.iter().map(String::as_str).collect();
            bump_generation(&transaction, &orphans)?;
        }
        transaction.commit().map_err(IndexError::sql)?;
        Ok(deleted)
    }

    /// Content hash each image file's CLIP vector of `model` was computed from.
    pub fn image_vector_hashes(
        &self,
        model: &str,
    ) -> Result<std::collections::HashMap<String, String>, IndexError> {
        let mut statement = self
            .connection
            .prepare("SELECT file_id, file_hash FROM image_vectors WHERE model = ?1")
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params![model], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(IndexError::sql)?
            .collect::<Result<_, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }

    /// Replaces the CLIP vectors of one file (`rows`: unit id, vector bytes).
    pub fn replace_image_vectors(
        &mut self,
        file_id: &str,
        file_hash: &str,
        model: &str,
        rows: &[(String, Vec<u8>)],
    ) -> Result<(), IndexError> {
        let transaction = self.connection.transaction().map_err(IndexError::sql)?;
        transaction
            .execute(
                "DELETE FROM image_vectors WHERE file_id = ?1",
                params![file_id],
            )
            .map_err(IndexError::sql)?;
        for (unit_id, vector) in rows {
            transaction
                .execute(
                    "INSERT OR REPLACE INTO image_vectors (unit_id, file_id, file_hash, model, vector) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![unit_id, file_id, file_hash, model, vector],
                )
                .map_err(IndexError::sql)?;
        }
        bump_generation(&transaction, &[file_id])?;
        transaction.commit().map_err(IndexError::sql)
    }

    /// Every CLIP vector of `model`: `(unit_id, file_id, vector bytes)`, for files that are
    /// still indexed with the content the vector was computed from.
    pub fn image_vectors(&self, model: &str) -> Result<Vec<(String, String, Vec<u8>)>, IndexError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT v.unit_id, v.file_id, v.vector FROM image_vectors v \
                 JOIN files f ON f.file_id = v.file_id AND f.hash = v.file_hash \
                 WHERE v.model = ?1 AND f.status = 'indexed' ORDER BY v.unit_id",
            )
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params![model], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })
            .map_err(IndexError::sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(IndexError::sql)?;
        Ok(rows)
    }

    /// The files whose vectors changed after `generation`, when the vector log covers
    /// every later generation (`None`: it does not — an index from before the log, or a
    /// reader too far behind — and everything must be loaded again).
    pub fn vector_changes_since(&self, generation: u64) -> Result<Option<Vec<String>>, IndexError> {
        let since: Option<u64> = self
            .info("vector_log_since")
            .ok()
            .flatten()
            .and_then(|v| v.parse().ok());
        match since {
            Some(since) if since <= generation + 1 => {}
            _ => return Ok(None),
        }
        let mut statement = self
            .connection
            .prepare("SELECT DISTINCT file_id FROM vector_log WHERE generation > ?1")
            .map_err(IndexError::sql)?;
        let rows = statement
            .query_map(params![generation as i64], |row| row.get(0))
            .map_err(IndexError::sql)?;
        Ok(Some(
            rows.collect::<Result<_, _>>().map_err(IndexError::sql)?,
        ))
    }

    /// A counter bumped by every change to the vectors (the daemon reloads on change).
    pub fn vectors_generation(&self) -> Result<u64, IndexError> {
        Ok(self
            .info("vectors_generation")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    }

    /// `(units with a vector, units of indexed files)`.
    pub fn embedding_coverage(&self) -> Result<(u64, u64), IndexError> {
        self.connection
            .query_row(
                "SELECT (SELECT COUNT(*) FROM vectors v JOIN files f ON f.file_id = v.file_id \
                         WHERE f.status = 'indexed'), \
                        (SELECT COALESCE(SUM(unit_count), 0) FROM files WHERE status = 'indexed')",
                [],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?.max(0) as u64,
                        row.get::<_, i64>(1)?.max(0) as u64,
                    ))
                },
            )
            .map_err(IndexError::sql)
    }
}
