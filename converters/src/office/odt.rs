//! OpenDocument text (odt): page-equivalents of `content.xml`.
//!
//! `office:body/office:text` is walked in order: headings and paragraphs become one line
//! each (spans, `text:s` spaces, tabs, line breaks), lists and sections are walked
//! through, table rows become one line with cells joined by " | ", footnotes and
//! comments become lines ("Footnote: …", "Comment (author): …") after their paragraph,
//! and text boxes give lines of their own.
//!
//! Pages start at `text:soft-page-break` (where LibreOffice's last layout broke pages)
//! and at paragraphs or tables whose style (automatic or common, through its parents)
//! has `fo:break-before="page"`, `fo:break-after="page"` or a master page. Without such
//! breaks the text is cut into ~500-token page-equivalents along paragraph boundaries,
//! as for docx.

use std::collections::HashMap;

use super::ooxml::{clean, parse_datetime, resolve_style, Package};
use super::pages::{
    pages_to_units, PageBreak, PageBuilder, PAGE_MAX_TOKENS, RENDERED_PAGE_MAX_TOKENS,
};
use super::xml::{Element, Node};
use crate::{Conversion, ConvertError, FileMeta, Input};

const FORMAT: &str = "odt";
const CONTENT: &str = "content.xml";
/// Most consecutive spaces one `text:s` may stand for.
const MAX_SPACES: usize = 1000;

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 2;

/// Converts an odt file into page-equivalent units.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    let mut package = Package::open(FORMAT, input.bytes)?;
    if is_encrypted(&mut package) {
        return Err(ConvertError::encrypted(
            FORMAT,
            "password-protected document",
        ));
    }
    let parsed = package
        .read_xml(CONTENT, &[])?
        .ok_or_else(|| ConvertError::corrupt(FORMAT, format!("missing {CONTENT}")))?;
    let damage = parsed.error.clone();
    let Some(root) = parsed.root else {
        let detail = damage.unwrap_or_else(|| "no xml content".to_string());
        return Err(ConvertError::corrupt(
            FORMAT,
            format!("damaged {CONTENT}: {detail}"),
        ));
    };
    let Some(text) = root.path(&["body", "text"]) else {
        let detail = damage.unwrap_or_else(|| "no office:text body".to_string());
        return Err(ConvertError::corrupt(
            FORMAT,
            format!("damaged {CONTENT}: {detail}"),
        ));
    };

    let mut styles = Styles::default();
    if let Some(common) = package.optional_xml("styles.xml", &[]) {
        for section in ["styles", "automatic-styles"] {
            if let Some(list) = common.child(section) {
                styles.add(list, false);
            }
        }
    }
    if let Some(automatic) = root.child("automatic-styles") {
        styles.add(automatic, true);
    }

    let mut walker = Walker::new(&styles);
    walker.walk_blocks(text);
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
                format!("damaged {CONTENT}: {detail}"),
            ));
        }
    }

    let mut meta = read_meta(&mut package);
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

/// Whether the manifest says the content is encrypted (a password-protected file).
fn is_encrypted(package: &mut Package) -> bool {
    let Some(manifest) = package.optional_xml("META-INF/manifest.xml", &[]) else {
        return false;
    };
    let encrypted = manifest.children_named("file-entry").any(|entry| {
        entry.attr("manifest:full-path") == Some(CONTENT)
            && entry.child("encryption-data").is_some()
    });
    encrypted
}

type StyleMap = HashMap<String, (Option<bool>, Option<String>)>;

/// Paragraph and table styles: page breaks before/after and headings, through parents.
#[derive(Debug, Default)]
struct Styles {
    break_before: StyleMap,
    break_after: StyleMap,
    heading: StyleMap,
}

impl Styles {
    fn add(&mut self, list: &Element, automatic: bool) {
        for style in list.children_named("style") {
            let Some(name) = style.attr("style:name") else {
                continue;
            };
            let parent = style.attr("style:parent-style-name").map(str::to_string);
            let props = style
                .child("paragraph-properties")
                .or_else(|| style.child("table-properties"));
            let is_page = |attr: &str| props.and_then(|p| p.attr(attr)).map(|v| v == "page");
            let master_page = automatic
                && style
                    .attr("style:master-page-name")
                    .is_some_and(|m| !m.is_empty());
            let before = if master_page {
                Some(true)
            } else {
                is_page("fo:break-before")
            };
            let display = style
                .attr("style:display-name")
                .unwrap_or(name)
                .to_ascii_lowercase();
            let heading = if display == "title"
                || display.starts_with("heading")
                || style.attr("style:default-outline-level").is_some()
            {
                Some(true)
            } else {
                None
            };
            self.break_before
                .insert(name.to_string(), (before, parent.clone()));
            self.break_after.insert(
                name.to_string(),
                (is_page("fo:break-after"), parent.clone()),
            );
            self.heading.insert(name.to_string(), (heading, parent));
        }
    }

