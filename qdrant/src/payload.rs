//! Point ids and payloads: how units, files and profiles are stored as points, and
//! read back.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Datelike, Timelike};
use converters::{FileType, Modality, UnitKind};
use index::manifest::FileRecord;
use index::path::UnitPath;
use index::StoredUnit;
use qdrant_client::qdrant::value::Kind;
use qdrant_client::qdrant::{ListValue, PointId, Struct, Value};

use crate::error::QdrantError;

/// `doc_type` of unit points.
pub const UNIT: &str = "unit";
/// `doc_type` of file points.
pub const FILE: &str = "file";
/// `doc_type` of the profile's info point.
pub const PROFILE: &str = "profile";

/// A UUID (8-4-4-4-12 hex, version 8 "custom") from BLAKE3 of `key`.
pub fn uuid_of(key: &str) -> String {
    let hash = blake3::hash(key.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&hash.as_bytes()[..16]);
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// A point id as text, to key maps by (`PointId` is not hashable): a UUID as Qdrant
/// writes it (lower case, hyphenated, as [`uuid_of`] makes it), a number in decimal.
pub fn point_id_text(id: &PointId) -> String {
    use qdrant_client::qdrant::point_id::PointIdOptions;
    match &id.point_id_options {
        Some(PointIdOptions::Uuid(uuid)) => uuid.to_lowercase(),
        Some(PointIdOptions::Num(number)) => number.to_string(),
        None => String::new(),
    }
}

/// Id of a unit's point: `profile/file_id:ordinal`.
pub fn unit_point_id(profile: &str, file_id: &str, ordinal: u64) -> PointId {
    PointId::from(uuid_of(&format!("{profile}/{file_id}:{ordinal}")))
}

/// Id of a unit's point from its unit id (`file_id:ordinal`); `None` when malformed.
pub fn unit_point_id_of(profile: &str, unit_id: &str) -> Option<PointId> {
    let (file_id, ordinal) = unit_id.rsplit_once(':')?;
    Some(unit_point_id(profile, file_id, ordinal.parse().ok()?))
}

/// Id of a file's point: `profile/file_id#file`.
pub fn file_point_id(profile: &str, file_id: &str) -> PointId {
    PointId::from(uuid_of(&format!("{profile}/{file_id}#file")))
}

/// Id of the profile's info point.
pub fn profile_point_id(profile: &str) -> PointId {
    PointId::from(uuid_of(&format!("{profile}#profile")))
}

/// Every folder prefix a unit of `path` is filed under: `A/B/c.pdf` → `["A", "A/B"]`;
/// an attachment `A/m.eml#attachment/x.pdf` → `["A", "A/m.eml"]`.
pub fn folder_keys(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut prefix = String::new();
    for part in UnitPath::parse(path).filed_under() {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(part);
        out.push(prefix.clone());
    }
    out
}

fn string(value: impl Into<String>) -> Value {
    Value {
        kind: Some(Kind::StringValue(value.into())),
    }
}

fn integer(value: i64) -> Value {
    Value {
        kind: Some(Kind::IntegerValue(value)),
    }
}

fn strings(values: impl IntoIterator<Item = String>) -> Value {
    Value {
        kind: Some(Kind::ListValue(ListValue {
            values: values.into_iter().map(string).collect(),
        })),
    }
}

fn string_map(map: &BTreeMap<String, String>) -> Value {
    Value {
        kind: Some(Kind::StructValue(Struct {
            fields: map.iter().map(|(k, v)| (k.clone(), string(v))).collect(),
        })),
    }
}

/// The payload of a unit's point: enough to rebuild the [`StoredUnit`] exactly, plus the
/// keys filters and ordering use (`profile`, `doc_type`, `folders`, `content_time`, …).
pub fn unit_payload(profile: &str, unit: &StoredUnit) -> HashMap<String, Value> {
    let mut p = HashMap::new();
    p.insert("profile".into(), string(profile));
    p.insert("doc_type".into(), string(UNIT));
    p.insert("unit_id".into(), string(&unit.unit_id));
    p.insert("file_id".into(), string(&unit.file_id));
    p.insert("path".into(), string(&unit.path));
    p.insert("folders".into(), strings(folder_keys(&unit.path)));
    p.insert("modality".into(), string(unit.modality.as_str()));
    p.insert("ext".into(), string(&unit.ext));
    p.insert("kind".into(), string(unit.kind.as_str()));
    p.insert("file_type".into(), string(unit.file_type.as_str()));
    p.insert("ordinal".into(), integer(unit.ordinal as i64));
    p.insert("title".into(), string(&unit.title));
    p.insert("text".into(), string(&unit.text));
    p.insert(
        "locator".into(),
        string(serde_json::to_string(&unit.locator).unwrap_or_default()),
    );
    p.insert("fields".into(), string_map(&unit.fields));
    p.insert("content_time".into(), integer(unit.content_time));
    p.insert("content_time_text".into(), string(&unit.content_time_text));
    if let Ok(time) = DateTime::parse_from_rfc3339(&unit.content_time_text) {
        p.insert(
            "weekday".into(),
            integer(i64::from(time.weekday().num_days_from_monday())),
        );
        p.insert("hour".into(), integer(i64::from(time.hour())));
    }
    p
}

/// A payload's string (`None` when absent or not a string).
pub fn get_str<'a>(payload: &'a HashMap<String, Value>, key: &str) -> Option<&'a str> {
    match payload.get(key)?.kind.as_ref()? {
        Kind::StringValue(s) => Some(s),
        _ => None,
    }
}

