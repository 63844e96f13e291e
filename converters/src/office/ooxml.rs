//! Shared plumbing for the zipped XML office formats (docx, pptx, odt): a guarded zip
//! reader, a small fault-tolerant XML tree built on `quick-xml`, OPC relationships,
//! document properties, and the page-equivalent builder used by docx and odt.
//!
//! Everything here treats its input as hostile: zip members are read with a size cap,
//! XML trees have a depth and node cap, and a damaged XML part yields the tree read up
//! to the damage (with the error noted) rather than nothing.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime};
use quick_xml::events::Event;
use quick_xml::Reader;

use crate::text::{approx_tokens, chunk_text, ChunkOptions};
use crate::{ConvertError, FileMeta, Locator, Unit, UnitKind};

/// Largest decompressed size read from one zip member (zip-bomb guard).
pub(crate) const MAX_PART_BYTES: u64 = 256 * 1024 * 1024;
/// Deepest XML element nesting accepted; deeper parts count as damaged.
pub(crate) const MAX_DEPTH: usize = 256;
/// Most XML nodes kept from one part (bounds the tree's memory).
pub(crate) const MAX_NODES: usize = 4_000_000;

/// A page-equivalent closes once it holds about this many tokens (~450 words, one
/// printed page)…
pub(crate) const PAGE_TARGET_TOKENS: usize = 500;
/// …and a line is never added past this many.
pub(crate) const PAGE_MAX_TOKENS: usize = 650;
/// Pages bounded by rendered page breaks are only split when larger than this.
pub(crate) const RENDERED_PAGE_MAX_TOKENS: usize = 1500;

const OLE2_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

// ---------------------------------------------------------------------------------------
// XML tree
// ---------------------------------------------------------------------------------------

/// An XML element: its local name (namespace prefix dropped), its attributes under their
/// qualified names, and its children.
#[derive(Debug, Default, Clone)]
pub(crate) struct Element {
    pub(crate) name: Box<str>,
    pub(crate) attrs: Vec<(Box<str>, Box<str>)>,
    pub(crate) children: Vec<Node>,
}

/// A child of an element.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Element(Element),
    Text(String),
}

/// The result of parsing one XML part: the root element (possibly cut short) and the
/// parse error that cut it, if any.
#[derive(Debug, Default)]
pub(crate) struct ParsedXml {
    pub(crate) root: Option<Element>,
    pub(crate) error: Option<String>,
}

impl Element {
    /// The attribute `name` ("w:val", "id"). A prefixed name also matches the same local
    /// name under another prefix (documents may bind namespaces to any prefix).
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        if let Some((_, v)) = self.attrs.iter().find(|(k, _)| &**k == name) {
            return Some(v);
        }
        let (_, local) = name.split_once(':')?;
        self.attrs
            .iter()
            .find(|(k, _)| {
                k.split_once(':')
                    .is_some_and(|(p, l)| l == local && p != "xmlns")
            })
            .map(|(_, v)| &**v)
    }

    /// Child elements, in document order.
    pub(crate) fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// The first child element named `name`.
    pub(crate) fn child(&self, name: &str) -> Option<&Element> {
        self.elements().find(|e| &*e.name == name)
    }

    /// Follows a path of child names.
    pub(crate) fn path(&self, names: &[&str]) -> Option<&Element> {
        let mut current = self;
        for name in names {
            current = current.child(name)?;
        }
        Some(current)
    }

    /// Child elements named `name`.
    pub(crate) fn children_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Element> {
        self.elements().filter(move |e| &*e.name == name)
    }

    /// All text below this element, concatenated.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        self.collect_text(&mut out, 0);
        out
    }

    fn collect_text(&self, out: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for node in &self.children {
            match node {
                Node::Text(t) => out.push_str(t),
                Node::Element(e) => e.collect_text(out, depth + 1),
            }
        }
    }

    /// Descendant elements named `name` (pre-order), not descending into matches.
    pub(crate) fn descendants<'s>(&'s self, name: &str, out: &mut Vec<&'s Element>) {
        self.find_into(name, out, 0);
    }

    fn find_into<'s>(&'s self, name: &str, out: &mut Vec<&'s Element>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for e in self.elements() {
            if &*e.name == name {
                out.push(e);
            } else {
                e.find_into(name, out, depth + 1);
            }
        }
    }
}

