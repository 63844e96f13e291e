//! ISO base media files (MP4, MOV, M4A, 3GP). The top-level boxes present in the bytes
//! are walked (the head of the file, then its tail when the reader fetched it: a `moov`
//! after the media data): `ftyp` names the flavour, `moov/mvhd` gives duration and
//! creation time, the first video track's `tkhd` the dimensions, and the recording
//! position comes from `moov/udta/©xyz` (cameras and Android) or the QuickTime metadata
//! key `com.apple.quicktime.location.ISO6709` (`moov/meta`, iPhones), both ISO 6709
//! strings such as `+54.1843-002.7189/`. A box that runs past the end of the file, or a
//! complete `moov` whose sample chunks (`stco`/`co64`) lie beyond it, means the file
//! was cut.

use chrono::DateTime;

use super::{simple, MediaProbe};
use crate::meta::{be_u16, be_u32, be_u64};

/// ISO base media (MP4, MOV, M4A, 3GP): the first box must be a plausible box.
pub(super) fn looks_like_bmff(bytes: &[u8]) -> bool {
    let kind = bytes.get(4..8).unwrap_or_default();
    matches!(
        kind,
        b"ftyp" | b"moov" | b"mdat" | b"wide" | b"free" | b"skip" | b"pnot" | b"uuid"
    )
}

/// Walks the top-level boxes present in `bytes` (the head of the file) and `tail` (its
/// last bytes, ending at `size`; may be empty); reads `mvhd` (duration, creation time),
/// the first video `tkhd` (dimensions) and the recording position from the part of
/// `moov` we have. A box that runs past the end of the file, or a complete `moov` whose
/// sample chunks lie beyond it, means the file was cut.
pub(super) fn probe_bmff(bytes: &[u8], tail: &[u8], size: u64) -> Result<MediaProbe, String> {
    let mut probe = simple("MPEG-4");
    let tail_start = size.saturating_sub(tail.len() as u64);
    // The bytes from file offset `at` on, from the head or else from the tail.
    let view = |at: u64| -> Option<&[u8]> {
        if at + 8 <= bytes.len() as u64 {
            bytes.get(at as usize..)
        } else if !tail.is_empty() && at >= tail_start && at + 8 <= size {
            tail.get((at - tail_start) as usize..)
        } else {
            None
        }
    };
    let mut at = 0u64;
    while let Some(here) = view(at) {
        let (box_type, header, box_size) = box_header(here, 0, size - at)
            .map_err(|e| e.replace("at byte 0", &format!("at byte {at}")))?;
        // A 64-bit box size can be anything: saturate (it then ends beyond the file).
        let end = at.saturating_add(box_size);
        if end > size {
            return Err(format!(
                "truncated: {} box ends at byte {end}, file has {size}",
                String::from_utf8_lossy(box_type)
            ));
        }
        match box_type {
            b"ftyp" => probe.format = brand_name(here.get(8..12)),
            b"moov" => {
                let length = end - at;
                let complete = length <= here.len() as u64;
                let body_end = (length as usize).min(here.len());
                if let Some(moov) = here.get(header..body_end) {
                    let max_chunk = read_moov(moov, &mut probe);
                    if complete && max_chunk.is_some_and(|c| c >= size) {
                        return Err(format!(
                            "truncated: sample data at byte {} lies beyond the end of the \
                             file ({size} bytes)",
                            max_chunk.unwrap_or_default()
                        ));
                    }
                }
            }
            _ => {}
        }
        at = end;
    }
    Ok(probe)
}

/// (type, header length, box size) of the box at `at`; `remaining` bytes to end of file.
pub(super) fn box_header(
    bytes: &[u8],
    at: usize,
    remaining: u64,
) -> Result<(&[u8], usize, u64), String> {
    let size32 = be_u32(bytes, at).ok_or("truncated box header")?;
    let kind = bytes.get(at + 4..at + 8).ok_or("truncated box header")?;
    if !kind
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || *c == b' ' || *c == 0xA9)
    {
        return Err(format!("invalid box type at byte {at}"));
    }
    let (header, size) = match size32 {
        0 => (8, remaining),
        1 => (16, be_u64(bytes, at + 8).ok_or("truncated box header")?),
        n => (8, u64::from(n)),
    };
    if size < header as u64 {
        return Err(format!("invalid box size {size} at byte {at}"));
    }
    Ok((kind, header, size))
}

