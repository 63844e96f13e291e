//! PowerPoint (pptx): one unit per slide, with its speaker notes.
//!
//! Slides come in presentation order (`p:sldIdLst` through the presentation's
//! relationships, not file names). A slide's shapes are read in reading order: sorted by
//! their top-left offset (y, then x), positions of placeholders that carry none taken
//! from the slide layout or master; shapes still without one keep their place after the
//! shape before them. Paragraphs become lines, table rows " | "-joined lines, charts give
//! their titles and category/series names, SmartArt its node texts, pictures their alt
//! text. The title placeholder (`title`/`ctrTitle`) becomes `Unit.title` and the first
//! line. Speaker notes (the notes slide's body, without the slide-number placeholder)
//! follow a "Notes:" line and are also in `fields["notes"]`.

use std::collections::HashMap;

use super::ooxml::{clean, core_meta, short_title, Package, Relationship};
use super::xml::{Element, Node};
use crate::{Conversion, ConvertError, Input, Locator, Unit, UnitKind};

const FORMAT: &str = "pptx";
const MAIN_PART: &str = "ppt/presentation.xml";
/// Subtrees never needed: alternate-content fallbacks and formatting.
const SKIP: &[&str] = &[
    "Fallback",
    "rPr",
    "endParaRPr",
    "extLst",
    "lstStyle",
    "bodyPr",
];
/// Most chart category/series names kept per chart.
const MAX_CHART_NAMES: usize = 200;

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 2;

/// Converts a pptx file into slide units.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    let mut package = Package::open(FORMAT, input.bytes)?;
    let main = package.main_part(MAIN_PART);
    let parsed = package
        .read_xml(&main, &[])?
        .ok_or_else(|| ConvertError::corrupt(FORMAT, format!("missing {MAIN_PART}")))?;
    let damage = parsed.error.clone();
    let slide_parts = slide_order(&mut package, &main, parsed.root.as_ref());

    let mut reader = SlideReader {
        package: &mut package,
        placeholders: HashMap::new(),
    };
    let mut units = Vec::new();
    for (index, part) in slide_parts.iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        if let Some(unit) = reader.slide(part, number) {
            units.push(unit);
        }
    }
    if units.is_empty() && !slide_parts.is_empty() {
        return Err(ConvertError::corrupt(FORMAT, "no readable slides"));
    }
    if units.is_empty() {
        if let Some(detail) = &damage {
            return Err(ConvertError::corrupt(
                FORMAT,
                format!("damaged {main}: {detail}"),
            ));
        }
    }

    let mut meta = core_meta(&mut package, "Slides", "slides_declared");
    meta.page_count = u32::try_from(slide_parts.len()).ok();
    if let Some(detail) = damage {
        meta.extra.insert("damaged".to_string(), detail);
    }
    Ok(Conversion {
        units,
        meta,
        children: Vec::new(),
    })
}

/// Slide parts in presentation order: `p:sldIdLst` → relationship targets; when the list
/// is missing or resolves to nothing, `ppt/slides/slideN.xml` in numeric order.
fn slide_order(package: &mut Package, main: &str, root: Option<&Element>) -> Vec<String> {
    let rels = package.rels(main);
    let listed: Vec<String> = root
        .and_then(|r| r.child("sldIdLst"))
        .map(|list| {
            list.children_named("sldId")
                .filter_map(|id| id.attr("r:id"))
                .filter_map(|rid| find_rel(&rels, rid))
                .filter(|target| package.has(target))
                .collect()
        })
        .unwrap_or_default();
    if !listed.is_empty() {
        return listed;
    }
    let mut numbered: Vec<(u32, String)> = package
        .names()
        .iter()
        .filter_map(|name| {
            let number = name
                .strip_prefix("ppt/slides/slide")?
                .strip_suffix(".xml")?
                .parse::<u32>()
                .ok()?;
            Some((number, name.clone()))
        })
        .collect();
    numbered.sort();
    numbered.into_iter().map(|(_, name)| name).collect()
}