/// The local part of a qualified name.
fn local_name(qname: &str) -> &str {
    qname.rsplit_once(':').map_or(qname, |(_, l)| l)
}

/// Parses an XML part into a tree, dropping the subtrees of elements whose local name is
/// in `skip`. Never fails: damage ends the tree where it occurs and is reported in
/// `error`, with every element still open closed at that point.
pub(crate) fn parse_xml(xml: &str, skip: &[&str]) -> ParsedXml {
    let mut reader = Reader::from_str(xml);
    {
        let config = reader.config_mut();
        config.expand_empty_elements = true;
        config.allow_dangling_amp = true;
    }
    let mut stack: Vec<Element> = vec![Element::default()];
    let mut skip_depth = 0usize;
    let mut nodes = 0usize;
    let mut error = None;
    loop {
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                error = Some(format!(
                    "xml error at byte {}: {e}",
                    reader.buffer_position()
                ));
                break;
            }
        };
        if skip_depth > 0 {
            match event {
                Event::Start(_) => skip_depth += 1,
                Event::End(_) => skip_depth -= 1,
                Event::Eof => break,
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(start) => {
                let qname = start.name();
                let name = local_name(qname.0);
                if skip.contains(&name) {
                    skip_depth = 1;
                    continue;
                }
                if stack.len() > MAX_DEPTH {
                    error = Some("xml nested too deeply".to_string());
                    break;
                }
                nodes += 1;
                if nodes > MAX_NODES {
                    error = Some("too many xml elements".to_string());
                    break;
                }
                let attrs = start
                    .attributes()
                    .map_while(Result::ok)
                    .map(|a| {
                        let value = a
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map(|v| v.into_owned())
                            .unwrap_or_else(|_| a.value.clone().into_owned());
                        (Box::from(a.key.0), value.into_boxed_str())
                    })
                    .collect();
                stack.push(Element {
                    name: Box::from(name),
                    attrs,
                    children: Vec::new(),
                });
            }
            Event::End(_) if stack.len() > 1 => close_top(&mut stack),
            Event::Text(text) => push_text(&mut stack, &text.xml10_content()),
            Event::CData(text) => push_text(&mut stack, &text.xml10_content()),
            Event::GeneralRef(reference) => {
                if let Some(s) = resolve_reference(&reference) {
                    push_text(&mut stack, &s);
                }
            }
            Event::Eof => {
                if stack.len() > 1 {
                    error = Some("xml ends inside an open element (truncated)".to_string());
                }
                break;
            }
            _ => {}
        }
    }
    while stack.len() > 1 {
        close_top(&mut stack);
    }
    let root = stack.pop().and_then(|r| {
        r.children.into_iter().find_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    });
    ParsedXml { root, error }
}

fn close_top(stack: &mut Vec<Element>) {
    if let Some(done) = stack.pop() {
        if let Some(parent) = stack.last_mut() {
            parent.children.push(Node::Element(done));
        }
    }
}

fn push_text(stack: &mut [Element], text: &str) {
    if text.is_empty() {
        return;
    }
    let Some(top) = stack.last_mut() else {
        return;
    };
    if let Some(Node::Text(last)) = top.children.last_mut() {
        last.push_str(text);
    } else {
        top.children.push(Node::Text(text.to_string()));
    }
}

fn resolve_reference(reference: &quick_xml::events::BytesRef) -> Option<String> {
    if reference.is_char_ref() {
        return reference
            .resolve_char_ref()
            .ok()
            .flatten()
            .map(|c| c.to_string());
    }
    let s = match &**reference {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        _ => return None,
    };
    Some(s.to_string())
}

// ---------------------------------------------------------------------------------------
// Zip package
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Document properties
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Page-equivalents (docx, odt)
// ---------------------------------------------------------------------------------------

/// Why a new page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PageBreak {
    /// A break that only starts a page when the current one already has text (rendered
    /// page breaks, page-break-before, section breaks): never makes an empty page.
    Soft,
    /// An explicit page break: always starts a page.
    Hard,
}

#[derive(Debug, Default)]
struct PageLine {
    text: String,
    heading: bool,
}

#[derive(Debug, Default)]
struct PageBuf {
    lines: Vec<PageLine>,
}

