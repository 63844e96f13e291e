//! A position-aware text extractor: interprets the text and graphics-state operators of
//! a page's content stream (and its Form XObjects and annotation appearances) and
//! collects [`Run`]s: stretches of glyphs drawn next to each other on one baseline.

use std::collections::HashMap;
use std::rc::Rc;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::font::{Font, GlyphNames};
use super::obj::{deref, dict_of, name_of, number, operand};

/// A 2-D affine matrix `[a b c d e f]` in PDF's row-vector convention.
pub(crate) type Matrix = [f64; 6];

const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
/// Most operators interpreted per page, nested forms included.
const MAX_OPERATORS: usize = 2_000_000;
/// Most characters collected per page.
const MAX_CHARS: usize = 2_000_000;
/// Deepest Form XObject nesting followed.
const MAX_FORM_DEPTH: usize = 8;
/// Deepest `q` nesting kept (deeper saves are counted but not stored).
const MAX_SAVE_DEPTH: usize = 256;
/// Largest decoded content stream, in bytes.
const MAX_CONTENT_BYTES: usize = 64 * 1024 * 1024;
/// A horizontal gap wider than this (in em) between glyphs is a word space.
pub(crate) const SPACE_GAP_EM: f64 = 0.15;

/// Glyphs drawn one after another along one baseline.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Run {
    pub(crate) text: String,
    /// Origin of the first glyph, in default user space.
    pub(crate) start: (f64, f64),
    /// Advance end of the last glyph.
    pub(crate) end: (f64, f64),
    /// Unit vector of the writing direction.
    pub(crate) dir: (f64, f64),
    /// Font size in user space units.
    pub(crate) size: f64,
}

/// Fonts loaded so far in one document, keyed by the font dictionary's address.
#[derive(Default)]
pub(crate) struct FontCache {
    fonts: HashMap<usize, Rc<Font>>,
    names: GlyphNames,
}

impl FontCache {
    fn get(&mut self, doc: &Document, dict: &Dictionary) -> Rc<Font> {
        let key = dict as *const Dictionary as usize;
        if let Some(font) = self.fonts.get(&key) {
            return Rc::clone(font);
        }
        let font = Rc::new(Font::load(doc, dict, &mut self.names));
        self.fonts.insert(key, Rc::clone(&font));
        font
    }
}

#[derive(Clone)]
struct GraphicsState {
    ctm: Matrix,
    font: Option<Rc<Font>>,
    font_size: f64,
    char_spacing: f64,
    word_spacing: f64,
    h_scale: f64,
    leading: f64,
    rise: f64,
}

impl GraphicsState {
    fn new(ctm: Matrix) -> GraphicsState {
        GraphicsState {
            ctm,
            font: None,
            font_size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            h_scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        }
    }
}

/// Extracts the runs of one page. Errors inside the page give fewer runs, never a failure.
pub(crate) fn page_runs(doc: &Document, page_id: ObjectId, fonts: &mut FontCache) -> Vec<Run> {
    let mut extractor = Extractor {
        doc,
        fonts,
        ops_left: MAX_OPERATORS,
        chars_left: MAX_CHARS,
        runs: Vec::new(),
        fallback_font: Rc::new(Font::fallback()),
        actual_text: Vec::new(),
    };
    let resources = page_resources(doc, page_id);
    if let Ok(content) = doc.get_page_content_with_limit(page_id, MAX_CONTENT_BYTES) {
        extractor.run_content(&content, &resources, GraphicsState::new(IDENTITY), 0);
    }
    extractor.run_annotations(page_id);
    extractor.runs
}

fn page_resources(doc: &Document, page_id: ObjectId) -> Vec<&Dictionary> {
    let Ok((inline, ids)) = doc.get_page_resources(page_id) else {
        return Vec::new();
    };
    inline
        .into_iter()
        .chain(ids.into_iter().filter_map(|id| doc.get_dictionary(id).ok()))
        .collect()
}

struct Extractor<'a, 'f> {
    doc: &'a Document,
    fonts: &'f mut FontCache,
    ops_left: usize,
    chars_left: usize,
    runs: Vec<Run>,
    fallback_font: Rc<Font>,
    /// Open marked-content sequences; `Some` holds an `/ActualText` replacement and
    /// whether it has been emitted yet.
    actual_text: Vec<Option<(String, bool)>>,
}