fn find_rel(rels: &[Relationship], id: &str) -> Option<String> {
    rels.iter()
        .find(|r| r.id == id && !r.external)
        .map(|r| r.target.clone())
}

fn find_rel_type(rels: &[Relationship], suffix: &str) -> Option<String> {
    rels.iter()
        .find(|r| !r.external && r.rel_type.ends_with(suffix))
        .map(|r| r.target.clone())
}

/// A placeholder's identity: its normalised type and index.
#[derive(Debug, Clone, PartialEq)]
struct Placeholder {
    kind: String,
    idx: Option<String>,
}

impl Placeholder {
    fn of(shape: &Element) -> Option<Placeholder> {
        let ph = shape
            .elements()
            .find(|e| e.name.starts_with("nv"))?
            .child("nvPr")?
            .child("ph")?;
        let kind = match ph.attr("type") {
            Some("title" | "ctrTitle") => "title",
            Some("body" | "obj") | None => "body",
            Some(other) => other,
        };
        Some(Placeholder {
            kind: kind.to_string(),
            idx: ph.attr("idx").map(str::to_string),
        })
    }

    fn is_title(&self) -> bool {
        self.kind == "title"
    }
}

/// A shape's text, with its position when known.
#[derive(Debug, Default)]
struct Item {
    pos: Option<(i64, i64)>,
    title: Option<String>,
    lines: Vec<String>,
}

type Positions = Vec<(Placeholder, (i64, i64))>;

struct SlideReader<'p, 'a> {
    package: &'p mut Package<'a>,
    /// Placeholder positions of layouts and masters, by part name.
    placeholders: HashMap<String, Positions>,
}

impl SlideReader<'_, '_> {
    /// Reads one slide into a unit; `None` when its part is missing or unreadable.
    fn slide(&mut self, part: &str, number: u32) -> Option<Unit> {
        let root = self.package.read_xml(part, SKIP).ok().flatten()?.root?;
        let rels = self.package.rels(part);
        let inherited = self.inherited_positions(&rels);
        let tree = root.path(&["cSld", "spTree"]);
        let items = tree
            .map(|t| self.items(t, &rels, &inherited, 0))
            .unwrap_or_default();

        let title = items.iter().find_map(|i| i.title.clone());
        let mut lines: Vec<String> = Vec::new();
        if let Some(title) = &title {
            lines.push(title.clone());
        }
        for item in &items {
            lines.extend(item.lines.iter().cloned());
        }
        let notes = find_rel_type(&rels, "/notesSlide")
            .map(|notes_part| self.notes(&notes_part))
            .unwrap_or_default();
        if !notes.is_empty() {
            lines.push("Notes:".to_string());
            lines.push(notes.clone());
        }
        let mut unit = Unit::new(UnitKind::Slide, Locator::slide(number), lines.join("\n"))
            .with_field("notes", notes);
        if let Some(title) = title {
            unit = unit.with_title(short_title(&title));
        }
        if root.attr("show") == Some("0") {
            unit = unit.with_field("hidden", "true");
        }
        Some(unit)
    }