fn brand_name(brand: Option<&[u8]>) -> String {
    match brand.unwrap_or_default() {
        b"qt  " => "QuickTime".into(),
        b"M4A " | b"M4B " => "MPEG-4 audio (M4A)".into(),
        b if b.starts_with(b"3g") => "3GP".into(),
        _ => "MPEG-4".into(),
    }
}

/// Reads mvhd, the first tkhd with a non-zero size and the recording position from the
/// moov payload; returns the largest sample chunk offset (stco / co64) of all tracks.
fn read_moov(moov: &[u8], probe: &mut MediaProbe) -> Option<u64> {
    let mut max_chunk: Option<u64> = None;
    for_each_box(moov, &mut |kind, body| match kind {
        b"mvhd" => read_mvhd(body, probe),
        b"udta" if probe.gps.is_none() => {
            for_each_box(body, &mut |kind, body| {
                if kind == b"\xA9xyz" && probe.gps.is_none() {
                    // A QuickTime string: length (2), language (2), text.
                    let length = usize::from(be_u16(body, 0).unwrap_or(0));
                    let text = body
                        .get(4..(4 + length).min(body.len()))
                        .unwrap_or_default();
                    probe.gps = iso6709(&String::from_utf8_lossy(text));
                }
            });
        }
        b"meta" if probe.gps.is_none() => probe.gps = quicktime_location(body),
        b"trak" => for_each_box(body, &mut |kind, body| match kind {
            b"tkhd" if probe.width.is_none() => read_tkhd(body, probe),
            b"mdia" => {
                if let Some(offset) = max_chunk_offset(body) {
                    max_chunk = Some(max_chunk.map_or(offset, |m| m.max(offset)));
                }
            }
            _ => {}
        }),
        _ => {}
    });
    max_chunk
}

/// The largest chunk offset in mdia/minf/stbl/stco (or co64).
fn max_chunk_offset(mdia: &[u8]) -> Option<u64> {
    let mut result = None;
    for_each_box(mdia, &mut |kind, minf| {
        if kind != b"minf" {
            return;
        }
        for_each_box(minf, &mut |kind, stbl| {
            if kind != b"stbl" {
                return;
            }
            for_each_box(stbl, &mut |kind, table| {
                let wide = match kind {
                    b"stco" => false,
                    b"co64" => true,
                    _ => return,
                };
                let count = be_u32(table, 4).unwrap_or(0) as usize;
                let width = if wide { 8 } else { 4 };
                let max = (0..count.min(1 << 20))
                    .map_while(|i| {
                        let at = 8 + i * width;
                        if wide {
                            be_u64(table, at)
                        } else {
                            be_u32(table, at).map(u64::from)
                        }
                    })
                    .max();
                if let Some(max) = max {
                    result = Some(result.map_or(max, |r: u64| r.max(max)));
                }
            });
        });
    });
    result
}

pub(super) fn for_each_box(data: &[u8], visit: &mut dyn FnMut(&[u8], &[u8])) {
    let mut at = 0usize;
    while at + 8 <= data.len() {
        let Ok((kind, header, size)) = box_header(data, at, (data.len() - at) as u64) else {
            return;
        };
        let end = at.saturating_add(size as usize).min(data.len());
        if let Some(body) = data.get(at + header..end) {
            visit(kind, body);
        }
        at = end;
    }
}

/// mvhd: version, flags, creation time, (modification time), timescale, duration.
fn read_mvhd(body: &[u8], probe: &mut MediaProbe) {
    let version = body.first().copied().unwrap_or(0);
    let (created, timescale, duration) = if version == 1 {
        (be_u64(body, 4), be_u32(body, 20), be_u64(body, 24))
    } else {
        (
            be_u32(body, 4).map(u64::from),
            be_u32(body, 12),
            be_u32(body, 16).map(u64::from),
        )
    };
    if let (Some(scale), Some(duration)) = (timescale, duration) {
        if scale > 0 && duration > 0 && duration != u64::from(u32::MAX) && duration != u64::MAX {
            probe.duration_s = Some(duration as f64 / f64::from(scale));
        }
    }
    // Seconds since 1904-01-01 UTC; 0 means unset.
    const MAC_EPOCH_OFFSET: i64 = 2_082_844_800;
    probe.created = created
        .filter(|c| *c > MAC_EPOCH_OFFSET as u64)
        .and_then(|c| i64::try_from(c).ok())
        .and_then(|c| DateTime::from_timestamp(c - MAC_EPOCH_OFFSET, 0))
        .map(|t| t.fixed_offset());
}