impl<'a> Extractor<'a, '_> {
    /// Looks a named resource up (`category` = Font, XObject) in the resource dictionaries.
    fn resource(
        &self,
        resources: &[&'a Dictionary],
        category: &[u8],
        name: &[u8],
    ) -> Option<&'a Object> {
        resources.iter().find_map(|res| {
            let group = dict_of(self.doc, res.get(category).ok()?)?;
            let obj = group.get(name).ok()?;
            deref(self.doc, obj)
        })
    }

    fn run_content(
        &mut self,
        content: &[u8],
        resources: &[&'a Dictionary],
        initial: GraphicsState,
        depth: usize,
    ) {
        let mut state = initial;
        let mut saved: Vec<GraphicsState> = Vec::new();
        let mut extra_saves = 0usize;
        let mut tm = IDENTITY;
        let mut tlm = IDENTITY;
        for op in Content::decode_iter(content) {
            let Ok(op) = op else { break };
            if self.ops_left == 0 || self.chars_left == 0 {
                break;
            }
            self.ops_left -= 1;
            let args = &op.operands;
            let arg = |i: usize| operand(args.get(i));
            match op.operator.as_str() {
                "q" => {
                    if saved.len() < MAX_SAVE_DEPTH {
                        saved.push(state.clone());
                    } else {
                        extra_saves += 1;
                    }
                }
                "Q" => {
                    if extra_saves > 0 {
                        extra_saves -= 1;
                    } else if let Some(previous) = saved.pop() {
                        state = previous;
                    }
                }
                "cm" => {
                    let m = [arg(0), arg(1), arg(2), arg(3), arg(4), arg(5)];
                    state.ctm = multiply(&m, &state.ctm);
                }
                "BT" => {
                    tm = IDENTITY;
                    tlm = IDENTITY;
                }
                "Tf" => {
                    state.font_size = arg(1);
                    let font = args
                        .first()
                        .and_then(name_of)
                        .and_then(|name| self.resource(resources, b"Font", name))
                        .and_then(|obj| dict_of(self.doc, obj));
                    state.font = font.map(|dict| self.fonts.get(self.doc, dict));
                }
                "Td" => {
                    tlm = multiply(&translate(arg(0), arg(1)), &tlm);
                    tm = tlm;
                }
                "TD" => {
                    state.leading = -arg(1);
                    tlm = multiply(&translate(arg(0), arg(1)), &tlm);
                    tm = tlm;
                }
                "Tm" => {
                    tlm = [arg(0), arg(1), arg(2), arg(3), arg(4), arg(5)];
                    tm = tlm;
                }
                "T*" => {
                    tlm = multiply(&translate(0.0, -state.leading), &tlm);
                    tm = tlm;
                }
                "Tc" => state.char_spacing = arg(0),
                "Tw" => state.word_spacing = arg(0),
                "Tz" => state.h_scale = arg(0) / 100.0,
                "TL" => state.leading = arg(0),
                "Ts" => state.rise = arg(0),
                "Tj" => {
                    if let Some(Ok(bytes)) = args.first().map(Object::as_str) {
                        self.show(bytes, &state, &mut tm);
                    }
                }
                "'" | "\"" => {
                    if op.operator == "\"" {
                        state.word_spacing = arg(0);
                        state.char_spacing = arg(1);
                    }
                    tlm = multiply(&translate(0.0, -state.leading), &tlm);
                    tm = tlm;
                    if let Some(Ok(bytes)) = args.last().map(Object::as_str) {
                        self.show(bytes, &state, &mut tm);
                    }
                }
                "TJ" => {
                    if let Some(Ok(items)) = args.first().map(Object::as_array) {
                        self.show_array(items, &state, &mut tm);
                    }
                }
                "BMC" => self.push_marked(None),
                "BDC" => {
                    let text = self.actual_text_of(resources, args.get(1));
                    self.push_marked(text);
                }
                "EMC" => {
                    self.actual_text.pop();
                }
                "Do" => {
                    if let Some(name) = args.first().and_then(name_of) {
                        self.draw_xobject(resources, name, &state, depth);
                    }
                }
                _ => {}
            }
        }
    }

    fn push_marked(&mut self, text: Option<String>) {
        if self.actual_text.len() < MAX_SAVE_DEPTH {
            self.actual_text.push(text.map(|t| (t, false)));
        }
    }

    /// The `/ActualText` of a `BDC` property list (inline or a named resource).
    fn actual_text_of(
        &self,
        resources: &[&'a Dictionary],
        props: Option<&'a Object>,
    ) -> Option<String> {
        let dict = match props? {
            Object::Dictionary(d) => d,
            Object::Name(name) => {
                dict_of(self.doc, self.resource(resources, b"Properties", name)?)?
            }
            _ => return None,
        };
        let value = deref(self.doc, dict.get(b"ActualText").ok()?)?;
        lopdf::decode_text_string(value).ok()
    }

    /// What a glyph contributes while an `/ActualText` span is open: the replacement
    /// once (on its first glyph), then nothing. `None` when no span is open.
    fn actual_text_for_glyph(&mut self) -> Option<String> {
        let (text, emitted) = self.actual_text.iter_mut().rev().find_map(Option::as_mut)?;
        if *emitted {
            Some(String::new())
        } else {
            *emitted = true;
            Some(text.clone())
        }
    }

    fn show_array(&mut self, items: &[Object], state: &GraphicsState, tm: &mut Matrix) {
        for item in items {
            match item {
                Object::String(bytes, _) => self.show(bytes, state, tm),
                Object::Integer(_) | Object::Real(_) => {
                    let adjust = operand(Some(item));
                    let tx = -adjust / 1000.0 * state.font_size * state.h_scale;
                    advance(tm, tx);
                }
                _ => {}
            }
        }
    }

    fn show(&mut self, bytes: &[u8], state: &GraphicsState, tm: &mut Matrix) {
        let font = state
            .font
            .clone()
            .unwrap_or_else(|| Rc::clone(&self.fallback_font));
        let size = state.font_size;
        for glyph in font.decode(bytes) {
            let m = multiply(tm, &state.ctm);
            let advance_x = glyph.width / 1000.0 * size * state.h_scale;
            let start = apply(&m, 0.0, state.rise);
            let end = apply(&m, advance_x, state.rise);
            let up = (m[2] * size * font.size_scale, m[3] * size * font.size_scale);
            let glyph_size = up.0.hypot(up.1);
            let dir = direction(&m);
            let replaced = self.actual_text_for_glyph();
            let text = replaced.as_deref().unwrap_or(&glyph.text);
            if glyph_size.is_finite() && glyph_size > 0.0 {
                if !text.is_empty() {
                    self.add_glyph(text, start, end, dir, glyph_size);
                } else if replaced.is_some() {
                    self.extend_last_run(start, end, dir, glyph_size);
                }
            }
            let spacing = state.char_spacing
                + if glyph.is_space_code {
                    state.word_spacing
                } else {
                    0.0
                };
            advance(tm, (glyph.width / 1000.0 * size + spacing) * state.h_scale);
        }
    }

    /// Appends a glyph to the last run when it continues it, else starts a new run.
    fn add_glyph(
        &mut self,
        text: &str,
        start: (f64, f64),
        end: (f64, f64),
        dir: (f64, f64),
        size: f64,
    ) {
        self.chars_left = self.chars_left.saturating_sub(text.len());
        let blank = text.trim().is_empty();
        if let Some(run) = self.runs.last_mut() {
            if continues(run, start, dir, size) {
                let along = (start.0 - run.end.0) * dir.0 + (start.1 - run.end.1) * dir.1;
                if along > SPACE_GAP_EM * size.min(run.size) && !run.text.ends_with(' ') && !blank {
                    run.text.push(' ');
                }
                run.text.push_str(text);
                run.end = end;
                return;
            }
        }
        if blank {
            return;
        }
        self.runs.push(Run {
            text: text.to_string(),
            start,
            end,
            dir,
            size,
        });
    }

    /// A glyph covered by an already emitted `/ActualText`: only widens the last run.
    fn extend_last_run(&mut self, start: (f64, f64), end: (f64, f64), dir: (f64, f64), size: f64) {
        if let Some(run) = self.runs.last_mut() {
            if continues(run, start, dir, size) {
                run.end = end;
            }
        }
    }

    fn draw_xobject(
        &mut self,
        resources: &[&'a Dictionary],
        name: &[u8],
        state: &GraphicsState,
        depth: usize,
    ) {
        if depth >= MAX_FORM_DEPTH {
            return;
        }
        let Some(Object::Stream(stream)) = self.resource(resources, b"XObject", name) else {
            return;
        };
        if stream.dict.get(b"Subtype").ok().and_then(name_of) != Some(b"Form") {
            return;
        }
        let matrix = self.matrix_of(&stream.dict).unwrap_or(IDENTITY);
        self.run_form(
            stream,
            resources,
            multiply(&matrix, &state.ctm),
            state,
            depth,
        );
    }

    fn run_form(
        &mut self,
        stream: &'a lopdf::Stream,
        parent: &[&'a Dictionary],
        ctm: Matrix,
        state: &GraphicsState,
        depth: usize,
    ) {
        let Ok(content) = stream.get_plain_content_with_limit(MAX_CONTENT_BYTES) else {
            return;
        };
        let own = stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|o| dict_of(self.doc, o));
        let resources: Vec<&'a Dictionary> =
            own.into_iter().chain(parent.iter().copied()).collect();
        let mut inner = state.clone();
        inner.ctm = ctm;
        self.run_content(&content, &resources, inner, depth + 1);
    }

    fn matrix_of(&self, dict: &Dictionary) -> Option<Matrix> {
        let values: Vec<f64> = dict
            .get(b"Matrix")
            .ok()
            .and_then(|o| deref(self.doc, o))
            .and_then(|o| o.as_array().ok())?
            .iter()
            .filter_map(|o| number(self.doc, o))
            .collect();
        match values[..] {
            [a, b, c, d, e, f] => Some([a, b, c, d, e, f]),
            _ => None,
        }
    }

    /// Text drawn by annotation appearances (filled form fields, free-text notes).
    fn run_annotations(&mut self, page_id: ObjectId) {
        let doc = self.doc;
        let Ok(page) = doc.get_dictionary(page_id) else {
            return;
        };
        let Some(Object::Array(annots)) = page.get(b"Annots").ok().and_then(|o| deref(doc, o))
        else {
            return;
        };
        for annot in annots.iter().take(10_000) {
            if let Some(annot) = dict_of(doc, annot) {
                self.run_annotation(annot);
            }
        }
    }

    fn run_annotation(&mut self, annot: &'a Dictionary) {
        let doc = self.doc;
        let subtype = annot.get(b"Subtype").ok().and_then(name_of).unwrap_or(b"");
        let hidden = annot
            .get(b"F")
            .ok()
            .and_then(|o| number(doc, o))
            .is_some_and(|f| (f as i64) & 0b10 != 0);
        if hidden || matches!(subtype, b"Link" | b"Popup") {
            return;
        }
        let Some(normal) = annot
            .get(b"AP")
            .ok()
            .and_then(|o| dict_of(doc, o))
            .and_then(|ap| ap.get(b"N").ok())
            .and_then(|o| deref(doc, o))
        else {
            if subtype == b"Widget" {
                self.add_field_value(annot);
            }
            return;
        };
        let stream = match normal {
            Object::Stream(s) => s,
            Object::Dictionary(states) => {
                let state = annot.get(b"AS").ok().and_then(name_of);
                match state
                    .and_then(|s| states.get(s).ok())
                    .and_then(|o| deref(doc, o))
                {
                    Some(Object::Stream(s)) => s,
                    _ => return,
                }
            }
            _ => return,
        };
        let rect = self.rect_of(annot, b"Rect");
        let bbox = self.rect_of(&stream.dict, b"BBox");
        let matrix = self.matrix_of(&stream.dict).unwrap_or(IDENTITY);
        let (Some(rect), Some(bbox)) = (rect, bbox) else {
            return;
        };
        let placed = fit_bbox(&matrix, bbox, rect);
        let ctm = multiply(&matrix, &placed);
        let before = self.runs.len();
        self.run_form(stream, &[], ctm, &GraphicsState::new(IDENTITY), 0);
        // Viewers regenerate empty appearances of filled fields (NeedAppearances).
        if subtype == b"Widget" && self.runs.len() == before {
            self.add_field_value(annot);
        }
    }

    /// A form field without an appearance stream: its value, placed in its rectangle.
    fn add_field_value(&mut self, annot: &Dictionary) {
        let doc = self.doc;
        let mut node = Some(annot);
        let mut value = None;
        for _ in 0..16 {
            let Some(current) = node else { break };
            if let Some(v) = current.get(b"V").ok().and_then(|o| deref(doc, o)) {
                value = Some(v);
                break;
            }
            node = current.get(b"Parent").ok().and_then(|o| dict_of(doc, o));
        }
        let text = match value {
            Some(v @ Object::String(..)) => lopdf::decode_text_string(v).unwrap_or_default(),
            _ => return,
        };
        let Some(rect) = self.rect_of(annot, b"Rect") else {
            return;
        };
        let size = ((rect[3] - rect[1]) * 0.7).clamp(1.0, 12.0);
        let y = rect[1] + ((rect[3] - rect[1]) - size) / 2.0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || self.chars_left == 0 {
                continue;
            }
            self.chars_left = self.chars_left.saturating_sub(line.len());
            let y = y - i as f64 * size * 1.2;
            let width = line.chars().count() as f64 * size * 0.5;
            self.runs.push(Run {
                text: line.to_string(),
                start: (rect[0] + 2.0, y),
                end: (rect[0] + 2.0 + width, y),
                dir: (1.0, 0.0),
                size,
            });
        }
    }

    fn rect_of(&self, dict: &Dictionary, key: &[u8]) -> Option<[f64; 4]> {
        let values: Vec<f64> = dict
            .get(key)
            .ok()
            .and_then(|o| deref(self.doc, o))
            .and_then(|o| o.as_array().ok())?
            .iter()
            .filter_map(|o| number(self.doc, o))
            .collect();
        match values[..] {
            [x0, y0, x1, y1] => Some([x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)]),
            _ => None,
        }
    }
}

