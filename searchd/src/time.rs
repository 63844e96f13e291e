//! Time formatting helpers.

use chrono::{Local, TimeZone, Utc};

/// RFC 3339 (local offset) of a nanosecond Unix timestamp; empty for 0.
pub fn rfc3339_from_ns(ns: i64) -> String {
    if ns == 0 {
        return String::new();
    }
    Utc.timestamp_opt(
        ns.div_euclid(1_000_000_000),
        ns.rem_euclid(1_000_000_000) as u32,
    )
    .single()
    .map(|t| t.with_timezone(&Local).to_rfc3339())
    .unwrap_or_default()
}
