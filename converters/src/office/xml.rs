//! A small fault-tolerant XML tree built on `quick-xml`, for the parts of zipped office
//! documents (docx, pptx, odt). Elements keep their local name (prefix dropped),
//! attributes under their qualified names, and their children; entity and character
//! references are resolved. Parsing never fails: a damaged part yields the tree read up
//! to the damage, every open element closed there and the error noted. Nesting deeper
//! than [`MAX_DEPTH`] counts as damage, and at most [`MAX_NODES`] nodes are kept.

use quick_xml::events::Event;
use quick_xml::Reader;

/// Deepest XML element nesting accepted; deeper parts count as damaged.
pub(crate) const MAX_DEPTH: usize = 256;

/// Most XML nodes kept from one part (bounds the tree's memory).
pub(crate) const MAX_NODES: usize = 4_000_000;

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
}
