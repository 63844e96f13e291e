//! EBML containers (Matroska, WebM): the DocType from the EBML header, the Segment's size
//! against the file size, its top-level elements against the Segment (a Segment held
//! entirely in the bytes must contain a Cluster, i.e. media data), and the duration from
//! Segment/Info (Duration × TimecodeScale).

use super::{simple, MediaProbe};

/// Matroska / WebM: DocType from the EBML header, Segment size against the file size,
/// duration from Segment/Info.
pub(super) fn probe_ebml(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    // The EBML header element: 4-byte id, then its size.
    let (header_len, size_len) = ebml_size(bytes, 4).ok_or("bad ebml header size")?;
    let header_body = 4 + size_len;
    let header_end = usize::try_from(header_len)
        .ok()
        .and_then(|l| header_body.checked_add(l))
        .ok_or("bad ebml header size")?;
    let header = bytes
        .get(header_body..header_end)
        .ok_or("truncated ebml header")?;
    let doc_type = ebml_children(header)
        .into_iter()
        .find(|(id, _)| *id == 0x4282)
        .map(|(_, v)| {
            String::from_utf8_lossy(v)
                .trim_end_matches('\0')
                .to_string()
        })
        .unwrap_or_default();
    let mut probe = simple(if doc_type == "webm" {
        "WebM"
    } else {
        "Matroska"
    });
    let (segment_id, id_len) = ebml_id(bytes, header_end).ok_or("missing segment")?;
    if segment_id != 0x1853_8067 {
        return Err("no segment after ebml header".into());
    }
    let (segment_len, len_len) = ebml_size(bytes, header_end + id_len).ok_or("bad segment size")?;
    let segment_body = header_end + id_len + len_len;
    if !is_unknown_size(segment_len, len_len) {
        let end = segment_body as u64 + segment_len;
        if end > size {
            return Err(format!(
                "truncated: segment ends at byte {end}, file has {size}"
            ));
        }
    }
    let available = bytes.get(segment_body..).unwrap_or_default();
    check_segment_children(bytes, segment_body, segment_len, len_len)?;
    if let Some(info) = ebml_children(available)
        .into_iter()
        .find(|(id, _)| *id == 0x1549_A966)
        .map(|(_, body)| body)
    {
        let fields = ebml_children(info);
        let scale = fields
            .iter()
            .find(|(id, _)| *id == 0x2AD7B1)
            .map(|(_, v)| v.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
            .filter(|s| *s > 0)
            .unwrap_or(1_000_000);
        let duration = fields
            .iter()
            .find(|(id, _)| *id == 0x4489)
            .and_then(|(_, v)| match v.len() {
                4 => Some(f64::from(f32::from_be_bytes((*v).try_into().ok()?))),
                8 => Some(f64::from_be_bytes((*v).try_into().ok()?)),
                _ => None,
            });
        if let Some(d) = duration.filter(|d| d.is_finite() && *d > 0.0) {
            probe.duration_s = Some(d * scale as f64 / 1e9);
        }
    }
    Ok(probe)
}

/// Top-level elements must fit in the Segment; a Segment held entirely in `bytes` must
/// contain at least one Cluster (the media data).
fn check_segment_children(
    bytes: &[u8],
    body: usize,
    len: u64,
    len_len: usize,
) -> Result<(), String> {
    const CLUSTER: u32 = 0x1F43_B675;
    let unknown = is_unknown_size(len, len_len);
    let segment_end = if unknown { u64::MAX } else { body as u64 + len };
    let mut at = body;
    let mut clusters = 0usize;
    while (at as u64) < segment_end {
        let Some((id, id_len)) = ebml_id(bytes, at) else {
            break;
        };
        let Some((child_len, child_len_len)) = ebml_size(bytes, at + id_len) else {
            break;
        };
        if id == CLUSTER {
            clusters += 1;
        }
        if is_unknown_size(child_len, child_len_len) {
            break;
        }
        let end = (at + id_len + child_len_len) as u64 + child_len;
        if end > segment_end {
            return Err(format!(
                "element at byte {at} ends at {end}, beyond its segment (ends at {segment_end})"
            ));
        }
        at = usize::try_from(end).unwrap_or(usize::MAX);
    }
    let whole_segment_here = !unknown && segment_end <= bytes.len() as u64;
    if whole_segment_here && clusters == 0 {
        return Err("truncated: no clusters (no media data) in the segment".into());
    }
    Ok(())
}

/// An EBML element id (with its marker bits) and its length in bytes.
pub(super) fn ebml_id(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let first = *bytes.get(at)?;
    let len = first.leading_zeros() as usize + 1;
    if len > 4 {
        return None;
    }
    let raw = bytes.get(at..at + len)?;
    Some((
        raw.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)),
        len,
    ))
}

/// An EBML variable-length size (marker removed) and its length in bytes.
pub(super) fn ebml_size(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let first = *bytes.get(at)?;
    let len = first.leading_zeros() as usize + 1;
    if len > 8 {
        return None;
    }
    let raw = bytes.get(at..at + len)?;
    let mask = if len == 8 { 0 } else { 0xFFu8 >> len };
    let value = raw
        .iter()
        .skip(1)
        .fold(u64::from(first & mask), |acc, b| (acc << 8) | u64::from(*b));
    Some((value, len))
}

fn is_unknown_size(value: u64, len: usize) -> bool {
    value == (1u64 << (7 * len)) - 1
}

/// The child elements fully present in `data` (id, body); stops at the first one cut off.
pub(super) fn ebml_children(data: &[u8]) -> Vec<(u32, &[u8])> {
    let mut children = Vec::new();
    let mut at = 0usize;
    while at < data.len() && children.len() < 256 {
        let Some((id, id_len)) = ebml_id(data, at) else {
            break;
        };
        let Some((len, len_len)) = ebml_size(data, at + id_len) else {
            break;
        };
        let body = at + id_len + len_len;
        if is_unknown_size(len, len_len) {
            break;
        }
        let Some(end) = usize::try_from(len).ok().and_then(|l| body.checked_add(l)) else {
            break;
        };
        let Some(value) = data.get(body..end) else {
            break;
        };
        children.push((id, value));
        at = end;
    }
    children
}
