//! Stored units already read, for one searcher generation.
//!
//! Every query reads the stored documents of its best candidates twice over: the
//! planner's priors look at a few hundred of them (path, kind, dates, weekdays), the
//! reply at its top units. Reading one means decompressing its block, decoding every
//! stored field and parsing its fields' JSON. Units do not change within a searcher
//! generation, so the decoded units are kept, up to a budget of bytes, until the
//! generation changes (a commit); when the budget is spent the cache starts over.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tantivy::DocAddress;

use crate::store::StoredUnit;

/// Bytes of unit text and strings kept at most.
pub const UNIT_CACHE_BYTES: usize = 32 << 20;

#[derive(Default)]
struct Cached {
    generation: u64,
    bytes: usize,
    by_address: HashMap<DocAddress, Arc<StoredUnit>>,
}

/// Decoded units of the searcher generation last asked about.
pub(crate) struct UnitCache {
    budget: usize,
    cached: Mutex<Cached>,
}

impl Default for UnitCache {
    fn default() -> UnitCache {
        UnitCache::with_budget(UNIT_CACHE_BYTES)
    }
}

impl UnitCache {
    pub(crate) fn with_budget(budget: usize) -> UnitCache {
        UnitCache {
            budget,
            cached: Mutex::new(Cached::default()),
        }
    }

    /// The unit at `address` in searcher `generation`, read by `load` when not kept.
    pub(crate) fn get_or_load<E>(
        &self,
        generation: u64,
        address: DocAddress,
        load: impl FnOnce() -> Result<StoredUnit, E>,
    ) -> Result<Arc<StoredUnit>, E> {
        {
            let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
            if cached.generation != generation {
                *cached = Cached {
                    generation,
                    ..Cached::default()
                };
            }
            if let Some(unit) = cached.by_address.get(&address) {
                return Ok(Arc::clone(unit));
            }
        }
        let unit = Arc::new(load()?);
        let size = unit_bytes(&unit);
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        if cached.generation == generation && size <= self.budget {
            if cached.bytes + size > self.budget {
                cached.by_address.clear();
                cached.bytes = 0;
            }
            cached.bytes += size;
            cached.by_address.insert(address, Arc::clone(&unit));
        }
        Ok(unit)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.cached
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .by_address
            .len()
    }
}

/// What a unit holds, roughly (its strings and a fixed overhead).
fn unit_bytes(unit: &StoredUnit) -> usize {
    let fields: usize = unit
        .fields
        .iter()
        .map(|(k, v)| k.len() + v.len() + 48)
        .sum();
    256 + unit.text.len()
        + unit.path.len()
        + unit.title.len()
        + unit.unit_id.len()
        + unit.file_id.len()
        + unit.content_time_text.len()
        + fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(text: &str) -> StoredUnit {
        StoredUnit {
            unit_id: "u".into(),
            file_id: "f".into(),
            path: "a.txt".into(),
            kind: converters::UnitKind::Metadata,
            modality: converters::Modality::Document,
            ext: "txt".into(),
            file_type: converters::FileType::Binary,
            ordinal: 0,
            title: String::new(),
            text: text.to_string(),
            locator: Default::default(),
            fields: Default::default(),
            content_time: 0,
            content_time_text: String::new(),
        }
    }

    #[test]
    fn kept_within_a_generation_and_dropped_after_it() {
        let cache = UnitCache::default();
        let address = DocAddress::new(0, 7);
        let mut loads = 0;
        for _ in 0..3 {
            let got = cache
                .get_or_load::<()>(1, address, || {
                    loads += 1;
                    Ok(unit("first"))
                })
                .unwrap();
            assert_eq!(got.text, "first");
        }
        assert_eq!(loads, 1);
        // A new generation reads the unit again (it may have changed).
        let got = cache
            .get_or_load::<()>(2, address, || Ok(unit("second")))
            .unwrap();
        assert_eq!(got.text, "second");
        // Errors are passed on and not kept.
        assert!(cache
            .get_or_load(2, DocAddress::new(0, 8), || Err("damaged"))
            .is_err());
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn the_budget_bounds_what_is_kept() {
        let cache = UnitCache::with_budget(3_000);
        for doc in 0..20 {
            cache
                .get_or_load::<()>(1, DocAddress::new(0, doc), || Ok(unit(&"x".repeat(500))))
                .unwrap();
            assert!(cache.len() <= 3, "{} units kept", cache.len());
        }
        // A unit larger than the whole budget is served but never kept.
        let huge = cache
            .get_or_load::<()>(1, DocAddress::new(0, 99), || Ok(unit(&"y".repeat(10_000))))
            .unwrap();
        assert_eq!(huge.text.len(), 10_000);
        assert!(!cache
            .cached
            .lock()
            .unwrap()
            .by_address
            .contains_key(&DocAddress::new(0, 99)));
    }
}
