//! Images, audio, video and opaque binaries: **metadata units only**.
//!
//! Content (OCR of images and video frames, ASR of audio tracks) comes in a later issue;
//! the units made here describe the file in a readable sentence (name, format, size,
//! dimensions, duration, camera, time, GPS) so that it is findable by what it is.
//!
//! Without a decoder a media file cannot be fully validated: audio/video checks stop at
//! the container headers (magic bytes, RIFF/ISO-BMFF/EBML structure, a declared size that
//! runs past the end of the file). Images are decoded in full up to
//! [`MAX_DECODE_PIXELS`] (with memory limits) so that a damaged pixel stream is reported.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone};
use exif::{In, Tag, Value};
use image::{ImageError, ImageFormat, ImageReader};

use crate::{ConvertError, Conversion, FileMeta, FileType, Input, Locator, Unit, UnitKind};

/// Images up to this many pixels are decoded in full to check the pixel data.
pub const MAX_DECODE_PIXELS: u64 = 40_000_000;
/// Decoder memory cap.
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;
/// Member names listed for an archive.
const MAX_MEMBERS: usize = 50;

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// The file name without folders (and without a `#attachment/` prefix).
fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\', '#']).next().unwrap_or(name)
}

/// "812 bytes", "12.3 KB", "4.0 MB", "1.2 GB" (1 KB = 1024 bytes).
fn human_size(size: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if size < 1024 {
        return format!("{size} bytes");
    }
    let mut value = size as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

fn be_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn be_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}
fn le_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn le_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

// ---------------------------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------------------------

/// What EXIF told us about a photo.
#[derive(Debug, Default, Clone, PartialEq)]
struct PhotoInfo {
    taken: Option<DateTime<FixedOffset>>,
    camera: Option<String>,
    gps: Option<(f64, f64)>,
    orientation: Option<u32>,
}

impl PhotoInfo {
    fn is_empty(&self) -> bool {
        *self == PhotoInfo::default()
    }
}

/// Converts an image into one [`UnitKind::Image`] metadata unit (dimensions, format,
/// EXIF time, camera, GPS). OCR text and visual tags are added by a later stage.
pub fn convert_image(input: &Input) -> Result<Conversion, ConvertError> {
    if input.bytes.is_empty() {
        return Err(ConvertError::Empty);
    }
    let name = base_name(input.name);
    let photo = read_exif(input.bytes).unwrap_or_default();
    let (format, dims) = match probe_image(input.bytes) {
        Ok(probe) => (Some(image_format_name(probe.0).to_string()), Some((probe.1, probe.2))),
        Err(ProbeError::Unsupported(format)) => (Some(format), None),
        Err(ProbeError::Corrupt(message)) => {
            if photo.is_empty() || !header_intact(input.bytes) {
                return Err(ConvertError::corrupt("image", message));
            }
            (None, None)
        }
    };
    Ok(image_conversion(name, format, dims, &photo))
}

enum ProbeError {
    /// A format the build cannot decode (HEIC, AVIF, SVG, ICO): metadata only.
    Unsupported(String),
    Corrupt(String),
}

/// Reads the header for the dimensions, then decodes the pixels (when small enough) to
/// report damaged pixel data.
fn probe_image(bytes: &[u8]) -> Result<(ImageFormat, u32, u32), ProbeError> {
    if let Some(format) = undecodable_format(bytes) {
        return Err(ProbeError::Unsupported(format.to_string()));
    }
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| ProbeError::Corrupt(e.to_string().to_lowercase()))?;
    let Some(format) = reader.format() else {
        return Err(ProbeError::Corrupt("unrecognised image header".into()));
    };
    let (width, height) = reader.into_dimensions().map_err(image_error)?;
    if u64::from(width) * u64::from(height) <= MAX_DECODE_PIXELS {
        let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
        let mut limits = image::Limits::default();
        limits.max_alloc = Some(MAX_DECODE_ALLOC);
        reader.limits(limits);
        reader.decode().map_err(image_error)?;
    }
    Ok((format, width, height))
}

fn image_error(error: ImageError) -> ProbeError {
    match error {
        ImageError::Unsupported(e) => ProbeError::Unsupported(e.to_string()),
        other => ProbeError::Corrupt(other.to_string().to_lowercase()),
    }
}

/// Formats recognised by their magic but not decodable by this build.
fn undecodable_format(bytes: &[u8]) -> Option<&'static str> {
    let brand = bytes.get(8..12).unwrap_or_default();
    if bytes.get(4..8) == Some(b"ftyp") {
        if brand == b"avif" || brand == b"avis" {
            return Some("AVIF");
        }
        if matches!(brand, b"heic" | b"heix" | b"heim" | b"heis" | b"mif1" | b"msf1") {
            return Some("HEIC");
        }
    }
    if bytes.starts_with(b"\0\0\x01\0") {
        return Some("ICO");
    }
    let head = String::from_utf8_lossy(bytes.get(..bytes.len().min(1024)).unwrap_or_default())
        .to_lowercase();
    if head.contains("<svg") {
        return Some("SVG");
    }
    None
}

/// Whether the file starts like a known image (the header survived even if the pixels
/// did not).
fn header_intact(bytes: &[u8]) -> bool {
    image::guess_format(bytes).is_ok()
}

