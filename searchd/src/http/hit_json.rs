//! The JSON of unit hits in HippoCamp's reply shape (`/retrieve`, `/search`,
//! `/api/search`), serialised straight from the hits.
//!
//! A top-60 reply used to be built as a `serde_json::Value` tree first: about 1,500
//! small maps and a copy of every unit's text and snippet, then serialised. These
//! wrappers write the same objects (same keys, same values) without the tree.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::engine::UnitHit;
use crate::http::hippocamp::UnitMetadata;

/// A list of hits as `[{"id", "text", "score", "metadata"}]`.
pub struct Hits<'a>(pub &'a [UnitHit]);

impl Serialize for Hits<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Hit))
    }
}

/// One hit as `{"id", "text", "score", "metadata"}`.
pub struct Hit<'a>(pub &'a UnitHit);

impl Serialize for Hit<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let hit = self.0;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("id", &hit.unit.unit_id)?;
        map.serialize_entry("text", &hit.unit.text)?;
        map.serialize_entry("score", &hit.score)?;
        map.serialize_entry("metadata", &Metadata::of(hit))?;
        map.end()
    }
}

/// Search-R1's lists: `[{"document": {"id", "contents", …metadata}, "score"}]`, or the
/// documents alone without scores.
pub struct SearchR1<'a> {
    pub hits: &'a [UnitHit],
    pub with_scores: bool,
}

impl Serialize for SearchR1<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.hits.iter().map(|hit| SearchR1Hit {
            hit,
            with_score: self.with_scores,
        }))
    }
}

struct SearchR1Hit<'a> {
    hit: &'a UnitHit,
    with_score: bool,
}

impl Serialize for SearchR1Hit<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let document = Metadata {
            hit: self.hit,
            search_r1: true,
        };
        if !self.with_score {
            return document.serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("document", &document)?;
        map.serialize_entry("score", &self.hit.score)?;
        map.end()
    }
}

/// A hit's metadata: Dentate's flat fields (`file_path`, `page`, `start`, …) and
/// HippoCamp's nested `file_info`, `segment_info` and `chunk_meta`; for Search-R1 also
/// the unit's `id` and `contents` (path, newline, text).
pub struct Metadata<'a> {
    hit: &'a UnitHit,
    search_r1: bool,
}

impl<'a> Metadata<'a> {
    pub fn of(hit: &'a UnitHit) -> Self {
        Metadata {
            hit,
            search_r1: false,
        }
    }
}