    fn flag(map: &StyleMap, style: Option<&str>) -> bool {
        style.and_then(|s| resolve_style(map, s)).unwrap_or(false)
    }
}

#[derive(Debug, Default)]
struct Paragraph {
    line: String,
    heading: bool,
    notes: Vec<String>,
}

struct Walker<'a> {
    styles: &'a Styles,
    pages: PageBuilder,
    rendered_breaks: usize,
}

impl<'a> Walker<'a> {
    fn new(styles: &'a Styles) -> Walker<'a> {
        Walker {
            styles,
            pages: PageBuilder::default(),
            rendered_breaks: 0,
        }
    }

    fn walk_blocks(&mut self, container: &Element) {
        for child in container.elements() {
            let name = &*child.name;
            match name {
                "h" => self.paragraph(child, true),
                "p" => self.paragraph(child, false),
                "table" => self.table(child),
                "soft-page-break" => self.soft_break(),
                "tracked-changes" | "forms" | "index-title-template" => {}
                _ if name.ends_with("-decls") || name.ends_with("-source") => {}
                _ => self.walk_blocks(child),
            }
        }
    }

    fn soft_break(&mut self) {
        self.rendered_breaks += 1;
        self.pages.page_break(PageBreak::Soft);
    }

    fn paragraph(&mut self, p: &Element, is_h: bool) {
        let style = p.attr("text:style-name");
        if Styles::flag(&self.styles.break_before, style) {
            self.pages.page_break(PageBreak::Soft);
        }
        let mut para = Paragraph {
            heading: is_h || Styles::flag(&self.styles.heading, style),
            ..Paragraph::default()
        };
        self.inline(p, &mut para);
        self.pages.push_line(&para.line, para.heading);
        for note in std::mem::take(&mut para.notes) {
            self.pages.push_line(&note, false);
        }
        if Styles::flag(&self.styles.break_after, style) {
            self.pages.page_break(PageBreak::Soft);
        }
    }

    fn inline(&mut self, element: &Element, para: &mut Paragraph) {
        for node in &element.children {
            let child = match node {
                Node::Text(text) => {
                    para.line.extend(
                        text.chars()
                            .map(|c| if c.is_whitespace() { ' ' } else { c }),
                    );
                    continue;
                }
                Node::Element(child) => child,
            };
            match &*child.name {
                "s" => {
                    let count = child
                        .attr("text:c")
                        .and_then(|c| c.parse::<usize>().ok())
                        .unwrap_or(1)
                        .min(MAX_SPACES);
                    para.line.extend(std::iter::repeat_n(' ', count));
                }
                "tab" => para.line.push('\t'),
                "line-break" => para.line.push('\n'),
                "soft-page-break" => {
                    self.pages.push_line(&para.line, para.heading);
                    para.line.clear();
                    self.soft_break();
                }
                "note" => para.notes.push(self.note(child)),
                "annotation" => para.notes.push(self.annotation(child)),
                "note-citation" | "annotation-end" | "tracked-changes" | "change"
                | "change-start" | "change-end" => {}
                "text-box" | "custom-shape" => self.walk_blocks(child),
                "p" => self.paragraph(child, false),
                "h" => self.paragraph(child, true),
                "table" => self.table(child),
                _ => self.inline(child, para),
            }
        }
    }

    /// A footnote or endnote as one line.
    fn note(&self, note: &Element) -> String {
        let label = match note.attr("text:note-class") {
            Some("endnote") => "Endnote",
            _ => "Footnote",
        };
        let body = note
            .child("note-body")
            .map(|b| self.flat_text(b))
            .unwrap_or_default();
        if body.is_empty() {
            String::new()
        } else {
            format!("{label}: {body}")
        }
    }

    /// A comment as one line, with its author.
    fn annotation(&self, annotation: &Element) -> String {
        let body = self.flat_text(annotation);
        if body.is_empty() {
            return String::new();
        }
        match annotation.child("creator").map(|c| clean(&c.text())) {
            Some(author) if !author.is_empty() => format!("Comment ({author}): {body}"),
            _ => format!("Comment: {body}"),
        }
    }

    /// The paragraphs below `element` on one line.
    fn flat_text(&self, element: &Element) -> String {
        let mut sub = Walker::new(self.styles);
        sub.walk_blocks(element);
        let pages = sub.pages.finish(usize::MAX);
        clean(
            &pages
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        )
    }

    fn table(&mut self, table: &Element) {
        let style = table.attr("table:style-name");
        if Styles::flag(&self.styles.break_before, style) {
            self.pages.page_break(PageBreak::Soft);
        }
        self.rows(table, 0);
        if Styles::flag(&self.styles.break_after, style) {
            self.pages.page_break(PageBreak::Soft);
        }
    }

    fn rows(&mut self, container: &Element, depth: usize) {
        for child in container.elements() {
            match &*child.name {
                "table-row" => {
                    self.pages.start_row();
                    for cell in child.children_named("table-cell") {
                        self.pages.start_cell();
                        self.walk_blocks(cell);
                        self.pages.end_cell();
                    }
                    self.pages.end_row();
                }
                "soft-page-break" => self.soft_break(),
                "table-header-rows" | "table-rows" | "table-row-group" if depth < 8 => {
                    self.rows(child, depth + 1)
                }
                _ => {}
            }
        }
    }
}

/// File metadata from `meta.xml`.
fn read_meta(package: &mut Package) -> FileMeta {
    let mut meta = FileMeta::default();
    let Some(root) = package.optional_xml("meta.xml", &[]) else {
        return meta;
    };
    let Some(props) = root.child("meta") else {
        return meta;
    };
    let mut creator = None;
    for prop in props.elements() {
        let value = clean(&prop.text());
        match &*prop.name {
            "title" if !value.is_empty() => meta.title = Some(value),
            "initial-creator" if !value.is_empty() => meta.author = Some(value),
            "creator" if !value.is_empty() => creator = Some(value),
            "creation-date" => meta.created = parse_datetime(&value),
            "date" => {
                if let Some(t) = parse_datetime(&value) {
                    meta.extra.insert("modified".to_string(), t.to_rfc3339());
                }
            }
            "subject" | "description" | "keyword" if !value.is_empty() => {
                let key = if &*prop.name == "keyword" {
                    "keywords"
                } else {
                    &prop.name
                };
                let entry = meta.extra.entry(key.to_string()).or_default();
                if !entry.is_empty() {
                    entry.push_str(", ");
                }
                entry.push_str(&value);
            }
            "document-statistic" => {
                if let Some(count) = prop.attr("meta:page-count") {
                    if count.parse::<u32>().is_ok_and(|n| n > 0) {
                        meta.extra
                            .insert("pages_declared".to_string(), count.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    if meta.author.is_none() {
        meta.author = creator;
    }
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::office::ooxml::tests_support::{files_with_ext, zip_bytes};
    use crate::{FileType, Locator, UnitKind};

    const NS: &str = "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
        xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" \
        xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
        xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\" \
        xmlns:fo=\"urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0\" \
        xmlns:dc=\"http://purl.org/dc/elements/1.1/\" \
        xmlns:meta=\"urn:oasis:names:tc:opendocument:xmlns:meta:1.0\"";

    fn content(body: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content {NS}>\
             <office:automatic-styles>\
             <style:style style:name=\"P1\" style:family=\"paragraph\" style:parent-style-name=\"Standard\">\
             <style:paragraph-properties fo:break-before=\"page\"/></style:style>\
             </office:automatic-styles><office:body><office:text>{body}</office:text></office:body>\
             </office:document-content>"
        )
    }

    const META: &str = "<office:document-meta xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
        xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:meta=\"urn:oasis:names:tc:opendocument:xmlns:meta:1.0\">\
        <office:meta><dc:title>Field notes</dc:title><meta:initial-creator>Rui Costa</meta:initial-creator>\
        <dc:creator>Someone Else</dc:creator><meta:creation-date>2021-06-01T08:15:00.123</meta:creation-date>\
        <meta:document-statistic meta:page-count=\"2\"/></office:meta></office:document-meta>";

    fn run(bytes: &[u8]) -> Result<Conversion, ConvertError> {
        convert(&Input {
            tail: &[],
            name: "a.odt",
            bytes,
            size: bytes.len() as u64,
            file_type: FileType::Odt,
        })
    }

    fn sample() -> Vec<u8> {
        let body = "<text:h text:outline-level=\"1\">Site visit</text:h>\
            <text:p>Water<text:s text:c=\"2\"/>level <text:span>high</text:span><text:tab/>today<text:line-break/>second line\
            <text:note text:note-class=\"footnote\"><text:note-citation>1</text:note-citation>\
            <text:note-body><text:p>Gauge 7.</text:p></text:note-body></text:note></text:p>\
            <text:list><text:list-item><text:p>item &amp; one</text:p></text:list-item></text:list>\
            <table:table><table:table-row><table:table-cell><text:p>Pump</text:p></table:table-cell>\
            <table:table-cell><text:p>On</text:p></table:table-cell></table:table-row></table:table>\
            <text:p>before soft<text:soft-page-break/>after soft</text:p>\
            <text:p text:style-name=\"P1\">New chapter</text:p>";
        zip_bytes(&[
            ("mimetype", "application/vnd.oasis.opendocument.text"),
            ("content.xml", content(body).as_str()),
            ("meta.xml", META),
        ])
    }

    #[test]
    fn reads_text_tables_breaks_and_meta() {
        let conversion = run(&sample()).expect("converts");
        let units = &conversion.units;
        assert_eq!(units.len(), 3, "{units:#?}");
        assert_eq!(units[0].kind, Some(UnitKind::Page));
        assert_eq!(
            units[0].text,
            "Site visit\nWater  level high\ttoday\nsecond line\nFootnote: Gauge 7.\nitem & one\nPump | On\nbefore soft"
        );
        assert_eq!(units[0].title.as_deref(), Some("Site visit"));
        assert_eq!(units[1].text, "after soft");
        assert_eq!(units[2].text, "New chapter");
        assert_eq!(units[2].locator, Locator::page(3));
        let meta = &conversion.meta;
        assert_eq!(meta.title.as_deref(), Some("Field notes"));
        assert_eq!(meta.author.as_deref(), Some("Rui Costa"));
        assert_eq!(
            meta.created.map(|t| t.to_rfc3339()).as_deref(),
            Some("2021-06-01T08:15:00.123+00:00")
        );
        assert_eq!(meta.page_count, Some(3));
        assert_eq!(
            meta.extra.get("pages_declared").map(String::as_str),
            Some("2")
        );
    }

    #[test]
    fn malformed_inputs_give_errors() {
        let good = sample();
        assert!(run(b"").is_err());
        assert!(run(b"plain text, no zip")
            .unwrap_err()
            .to_string()
            .contains("not a zip archive"));
        assert!(run(&good[..good.len() / 2]).is_err());
        let missing = zip_bytes(&[("meta.xml", META)]);
        assert!(run(&missing)
            .unwrap_err()
            .to_string()
            .contains("missing content.xml"));
        let spreadsheet = zip_bytes(&[(
            "content.xml",
            "<office:document-content><office:body><office:spreadsheet/></office:body></office:document-content>",
        )]);
        assert_eq!(run(&spreadsheet).unwrap_err().reason(), "corrupt");
        let encrypted = zip_bytes(&[
            ("content.xml", "\u{7}binary"),
            (
                "META-INF/manifest.xml",
                "<manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\">\
                 <manifest:file-entry manifest:full-path=\"content.xml\"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>",
            ),
        ]);
        assert_eq!(run(&encrypted).unwrap_err().reason(), "encrypted");
    }

    #[test]
    #[cfg_attr(
        not(dentate_shared),
        ignore = "needs ../shared/corpus beside the repository"
    )]
    fn real_files_when_present() {
        let files = files_with_ext("../../shared/corpus", "odt");
        if files.is_empty() {
            panic!("missing: corpus not present");
        }
        for path in files {
            let bytes = std::fs::read(&path).unwrap_or_default();
            let conversion = run(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!conversion.units.is_empty(), "{}", path.display());
        }
    }

    #[test]
    fn damaged_copies_do_not_panic() {
        crate::office::ooxml::tests_support::check_damaged_copies(
            &sample(),
            "a.odt",
            FileType::Odt,
            convert,
            0x0D70_0000_0000_0001,
        );
    }
}