fn image_format_name(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "JPEG",
        ImageFormat::Png => "PNG",
        ImageFormat::Gif => "GIF",
        ImageFormat::WebP => "WebP",
        ImageFormat::Tiff => "TIFF",
        ImageFormat::Bmp => "BMP",
        _ => "image",
    }
}

/// Builds the unit and file metadata of an image.
fn image_conversion(
    name: &str,
    format: Option<String>,
    dims: Option<(u32, u32)>,
    photo: &PhotoInfo,
) -> Conversion {
    let is_photo = photo.camera.is_some() || photo.taken.is_some();
    let mut text = format!("{} {name}", if is_photo { "Photo" } else { "Image" });
    if let Some(format) = &format {
        text.push_str(&format!(", {format}"));
    }
    if let Some((w, h)) = dims {
        text.push_str(&format!(", {w}×{h}"));
    }
    if let Some(taken) = photo.taken {
        text.push_str(&format!(", taken {}", taken.format("%A %-d %B %Y %H:%M")));
    }
    if let Some(camera) = &photo.camera {
        text.push_str(&format!(" with {camera}"));
    }
    if let Some((lat, lon)) = photo.gps {
        text.push_str(&format!(", GPS {lat:.4}, {lon:.4}"));
    }
    let mut unit = Unit::new(UnitKind::Image, Locator::default(), text).with_time(photo.taken);
    let put = |key: &str, value: String, unit: &mut Unit| {
        unit.fields.insert(key.to_string(), value);
    };
    if let Some(format) = format {
        put("format", format, &mut unit);
    }
    if let Some((w, h)) = dims {
        put("width", w.to_string(), &mut unit);
        put("height", h.to_string(), &mut unit);
    }
    if let Some(camera) = &photo.camera {
        put("camera", camera.clone(), &mut unit);
    }
    if let Some((lat, lon)) = photo.gps {
        put("gps_lat", format!("{lat:.6}"), &mut unit);
        put("gps_lon", format!("{lon:.6}"), &mut unit);
    }
    if let Some(orientation) = photo.orientation {
        put("orientation", orientation.to_string(), &mut unit);
    }
    if let Some(taken) = photo.taken {
        put("taken", taken.to_rfc3339(), &mut unit);
    }
    let mut extra = unit.fields.clone();
    if let Some((lat, lon)) = photo.gps {
        extra.insert("gps".into(), format!("{lat:.6}, {lon:.6}"));
    }
    let meta = FileMeta {
        created: photo.taken,
        extra,
        ..FileMeta::default()
    };
    Conversion {
        units: vec![unit],
        meta,
        children: Vec::new(),
    }
}

/// EXIF from any container kamadak-exif knows (JPEG, TIFF, PNG, WebP, HEIF).
fn read_exif(bytes: &[u8]) -> Option<PhotoInfo> {
    let exif = exif::Reader::new()
        .read_from_container(&mut Cursor::new(bytes))
        .ok()?;
    let ascii = |tag: Tag| -> Option<String> {
        let field = exif.get_field(tag, In::PRIMARY)?;
        match &field.value {
            Value::Ascii(parts) => {
                let joined: Vec<String> = parts
                    .iter()
                    .map(|p| String::from_utf8_lossy(p).trim_matches(['\0', ' ']).to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
                (!joined.is_empty()).then(|| joined.join(" "))
            }
            _ => None,
        }
    };
    let taken = ascii(Tag::DateTimeOriginal)
        .or_else(|| ascii(Tag::DateTimeDigitized))
        .and_then(|t| exif_time(&t, ascii(Tag::OffsetTimeOriginal).as_deref()));
    let camera = camera_name(ascii(Tag::Make), ascii(Tag::Model));
    let coordinate = |value: Tag, reference: Tag| -> Option<f64> {
        let field = exif.get_field(value, In::PRIMARY)?;
        let Value::Rational(parts) = &field.value else {
            return None;
        };
        let dms: Vec<f64> = parts.iter().take(3).map(|r| r.to_f64()).collect();
        let mut degrees = dms.first()? + dms.get(1).unwrap_or(&0.0) / 60.0
            + dms.get(2).unwrap_or(&0.0) / 3600.0;
        if let Some(r) = ascii(reference) {
            if r.starts_with(['S', 's', 'W', 'w']) {
                degrees = -degrees;
            }
        }
        degrees.is_finite().then_some(degrees)
    };
    let gps = match (
        coordinate(Tag::GPSLatitude, Tag::GPSLatitudeRef),
        coordinate(Tag::GPSLongitude, Tag::GPSLongitudeRef),
    ) {
        (Some(lat), Some(lon))
            if lat.abs() <= 90.0 && lon.abs() <= 180.0 && (lat != 0.0 || lon != 0.0) =>
        {
            Some((lat, lon))
        }
        _ => None,
    };
    let orientation = exif
        .get_field(Tag::Orientation, In::PRIMARY)
        .and_then(|f| f.value.get_uint(0));
    Some(PhotoInfo {
        taken,
        camera,
        gps,
        orientation,
    })
}

/// "2025:10:04 13:22:05" (+ "+02:00") → a zoned time; without an offset the wall clock
/// is kept with offset +00:00.
fn exif_time(value: &str, offset: Option<&str>) -> Option<DateTime<FixedOffset>> {
    let value = value.trim();
    let naive = NaiveDateTime::parse_from_str(value, "%Y:%m:%d %H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S"))
        .ok()?;
    let zone = offset
        .and_then(parse_offset)
        .or_else(|| FixedOffset::east_opt(0))?;
    zone.from_local_datetime(&naive).single()
}