/// Whether a glyph at `start` continues `run` (same direction and size, same baseline,
/// no more than about an em away).
fn continues(run: &Run, start: (f64, f64), dir: (f64, f64), size: f64) -> bool {
    let same_dir = run.dir.0 * dir.0 + run.dir.1 * dir.1 > 0.995;
    let same_size = (size - run.size).abs() <= 0.2 * size.max(run.size);
    if !same_dir || !same_size {
        return false;
    }
    let d = (start.0 - run.end.0, start.1 - run.end.1);
    let along = d.0 * dir.0 + d.1 * dir.1;
    let across = d.1 * dir.0 - d.0 * dir.1;
    across.abs() < 0.2 * size && along > -0.5 * size && along < 1.0 * size
}

/// The matrix that maps the form's transformed bounding box onto the annotation rectangle.
fn fit_bbox(matrix: &Matrix, bbox: [f64; 4], rect: [f64; 4]) -> Matrix {
    let corners = [
        apply(matrix, bbox[0], bbox[1]),
        apply(matrix, bbox[2], bbox[1]),
        apply(matrix, bbox[0], bbox[3]),
        apply(matrix, bbox[2], bbox[3]),
    ];
    let min_x = corners.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
    let max_x = corners
        .iter()
        .map(|c| c.0)
        .fold(f64::NEG_INFINITY, f64::max);
    let min_y = corners.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
    let max_y = corners
        .iter()
        .map(|c| c.1)
        .fold(f64::NEG_INFINITY, f64::max);
    let sx = if max_x > min_x {
        (rect[2] - rect[0]) / (max_x - min_x)
    } else {
        1.0
    };
    let sy = if max_y > min_y {
        (rect[3] - rect[1]) / (max_y - min_y)
    } else {
        1.0
    };
    [sx, 0.0, 0.0, sy, rect[0] - min_x * sx, rect[1] - min_y * sy]
}

/// `a × b` (apply `a` first, then `b`).
pub(crate) fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]
}

fn translate(tx: f64, ty: f64) -> Matrix {
    [1.0, 0.0, 0.0, 1.0, tx, ty]
}

fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

/// Moves the text matrix `tx` units along the text-space x axis.
fn advance(tm: &mut Matrix, tx: f64) {
    if tx.is_finite() {
        tm[4] += tx * tm[0];
        tm[5] += tx * tm[1];
    }
}

/// The writing direction of a text rendering matrix (its x axis), as a unit vector.
fn direction(m: &Matrix) -> (f64, f64) {
    let len = m[0].hypot(m[1]);
    if len > 0.0 && len.is_finite() {
        (m[0] / len, m[1] / len)
    } else {
        (1.0, 0.0)
    }
}
