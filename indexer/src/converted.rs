//! What converting one file produced: its record, its units and its attachments'
//! results. Shared by the conversion (`crate::convert`) and the stages that enrich it
//! (`crate::stages`).

use chrono::{DateTime, FixedOffset};
use converters::Unit;

use crate::manifest::FileRecord;

/// The result of converting one file (and, recursively, its attachments).
pub struct Converted {
    pub record: FileRecord,
    pub units: Vec<Unit>,
    /// Modification time used for units without a content time.
    pub mtime: DateTime<FixedOffset>,
    /// Converted attachments.
    pub children: Vec<Converted>,
}

/// Sets a record's unit count and units by kind from its units.
pub fn tally_units(record: &mut FileRecord, units: &[Unit]) {
    record.unit_count = units.len() as u32;
    record.units_by_kind.clear();
    for unit in units {
        *record
            .units_by_kind
            .entry(unit.kind().as_str().to_string())
            .or_default() += 1;
    }
}