/// Collects paragraph lines and table rows into pages. Breaks met inside a table are
/// applied after the row they occur in, so rows are never cut.
#[derive(Debug)]
pub(crate) struct PageBuilder {
    pages: Vec<PageBuf>,
    /// Open table rows (nested tables nest), each a list of finished cells.
    rows: Vec<Vec<String>>,
    /// Open table cells, each a list of lines.
    cells: Vec<Vec<String>>,
    pending: Option<PageBreak>,
}

impl Default for PageBuilder {
    fn default() -> Self {
        PageBuilder {
            pages: vec![PageBuf::default()],
            rows: Vec::new(),
            cells: Vec::new(),
            pending: None,
        }
    }
}

/// One finished page-equivalent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Page {
    pub(crate) number: u32,
    pub(crate) title: Option<String>,
    pub(crate) text: String,
}

impl PageBuilder {
    /// Adds a paragraph (or table row) line; blank lines are dropped. A heading line
    /// may become the title of its page.
    pub(crate) fn push_line(&mut self, text: &str, heading: bool) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if let Some(cell) = self.cells.last_mut() {
            cell.push(text.to_string());
            return;
        }
        if let Some(page) = self.pages.last_mut() {
            page.lines.push(PageLine {
                text: text.to_string(),
                heading,
            });
        }
    }

    /// Whether a table cell is open (lines go to the cell, breaks are deferred).
    pub(crate) fn in_table(&self) -> bool {
        !self.rows.is_empty()
    }

    /// Starts a new page (deferred to the end of the current table row inside tables).
    pub(crate) fn page_break(&mut self, kind: PageBreak) {
        if self.in_table() {
            self.pending = self.pending.max(Some(kind));
            return;
        }
        let empty = self.pages.last().is_none_or(|p| p.lines.is_empty());
        if kind == PageBreak::Soft && empty {
            return;
        }
        self.pages.push(PageBuf::default());
    }

    pub(crate) fn start_row(&mut self) {
        self.rows.push(Vec::new());
    }

    pub(crate) fn start_cell(&mut self) {
        self.cells.push(Vec::new());
    }

    /// Closes a cell: its lines joined by spaces become one cell of the open row.
    pub(crate) fn end_cell(&mut self) {
        let Some(lines) = self.cells.pop() else {
            return;
        };
        if let Some(row) = self.rows.last_mut() {
            row.push(lines.join(" "));
        }
    }

    /// Closes a row: its cells joined by " | " become one line.
    pub(crate) fn end_row(&mut self) {
        let Some(mut cells) = self.rows.pop() else {
            return;
        };
        while cells.last().is_some_and(|c| c.trim().is_empty()) {
            cells.pop();
        }
        if !cells.is_empty() {
            self.push_line(&cells.join(" | "), false);
        }
        if !self.in_table() {
            if let Some(kind) = self.pending.take() {
                self.page_break(kind);
            }
        }
    }

    /// Finishes the pages. A page above `split_over` tokens is cut into ~500-token
    /// page-equivalents along line (paragraph) boundaries. Pages are numbered from 1;
    /// empty pages keep their number but are dropped. A page without a heading takes
    /// the last heading before it as its title.
    pub(crate) fn finish(mut self, split_over: usize) -> Vec<Page> {
        while !self.cells.is_empty() || !self.rows.is_empty() {
            if self.cells.len() >= self.rows.len() && !self.cells.is_empty() {
                self.end_cell();
            } else {
                self.end_row();
            }
        }
        let mut pieces: Vec<Vec<PageLine>> = Vec::new();
        for page in self.pages {
            let tokens: usize = page.lines.iter().map(|l| approx_tokens(&l.text)).sum();
            if tokens > split_over {
                pieces.extend(split_page(page.lines));
            } else {
                pieces.push(page.lines);
            }
        }
        let mut pages = Vec::new();
        let mut last_heading: Option<String> = None;
        for (index, lines) in pieces.into_iter().enumerate() {
            let own_heading = lines
                .iter()
                .find(|l| l.heading)
                .map(|l| short_title(&l.text));
            let title = own_heading.clone().or_else(|| last_heading.clone());
            if let Some(last) = lines.iter().rev().find(|l| l.heading) {
                last_heading = Some(short_title(&last.text));
            }
            if lines.is_empty() {
                continue;
            }
            let text = lines
                .iter()
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            pages.push(Page {
                number: u32::try_from(index + 1).unwrap_or(u32::MAX),
                title,
                text,
            });
        }
        pages
    }
}