/// tkhd: width and height are 16.16 fixed point at the end of the box.
fn read_tkhd(body: &[u8], probe: &mut MediaProbe) {
    let version = body.first().copied().unwrap_or(0);
    let at = if version == 1 { 88 } else { 76 };
    let width = be_u32(body, at).map(|w| w >> 16).filter(|w| *w > 0);
    let height = be_u32(body, at + 4).map(|h| h >> 16).filter(|h| *h > 0);
    if let (Some(w), Some(h)) = (width, height) {
        probe.width = Some(w);
        probe.height = Some(h);
    }
}

/// The QuickTime metadata key of the recording position.
const LOCATION_KEY: &[u8] = b"com.apple.quicktime.location.ISO6709";

/// The recording position from QuickTime metadata (`meta` with `keys` and `ilst`): the
/// value of [`LOCATION_KEY`]. An MP4 `meta` is a full box (4 more bytes before its
/// children); both forms are tried.
fn quicktime_location(meta: &[u8]) -> Option<(f64, f64)> {
    [meta, meta.get(4..).unwrap_or_default()]
        .into_iter()
        .find_map(|children| {
            let mut index: Option<u32> = None;
            let mut position = None;
            for_each_box(children, &mut |kind, body| match kind {
                // Version and flags, entry count, then (size, namespace, name) entries.
                b"keys" => {
                    let count = be_u32(body, 4).unwrap_or(0);
                    let mut at = 8usize;
                    for i in 1..=count.min(1024) {
                        let Some(size) = be_u32(body, at).map(|s| s as usize) else {
                            break;
                        };
                        if size < 8 {
                            break;
                        }
                        if body.get(at + 8..at + size) == Some(LOCATION_KEY) {
                            index = Some(i);
                        }
                        at += size;
                    }
                }
                b"ilst" => {
                    let Some(wanted) = index else { return };
                    for_each_item(body, &mut |item, value| {
                        if item == wanted && position.is_none() {
                            position = iso6709(&String::from_utf8_lossy(value));
                        }
                    });
                }
                _ => {}
            });
            position
        })
}

/// Each `ilst` item: its key index (the box type as a number) and the value of its
/// `data` box (after type and locale).
fn for_each_item(ilst: &[u8], visit: &mut dyn FnMut(u32, &[u8])) {
    let mut at = 0usize;
    while at + 8 <= ilst.len() {
        let (Some(size), Some(item)) = (be_u32(ilst, at), be_u32(ilst, at + 4)) else {
            return;
        };
        let size = size as usize;
        if size < 8 {
            return;
        }
        let body = ilst
            .get(at + 8..(at + size).min(ilst.len()))
            .unwrap_or_default();
        for_each_box(body, &mut |kind, data| {
            if kind == b"data" {
                visit(item, data.get(8..).unwrap_or_default());
            }
        });
        at += size;
    }
}

/// Latitude and longitude in degrees from an ISO 6709 position in decimal degrees
/// (`+54.1843-002.7189/`, `+52.3676+004.9041+000.000/`), `None` for anything else, an
/// out-of-range position or 0,0 (a receiver without a fix).
pub(super) fn iso6709(text: &str) -> Option<(f64, f64)> {
    let text = text.trim().trim_end_matches('/');
    let signs: Vec<usize> = text
        .char_indices()
        .filter(|(_, c)| *c == '+' || *c == '-')
        .map(|(i, _)| i)
        .collect();
    if signs.len() < 2 || signs[0] != 0 {
        return None;
    }
    let part = |from: usize, to: usize| text.get(from..to);
    let lat_text = part(signs[0], signs[1])?;
    let lon_text = part(signs[1], *signs.get(2).unwrap_or(&text.len()))?;
    // Decimal degrees only: at most 2 (latitude) and 3 (longitude) integer digits.
    let whole = |t: &str| t[1..].split('.').next().map_or(0, str::len);
    if whole(lat_text) > 2 || whole(lon_text) > 3 {
        return None;
    }
    let (lat, lon) = (lat_text.parse::<f64>().ok()?, lon_text.parse::<f64>().ok()?);
    let valid = lat.abs() <= 90.0 && lon.abs() <= 180.0 && (lat != 0.0 || lon != 0.0);
    valid.then_some((lat, lon))
}
