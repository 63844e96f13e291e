//! Word (docx): page-equivalents of `word/document.xml`.
//!
//! The body is walked in order. Each paragraph becomes one line (runs' `w:t` text, `w:tab`
//! as a tab, line breaks as newlines); each table row one line with its cells joined by
//! " | ". Footnotes, endnotes and comments are added as lines ("Footnote: …",
//! "Comment (author): …") right after the paragraph that references them.
//!
//! Pages start at explicit page breaks (`w:br w:type="page"`), at the page breaks Word
//! records from its last layout (`w:lastRenderedPageBreak`), at `w:pageBreakBefore`
//! (direct or from the paragraph style) and after a paragraph whose `w:sectPr` is a
//! page-starting section break. Rendered, break-before and section breaks never make an
//! empty page. A page without such structure (LibreOffice writes no rendered breaks) is
//! cut into ~500-token page-equivalents along paragraph boundaries; pages bounded by
//! rendered breaks are only cut when far larger than a printed page. A page's title is
//! its first heading (style "Title"/"heading N" or an outline level), else the last
//! heading before it.

use std::collections::{HashMap, HashSet};

use super::ooxml::{clean, core_meta, resolve_style, Package};
use super::pages::{
    pages_to_units, PageBreak, PageBuilder, PAGE_MAX_TOKENS, RENDERED_PAGE_MAX_TOKENS,
};
use super::xml::{Element, Node};
use crate::{Conversion, ConvertError, Input};

const FORMAT: &str = "docx";
const MAIN_PART: &str = "word/document.xml";
/// Subtrees never needed for text: run properties, the VML/legacy duplicate of
/// alternate content, deleted text and field codes.
const SKIP: &[&str] = &[
    "Fallback",
    "rPr",
    "delText",
    "instrText",
    "binData",
    "fldData",
];

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 2;

/// Converts a docx file into page-equivalent units.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    let mut package = Package::open(FORMAT, input.bytes)?;
    let main = package.main_part(MAIN_PART);
    let parsed = package
        .read_xml(&main, SKIP)?
        .ok_or_else(|| ConvertError::corrupt(FORMAT, format!("missing {MAIN_PART}")))?;
    let damage = parsed.error.clone();
    let Some(root) = parsed.root else {
        let detail = damage.unwrap_or_else(|| "no xml content".to_string());
        return Err(ConvertError::corrupt(
            FORMAT,
            format!("damaged {main}: {detail}"),
        ));
    };
    let Some(body) = root.child("body") else {
        let detail = damage.unwrap_or_else(|| "no w:body".to_string());
        return Err(ConvertError::corrupt(
            FORMAT,
            format!("damaged {main}: {detail}"),
        ));
    };

    let parts = RelatedParts::find(&mut package, &main);
    let styles = parts
        .styles
        .as_deref()
        .and_then(|p| package.optional_xml(p, SKIP))
        .map(|root| Styles::parse(&root))
        .unwrap_or_default();
    let notes = Notes::load(&mut package, &parts, &styles);

    let mut walker = Walker::new(&styles, Some(&notes));
    walker.walk_blocks(body);
    walker.append_unreferenced_notes();
    let split_over = if walker.rendered_breaks > 0 {
        RENDERED_PAGE_MAX_TOKENS
    } else {
        PAGE_MAX_TOKENS
    };
    let pages = walker.pages.finish(split_over);
    if pages.is_empty() {
        if let Some(detail) = damage {
            return Err(ConvertError::corrupt(
                FORMAT,
                format!("damaged {main}: {detail}"),
            ));
        }
    }

    let mut meta = core_meta(&mut package, "Pages", "pages_declared");
    meta.page_count = pages.last().map(|p| p.number);
    if let Some(detail) = damage {
        meta.extra.insert("damaged".to_string(), detail);
    }
    Ok(Conversion {
        units: pages_to_units(pages),
        meta,
        children: Vec::new(),
    })
}