fn parse_offset(value: &str) -> Option<FixedOffset> {
    let value = value.trim();
    let sign = match value.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let (h, m) = value.get(1..)?.split_once(':')?;
    let seconds = h.parse::<i32>().ok()? * 3600 + m.parse::<i32>().ok()? * 60;
    FixedOffset::east_opt(sign * seconds)
}

/// "Apple" + "iPhone 13" → "Apple iPhone 13"; "Canon" + "Canon EOS R5" → "Canon EOS R5".
fn camera_name(make: Option<String>, model: Option<String>) -> Option<String> {
    match (make, model) {
        (Some(make), Some(model)) => {
            let first = make.split_whitespace().next().unwrap_or("").to_lowercase();
            if !first.is_empty() && model.to_lowercase().starts_with(&first) {
                Some(model)
            } else {
                Some(format!("{make} {model}"))
            }
        }
        (Some(one), None) | (None, Some(one)) => Some(one),
        (None, None) => None,
    }
}

// ---------------------------------------------------------------------------------------
// Audio and video
// ---------------------------------------------------------------------------------------

/// What the container headers told us.
#[derive(Debug, Default, Clone, PartialEq)]
struct MediaProbe {
    format: String,
    duration_s: Option<f64>,
    width: Option<u32>,
    height: Option<u32>,
    sample_rate: Option<u32>,
    channels: Option<u32>,
    created: Option<DateTime<FixedOffset>>,
}

/// Converts an audio or video file into one [`UnitKind::Media`] metadata unit (format,
/// duration when the headers give it cheaply). `input.bytes` may hold only the head of
/// the file; `input.size` is the real size. Transcripts and frames come later.
pub fn convert_media(input: &Input) -> Result<Conversion, ConvertError> {
    let format_label = input.file_type.as_str();
    if input.bytes.is_empty() || input.size == 0 {
        return Err(ConvertError::Empty);
    }
    if input.bytes.len() < 12 || input.size < 32 {
        return Err(ConvertError::corrupt(
            format_label,
            format!("file too small ({} bytes)", input.size),
        ));
    }
    let probe = probe_media(input.bytes, input.size)
        .map_err(|detail| ConvertError::corrupt(format_label, detail))?;
    Ok(media_conversion(input, probe))
}

fn media_conversion(input: &Input, probe: MediaProbe) -> Conversion {
    let name = base_name(input.name);
    let lead = if input.file_type == FileType::Video {
        "Video"
    } else {
        "Audio recording"
    };
    let mut text = format!("{lead} {name}, {}", probe.format);
    if let (Some(w), Some(h)) = (probe.width, probe.height) {
        text.push_str(&format!(", {w}×{h}"));
    }
    if let Some(d) = probe.duration_s {
        text.push_str(&format!(", duration {}", human_duration(d)));
    }
    if let Some(created) = probe.created {
        text.push_str(&format!(", recorded {}", created.format("%A %-d %B %Y %H:%M")));
    }
    text.push_str(&format!(", {}", human_size(input.size)));
    let mut fields = BTreeMap::new();
    fields.insert("format".to_string(), probe.format.clone());
    if let Some(d) = probe.duration_s {
        fields.insert("duration_s".into(), format!("{d:.1}"));
    }
    if let (Some(w), Some(h)) = (probe.width, probe.height) {
        fields.insert("width".into(), w.to_string());
        fields.insert("height".into(), h.to_string());
    }
    if let Some(rate) = probe.sample_rate {
        fields.insert("sample_rate".into(), rate.to_string());
    }
    if let Some(channels) = probe.channels {
        fields.insert("channels".into(), channels.to_string());
    }
    let mut unit = Unit::new(UnitKind::Media, Locator::default(), text).with_time(probe.created);
    unit.fields = fields.clone();
    let meta = FileMeta {
        created: probe.created,
        extra: fields,
        ..FileMeta::default()
    };
    Conversion {
        units: vec![unit],
        meta,
        children: Vec::new(),
    }
}

/// "42 s", "3 min 25 s", "1 h 02 min".
fn human_duration(seconds: f64) -> String {
    let total = seconds.round().max(0.0) as u64;
    if total < 60 {
        format!("{total} s")
    } else if total < 3600 {
        format!("{} min {} s", total / 60, total % 60)
    } else {
        format!("{} h {:02} min", total / 3600, (total / 60) % 60)
    }
}

