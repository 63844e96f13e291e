//! Files and units read back from a Qdrant collection (`UnitSource` for
//! [`QdrantBackend`]): file points by path or id, content hashes, a file's units.

use index::api::{StoreError, UnitSource};
use index::manifest::FileRecord;
use index::StoredUnit;
use qdrant_client::qdrant::{Condition, Filter};

use crate::backend::QdrantBackend;
use crate::error::QdrantError;
use crate::{filter, payload};

impl UnitSource for QdrantBackend {
    fn file(&self, path: &str) -> Result<Option<FileRecord>, StoreError> {
        let mut must = filter::of_type(self.profile(), payload::FILE);
        must.push(Condition::matches("path", path.to_string()));
        Ok(self.records(Filter::must(must))?.into_iter().next())
    }

    fn file_by_id(&self, file_id: &str) -> Result<Option<FileRecord>, StoreError> {
        let id = payload::file_point_id(self.profile(), file_id);
        let points = self.block_on(self.get(vec![id], "reading a file point"))?;
        Ok(points
            .first()
            .map(|p| payload::record_from_payload(&p.payload))
            .transpose()?)
    }

    fn files(&self) -> Result<Vec<FileRecord>, StoreError> {
        Ok(self.records(filter::file_points(self.profile()))?)
    }

    fn content_hashes(
        &self,
        file_ids: &[&str],
    ) -> Result<std::collections::HashMap<String, String>, StoreError> {
        let ids = file_ids
            .iter()
            .map(|f| payload::file_point_id(self.profile(), f))
            .collect();
        let points = self.block_on(self.get(ids, "reading file points"))?;
        let mut hashes = std::collections::HashMap::new();
        for point in points {
            let record = payload::record_from_payload(&point.payload)?;
            if let Some(hash) = record.hash {
                hashes.insert(record.file_id, hash);
            }
        }
        Ok(hashes)
    }

    fn units_of_file(&self, file_id: &str) -> Result<Vec<StoredUnit>, StoreError> {
        let selector = filter::units_of_file(self.profile(), file_id);
        let units: Result<Vec<StoredUnit>, QdrantError> = self.block_on(async {
            let points = self
                .remote
                .scroll_all(selector, None, "listing a file's units")
                .await?;
            let mut units = points
                .iter()
                .map(|p| payload::unit_from_payload(&p.payload))
                .collect::<Result<Vec<_>, _>>()?;
            units.sort_by_key(|u| u.ordinal);
            Ok(units)
        });
        Ok(units?)
    }
}
