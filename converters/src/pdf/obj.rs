//! Small, forgiving accessors over lopdf objects (references followed, wrong types → None).

use lopdf::{Dictionary, Document, Object};

/// Follows references (lopdf bounds the chain).
pub(crate) fn deref<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Object> {
    doc.dereference(obj).ok().map(|(_, o)| o)
}

/// The dictionary an object is or refers to (a stream's dictionary too).
pub(crate) fn dict_of<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Dictionary> {
    match deref(doc, obj)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// A name object's bytes.
pub(crate) fn name_of(obj: &Object) -> Option<&[u8]> {
    obj.as_name().ok()
}

/// A finite number (integer or real), references followed.
pub(crate) fn number(doc: &Document, obj: &Object) -> Option<f64> {
    let value = match deref(doc, obj)? {
        Object::Integer(i) => *i as f64,
        Object::Real(r) => f64::from(*r),
        _ => return None,
    };
    value.is_finite().then_some(value)
}

/// A direct number operand (content-stream operands are never references).
pub(crate) fn operand(obj: Option<&Object>) -> f64 {
    let value = match obj {
        Some(Object::Integer(i)) => *i as f64,
        Some(Object::Real(r)) => f64::from(*r),
        _ => 0.0,
    };
    if value.is_finite() {
        value
    } else {
        0.0
    }
}