/// Identifies the container by its magic bytes and reads cheap facts from its headers.
fn probe_media(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    let tag = bytes.get(8..12).unwrap_or_default();
    if bytes.starts_with(b"RIFF") && tag == b"WAVE" {
        return probe_wav(bytes, size);
    }
    if bytes.starts_with(b"RIFF") && tag == b"AVI " {
        return probe_avi(bytes, size);
    }
    if bytes.starts_with(b"\x1A\x45\xDF\xA3") {
        return probe_ebml(bytes, size);
    }
    if bytes.starts_with(b"fLaC") {
        return Ok(probe_flac(bytes));
    }
    if bytes.starts_with(b"FORM") && matches!(tag, b"AIFF" | b"AIFC") {
        return Ok(probe_aiff(bytes));
    }
    if bytes.starts_with(b"OggS") {
        return Ok(probe_ogg(bytes));
    }
    if bytes.starts_with(b"ID3") {
        return Ok(simple("MP3"));
    }
    if bytes.starts_with(b"\x30\x26\xB2\x75\x8E\x66\xCF\x11") {
        return Ok(simple("Windows Media (ASF)"));
    }
    if bytes.starts_with(b"\0\0\x01\xBA") || bytes.starts_with(b"\0\0\x01\xB3") {
        return Ok(simple("MPEG"));
    }
    if bytes[0] == 0xFF && bytes[1] & 0xF6 == 0xF0 {
        return Ok(simple("AAC (ADTS)"));
    }
    if bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 {
        return Ok(simple("MP3"));
    }
    if looks_like_bmff(bytes) {
        return probe_bmff(bytes, size);
    }
    Err("unrecognised audio/video header (no known container magic)".into())
}

fn simple(format: &str) -> MediaProbe {
    MediaProbe {
        format: format.to_string(),
        ..MediaProbe::default()
    }
}

/// WAV: the `fmt ` chunk (rate, channels, byte rate) and the `data` chunk size.
fn probe_wav(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    let mut probe = simple("WAV");
    let mut byte_rate = None;
    let mut at = 12usize;
    while let (Some(id), Some(len)) = (bytes.get(at..at + 4), le_u32(bytes, at + 4)) {
        let body = at + 8;
        if id == b"fmt " {
            let codec = le_u16(bytes, body).ok_or("truncated fmt chunk")?;
            probe.channels = le_u16(bytes, body + 2).map(u32::from);
            probe.sample_rate = le_u32(bytes, body + 4);
            byte_rate = le_u32(bytes, body + 8).filter(|r| *r > 0);
            if codec != 1 && codec != 0xFFFE {
                probe.format = format!("WAV (codec {codec:#06x})");
            }
        } else if id == b"data" {
            let available = size.saturating_sub(body as u64);
            let declared = u64::from(len);
            let data_len = if len == 0 || len == u32::MAX {
                available
            } else if declared > available {
                return Err(format!(
                    "truncated: data chunk declares {declared} bytes, {available} present"
                ));
            } else {
                declared
            };
            if let Some(rate) = byte_rate {
                probe.duration_s = Some(data_len as f64 / f64::from(rate));
            }
            return Ok(probe);
        }
        at = body + len as usize + (len as usize & 1);
    }
    if byte_rate.is_none() && (bytes.len() as u64) >= size {
        return Err("no fmt chunk".into());
    }
    Ok(probe)
}

/// AVI: duration from the main header (`avih`: µs per frame × total frames).
fn probe_avi(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    check_riff_size(bytes, size)?;
    let mut probe = simple("AVI");
    if let Some(at) = find(&bytes[..bytes.len().min(4096)], b"avih") {
        let body = at + 8;
        let us_per_frame = le_u32(bytes, body).unwrap_or(0);
        let frames = le_u32(bytes, body + 16).unwrap_or(0);
        if us_per_frame > 0 && frames > 0 {
            probe.duration_s = Some(f64::from(us_per_frame) * f64::from(frames) / 1e6);
        }
        probe.width = le_u32(bytes, body + 32).filter(|w| *w > 0);
        probe.height = le_u32(bytes, body + 36).filter(|h| *h > 0);
    }
    Ok(probe)
}

fn check_riff_size(bytes: &[u8], size: u64) -> Result<(), String> {
    let declared = u64::from(le_u32(bytes, 4).unwrap_or(0)) + 8;
    if declared > size && declared != u64::from(u32::MAX) + 8 {
        return Err(format!(
            "truncated: riff declares {declared} bytes, file has {size}"
        ));
    }
    Ok(())
}

/// FLAC: STREAMINFO (sample rate, channels, total samples).
fn probe_flac(bytes: &[u8]) -> MediaProbe {
    let mut probe = simple("FLAC");
    // Metadata block header at 4..8, STREAMINFO body from 8; the packed fields start at 18.
    if let Some(packed) = be_u64(bytes, 18) {
        let rate = (packed >> 44) as u32;
        let channels = ((packed >> 41) & 0x7) as u32 + 1;
        let samples = packed & 0xF_FFFF_FFFF;
        if rate > 0 {
            probe.sample_rate = Some(rate);
            probe.channels = Some(channels);
            if samples > 0 {
                probe.duration_s = Some(samples as f64 / f64::from(rate));
            }
        }
    }
    probe
}

/// AIFF: the COMM chunk (channels, frames, 80-bit sample rate).
fn probe_aiff(bytes: &[u8]) -> MediaProbe {
    let mut probe = simple("AIFF");
    if let Some(at) = find(&bytes[..bytes.len().min(4096)], b"COMM") {
        let body = at + 8;
        probe.channels = be_u16(bytes, body).map(u32::from);
        let frames = be_u32(bytes, body + 2);
        let rate = bytes.get(body + 8..body + 18).and_then(extended_to_f64);
        if let (Some(frames), Some(rate)) = (frames, rate) {
            if rate > 0.0 {
                probe.sample_rate = Some(rate.round() as u32);
                probe.duration_s = Some(f64::from(frames) / rate);
            }
        }
    }
    probe
}