    /// The notes slide's text, without slide-number, header, footer, date and slide
    /// image placeholders.
    fn notes(&mut self, part: &str) -> String {
        let Some(root) = self.package.optional_xml(part, SKIP) else {
            return String::new();
        };
        let Some(tree) = root.path(&["cSld", "spTree"]) else {
            return String::new();
        };
        let rels = self.package.rels(part);
        let items = self.items(tree, &rels, &Vec::new(), 0);
        items
            .into_iter()
            .flat_map(|i| i.title.into_iter().chain(i.lines))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Placeholder positions from the slide's layout, then its master.
    fn inherited_positions(&mut self, rels: &[Relationship]) -> Positions {
        let Some(layout) = find_rel_type(rels, "/slideLayout") else {
            return Vec::new();
        };
        let mut positions = self.positions_of(&layout);
        let layout_rels = self.package.rels(&layout);
        if let Some(master) = find_rel_type(&layout_rels, "/slideMaster") {
            positions.extend(self.positions_of(&master));
        }
        positions
    }

    fn positions_of(&mut self, part: &str) -> Positions {
        if let Some(cached) = self.placeholders.get(part) {
            return cached.clone();
        }
        let mut positions = Vec::new();
        if let Some(tree) = self
            .package
            .optional_xml(part, SKIP)
            .as_ref()
            .and_then(|root| root.path(&["cSld", "spTree"]))
        {
            for shape in tree.children_named("sp") {
                if let (Some(ph), Some(pos)) = (Placeholder::of(shape), offset(shape)) {
                    positions.push((ph, pos));
                }
            }
        }
        self.placeholders
            .insert(part.to_string(), positions.clone());
        positions
    }

    /// The shapes of a shape tree or group, in reading order.
    fn items(
        &mut self,
        container: &Element,
        rels: &[Relationship],
        inherited: &Positions,
        depth: usize,
    ) -> Vec<Item> {
        let mut items = Vec::new();
        for child in container.elements() {
            match &*child.name {
                "sp" => items.push(shape_item(child, inherited)),
                "grpSp" if depth < 32 => {
                    let inner = self.items(child, rels, inherited, depth + 1);
                    items.push(Item {
                        pos: offset(child),
                        title: inner.iter().find_map(|i| i.title.clone()),
                        lines: inner.into_iter().flat_map(|i| i.lines).collect(),
                    });
                }
                "graphicFrame" => items.push(Item {
                    pos: offset(child),
                    title: None,
                    lines: self.frame_lines(child, rels),
                }),
                "pic" => items.push(Item {
                    pos: offset(child),
                    title: None,
                    lines: alt_text(child).into_iter().collect(),
                }),
                "AlternateContent" if depth < 32 => {
                    if let Some(choice) = child.child("Choice") {
                        items.extend(self.items(choice, rels, inherited, depth + 1));
                    }
                }
                _ => {}
            }
        }
        reading_order(items)
    }

    /// Text of a graphic frame: a table, a chart or a SmartArt diagram.
    fn frame_lines(&mut self, frame: &Element, rels: &[Relationship]) -> Vec<String> {
        let Some(data) = frame.path(&["graphic", "graphicData"]) else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        for content in data.elements() {
            match &*content.name {
                "tbl" => lines.extend(table_lines(content)),
                "chart" => {
                    if let Some(part) = content.attr("r:id").and_then(|id| find_rel(rels, id)) {
                        lines.extend(self.chart_lines(&part));
                    }
                }
                "relIds" => {
                    if let Some(part) = content.attr("r:dm").and_then(|id| find_rel(rels, id)) {
                        if let Some(root) = self.package.optional_xml(&part, SKIP) {
                            lines.extend(paragraph_lines(&root));
                        }
                    }
                }
                _ => {}
            }
        }
        lines
    }

    /// A chart's titles and its category and series names.
    fn chart_lines(&mut self, part: &str) -> Vec<String> {
        let Some(root) = self.package.optional_xml(part, SKIP) else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        let mut titles = Vec::new();
        root.descendants("title", &mut titles);
        for title in titles {
            let text = clean(&paragraph_lines(title).join(" "));
            if !text.is_empty() {
                lines.push(text);
            }
        }
        let mut caches = Vec::new();
        root.descendants("strCache", &mut caches);
        let mut names: Vec<String> = Vec::new();
        for cache in caches {
            for point in cache.children_named("pt") {
                let value = clean(&point.child("v").map(|v| v.text()).unwrap_or_default());
                if !value.is_empty() && !names.contains(&value) && names.len() < MAX_CHART_NAMES {
                    names.push(value);
                }
            }
        }
        if !names.is_empty() {
            lines.push(names.join(", "));
        }
        lines
    }
}

/// A text shape: its paragraphs, whether it is the title, and its position (own or
/// inherited from the layout/master placeholder).
fn shape_item(shape: &Element, inherited: &Positions) -> Item {
    let placeholder = Placeholder::of(shape);
    let pos = offset(shape).or_else(|| {
        let ph = placeholder.as_ref()?;
        let by_idx = ph.idx.as_ref().and_then(|idx| {
            inherited
                .iter()
                .find(|(p, _)| p.idx.as_ref() == Some(idx))
                .map(|(_, pos)| *pos)
        });
        by_idx.or_else(|| {
            inherited
                .iter()
                .find(|(p, _)| p.kind == ph.kind)
                .map(|(_, pos)| *pos)
        })
    });
    if matches!(
        placeholder.as_ref().map(|p| p.kind.as_str()),
        Some("sldNum" | "sldImg" | "hdr" | "ftr" | "dt")
    ) {
        return Item {
            pos,
            ..Item::default()
        };
    }
    let lines = shape
        .child("txBody")
        .map(paragraph_lines)
        .unwrap_or_default();
    if placeholder.as_ref().is_some_and(Placeholder::is_title) && !lines.is_empty() {
        return Item {
            pos,
            title: Some(clean(&lines.join(" "))),
            lines: Vec::new(),
        };
    }
    Item {
        pos,
        title: None,
        lines,
    }
}

/// The top-left offset of a shape (`a:off` of its `xfrm`), in EMU.
fn offset(shape: &Element) -> Option<(i64, i64)> {
    let xfrm = shape
        .child("xfrm")
        .or_else(|| shape.child("spPr").and_then(|p| p.child("xfrm")))
        .or_else(|| shape.child("grpSpPr").and_then(|p| p.child("xfrm")))?;
    let off = xfrm.child("off")?;
    let x = off.attr("x")?.trim().parse::<i64>().ok()?;
    let y = off.attr("y")?.trim().parse::<i64>().ok()?;
    Some((y, x))
}

/// Stable sort by (y, x); an item without a position takes that of the item before it.
fn reading_order(mut items: Vec<Item>) -> Vec<Item> {
    let mut last = (i64::MIN, i64::MIN);
    for item in &mut items {
        match item.pos {
            Some(pos) => last = pos,
            None => item.pos = Some(last),
        }
    }
    items.sort_by_key(|item| item.pos);
    items
}

/// One line per DrawingML paragraph (`a:p`) below `element`.
fn paragraph_lines(element: &Element) -> Vec<String> {
    let mut paragraphs = Vec::new();
    element.descendants("p", &mut paragraphs);
    paragraphs
        .into_iter()
        .map(paragraph_text)
        .map(|line| line.trim().to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

fn paragraph_text(paragraph: &Element) -> String {
    let mut line = String::new();
    for node in &paragraph.children {
        let Node::Element(child) = node else {
            continue;
        };
        match &*child.name {
            "r" | "fld" => {
                if let Some(t) = child.child("t") {
                    line.push_str(&t.text());
                }
            }
            "br" => line.push('\n'),
            _ => {}
        }
    }
    line
}

/// Table rows as " | "-joined cell texts.
fn table_lines(table: &Element) -> Vec<String> {
    let mut lines = Vec::new();
    for row in table.children_named("tr") {
        let mut cells: Vec<String> = row
            .children_named("tc")
            .map(|cell| clean(&paragraph_lines(cell).join(" ")))
            .collect();
        while cells.last().is_some_and(|c| c.is_empty()) {
            cells.pop();
        }
        if !cells.is_empty() {
            lines.push(cells.join(" | "));
        }
    }
    lines
}

/// A picture's description (alt text), when it has one.
fn alt_text(picture: &Element) -> Option<String> {
    let props = picture.child("nvPicPr")?.child("cNvPr")?;
    let text = clean(props.attr("descr").or_else(|| props.attr("title"))?);
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::office::ooxml::tests_support::{files_with_ext, zip_bytes, CORE_XML};
    use crate::FileType;

    const NS: &str = "xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
        xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\" \
        xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\"";
    const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

    fn text_shape(ph: &str, pos: Option<(i64, i64)>, paragraphs: &[&str]) -> String {
        let xfrm = pos
            .map(|(x, y)| {
                format!("<a:xfrm><a:off x=\"{x}\" y=\"{y}\"/><a:ext cx=\"10\" cy=\"10\"/></a:xfrm>")
            })
            .unwrap_or_default();
        let paras: String = paragraphs
            .iter()
            .map(|t| format!("<a:p><a:r><a:rPr lang=\"en-US\"/><a:t>{t}</a:t></a:r></a:p>"))
            .collect();
        format!(
            "<p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"s\"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr>\
             <p:spPr>{xfrm}</p:spPr><p:txBody><a:bodyPr/>{paras}</p:txBody></p:sp>"
        )
    }

    fn slide(shapes: &str) -> String {
        format!("<p:sld {NS}><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>{shapes}</p:spTree></p:cSld></p:sld>")
    }

    fn rels(entries: &[(&str, &str, &str)]) -> String {
        let body: String = entries
            .iter()
            .map(|(id, kind, target)| {
                format!("<Relationship Id=\"{id}\" Type=\"{REL}/{kind}\" Target=\"{target}\"/>")
            })
            .collect();
        format!("<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">{body}</Relationships>")
    }

    fn sample() -> Vec<u8> {
        // Presentation order: slide2.xml first, then slide1.xml.
        let presentation = format!(
            "<p:presentation {NS}><p:sldIdLst><p:sldId id=\"256\" r:id=\"rId7\"/><p:sldId id=\"257\" r:id=\"rId3\"/></p:sldIdLst></p:presentation>"
        );
        let pres_rels = rels(&[
            ("rId3", "slide", "slides/slide1.xml"),
            ("rId7", "slide", "slides/slide2.xml"),
        ]);
        let first = slide(&format!(
            "{}{}{}",
            text_shape("", Some((100, 5000)), &["Lower box"]),
            text_shape("", Some((100, 2000)), &["Upper box", "second &amp; line"]),
            text_shape("<p:ph type=\"ctrTitle\"/>", None, &["Opening"]),
        ));
        let table = "<p:graphicFrame><p:nvGraphicFramePr/><p:xfrm><a:off x=\"0\" y=\"9000\"/></p:xfrm>\
            <a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Site</a:t></a:r></a:p></a:txBody></a:tc>\
            <a:tc><a:txBody><a:p><a:r><a:t>Flow</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>";
        let second = slide(&format!(
            "{}{table}",
            text_shape("<p:ph type=\"title\"/>", Some((0, 0)), &["Results"])
        ));
        let notes = format!(
            "<p:notes {NS}><p:cSld><p:spTree>{}{}{}</p:spTree></p:cSld></p:notes>",
            text_shape("<p:ph type=\"sldImg\"/>", None, &[]),
            text_shape(
                "<p:ph type=\"body\" idx=\"1\"/>",
                None,
                &["Mention the drought."]
            ),
            text_shape("<p:ph type=\"sldNum\" idx=\"5\"/>", None, &["7"]),
        );
        zip_bytes(&[
            ("ppt/presentation.xml", presentation.as_str()),
            ("ppt/_rels/presentation.xml.rels", pres_rels.as_str()),
            ("ppt/slides/slide1.xml", first.as_str()),
            ("ppt/slides/slide2.xml", second.as_str()),
            (
                "ppt/slides/_rels/slide1.xml.rels",
                rels(&[("rId2", "notesSlide", "../notesSlides/notesSlide1.xml")]).as_str(),
            ),
            ("ppt/notesSlides/notesSlide1.xml", notes.as_str()),
            ("docProps/core.xml", CORE_XML),
        ])
    }

    fn run(bytes: &[u8]) -> Result<Conversion, ConvertError> {
        convert(&Input {
            tail: &[],
            name: "deck.pptx",
            bytes,
            size: bytes.len() as u64,
            file_type: FileType::Pptx,
        })
    }

    #[test]
    fn slides_in_presentation_order_with_notes() {
        let conversion = run(&sample()).expect("converts");
        let units = &conversion.units;
        assert_eq!(units.len(), 2);
        assert_eq!(units[0].kind, Some(UnitKind::Slide));
        assert_eq!(units[0].locator, Locator::slide(1));
        assert_eq!(units[0].title.as_deref(), Some("Results"));
        assert_eq!(units[0].text, "Results\nSite | Flow");
        assert!(units[0].fields.is_empty());
        assert_eq!(units[1].locator, Locator::slide(2));
        assert_eq!(units[1].title.as_deref(), Some("Opening"));
        assert_eq!(
            units[1].text,
            "Opening\nUpper box\nsecond & line\nLower box\nNotes:\nMention the drought."
        );
        assert_eq!(
            units[1].fields.get("notes").map(String::as_str),
            Some("Mention the drought.")
        );
        let meta = &conversion.meta;
        assert_eq!(meta.page_count, Some(2));
        assert_eq!(meta.title.as_deref(), Some("Test title"));
        assert_eq!(meta.author.as_deref(), Some("Ana Lima"));
        assert!(meta.created.is_some());
    }

    #[test]
    fn falls_back_to_numeric_file_order() {
        let bytes = zip_bytes(&[
            ("ppt/presentation.xml", "<p:presentation/>"),
            (
                "ppt/slides/slide10.xml",
                slide(&text_shape("", None, &["ten"])).as_str(),
            ),
            (
                "ppt/slides/slide2.xml",
                slide(&text_shape("", None, &["two"])).as_str(),
            ),
        ]);
        let units = run(&bytes).expect("converts").units;
        assert_eq!(units.len(), 2);
        assert_eq!(units[0].text, "two");
        assert_eq!(units[1].text, "ten");
    }

    #[test]
    fn malformed_inputs_give_errors() {
        let good = sample();
        assert!(run(b"").is_err());
        assert!(run(b"no zip here")
            .unwrap_err()
            .to_string()
            .contains("not a zip archive"));
        assert!(run(&good[..good.len() / 2]).is_err());
        let missing = zip_bytes(&[("word/document.xml", "<w:document/>")]);
        let err = run(&missing).unwrap_err();
        assert!(
            err.to_string().contains("missing ppt/presentation.xml"),
            "{err}"
        );
        let broken_slide = zip_bytes(&[
            ("ppt/presentation.xml", "<p:presentation/>"),
            (
                "ppt/slides/slide1.xml",
                "<p:sld><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>half",
            ),
        ]);
        let units = run(&broken_slide).expect("partial").units;
        assert_eq!(units[0].text, "half");
    }

    #[test]
    #[cfg_attr(
        not(dentate_shared),
        ignore = "needs ../shared/corpus beside the repository"
    )]
    fn real_files_when_present() {
        let mut files = files_with_ext("../../shared/corpus/realworld/Documents/Office", "pptx");
        files.extend(files_with_ext(
            "../../shared/corpus/persona/home/Documents",
            "pptx",
        ));
        if files.is_empty() {
            panic!("missing: corpus not present");
        }
        for path in files {
            let bytes = std::fs::read(&path).unwrap_or_default();
            let conversion = run(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!conversion.units.is_empty(), "{}", path.display());
        }
        let broken = std::path::Path::new("../../shared/corpus/realworld/Broken/fuzz-crash.pptx");
        if let Ok(bytes) = std::fs::read(broken) {
            assert!(run(&bytes).is_err());
        }
    }

    #[test]
    fn damaged_copies_do_not_panic() {
        crate::office::ooxml::tests_support::check_damaged_copies(
            &sample(),
            "deck.pptx",
            FileType::Pptx,
            convert,
            0x9977_0000_0000_0001,
        );
    }
}
