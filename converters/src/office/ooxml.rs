//! Zip-package plumbing shared by the office converters (docx, pptx, odt): a guarded
//! zip reader ([`Package`]: members read with a size cap, an OLE2 file reported as an
//! encrypted or legacy binary document), OPC relationships and their targets (never
//! leaving the package), document properties (`docProps/core.xml`, `docProps/app.xml`),
//! office timestamps, and style lookups through parent chains. The XML tree is
//! [`super::xml`], the page-equivalents [`super::pages`].

use std::collections::HashMap;
use std::io::{Cursor, Read};

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime};

use super::xml::{parse_xml, Element, ParsedXml};
use crate::{ConvertError, FileMeta};

/// Largest decompressed size read from one zip member (zip-bomb guard).
pub(crate) const MAX_PART_BYTES: u64 = 256 * 1024 * 1024;

const OLE2_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

/// A zipped office package opened for reading.
pub(crate) struct Package<'a> {
    format: &'static str,
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    /// Member names, for case-insensitive lookup.
    names: Vec<String>,
}

impl<'a> Package<'a> {
    /// Opens `bytes` as a zip; recognises password-protected OOXML (an OLE2 compound file
    /// holding `EncryptionInfo`) and legacy binary files.
    pub(crate) fn open(format: &'static str, bytes: &'a [u8]) -> Result<Package<'a>, ConvertError> {
        if bytes.is_empty() {
            return Err(ConvertError::Empty);
        }
        if bytes.starts_with(OLE2_MAGIC) {
            return Err(ole2_error(format, bytes));
        }
        let archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| ConvertError::corrupt(format, format!("not a zip archive ({e})")))?;
        let names = (0..archive.len())
            .map(|i| match archive.name_for_index(i) {
                Some(Ok(name)) => name.into_owned(),
                _ => String::new(),
            })
            .collect();
        Ok(Package {
            format,
            archive,
            names,
        })
    }

    /// The archive's member names.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The index of the member `name` (exact, else case-insensitive; a leading `/` is
    /// ignored).
    fn index_of(&self, name: &str) -> Option<usize> {
        let name = name.trim_start_matches('/');
        self.names
            .iter()
            .position(|n| n == name)
            .or_else(|| self.names.iter().position(|n| n.eq_ignore_ascii_case(name)))
    }

    /// Whether the package holds a member `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.index_of(name).is_some()
    }

    /// Reads member `name` as text; `Ok(None)` when it is absent. A member cut short by
    /// damage yields the bytes read before the damage.
    pub(crate) fn read_text(&mut self, name: &str) -> Result<Option<String>, ConvertError> {
        let Some(index) = self.index_of(name) else {
            return Ok(None);
        };
        let format = self.format;
        let mut file = match self.archive.by_index(index) {
            Ok(file) => file,
            Err(zip::result::ZipError::UnsupportedArchive(detail))
                if detail.contains("assword") || detail.contains("ncrypt") =>
            {
                return Err(ConvertError::encrypted(
                    format,
                    "password-protected zip member",
                ));
            }
            Err(e) => {
                return Err(ConvertError::corrupt(
                    format,
                    format!("cannot read {name}: {e}"),
                ))
            }
        };
        if file.encrypted() {
            return Err(ConvertError::encrypted(
                format,
                "password-protected zip member",
            ));
        }
        let mut bytes = Vec::new();
        let read = (&mut file).take(MAX_PART_BYTES + 1).read_to_end(&mut bytes);
        if bytes.len() as u64 > MAX_PART_BYTES {
            return Err(ConvertError::corrupt(
                format,
                format!(
                    "{name} larger than {} MiB decompressed",
                    MAX_PART_BYTES >> 20
                ),
            ));
        }
        if let Err(e) = read {
            if bytes.is_empty() {
                return Err(ConvertError::corrupt(
                    format,
                    format!("cannot read {name}: {e}"),
                ));
            }
            tracing::debug!("{format}: {name} damaged after {} bytes: {e}", bytes.len());
        }
        Ok(Some(crate::text::decode_text(&bytes)))
    }

    /// Reads and parses member `name`; `Ok(None)` when absent.
    pub(crate) fn read_xml(
        &mut self,
        name: &str,
        skip: &[&str],
    ) -> Result<Option<ParsedXml>, ConvertError> {
        Ok(self.read_text(name)?.map(|text| parse_xml(&text, skip)))
    }

    /// Like [`Package::read_xml`], but any failure or absence gives `None` (for optional
    /// parts such as notes, styles or comments).
    pub(crate) fn optional_xml(&mut self, name: &str, skip: &[&str]) -> Option<Element> {
        self.read_xml(name, skip)
            .ok()
            .flatten()
            .and_then(|p| p.root)
    }

    /// The relationships of part `part` (from `<dir>/_rels/<file>.rels`), targets resolved
    /// to package paths. Missing or damaged rels give an empty list.
    pub(crate) fn rels(&mut self, part: &str) -> Vec<Relationship> {
        let rels_name = rels_path(part);
        let Some(root) = self.optional_xml(&rels_name, &[]) else {
            return Vec::new();
        };
        root.children_named("Relationship")
            .filter_map(|rel| {
                let id = rel.attr("Id")?.to_string();
                let target = rel.attr("Target")?;
                let external = rel.attr("TargetMode") == Some("External");
                Some(Relationship {
                    id,
                    rel_type: rel.attr("Type").unwrap_or_default().to_string(),
                    target: if external {
                        target.to_string()
                    } else {
                        resolve_target(part, target)
                    },
                    external,
                })
            })
            .collect()
    }

    /// The package's main part: the `officeDocument` relationship of `_rels/.rels` when
    /// it names an existing member, else `default`.
    pub(crate) fn main_part(&mut self, default: &str) -> String {
        self.rels("")
            .into_iter()
            .find(|r| r.rel_type.ends_with("/officeDocument") && !r.external)
            .map(|r| r.target)
            .filter(|t| self.has(t))
            .unwrap_or_else(|| default.to_string())
    }
}