/// An IEEE 754 80-bit extended float (AIFF sample rates).
fn extended_to_f64(b: &[u8]) -> Option<f64> {
    let exponent = i32::from(be_u16(b, 0)? & 0x7FFF);
    let mantissa = be_u64(b, 2)?;
    if exponent == 0 && mantissa == 0 {
        return Some(0.0);
    }
    Some(mantissa as f64 * 2f64.powi(exponent - 16383 - 63))
}

/// Ogg: the codec of the first logical stream.
fn probe_ogg(bytes: &[u8]) -> MediaProbe {
    let head = &bytes[..bytes.len().min(512)];
    let format = if find(head, b"OpusHead").is_some() {
        "Ogg Opus"
    } else if find(head, b"\x01vorbis").is_some() {
        "Ogg Vorbis"
    } else if find(head, b"\x80theora").is_some() {
        "Ogg Theora"
    } else if find(head, b"FLAC").is_some() {
        "Ogg FLAC"
    } else {
        "Ogg"
    };
    let mut probe = simple(format);
    if let Some(at) = find(head, b"\x01vorbis") {
        probe.channels = bytes.get(at + 11).map(|c| u32::from(*c));
        probe.sample_rate = le_u32(bytes, at + 12);
    }
    probe
}

/// ISO base media (MP4, MOV, M4A, 3GP): the first box must be a plausible box.
fn looks_like_bmff(bytes: &[u8]) -> bool {
    let kind = bytes.get(4..8).unwrap_or_default();
    matches!(
        kind,
        b"ftyp" | b"moov" | b"mdat" | b"wide" | b"free" | b"skip" | b"pnot" | b"uuid"
    )
}