/// A payload's integer (doubles that are whole numbers too).
pub fn get_i64(payload: &HashMap<String, Value>, key: &str) -> Option<i64> {
    match payload.get(key)?.kind.as_ref()? {
        Kind::IntegerValue(i) => Some(*i),
        Kind::DoubleValue(d) if d.fract() == 0.0 => Some(*d as i64),
        _ => None,
    }
}

fn required<'a>(payload: &'a HashMap<String, Value>, key: &str) -> Result<&'a str, QdrantError> {
    get_str(payload, key).ok_or_else(|| QdrantError::Data(format!("a point has no string {key}")))
}

/// Rebuilds a unit from its point's payload ([`unit_payload`]).
pub fn unit_from_payload(payload: &HashMap<String, Value>) -> Result<StoredUnit, QdrantError> {
    let bad = |what: &str, value: &str| QdrantError::Data(format!("unknown {what} {value:?}"));
    let kind = required(payload, "kind")?;
    let modality = required(payload, "modality")?;
    let file_type = required(payload, "file_type")?;
    let fields = match payload.get("fields").and_then(|v| v.kind.as_ref()) {
        Some(Kind::StructValue(s)) => s
            .fields
            .iter()
            .map(|(k, v)| match &v.kind {
                Some(Kind::StringValue(s)) => Ok((k.clone(), s.clone())),
                _ => Err(QdrantError::Data(format!("field {k} is not a string"))),
            })
            .collect::<Result<BTreeMap<_, _>, _>>()?,
        _ => BTreeMap::new(),
    };
    let locator = serde_json::from_str(required(payload, "locator")?)
        .map_err(|e| QdrantError::Data(format!("bad locator: {e}")))?;
    Ok(StoredUnit {
        unit_id: required(payload, "unit_id")?.to_string(),
        file_id: required(payload, "file_id")?.to_string(),
        path: required(payload, "path")?.to_string(),
        kind: UnitKind::parse(kind).ok_or_else(|| bad("unit kind", kind))?,
        modality: Modality::parse(modality).ok_or_else(|| bad("modality", modality))?,
        ext: required(payload, "ext")?.to_string(),
        file_type: FileType::parse(file_type).ok_or_else(|| bad("file type", file_type))?,
        ordinal: get_i64(payload, "ordinal").unwrap_or(0).max(0) as u64,
        title: required(payload, "title")?.to_string(),
        text: required(payload, "text")?.to_string(),
        locator,
        fields,
        content_time: get_i64(payload, "content_time").unwrap_or(0),
        content_time_text: required(payload, "content_time_text")?.to_string(),
    })
}