/// Splits one over-long page into ~[`PAGE_TARGET_TOKENS`] pieces at line boundaries;
/// a single over-long line is first cut at sentence ends.
fn split_page(lines: Vec<PageLine>) -> Vec<Vec<PageLine>> {
    let options = ChunkOptions {
        target_tokens: PAGE_TARGET_TOKENS,
        max_tokens: PAGE_MAX_TOKENS,
        overlap_tokens: 0,
    };
    let mut expanded = Vec::new();
    for line in lines {
        if approx_tokens(&line.text) > PAGE_MAX_TOKENS {
            let flat = line.text.replace('\n', " ");
            for (i, span) in chunk_text(&flat, options).into_iter().enumerate() {
                expanded.push(PageLine {
                    text: span.text,
                    heading: line.heading && i == 0,
                });
            }
        } else {
            expanded.push(line);
        }
    }
    let mut pieces = Vec::new();
    let mut current: Vec<PageLine> = Vec::new();
    let mut tokens = 0usize;
    for line in expanded {
        let next = approx_tokens(&line.text);
        if tokens > 0 && tokens + next > PAGE_MAX_TOKENS {
            pieces.push(std::mem::take(&mut current));
            tokens = 0;
        }
        tokens += next;
        current.push(line);
        if tokens >= PAGE_TARGET_TOKENS {
            pieces.push(std::mem::take(&mut current));
            tokens = 0;
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Turns pages into page units.
pub(crate) fn pages_to_units(pages: Vec<Page>) -> Vec<Unit> {
    pages
        .into_iter()
        .map(|page| {
            let unit = Unit::new(UnitKind::Page, Locator::page(page.number), page.text);
            match page.title {
                Some(title) => unit.with_title(title),
                None => unit,
            }
        })
        .collect()
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
    fn parses_entities_and_survives_damage() {
        let parsed = parse_xml("<a x=\"1 &amp; 2\"><b>A &amp; B &#x41;&#66;</b><c>cut", &[]);
        let root = parsed.root.expect("root");
        assert_eq!(root.attr("x"), Some("1 & 2"));
        assert_eq!(
            root.child("b").map(|b| b.text()),
            Some("A & B AB".to_string())
        );
        assert_eq!(root.child("c").map(|c| c.text()), Some("cut".to_string()));
        let broken = parse_xml("<a><b>x</c></a>", &[]);
        assert!(broken.error.is_some());
        assert_eq!(broken.root.map(|r| r.text()), Some("x".to_string()));
    }

    #[test]
    fn depth_is_capped() {
        let deep = "<a>".repeat(MAX_DEPTH + 10);
        let parsed = parse_xml(&deep, &[]);
        assert!(parsed.error.is_some());
    }

    #[test]
    fn skips_subtrees_and_matches_prefixes() {
        let parsed = parse_xml(
            "<w:p xmlns:w='x' ns0:val='v'><mc:Fallback><w:t>no</w:t></mc:Fallback><w:t>yes</w:t></w:p>",
            &["Fallback"],
        );
        let root = parsed.root.expect("root");
        assert_eq!(root.text(), "yes");
        assert_eq!(root.attr("w:val"), Some("v"));
        assert_eq!(root.attr("val"), None);
    }

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
    fn builder_breaks_and_splits() {
        let mut b = PageBuilder::default();
        b.page_break(PageBreak::Soft); // ignored: empty page
        b.push_line("Intro", true);
        b.push_line("one", false);
        b.page_break(PageBreak::Soft);
        b.page_break(PageBreak::Soft); // ignored
        b.push_line("two", false);
        b.start_row();
        b.start_cell();
        b.push_line("a", false);
        b.page_break(PageBreak::Hard); // deferred to row end
        b.end_cell();
        b.start_cell();
        b.push_line("b", false);
        b.end_cell();
        b.end_row();
        b.push_line("three", false);
        let pages = b.finish(RENDERED_PAGE_MAX_TOKENS);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages[1].text, "two\na | b");
        assert_eq!(pages[1].title.as_deref(), Some("Intro"));
        assert_eq!(pages[2].number, 3);

        let mut long = PageBuilder::default();
        for i in 0..300 {
            long.push_line(&format!("paragraph {i} with some words in it"), false);
        }
        let pages = long.finish(PAGE_MAX_TOKENS);
        assert!(pages.len() > 3, "{}", pages.len());
        assert!(pages
            .iter()
            .all(|p| approx_tokens(&p.text) <= PAGE_MAX_TOKENS));
    }

    /// A random element tree as XML, and the text it holds.
    fn random_tree(rng: &mut Rng, depth: usize, xml: &mut String, text: &mut String) {
        const NAMES: &[&str] = &["w:p", "a", "t", "é", "x:漢", "b-c"];
        const TEXTS: &[&str] = &["word", " ", "é", "𝄞", "漢字", "\n", "\t", "x y", "…"];
        let name = *rng.pick(NAMES);
        let attr = *rng.pick(&["", " k=\"v\"", " w:val='é &amp; 𝄞'", " a=\"1\" b=\"2\""]);
        xml.push_str(&format!("<{name}{attr}>"));
        for _ in 0..rng.below(4) {
            if depth < 6 && rng.one_in(2) {
                random_tree(rng, depth + 1, xml, text);
            } else {
                let t = testutil::random_text(rng, TEXTS, 6);
                xml.push_str(&t);
                text.push_str(&t);
            }
        }
        xml.push_str(&format!("</{name}>"));
    }

    #[test]
    fn parse_xml_keeps_text_and_any_prefix_reads_a_prefix_of_it() {
        let mut rng = Rng(0x0C0C_0000_0000_0001);
        for _ in 0..400 {
            let (mut xml, mut text) = (String::new(), String::new());
            random_tree(&mut rng, 0, &mut xml, &mut text);
            let parsed = parse_xml(&xml, &[]);
            assert!(parsed.error.is_none(), "{xml:?}: {:?}", parsed.error);
            assert_eq!(
                parsed.root.map(|r| r.text()).unwrap_or_default(),
                text,
                "{xml:?}"
            );
            for _ in 0..8 {
                let mut cut = rng.below(xml.len() + 1);
                while !xml.is_char_boundary(cut) {
                    cut -= 1;
                }
                let prefix = &xml[..cut];
                let read = parse_xml(prefix, &[])
                    .root
                    .map(|r| r.text())
                    .unwrap_or_default();
                assert!(text.starts_with(&read), "{prefix:?} read {read:?}");
            }
            let damaged = testutil::mutate_text(
                &mut rng,
                &xml,
                &[
                    "<",
                    ">",
                    "</",
                    "&",
                    "&#",
                    ";",
                    "\"",
                    "=",
                    "é",
                    "/>",
                    "<!--",
                    "<![CDATA[",
                ],
            );
            let parsed = parse_xml(&damaged, &["t"]);
            if let Some(root) = parsed.root {
                let _ = root.text();
                let mut found = Vec::new();
                root.descendants("p", &mut found);
            }
        }
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

    #[test]
    fn page_builder_keeps_every_line_under_random_structure() {
        let mut rng = Rng(0x0C0C_0000_0000_0003);
        for _ in 0..500 {
            let mut builder = PageBuilder::default();
            let mut lines = Vec::new();
            // Tables nest as the converters drive them: cells inside rows, rows at the
            // top level or inside cells; whatever is open at the end is left to `finish`.
            let mut open: Vec<bool> = Vec::new(); // true: a cell, false: a row
            for _ in 0..rng.size(60) {
                match rng.below(7) {
                    0..=2 => {
                        let line = testutil::random_text(&mut rng, testutil::TEXT_PIECES, 12);
                        builder.push_line(&line, rng.one_in(4));
                        if !line.trim().is_empty() {
                            lines.push(line.trim().to_string());
                        }
                    }
                    3 => builder.page_break(*rng.pick(&[PageBreak::Soft, PageBreak::Hard])),
                    4 if open.last() != Some(&false) => {
                        builder.start_row();
                        open.push(false);
                    }
                    4 => {
                        builder.start_cell();
                        open.push(true);
                    }
                    _ => match open.pop() {
                        Some(true) => builder.end_cell(),
                        Some(false) => builder.end_row(),
                        None => {}
                    },
                }
            }
            let pages = builder.finish(usize::MAX);
            for pair in pages.windows(2) {
                assert!(pair[0].number < pair[1].number);
            }
            assert!(pages
                .iter()
                .all(|p| p.number >= 1 && !p.text.trim().is_empty()));
            let all: String = pages
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            for line in &lines {
                assert!(all.contains(line.as_str()), "{line:?} lost from {all:?}");
            }
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