/// Walks the top-level boxes present in `bytes`; reads `mvhd` (duration, creation time)
/// and the first video `tkhd` (dimensions) from the part of `moov` we have. A box that
/// runs past the end of the file, or a complete `moov` whose sample chunks lie beyond it,
/// means the file was cut.
fn probe_bmff(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    let mut probe = simple("MPEG-4");
    let mut at = 0u64;
    while at + 8 <= bytes.len() as u64 {
        let offset = at as usize;
        let (box_type, header, box_size) = box_header(bytes, offset, size - at)?;
        let end = at + box_size;
        if end > size {
            return Err(format!(
                "truncated: {} box ends at byte {end}, file has {size}",
                String::from_utf8_lossy(box_type)
            ));
        }
        match box_type {
            b"ftyp" => probe.format = brand_name(bytes.get(offset + 8..offset + 12)),
            b"moov" => {
                let complete = end <= bytes.len() as u64;
                let body_end = (end as usize).min(bytes.len());
                if let Some(moov) = bytes.get(offset + header..body_end) {
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
fn box_header(bytes: &[u8], at: usize, remaining: u64) -> Result<(&[u8], usize, u64), String> {
    let size32 = be_u32(bytes, at).ok_or("truncated box header")?;
    let kind = bytes.get(at + 4..at + 8).ok_or("truncated box header")?;
    if !kind.iter().all(|c| c.is_ascii_alphanumeric() || *c == b' ' || *c == 0xA9) {
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

/// Reads mvhd and the first tkhd with a non-zero size from the moov payload; returns the
/// largest sample chunk offset (stco / co64) of all tracks.
fn read_moov(moov: &[u8], probe: &mut MediaProbe) -> Option<u64> {
    let mut max_chunk: Option<u64> = None;
    for_each_box(moov, &mut |kind, body| match kind {
        b"mvhd" => read_mvhd(body, probe),
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

fn for_each_box(data: &[u8], visit: &mut dyn FnMut(&[u8], &[u8])) {
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

/// Matroska / WebM: DocType from the EBML header, Segment size against the file size,
/// duration from Segment/Info.
fn probe_ebml(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    // The EBML header element: 4-byte id, then its size.
    let (header_len, size_len) = ebml_size(bytes, 4).ok_or("bad ebml header size")?;
    let header_body = 4 + size_len;
    let header_end = usize::try_from(header_len)
        .ok()
        .and_then(|l| header_body.checked_add(l))
        .ok_or("bad ebml header size")?;
    let header = bytes.get(header_body..header_end).ok_or("truncated ebml header")?;
    let doc_type = ebml_children(header)
        .into_iter()
        .find(|(id, _)| *id == 0x4282)
        .map(|(_, v)| String::from_utf8_lossy(v).trim_end_matches('\0').to_string())
        .unwrap_or_default();
    let mut probe = simple(if doc_type == "webm" { "WebM" } else { "Matroska" });
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
        let duration = fields.iter().find(|(id, _)| *id == 0x4489).and_then(|(_, v)| {
            match v.len() {
                4 => Some(f64::from(f32::from_be_bytes((*v).try_into().ok()?))),
                8 => Some(f64::from_be_bytes((*v).try_into().ok()?)),
                _ => None,
            }
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
    let segment_end = if unknown {
        u64::MAX
    } else {
        body as u64 + len
    };
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
fn ebml_id(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let first = *bytes.get(at)?;
    let len = first.leading_zeros() as usize + 1;
    if len > 4 {
        return None;
    }
    let raw = bytes.get(at..at + len)?;
    Some((raw.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)), len))
}

/// An EBML variable-length size (marker removed) and its length in bytes.
fn ebml_size(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
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
fn ebml_children(data: &[u8]) -> Vec<(u32, &[u8])> {
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

// ---------------------------------------------------------------------------------------
// Opaque binaries
// ---------------------------------------------------------------------------------------

/// Converts an opaque file into one [`UnitKind::Metadata`] unit: "File <name>, <type>,
/// <size>", with the array header of a .npy, the tensor names of a .safetensors and the
/// member names of zip/tar archives (so an archive is findable by what it contains).
pub fn convert_binary(input: &Input) -> Result<Conversion, ConvertError> {
    if input.bytes.is_empty() || input.size == 0 {
        return Err(ConvertError::Empty);
    }
    let ext = crate::extension_of(input.name);
    let bytes = input.bytes;
    let description = describe_binary(bytes, input.size, &ext)?;
    let name = base_name(input.name);
    let mut text = format!("File {name}, {}, {}", description.kind, human_size(input.size));
    for line in &description.details {
        text.push('\n');
        text.push_str(line);
    }
    let mut unit = Unit::new(UnitKind::Metadata, Locator::default(), text);
    unit.fields = description.fields.clone();
    unit.fields.insert("type".into(), description.kind.clone());
    let mut meta = FileMeta {
        extra: description.fields,
        ..FileMeta::default()
    };
    meta.extra.insert("type".into(), description.kind);
    Ok(Conversion {
        units: vec![unit],
        meta,
        children: Vec::new(),
    })
}

#[derive(Debug, Default)]
struct BinaryDescription {
    kind: String,
    details: Vec<String>,
    fields: BTreeMap<String, String>,
}

impl BinaryDescription {
    fn new(kind: impl Into<String>) -> BinaryDescription {
        BinaryDescription {
            kind: kind.into(),
            ..BinaryDescription::default()
        }
    }
}

fn describe_binary(bytes: &[u8], size: u64, ext: &str) -> Result<BinaryDescription, ConvertError> {
    const OLE2: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
    if bytes.starts_with(b"\x93NUMPY") {
        return describe_npy(bytes);
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return describe_zip(bytes, size, ext);
    }
    if bytes.starts_with(OLE2) {
        if matches!(ext, "docx" | "xlsx" | "pptx" | "docm" | "xlsm" | "pptm")
            || crate::sheet::is_encrypted_ooxml(bytes)
        {
            return Err(ConvertError::encrypted("office", "password required"));
        }
        let kind = match ext {
            "doc" => "Microsoft Word 97-2003 document",
            "xls" => "Microsoft Excel 97-2003 workbook",
            "ppt" => "Microsoft PowerPoint 97-2003 presentation",
            "msg" => "Outlook message",
            _ => "OLE2 compound document",
        };
        return Ok(BinaryDescription::new(kind));
    }
    if ext == "safetensors" {
        if let Some(description) = describe_safetensors(bytes) {
            return Ok(description);
        }
    }
    if bytes.get(257..262) == Some(b"ustar") {
        return Ok(describe_tar(bytes));
    }
    let kind = match bytes {
        b if b.starts_with(b"\x1f\x8b") => gzip_kind(b),
        b if b.starts_with(b"7z\xBC\xAF\x27\x1C") => "7-Zip archive".into(),
        b if b.starts_with(b"Rar!\x1a\x07") => "RAR archive".into(),
        b if b.starts_with(b"\xFD7zXZ\0") => "xz compressed data".into(),
        b if b.starts_with(b"BZh") => "bzip2 compressed data".into(),
        b if b.starts_with(b"\x89HDF\r\n\x1a\n") => "HDF5 data".into(),
        b if b.starts_with(b"PAR1") => "Parquet table".into(),
        b if b.starts_with(b"\x7FELF") => "ELF executable".into(),
        b if b.starts_with(b"MZ") => "Windows executable".into(),
        b if b.starts_with(b"\xCF\xFA\xED\xFE") || b.starts_with(b"\xCE\xFA\xED\xFE") => {
            "Mach-O executable".into()
        }
        b if b.len() > 1 && b[0] == 0x80 && (2..=5).contains(&b[1]) => "Python pickle".into(),
        _ => extension_kind(ext),
    };
    Ok(BinaryDescription::new(kind))
}

fn extension_kind(ext: &str) -> String {
    match ext {
        "pkl" | "pickle" => "Python pickle".into(),
        "pt" | "pth" | "ckpt" => "PyTorch checkpoint".into(),
        "onnx" => "ONNX model".into(),
        "bin" => "binary data".into(),
        "iso" => "disk image".into(),
        "dmg" => "macOS disk image".into(),
        "" => "binary data".into(),
        other => format!("{} file", other.to_uppercase()),
    }
}

/// gzip, with the original file name when the header stores one.
fn gzip_kind(bytes: &[u8]) -> String {
    let flags = bytes.get(3).copied().unwrap_or(0);
    let mut at = 10usize;
    if flags & 0x04 != 0 {
        at += 2 + le_u16(bytes, 10).unwrap_or(0) as usize;
    }
    if flags & 0x08 != 0 {
        if let Some(rest) = bytes.get(at..) {
            if let Some(end) = rest.iter().take(512).position(|b| *b == 0) {
                let name = String::from_utf8_lossy(&rest[..end]);
                return format!("gzip compressed data (of {name})");
            }
        }
    }
    "gzip compressed data".into()
}

/// .npy: magic, version, header length, then a Python dict literal
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`.
fn describe_npy(bytes: &[u8]) -> Result<BinaryDescription, ConvertError> {
    let corrupt = |d: &str| ConvertError::corrupt("npy", d.to_string());
    let major = *bytes.get(6).ok_or_else(|| corrupt("truncated header"))?;
    let (len, start): (Option<usize>, usize) = match major {
        1 => (le_u16(bytes, 8).map(usize::from), 10),
        2 | 3 => (le_u32(bytes, 8).map(|l| l as usize), 12),
        v => return Err(corrupt(&format!("unknown version {v}"))),
    };
    let len = len.ok_or_else(|| corrupt("truncated header"))?;
    let header = bytes
        .get(start..start.saturating_add(len))
        .ok_or_else(|| corrupt("truncated header"))?;
    let header = String::from_utf8_lossy(header);
    let descr = dict_value(&header, "descr").ok_or_else(|| corrupt("header has no descr"))?;
    let shape = dict_value(&header, "shape").ok_or_else(|| corrupt("header has no shape"))?;
    let descr = descr.trim_matches(['\'', '"']).to_string();
    let dtype = numpy_dtype_name(&descr);
    let mut description = BinaryDescription::new("NumPy array");
    description.details.push(format!("dtype {dtype} ({descr}), shape {shape}"));
    description.fields.insert("dtype".into(), dtype);
    description.fields.insert("shape".into(), shape);
    Ok(description)
}

/// The raw value text of `'key': value` in a Python dict literal.
fn dict_value(header: &str, key: &str) -> Option<String> {
    let quoted = [format!("'{key}'"), format!("\"{key}\"")];
    let at = quoted.iter().find_map(|k| header.find(k.as_str()).map(|i| i + k.len()))?;
    let rest = header.get(at..)?.trim_start().strip_prefix(':')?.trim_start();
    let value = if rest.starts_with('(') {
        let end = rest.find(')')?;
        rest.get(..=end)?
    } else if let Some(quote) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let end = rest.get(1..)?.find(quote)? + 1;
        rest.get(..=end)?
    } else {
        rest.split([',', '}']).next()?
    };
    Some(value.trim().to_string())
}

fn numpy_dtype_name(descr: &str) -> String {
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    let name = match code {
        "f2" => "float16",
        "f4" => "float32",
        "f8" => "float64",
        "i1" => "int8",
        "i2" => "int16",
        "i4" => "int32",
        "i8" => "int64",
        "u1" => "uint8",
        "u2" => "uint16",
        "u4" => "uint32",
        "u8" => "uint64",
        "b1" => "bool",
        "c8" => "complex64",
        "c16" => "complex128",
        "O" => "object",
        other => other,
    };
    name.to_string()
}

/// Zip archives: member names from the central directory when the whole file is here,
/// else from the local headers found in the first bytes.
fn describe_zip(bytes: &[u8], size: u64, ext: &str) -> Result<BinaryDescription, ConvertError> {
    let kind = match ext {
        "pt" | "pth" => "PyTorch checkpoint (zip)",
        "npz" => "NumPy array archive (npz)",
        "jar" => "Java archive",
        "apk" => "Android package",
        _ => "zip archive",
    };
    let (names, total) = if bytes.len() as u64 >= size {
        zip_central_names(bytes)?
    } else {
        let names = zip_local_names(bytes);
        let count = names.len();
        (names, count)
    };
    let mut description = BinaryDescription::new(kind);
    description.fields.insert("members".into(), total.to_string());
    if !names.is_empty() {
        let more = if total > names.len() {
            format!(" (and {} more)", total - names.len())
        } else {
            String::new()
        };
        description
            .details
            .push(format!("Contains: {}{more}", names.join(", ")));
    }
    Ok(description)
}

fn zip_central_names(bytes: &[u8]) -> Result<(Vec<String>, usize), ConvertError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| ConvertError::corrupt("zip", e.to_string().to_lowercase()))?;
    let total = archive.len();
    let names: Vec<String> = archive
        .file_names()
        .take(MAX_MEMBERS)
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .collect();
    // The directory can point past the data: check the first member's local header.
    if total > 0 {
        let mut first = archive
            .by_index_raw(0)
            .map_err(|e| ConvertError::corrupt("zip", e.to_string().to_lowercase()))?;
        let mut probe = [0u8; 1];
        if first.size() > 0 {
            first
                .read(&mut probe)
                .map_err(|e| ConvertError::corrupt("zip", e.to_string().to_lowercase()))?;
        }
    }
    Ok((names, total))
}

/// Member names from local file headers in a zip's first bytes.
fn zip_local_names(bytes: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut at = 0usize;
    while names.len() < MAX_MEMBERS && bytes.get(at..at + 4) == Some(b"PK\x03\x04") {
        let flags = le_u16(bytes, at + 6).unwrap_or(0);
        let compressed = le_u32(bytes, at + 18).unwrap_or(0) as usize;
        let name_len = le_u16(bytes, at + 26).unwrap_or(0) as usize;
        let extra_len = le_u16(bytes, at + 28).unwrap_or(0) as usize;
        let Some(name) = bytes.get(at + 30..at + 30 + name_len) else {
            break;
        };
        names.push(String::from_utf8_lossy(name).into_owned());
        if flags & 0x08 != 0 {
            break; // sizes follow the data: the next header cannot be located cheaply
        }
        at += 30 + name_len + extra_len + compressed;
    }
    names
}

/// tar: member names from the 512-byte headers in the bytes we have.
fn describe_tar(bytes: &[u8]) -> BinaryDescription {
    let mut names = Vec::new();
    let mut at = 0usize;
    while names.len() < MAX_MEMBERS {
        let Some(header) = bytes.get(at..at + 512) else {
            break;
        };
        if header.get(257..262) != Some(b"ustar") {
            break;
        }
        let name_end = header[..100].iter().position(|b| *b == 0).unwrap_or(100);
        names.push(String::from_utf8_lossy(&header[..name_end]).into_owned());
        let size_field = String::from_utf8_lossy(&header[124..136]);
        let size = u64::from_str_radix(size_field.trim_matches(['\0', ' ']), 8).unwrap_or(0);
        let blocks = size.div_ceil(512) as usize;
        at = at.saturating_add(512 * (blocks + 1));
    }
    let mut description = BinaryDescription::new("tar archive");
    if !names.is_empty() {
        description.details.push(format!("Contains: {}", names.join(", ")));
    }
    description
}

/// safetensors: u64 header length + JSON {tensor: {dtype, shape, data_offsets}}.
fn describe_safetensors(bytes: &[u8]) -> Option<BinaryDescription> {
    let len = usize::try_from(le_u64(bytes, 0)?).ok()?;
    let header = bytes.get(8..8usize.checked_add(len)?)?;
    let json: serde_json::Value = serde_json::from_slice(header).ok()?;
    let tensors = json.as_object()?;
    let count = tensors.keys().filter(|k| k.as_str() != "__metadata__").count();
    let names: Vec<String> = tensors
        .iter()
        .filter(|(k, _)| k.as_str() != "__metadata__")
        .take(MAX_MEMBERS)
        .map(|(k, v)| {
            let dtype = v.get("dtype").and_then(|d| d.as_str()).unwrap_or("?");
            let shape = v.get("shape").map(|s| s.to_string()).unwrap_or_default();
            format!("{k} {dtype} {shape}")
        })
        .collect();
    let mut description = BinaryDescription::new("safetensors weights");
    description.fields.insert("tensors".into(), count.to_string());
    if !names.is_empty() {
        description.details.push(format!("Tensors: {}", names.join(", ")));
    }
    Some(description)
}

#[cfg(test)]
mod survey {
    use crate::{convert, detect, FileType, Input};
    use std::path::Path;

    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() { walk(&p, out) } else { out.push(p) }
        }
    }

    #[test]
    #[ignore]
    fn corpus_survey() {
        let mut files = Vec::new();
        for root in ["../../shared/corpus/realworld", "../../shared/corpus/persona/home"] {
            walk(Path::new(root), &mut files);
        }
        files.sort();
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.to_string_lossy().to_string();
            let head = &bytes[..bytes.len().min(8192)];
            let ft = detect(&name, head);
            if !matches!(ft, FileType::Image | FileType::Audio | FileType::Video | FileType::Binary | FileType::Xlsx | FileType::Xls | FileType::Ods | FileType::Csv | FileType::Tsv | FileType::Sqlite) { continue; }
            let slice = if ft.needs_full_content() { &bytes[..] } else { &bytes[..bytes.len().min(1 << 20)] };
            let input = Input { name: &name, bytes: slice, size: bytes.len() as u64, file_type: ft };
            let t = std::time::Instant::now();
            match convert(&input) {
                Ok(c) => {
                    let first = c.units.first().map(|u| u.text.chars().take(300).collect::<String>()).unwrap_or_default();
                    println!("OK {name} [{}] units={} {:?} {}ms\n   {first}\n   loc={:?} meta={:?}", ft.as_str(), c.units.len(), c.units.first().map(|u| &u.fields), t.elapsed().as_millis(), c.units.first().map(|u| u.locator.describe()), c.meta);
                }
                Err(e) => println!("ERR {name} [{}] {e}", ft.as_str()),
            }
        }
    }
}
#[cfg(test)]
mod survey2 {
    #[test]
    #[ignore]
    fn dump() {
        for p in std::env::var("DUMP").unwrap().split(',') {
            let bytes = std::fs::read(p).unwrap();
            let input = crate::Input::detect(p, &bytes);
            match crate::convert(&input) {
                Ok(c) => { for u in c.units.iter().take(3) { println!("--- {:?} title={:?}\n{}", u.locator.describe(), u.title, u.text); } println!("meta {:?}", c.meta); }
                Err(e) => println!("ERR {e}"),
            }
        }
    }
}