fn ole2_error(format: &'static str, bytes: &[u8]) -> ConvertError {
    let marker: Vec<u8> = "EncryptionInfo"
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    if bytes.windows(marker.len()).any(|w| w == marker.as_slice()) {
        ConvertError::encrypted(format, "password-protected document")
    } else {
        ConvertError::unsupported(format, "legacy binary (ole2) file, not a zip archive")
    }
}

/// One OPC relationship.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Relationship {
    pub(crate) id: String,
    pub(crate) rel_type: String,
    /// A package path for internal targets, the raw URL for external ones.
    pub(crate) target: String,
    pub(crate) external: bool,
}

/// `ppt/slides/slide1.xml` → `ppt/slides/_rels/slide1.xml.rels`; `""` → `_rels/.rels`.
fn rels_path(part: &str) -> String {
    match part.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None => format!("_rels/{part}.rels"),
    }
}

/// Resolves a relationship target relative to the directory of `source`.
pub(crate) fn resolve_target(source: &str, target: &str) -> String {
    let target = target.split('#').next().unwrap_or_default();
    let mut parts: Vec<&str> = Vec::new();
    if !target.starts_with('/') {
        if let Some((dir, _)) = source.rsplit_once('/') {
            parts.extend(dir.split('/').filter(|s| !s.is_empty()));
        }
    }
    for piece in target.split('/') {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// File metadata from `docProps/core.xml` (title, creator, created, subject, keywords,
/// description, last modifier) and `docProps/app.xml` (`count_tag`, e.g. `Pages`, noted
/// as `extra[count_key]`).
pub(crate) fn core_meta(package: &mut Package, count_tag: &str, count_key: &str) -> FileMeta {
    let mut meta = FileMeta::default();
    let core_part = package
        .rels("")
        .into_iter()
        .find(|r| r.rel_type.ends_with("/core-properties") && !r.external)
        .map(|r| r.target)
        .unwrap_or_else(|| "docProps/core.xml".to_string());
    if let Some(core) = package.optional_xml(&core_part, &[]) {
        for prop in core.elements() {
            let value = clean(&prop.text());
            if value.is_empty() {
                continue;
            }
            match &*prop.name {
                "title" => meta.title = Some(value),
                "creator" => meta.author = Some(value),
                "created" => meta.created = parse_datetime(&value),
                "subject" | "keywords" | "description" | "lastModifiedBy" | "category" => {
                    meta.extra.insert(prop.name.to_string(), value);
                }
                "modified" => {
                    if let Some(t) = parse_datetime(&value) {
                        meta.extra.insert("modified".to_string(), t.to_rfc3339());
                    }
                }
                _ => {}
            }
        }
    }
    if let Some(app) = package.optional_xml("docProps/app.xml", &[]) {
        if let Some(count) = app.child(count_tag) {
            let value = clean(&count.text());
            if value.parse::<u32>().is_ok_and(|n| n > 0) {
                meta.extra.insert(count_key.to_string(), value);
            }
        }
    }
    meta
}

/// Trims and collapses whitespace.
pub(crate) fn clean(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses an ISO 8601 time as written by office suites. A time without a zone keeps its
/// wall-clock value at offset +00:00.
pub(crate) fn parse_datetime(value: &str) -> Option<DateTime<FixedOffset>> {
    let value = value.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(value) {
        return Some(t);
    }
    let utc = FixedOffset::east_opt(0)?;
    for pattern in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(value, pattern) {
            return naive.and_local_timezone(utc).single();
        }
    }
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .and_then(|naive| naive.and_local_timezone(utc).single())
}

/// Truncates a heading to a short title.
pub(crate) fn short_title(text: &str) -> String {
    let text = clean(text);
    if text.chars().count() <= 200 {
        return text;
    }
    let mut cut: String = text.chars().take(200).collect();
    cut.push('…');
    cut
}

/// A map from style name to a value, resolved through a parent chain.
pub(crate) fn resolve_style<T: Copy>(
    styles: &HashMap<String, (Option<T>, Option<String>)>,
    name: &str,
) -> Option<T> {
    let mut current = name;
    for _ in 0..32 {
        let (value, parent) = styles.get(current)?;
        if value.is_some() {
            return *value;
        }
        current = parent.as_deref()?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{self, Rng};

    #[test]
    fn resolves_targets() {
        assert_eq!(
            resolve_target("ppt/presentation.xml", "slides/slide1.xml"),
            "ppt/slides/slide1.xml"
        );
        assert_eq!(
            resolve_target("ppt/slides/slide1.xml", "../notesSlides/notesSlide1.xml"),
            "ppt/notesSlides/notesSlide1.xml"
        );
        assert_eq!(
            resolve_target("", "/word/document.xml"),
            "word/document.xml"
        );
        assert_eq!(resolve_target("", "../../../x.xml"), "x.xml");
        assert_eq!(rels_path(""), "_rels/.rels");
        assert_eq!(
            rels_path("ppt/presentation.xml"),
            "ppt/_rels/presentation.xml.rels"
        );
    }

    #[test]
    fn parses_office_times() {
        assert_eq!(
            parse_datetime("2023-05-01T10:00:00Z").map(|t| t.to_rfc3339()),
            Some("2023-05-01T10:00:00+00:00".to_string())
        );
        assert_eq!(
            parse_datetime("2012-03-04T12:34:56.123456789").map(|t| t.to_rfc3339()),
            Some("2012-03-04T12:34:56.123456789+00:00".to_string())
        );
        assert!(parse_datetime("yesterday").is_none());
    }

    #[test]
    fn resolved_targets_never_leave_the_package() {
        const PIECES: &[&str] = &[
            "..", ".", "", "a", "é", "/", "#", "b.xml", "../", "//", "#x/..",
        ];
        let mut rng = Rng(0x0C0C_0000_0000_0002);
        for _ in 0..3000 {
            let source = resolve_target("", &testutil::random_text(&mut rng, PIECES, 8));
            let target = testutil::random_text(&mut rng, PIECES, 10);
            let resolved = resolve_target(&source, &target);
            assert!(
                resolved.is_empty()
                    || resolved
                        .split('/')
                        .all(|p| !p.is_empty() && p != "." && p != ".."),
                "{source:?} + {target:?} → {resolved:?}"
            );
            assert!(!resolved.contains('#'), "{resolved:?}");
            let rels = rels_path(&resolved);
            assert!(rels.ends_with(".rels") && rels.contains("_rels/"));
        }
    }
}

/// Fixture helpers shared by the office converters' tests.
#[cfg(test)]
pub(crate) mod tests_support {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    /// A minimal `docProps/core.xml`.
    pub(crate) const CORE_XML: &str = "<?xml version=\"1.0\"?><cp:coreProperties \
        xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" \
        xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:dcterms=\"http://purl.org/dc/terms/\" \
        xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\
        <dc:title>Test title</dc:title><dc:creator>Ana Lima</dc:creator>\
        <dcterms:created xsi:type=\"dcterms:W3CDTF\">2024-03-05T09:30:00Z</dcterms:created>\
        </cp:coreProperties>";

    /// Writes `(name, content)` members into an in-memory zip.
    pub(crate) fn zip_bytes(members: &[(&str, &str)]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        for (name, content) in members {
            writer.start_file(*name, options).expect("start member");
            writer.write_all(content.as_bytes()).expect("write member");
        }
        writer.finish().expect("finish zip").into_inner()
    }

    /// Files below `dir` (recursively) whose extension is `ext`; empty when absent.
    pub(crate) fn files_with_ext(dir: &str, ext: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        walk(Path::new(dir), ext, &mut out, 0);
        out.sort();
        out
    }

    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>, depth: usize) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && depth < 8 {
                walk(&path, ext, out, depth + 1);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(ext))
            {
                out.push(path);
            }
        }
    }

    /// The members of a zip as (name, text).
    pub(crate) fn members(zip: &[u8]) -> Vec<(String, String)> {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).expect("zip");
        (0..archive.len())
            .map(|i| {
                let mut file = archive.by_index(i).expect("member");
                let mut text = String::new();
                std::io::Read::read_to_string(&mut file, &mut text).expect("text member");
                (file.name().expect("name").to_string(), text)
            })
            .collect()
    }

    /// Converts damaged copies of `sample` (its zip bytes damaged, or one member's XML
    /// damaged and the zip rebuilt): never a panic, the pages or slides a conversion
    /// gives are numbered from 1 in increasing order.
    pub(crate) fn check_damaged_copies(
        sample: &[u8],
        name: &str,
        file_type: crate::FileType,
        convert: fn(&crate::Input) -> Result<crate::Conversion, crate::ConvertError>,
        seed: u64,
    ) {
        use crate::testutil::{self, Rng};
        let parts = members(sample);
        let mut rng = Rng(seed);
        for i in 0..160 {
            let bytes = if i % 2 == 0 {
                testutil::mutate(&mut rng, sample)
            } else {
                let mut parts = parts.clone();
                let k = rng.below(parts.len());
                parts[k].1 = testutil::mutate_text(
                    &mut rng,
                    &parts[k].1,
                    &[
                        "<", ">", "</", "/>", "&", "&#", ";", "\"", "=", "é", "w:", "<a>", "</a>",
                    ],
                );
                let borrowed: Vec<(&str, &str)> = parts
                    .iter()
                    .map(|(n, t)| (n.as_str(), t.as_str()))
                    .collect();
                zip_bytes(&borrowed)
            };
            let input = crate::Input {
                tail: &[],
                name,
                bytes: &bytes,
                size: bytes.len() as u64,
                file_type,
            };
            let Ok(conversion) = convert(&input) else {
                continue;
            };
            testutil::check_conversion(&conversion, name);
            let numbers: Vec<u32> = conversion
                .units
                .iter()
                .filter_map(|u| u.locator.page.or(u.locator.slide))
                .collect();
            assert!(
                numbers.windows(2).all(|w| w[0] < w[1]),
                "{name}: {numbers:?}"
            );
        }
    }
}