/// The payload of a file's point: the record as JSON (`record`, a string) and the sync
/// key that marks the file's units as completely written.
pub fn file_payload(profile: &str, record: &FileRecord, sync_key: &str) -> HashMap<String, Value> {
    let mut p = HashMap::new();
    p.insert("profile".into(), string(profile));
    p.insert("doc_type".into(), string(FILE));
    p.insert("file_id".into(), string(&record.file_id));
    p.insert("path".into(), string(&record.path));
    p.insert("status".into(), string(record.status.as_str()));
    p.insert("sync_key".into(), string(sync_key));
    p.insert(
        "record".into(),
        string(serde_json::to_string(record).unwrap_or_default()),
    );
    p
}

/// The record held by a file point.
pub fn record_from_payload(payload: &HashMap<String, Value>) -> Result<FileRecord, QdrantError> {
    serde_json::from_str(required(payload, "record")?)
        .map_err(|e| QdrantError::Data(format!("bad file record: {e}")))
}

/// The payload of the profile's info point.
pub fn profile_payload(
    profile: &str,
    profile_root: &str,
    last_commit: Option<&str>,
) -> HashMap<String, Value> {
    let mut p = HashMap::new();
    p.insert("profile".into(), string(profile));
    p.insert("doc_type".into(), string(PROFILE));
    p.insert("profile_root".into(), string(profile_root));
    if let Some(last) = last_commit {
        p.insert("last_commit".into(), string(last));
    }
    p.insert("synced_at".into(), string(chrono::Utc::now().to_rfc3339()));
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use converters::Locator;

    #[test]
    fn ids_are_uuids_and_deterministic() {
        let id = uuid_of("p/abc:0");
        assert_eq!(id.len(), 36);
        assert_eq!(
            id.split('-').map(str::len).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert_eq!(id, uuid_of("p/abc:0"));
        assert_ne!(id, uuid_of("p/abc:1"));
        assert_eq!(
            unit_point_id_of("p", "abc:3"),
            Some(unit_point_id("p", "abc", 3))
        );
        assert_eq!(unit_point_id_of("p", "abc"), None);
        assert_ne!(file_point_id("p", "abc"), unit_point_id("p", "abc", 0));
    }

    #[test]
    fn folder_keys_follow_filed_under() {
        assert_eq!(folder_keys("A/B/c.pdf"), ["A", "A/B"]);
        assert_eq!(folder_keys("top.txt"), Vec::<String>::new());
        assert_eq!(
            folder_keys("A/m.eml#attachment/x.pdf"),
            ["A", "A/m.eml"],
            "attachments are filed under their message"
        );
    }

    #[test]
    fn units_and_records_round_trip() {
        let mut fields = BTreeMap::new();
        fields.insert("from".to_string(), "Ann <ann@x.org>".to_string());
        fields.insert("weekdays".to_string(), "MO,TU".to_string());
        let locator = Locator {
            page: Some(3),
            ..Locator::default()
        };
        let unit = StoredUnit {
            unit_id: "f1:2".into(),
            file_id: "f1".into(),
            path: "Mail/x.eml#attachment/é q.pdf".into(),
            kind: UnitKind::Page,
            modality: Modality::Document,
            ext: "pdf".into(),
            file_type: FileType::Pdf,
            ordinal: 2,
            title: "Title\nFile title".into(),
            text: "Some text — with ünïcode\n".into(),
            locator,
            fields,
            content_time: -86_400 * 400,
            content_time_text: "1968-11-27T10:00:00+02:00".into(),
        };
        let payload = unit_payload("p", &unit);
        assert_eq!(unit_from_payload(&payload).unwrap(), unit);
        assert_eq!(get_i64(&payload, "hour"), Some(10));

        let mut record = FileRecord::new("Mail/x.eml#attachment/é q.pdf");
        record.size = u64::MAX / 3;
        record.title = Some("T".into());
        record.units_by_kind.insert("page".into(), 4);
        record.extra.insert("pages".into(), "4".into());
        let payload = file_payload("p", &record, "key");
        assert_eq!(record_from_payload(&payload).unwrap(), record);
        assert_eq!(get_str(&payload, "sync_key"), Some("key"));
    }
}