/// Where the document's styles, notes and comments live (from its relationships).
#[derive(Debug, Default)]
struct RelatedParts {
    styles: Option<String>,
    footnotes: Option<String>,
    endnotes: Option<String>,
    comments: Option<String>,
}

impl RelatedParts {
    fn find(package: &mut Package, main: &str) -> RelatedParts {
        let rels = package.rels(main);
        let pick = |suffix: &str, default: &str| {
            rels.iter()
                .find(|r| !r.external && r.rel_type.ends_with(suffix))
                .map(|r| r.target.clone())
                .or_else(|| Some(default.to_string()))
        };
        RelatedParts {
            styles: pick("/styles", "word/styles.xml"),
            footnotes: pick("/footnotes", "word/footnotes.xml"),
            endnotes: pick("/endnotes", "word/endnotes.xml"),
            comments: pick("/comments", "word/comments.xml"),
        }
    }
}

/// Paragraph styles: which are headings and which start a page, through `w:basedOn`.
#[derive(Debug, Default)]
struct Styles {
    heading: HashMap<String, (Option<bool>, Option<String>)>,
    break_before: HashMap<String, (Option<bool>, Option<String>)>,
}

impl Styles {
    fn parse(root: &Element) -> Styles {
        let mut styles = Styles::default();
        for style in root.children_named("style") {
            let Some(id) = style.attr("w:styleId") else {
                continue;
            };
            let parent = style
                .child("basedOn")
                .and_then(|b| b.attr("w:val"))
                .map(str::to_string);
            let name = style
                .child("name")
                .and_then(|n| n.attr("w:val"))
                .unwrap_or_default()
                .to_ascii_lowercase();
            let ppr = style.child("pPr");
            let heading = if name.starts_with("heading") || name == "title" {
                Some(true)
            } else {
                ppr.and_then(|p| p.child("outlineLvl"))
                    .map(is_outline_heading)
            };
            let break_before = ppr.and_then(|p| p.child("pageBreakBefore")).map(is_on);
            styles
                .heading
                .insert(id.to_string(), (heading, parent.clone()));
            styles
                .break_before
                .insert(id.to_string(), (break_before, parent));
        }
        styles
    }

    fn is_heading(&self, style_id: &str) -> bool {
        resolve_style(&self.heading, style_id).unwrap_or_else(|| {
            let lower = style_id.to_ascii_lowercase();
            lower.starts_with("heading") || lower == "title"
        })
    }

    fn breaks_before(&self, style_id: &str) -> bool {
        resolve_style(&self.break_before, style_id).unwrap_or(false)
    }
}

/// An on/off property (`<w:b/>`, `<w:b w:val="0"/>`).
fn is_on(element: &Element) -> bool {
    !matches!(element.attr("w:val"), Some("0" | "false" | "off"))
}

fn is_outline_heading(element: &Element) -> bool {
    element
        .attr("w:val")
        .and_then(|v| v.parse::<u32>().ok())
        .is_some_and(|level| level < 9)
}