impl Serialize for Metadata<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn put<M: SerializeMap, T: Serialize>(
            map: &mut M,
            key: &str,
            value: Option<T>,
        ) -> Result<(), M::Error> {
            match value {
                Some(value) => map.serialize_entry(key, &value),
                None => Ok(()),
            }
        }
        let hit = self.hit;
        let unit = &hit.unit;
        let locator = &unit.locator;
        let mut map = serializer.serialize_map(None)?;
        if self.search_r1 {
            map.serialize_entry("id", &unit.unit_id)?;
            map.serialize_entry("contents", &format!("{}\n{}", unit.path, unit.text))?;
        }
        map.serialize_entry("file_path", &unit.path)?;
        map.serialize_entry("file_name", index::UnitPath::parse(&unit.path).name())?;
        let file_type = if unit.ext.is_empty() {
            unit.file_type.as_str()
        } else {
            unit.ext.as_str()
        };
        map.serialize_entry("file_type", file_type)?;
        map.serialize_entry("modality", &unit.modality)?;
        map.serialize_entry("kind", &unit.kind)?;
        map.serialize_entry("content_time", &unit.content_time_text)?;
        put(
            &mut map,
            "title",
            (!unit.title.is_empty()).then_some(&unit.title),
        )?;
        put(&mut map, "snippet", hit.snippet.as_ref())?;
        put(&mut map, "page", locator.page)?;
        put(&mut map, "page_label", locator.page_label.as_ref())?;
        put(&mut map, "slide", locator.slide)?;
        put(&mut map, "sheet", locator.sheet.as_ref())?;
        put(&mut map, "row_start", locator.row_start)?;
        put(&mut map, "row_end", locator.row_end)?;
        put(&mut map, "line_start", locator.line_start)?;
        put(&mut map, "line_end", locator.line_end)?;
        put(
            &mut map,
            "lines",
            (!locator.lines.is_empty()).then_some(&locator.lines),
        )?;
        put(
            &mut map,
            "start",
            locator.t_start_ms.map(|v| v as f64 / 1000.0),
        )?;
        put(&mut map, "end", locator.t_end_ms.map(|v| v as f64 / 1000.0))?;
        put(&mut map, "part", locator.part.as_ref())?;
        put(&mut map, "event_uid", locator.event_uid.as_ref())?;
        put(
            &mut map,
            "explain",
            (!hit.signals.is_empty()).then_some(&hit.signals),
        )?;
        put(&mut map, "context", hit.is_context.then_some(true))?;
        // HippoCamp's own pipeline reads the nested form.
        let nested = UnitMetadata::of(unit);
        map.serialize_entry("file_info", &nested.file_info)?;
        map.serialize_entry("segment_info", &nested.segment_info)?;
        map.serialize_entry("chunk_meta", &nested.chunk_meta)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn hit(path: &str, kind: converters::UnitKind) -> UnitHit {
        let mut locator = converters::Locator {
            page: Some(3),
            t_start_ms: Some(1_500),
            t_end_ms: Some(4_000),
            ..Default::default()
        };
        locator.event_uid = Some("e1@x".into());
        UnitHit {
            unit: index::StoredUnit {
                unit_id: "u1".into(),
                file_id: "f1".into(),
                path: path.into(),
                kind,
                modality: converters::Modality::Document,
                ext: "pdf".into(),
                file_type: converters::FileType::Binary,
                ordinal: 2,
                title: String::new(),
                text: "Chip time \"1:47:32\"\nwave start".into(),
                locator,
                fields: Default::default(),
                content_time: 0,
                content_time_text: "2025-10-05T09:00:00-07:00".into(),
            },
            score: 0.1234567,
            snippet: Some("<b>Chip</b> time".into()),
            signals: Default::default(),
            is_context: true,
        }
    }

    fn value(v: &impl Serialize) -> Value {
        serde_json::from_str(&serde_json::to_string(v).unwrap()).unwrap()
    }

    #[test]
    fn a_hit_has_the_flat_and_the_nested_metadata() {
        let hit = hit("Docs/Results.pdf", converters::UnitKind::Page);
        let got = value(&Hit(&hit));
        let score = got["score"].as_f64().unwrap() as f32;
        assert_eq!(score, 0.1234567f32);
        assert_eq!(got["id"], "u1");
        assert_eq!(got["text"], "Chip time \"1:47:32\"\nwave start");
        let meta = &got["metadata"];
        assert_eq!(meta["file_path"], "Docs/Results.pdf");
        assert_eq!(meta["file_name"], "Results.pdf");
        assert_eq!(meta["file_type"], "pdf");
        assert_eq!(meta["modality"], "document");
        assert_eq!(meta["kind"], "page");
        assert_eq!(meta["snippet"], "<b>Chip</b> time");
        assert_eq!(meta["page"], 3);
        assert_eq!(meta["start"], 1.5);
        assert_eq!(meta["end"], 4.0);
        assert_eq!(meta["event_uid"], "e1@x");
        assert_eq!(meta["context"], true);
        assert!(meta.get("title").is_none() && meta.get("slide").is_none());
        assert!(meta.get("explain").is_none() && meta.get("attachment").is_none());
        // A hit without a snippet (`"snippets": false`) has no `snippet` key; an empty
        // one (a unit without text) is still there.
        let bare = UnitHit {
            snippet: None,
            ..hit.clone()
        };
        assert!(value(&Hit(&bare))["metadata"].get("snippet").is_none());
        let empty = UnitHit {
            snippet: Some(String::new()),
            ..hit.clone()
        };
        assert_eq!(value(&Hit(&empty))["metadata"]["snippet"], "");
        assert_eq!(meta["file_info"]["file_path"], "Docs/Results.pdf");
        assert_eq!(
            meta["file_info"]["file_id"],
            crate::http::hippocamp::numeric_id("f1")
        );
        assert_eq!(
            meta["segment_info"],
            json!({"segment_indices": [2], "page_numbers": [3],
                   "time_ranges": [{"start": 1.5, "end": 4.0}]})
        );
        assert_eq!(
            meta["chunk_meta"],
            json!({"type": "content", "chunk_index": 2, "char_count": 30, "token_count": 6})
        );
    }

    #[test]
    fn an_attachment_names_its_message_in_file_info() {
        let hit = hit(
            "Mail/Inbox/quote.eml#attachment/Quote v2.PDF",
            converters::UnitKind::Page,
        );
        let info = &value(&Hit(&hit))["metadata"]["file_info"];
        assert_eq!(info["file_path"], "Mail/Inbox/quote.eml");
        assert_eq!(info["file_name"], "quote.eml");
        assert_eq!(info["file_type"], "eml");
        assert_eq!(info["attachment"], "Quote v2.PDF");
        assert_eq!(
            info["file_id"],
            crate::http::hippocamp::numeric_id(&index::file_id_for("Mail/Inbox/quote.eml"))
        );
    }

    #[test]
    fn search_r1_documents_with_and_without_scores() {
        let hits = [hit("a/b.pdf", converters::UnitKind::Page)];
        let scored = value(&SearchR1 {
            hits: &hits,
            with_scores: true,
        });
        assert_eq!(scored[0]["document"]["id"], "u1");
        assert_eq!(
            scored[0]["document"]["contents"],
            "a/b.pdf\nChip time \"1:47:32\"\nwave start"
        );
        assert_eq!(scored[0]["document"]["file_path"], "a/b.pdf");
        assert!(scored[0]["score"].is_number());
        let bare = value(&SearchR1 {
            hits: &hits,
            with_scores: false,
        });
        assert_eq!(bare[0], scored[0]["document"]);
    }
}