/// Footnote, endnote and comment texts by id, and which have been placed.
#[derive(Debug, Default)]
struct Notes {
    footnotes: HashMap<String, String>,
    endnotes: HashMap<String, String>,
    comments: HashMap<String, String>,
    /// Ids in document order per kind, for the unreferenced ones at the end.
    order: Vec<(NoteKind, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum NoteKind {
    Footnote,
    Endnote,
    Comment,
}

impl Notes {
    fn load(package: &mut Package, parts: &RelatedParts, styles: &Styles) -> Notes {
        let mut notes = Notes::default();
        let sources = [
            (NoteKind::Footnote, &parts.footnotes, "footnote"),
            (NoteKind::Endnote, &parts.endnotes, "endnote"),
            (NoteKind::Comment, &parts.comments, "comment"),
        ];
        for (kind, part, element) in sources {
            let Some(root) = part.as_deref().and_then(|p| package.optional_xml(p, SKIP)) else {
                continue;
            };
            for note in root.children_named(element) {
                if matches!(
                    note.attr("w:type"),
                    Some("separator" | "continuationSeparator" | "continuationNotice")
                ) {
                    continue;
                }
                let Some(id) = note.attr("w:id") else {
                    continue;
                };
                let text = flat_text(note, styles);
                if text.is_empty() {
                    continue;
                }
                let line = match kind {
                    NoteKind::Footnote => format!("Footnote: {text}"),
                    NoteKind::Endnote => format!("Endnote: {text}"),
                    NoteKind::Comment => match note.attr("w:author").map(clean) {
                        Some(author) if !author.is_empty() => {
                            format!("Comment ({author}): {text}")
                        }
                        _ => format!("Comment: {text}"),
                    },
                };
                notes.order.push((kind, id.to_string()));
                notes.map_mut(kind).insert(id.to_string(), line);
            }
        }
        notes
    }

    fn map_mut(&mut self, kind: NoteKind) -> &mut HashMap<String, String> {
        match kind {
            NoteKind::Footnote => &mut self.footnotes,
            NoteKind::Endnote => &mut self.endnotes,
            NoteKind::Comment => &mut self.comments,
        }
    }

    fn get(&self, kind: NoteKind, id: &str) -> Option<&String> {
        match kind {
            NoteKind::Footnote => self.footnotes.get(id),
            NoteKind::Endnote => self.endnotes.get(id),
            NoteKind::Comment => self.comments.get(id),
        }
    }
}

/// The text of a note or comment body on one line.
fn flat_text(element: &Element, styles: &Styles) -> String {
    let mut walker = Walker::new(styles, None);
    walker.walk_blocks(element);
    let pages = walker.pages.finish(usize::MAX);
    clean(
        &pages
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The paragraph being read.
#[derive(Debug, Default)]
struct Paragraph {
    line: String,
    heading: bool,
    notes: Vec<String>,
}

/// Walks the body, feeding lines and breaks to a [`PageBuilder`].
struct Walker<'a> {
    styles: &'a Styles,
    notes: Option<&'a Notes>,
    placed: HashSet<(NoteKind, String)>,
    pages: PageBuilder,
    rendered_breaks: usize,
}

impl<'a> Walker<'a> {
    fn new(styles: &'a Styles, notes: Option<&'a Notes>) -> Walker<'a> {
        Walker {
            styles,
            notes,
            placed: HashSet::new(),
            pages: PageBuilder::default(),
            rendered_breaks: 0,
        }
    }

    /// Block-level content: paragraphs, tables, and wrappers (content controls, custom
    /// XML, tracked insertions) walked through.
    fn walk_blocks(&mut self, container: &Element) {
        for child in container.elements() {
            match &*child.name {
                "p" => self.paragraph(child),
                "tbl" => self.table(child),
                "sectPr" | "pPr" | "tblPr" | "tblGrid" | "trPr" | "tcPr" | "sdtPr" | "sdtEndPr" => {
                }
                _ => self.walk_blocks(child),
            }
        }
    }

    fn paragraph(&mut self, p: &Element) {
        let ppr = p.child("pPr");
        let style = ppr
            .and_then(|pr| pr.child("pStyle"))
            .and_then(|s| s.attr("w:val"))
            .unwrap_or_default();
        let heading = self.styles.is_heading(style)
            || ppr
                .and_then(|pr| pr.child("outlineLvl"))
                .is_some_and(is_outline_heading);
        let break_before = match ppr.and_then(|pr| pr.child("pageBreakBefore")) {
            Some(flag) => is_on(flag),
            None => !style.is_empty() && self.styles.breaks_before(style),
        };
        if break_before {
            self.pages.page_break(PageBreak::Soft);
        }
        let mut para = Paragraph {
            heading,
            ..Paragraph::default()
        };
        self.inline(p, &mut para);
        self.flush(&mut para);
        for note in std::mem::take(&mut para.notes) {
            self.pages.push_line(&note, false);
        }
        let section_break = ppr.and_then(|pr| pr.child("sectPr")).is_some_and(|sect| {
            !matches!(
                sect.child("type").and_then(|t| t.attr("w:val")),
                Some("continuous" | "nextColumn")
            )
        });
        if section_break {
            self.pages.page_break(PageBreak::Soft);
        }
    }

    fn flush(&mut self, para: &mut Paragraph) {
        self.pages.push_line(&para.line, para.heading);
        para.line.clear();
    }

    /// Run-level content of a paragraph.
    fn inline(&mut self, element: &Element, para: &mut Paragraph) {
        for node in &element.children {
            let Node::Element(child) = node else {
                continue;
            };
            match &*child.name {
                "t" => para.line.push_str(&child.text()),
                "tab" | "ptab" => para.line.push('\t'),
                "br" => match child.attr("w:type") {
                    Some("page") => {
                        self.flush(para);
                        self.pages.page_break(PageBreak::Hard);
                    }
                    _ => para.line.push('\n'),
                },
                "cr" => para.line.push('\n'),
                "lastRenderedPageBreak" => {
                    self.flush(para);
                    self.rendered_breaks += 1;
                    self.pages.page_break(PageBreak::Soft);
                }
                "noBreakHyphen" => para.line.push('-'),
                "footnoteReference" => self.note(NoteKind::Footnote, child, para),
                "endnoteReference" => self.note(NoteKind::Endnote, child, para),
                "commentReference" => self.note(NoteKind::Comment, child, para),
                "pPr" | "sym" | "softHyphen" => {}
                "txbxContent" => self.walk_blocks(child),
                "p" => self.paragraph(child),
                "tbl" => self.table(child),
                _ => self.inline(child, para),
            }
        }
    }

    fn note(&mut self, kind: NoteKind, reference: &Element, para: &mut Paragraph) {
        let (Some(notes), Some(id)) = (self.notes, reference.attr("w:id")) else {
            return;
        };
        if let Some(text) = notes.get(kind, id) {
            if self.placed.insert((kind, id.to_string())) {
                para.notes.push(text.clone());
            }
        }
    }

    /// Notes and comments no paragraph referenced go at the end of the last page.
    fn append_unreferenced_notes(&mut self) {
        let Some(notes) = self.notes else {
            return;
        };
        for (kind, id) in &notes.order {
            if self.placed.contains(&(*kind, id.clone())) {
                continue;
            }
            if let Some(text) = notes.get(*kind, id) {
                self.pages.push_line(text, false);
            }
        }
    }

    fn table(&mut self, table: &Element) {
        for row in wrapped(table, "tr") {
            self.pages.start_row();
            for cell in wrapped(row, "tc") {
                self.pages.start_cell();
                self.walk_blocks(cell);
                self.pages.end_cell();
            }
            self.pages.end_row();
        }
    }
}

/// Children named `name`, looking through content-control, custom-XML and revision
/// wrappers.
fn wrapped<'e>(element: &'e Element, name: &str) -> Vec<&'e Element> {
    let mut out = Vec::new();
    collect_wrapped(element, name, &mut out, 0);
    out
}

fn collect_wrapped<'e>(element: &'e Element, name: &str, out: &mut Vec<&'e Element>, depth: usize) {
    for child in element.elements() {
        if &*child.name == name {
            out.push(child);
        } else if depth < 8
            && matches!(
                &*child.name,
                "sdt" | "sdtContent" | "customXml" | "ins" | "moveTo"
            )
        {
            collect_wrapped(child, name, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::office::ooxml::tests_support::{zip_bytes, CORE_XML};
    use crate::{FileType, Locator, UnitKind};

    const W: &str = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"";

    fn document(body: &str) -> String {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<w:document {W}><w:body>{body}<w:sectPr/></w:body></w:document>")
    }

    fn para(text: &str) -> String {
        format!("<w:p><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>")
    }

    fn run(name: &str, bytes: &[u8]) -> Result<Conversion, ConvertError> {
        convert(&Input {
            tail: &[],
            name,
            bytes,
            size: bytes.len() as u64,
            file_type: FileType::Docx,
        })
    }

    fn sample() -> Vec<u8> {
        let body = format!(
            "<w:p><w:pPr><w:pStyle w:val=\"Heading1\"/></w:pPr><w:r><w:t>Quarterly report</w:t></w:r></w:p>\
             <w:p><w:r><w:t>Revenue &amp; costs</w:t><w:tab/><w:t>rose</w:t><w:footnoteReference w:id=\"2\"/></w:r></w:p>\
             <w:tbl><w:tblPr/><w:tr><w:tc><w:p><w:r><w:t>Region</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Sales</w:t></w:r></w:p></w:tc></w:tr>\
             <w:tr><w:tc><w:p><w:r><w:t>North</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>42</w:t></w:r></w:p></w:tc></w:tr></w:tbl>\
             <w:p><w:r><w:t>Before break</w:t><w:br w:type=\"page\"/><w:t>after break</w:t></w:r></w:p>\
             {}\
             <w:p><w:pPr><w:sectPr><w:type w:val=\"nextPage\"/></w:sectPr></w:pPr><w:r><w:t>end of section</w:t></w:r></w:p>\
             <w:p><w:r><w:lastRenderedPageBreak/><w:t>third</w:t><w:br/><w:t>line two</w:t><w:delText>gone</w:delText></w:r></w:p>",
            para("x &lt; y &#8211; z")
        );
        let styles = format!(
            "<w:styles {W}><w:style w:type=\"paragraph\" w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style></w:styles>"
        );
        let footnotes = format!(
            "<w:footnotes {W}><w:footnote w:type=\"separator\" w:id=\"0\"><w:p><w:r><w:t>sep</w:t></w:r></w:p></w:footnote>\
             <w:footnote w:id=\"2\"><w:p><w:r><w:t>Source: audit.</w:t></w:r></w:p></w:footnote></w:footnotes>"
        );
        zip_bytes(&[
            ("word/document.xml", document(&body).as_str()),
            ("word/styles.xml", styles.as_str()),
            ("word/footnotes.xml", footnotes.as_str()),
            ("docProps/core.xml", CORE_XML),
            (
                "docProps/app.xml",
                "<Properties xmlns=\"http://schemas.openxmlformats.org/officeDocument/2006/extended-properties\"><Pages>3</Pages></Properties>",
            ),
        ])
    }

    #[test]
    fn reads_text_tables_breaks_and_meta() {
        let conversion = run("a.docx", &sample()).expect("converts");
        let units = &conversion.units;
        assert_eq!(units.len(), 3, "{units:#?}");
        assert_eq!(units[0].kind, Some(UnitKind::Page));
        assert_eq!(units[0].locator, Locator::page(1));
        assert_eq!(
            units[0].text,
            "Quarterly report\nRevenue & costs\trose\nFootnote: Source: audit.\nRegion | Sales\nNorth | 42\nBefore break"
        );
        assert_eq!(units[0].title.as_deref(), Some("Quarterly report"));
        assert_eq!(units[1].text, "after break\nx < y – z\nend of section");
        assert_eq!(units[1].title.as_deref(), Some("Quarterly report"));
        assert_eq!(units[2].text, "third\nline two");
        assert_eq!(units[2].locator, Locator::page(3));
        let meta = &conversion.meta;
        assert_eq!(meta.title.as_deref(), Some("Test title"));
        assert_eq!(meta.author.as_deref(), Some("Ana Lima"));
        assert_eq!(
            meta.created.map(|t| t.to_rfc3339()).as_deref(),
            Some("2024-03-05T09:30:00+00:00")
        );
        assert_eq!(meta.page_count, Some(3));
        assert_eq!(
            meta.extra.get("pages_declared").map(String::as_str),
            Some("3")
        );
    }

    #[test]
    fn rendered_break_after_explicit_break_makes_no_empty_page() {
        let body = "<w:p><w:r><w:t>one</w:t></w:r><w:r><w:br w:type=\"page\"/></w:r></w:p>\
                    <w:p><w:r><w:lastRenderedPageBreak/><w:t>two</w:t></w:r></w:p>";
        let bytes = zip_bytes(&[("word/document.xml", document(body).as_str())]);
        let units = run("b.docx", &bytes).expect("converts").units;
        assert_eq!(units.len(), 2);
        assert_eq!(units[1].locator, Locator::page(2));
        assert_eq!(units[1].text, "two");
    }

    #[test]
    fn long_document_without_breaks_is_split() {
        let sentence = "The committee reviewed the stormwater plan in detail. ";
        let body: String = (0..200).map(|_| para(&sentence.repeat(3))).collect();
        let bytes = zip_bytes(&[("word/document.xml", document(&body).as_str())]);
        let conversion = run("c.docx", &bytes).expect("converts");
        assert!(conversion.units.len() >= 8, "{}", conversion.units.len());
        for (i, unit) in conversion.units.iter().enumerate() {
            assert_eq!(unit.locator, Locator::page(i as u32 + 1));
            assert!(crate::text::approx_tokens(&unit.text) <= 650);
        }
        assert_eq!(
            conversion.meta.page_count,
            Some(conversion.units.len() as u32)
        );
    }

    #[test]
    fn malformed_inputs_give_errors() {
        let good = sample();
        assert!(matches!(run("e.docx", b""), Err(ConvertError::Empty)));
        let err = run("r.docx", b"this is not a zip at all").unwrap_err();
        assert!(err.to_string().contains("not a zip archive"), "{err}");
        let half = &good[..good.len() / 2];
        assert!(run("t.docx", half).is_err());
        let noise: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        assert!(run("n.docx", &noise).is_err());
        let missing = zip_bytes(&[("word/other.xml", "<x/>")]);
        let err = run("m.docx", &missing).unwrap_err();
        assert!(
            err.to_string().contains("missing word/document.xml"),
            "{err}"
        );
        let garbage = zip_bytes(&[("word/document.xml", "\u{1}\u{2}<<<")]);
        assert_eq!(run("g.docx", &garbage).unwrap_err().reason(), "corrupt");
        let mut ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
        ole.extend(
            "EncryptionInfo"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        );
        assert_eq!(run("x.docx", &ole).unwrap_err().reason(), "encrypted");
        // A pptx handed in as docx.
        let pptx = zip_bytes(&[("ppt/presentation.xml", "<p:presentation/>")]);
        assert!(run("w.docx", &pptx).is_err());
    }

    #[test]
    fn damaged_xml_keeps_what_was_read() {
        let xml = format!(
            "<w:document {W}><w:body>{}<w:p><w:r><w:t>cut he",
            para("kept")
        );
        let bytes = zip_bytes(&[("word/document.xml", xml.as_str())]);
        let conversion = run("d.docx", &bytes).expect("partial result");
        assert_eq!(conversion.units[0].text, "kept\ncut he");
        assert!(conversion.meta.extra.contains_key("damaged"));
    }

    #[test]
    #[cfg_attr(
        not(dentate_shared),
        ignore = "needs ../shared/corpus beside the repository"
    )]
    fn real_files_when_present() {
        let dirs = [
            "../../shared/corpus/realworld/Documents/Office",
            "../../shared/corpus/realworld/Broken",
            "../../shared/corpus/persona/home/Documents",
        ];
        let mut seen = 0;
        for dir in dirs {
            for path in crate::office::ooxml::tests_support::files_with_ext(dir, "docx") {
                let bytes = std::fs::read(&path).unwrap_or_default();
                let name = path.to_string_lossy().to_string();
                let result = run(&name, &bytes);
                if name.contains("/Broken/") {
                    assert!(result.is_err(), "{name}");
                } else {
                    let conversion = result.unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert!(!conversion.units.is_empty(), "{name}");
                }
                seen += 1;
            }
        }
        if seen == 0 {
            panic!("missing: corpus not present");
        }
    }

    #[test]
    fn damaged_copies_do_not_panic() {
        crate::office::ooxml::tests_support::check_damaged_copies(
            &sample(),
            "a.docx",
            FileType::Docx,
            convert,
            0xD0C5_0000_0000_0001,
        );
    }
}
