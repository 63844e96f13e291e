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

use crate::{Conversion, ConvertError, FileMeta, FileType, Input, Locator, Unit, UnitKind};

/// Images up to this many pixels are decoded in full to check the pixel data.
pub const MAX_DECODE_PIXELS: u64 = 40_000_000;
/// Decoder memory cap.
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;
/// Member names listed for an archive.
const MAX_MEMBERS: usize = 50;

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// The file name without folders (and without a `…#attachment/` prefix; a bare `#` is
/// part of real names).
fn base_name(name: &str) -> &str {
    let name = name.rsplit("#attachment/").next().unwrap_or(name);
    name.rsplit(['/', '\\']).next().unwrap_or(name)
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
        Ok(probe) => (
            Some(image_format_name(probe.0).to_string()),
            Some((probe.1, probe.2)),
        ),
        Err(ProbeError::Unsupported(format)) => (Some(format), None),
        Err(ProbeError::Corrupt(message)) => {
            if photo.is_empty() || !header_intact(input.bytes) {
                return Err(ConvertError::corrupt("image", message));
            }
            (None, None)
        }
    };
    let mut conversion = image_conversion(name, format, dims, &photo);
    if let Some(damage) = jpeg_truncation(input.bytes) {
        conversion
            .meta
            .extra
            .insert(crate::unit::DAMAGE_KEY.to_string(), damage);
    }
    Ok(conversion)
}

/// A JPEG must end with the end-of-image marker (FF D9, possibly followed by padding or
/// appended data such as a second image). A file that stops inside the entropy-coded
/// data decodes "successfully" (the decoder pads it) but is truncated: report it.
fn jpeg_truncation(bytes: &[u8]) -> Option<String> {
    if !bytes.starts_with(b"\xFF\xD8\xFF") {
        return None;
    }
    let has_end_marker = bytes
        .windows(2)
        .rev()
        .take(64 * 1024)
        .any(|w| w == b"\xFF\xD9");
    (!has_end_marker).then(|| {
        "damaged jpeg: no end-of-image marker, the file is truncated; the readable part is indexed"
            .to_string()
    })
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
        if matches!(
            brand,
            b"heic" | b"heix" | b"heim" | b"heis" | b"mif1" | b"msf1"
        ) {
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
                    .map(|p| {
                        String::from_utf8_lossy(p)
                            .trim_matches(['\0', ' '])
                            .to_string()
                    })
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
        let mut degrees =
            dms.first()? + dms.get(1).unwrap_or(&0.0) / 60.0 + dms.get(2).unwrap_or(&0.0) / 3600.0;
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
    let seconds = h
        .parse::<i32>()
        .ok()?
        .checked_mul(3600)?
        .checked_add(m.parse::<i32>().ok()?.checked_mul(60)?)?;
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
        text.push_str(&format!(
            ", recorded {}",
            created.format("%A %-d %B %Y %H:%M")
        ));
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
    let sync = (bytes.first().copied(), bytes.get(1).copied());
    if let (Some(0xFF), Some(second)) = sync {
        if second & 0xF6 == 0xF0 {
            return Ok(simple("AAC (ADTS)"));
        }
        if second & 0xE0 == 0xE0 {
            return Ok(simple("MP3"));
        }
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
        // A 64-bit box size can be anything: saturate (it then ends beyond the file).
        let end = at.saturating_add(box_size);
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
fn ebml_id(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
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
    let mut text = format!(
        "File {name}, {}, {}",
        description.kind,
        human_size(input.size)
    );
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
    description
        .details
        .push(format!("dtype {dtype} ({descr}), shape {shape}"));
    description.fields.insert("dtype".into(), dtype);
    description.fields.insert("shape".into(), shape);
    Ok(description)
}

/// The raw value text of `'key': value` in a Python dict literal.
fn dict_value(header: &str, key: &str) -> Option<String> {
    let quoted = [format!("'{key}'"), format!("\"{key}\"")];
    let at = quoted
        .iter()
        .find_map(|k| header.find(k.as_str()).map(|i| i + k.len()))?;
    let rest = header
        .get(at..)?
        .trim_start()
        .strip_prefix(':')?
        .trim_start();
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
    description
        .fields
        .insert("members".into(), total.to_string());
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
        description
            .details
            .push(format!("Contains: {}", names.join(", ")));
    }
    description
}

/// safetensors: u64 header length + JSON {tensor: {dtype, shape, data_offsets}}.
fn describe_safetensors(bytes: &[u8]) -> Option<BinaryDescription> {
    let len = usize::try_from(le_u64(bytes, 0)?).ok()?;
    let header = bytes.get(8..8usize.checked_add(len)?)?;
    let json: serde_json::Value = serde_json::from_slice(header).ok()?;
    let tensors = json.as_object()?;
    let count = tensors
        .keys()
        .filter(|k| k.as_str() != "__metadata__")
        .count();
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
    description
        .fields
        .insert("tensors".into(), count.to_string());
    if !names.is_empty() {
        description
            .details
            .push(format!("Tensors: {}", names.join(", ")));
    }
    Some(description)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::testutil::{self, Rng};

    fn input<'a>(name: &'a str, bytes: &'a [u8], size: u64, file_type: FileType) -> Input<'a> {
        Input {
            name,
            bytes,
            size,
            file_type,
        }
    }

    fn image_input<'a>(name: &'a str, bytes: &'a [u8]) -> Input<'a> {
        input(name, bytes, bytes.len() as u64, FileType::Image)
    }

    // --- a hand-built EXIF block ---------------------------------------------------

    /// One IFD entry: tag, TIFF type, count, value bytes (little-endian).
    type Entry = (u16, u16, u32, Vec<u8>);

    fn ascii(tag: u16, text: &str) -> Entry {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        (tag, 2, bytes.len() as u32, bytes)
    }

    fn rationals(tag: u16, values: &[(u32, u32)]) -> Entry {
        let bytes = values
            .iter()
            .flat_map(|(n, d)| n.to_le_bytes().into_iter().chain(d.to_le_bytes()))
            .collect();
        (tag, 5, values.len() as u32, bytes)
    }

    fn long(tag: u16, value: u32) -> Entry {
        (tag, 4, 1, value.to_le_bytes().to_vec())
    }

    fn ifd_len(entries: &[Entry]) -> usize {
        2 + 12 * entries.len()
            + 4
            + entries
                .iter()
                .map(|e| if e.3.len() > 4 { e.3.len() } else { 0 })
                .sum::<usize>()
    }

    /// Writes an IFD at `start` (offset from the TIFF header) with its out-of-line data.
    fn write_ifd(out: &mut Vec<u8>, start: usize, entries: &[Entry]) {
        let mut data_at = start + 2 + 12 * entries.len() + 4;
        let mut data: Vec<u8> = Vec::new();
        out.extend((entries.len() as u16).to_le_bytes());
        for (tag, kind, count, value) in entries {
            out.extend(tag.to_le_bytes());
            out.extend(kind.to_le_bytes());
            out.extend(count.to_le_bytes());
            if value.len() <= 4 {
                let mut inline = value.clone();
                inline.resize(4, 0);
                out.extend(inline);
            } else {
                out.extend((data_at as u32).to_le_bytes());
                data.extend(value);
                data_at += value.len();
            }
        }
        out.extend(0u32.to_le_bytes());
        out.extend(data);
    }

    /// A TIFF (little-endian) with IFD0 (Make, Model, Orientation, pointers), the Exif IFD
    /// (DateTimeOriginal, OffsetTimeOriginal) and the GPS IFD.
    fn exif_tiff() -> Vec<u8> {
        let exif_entries = vec![
            ascii(0x9003, "2025:10:04 13:22:05"),
            ascii(0x9011, "-07:00"),
        ];
        let gps_entries = vec![
            ascii(0x0001, "N"),
            rationals(0x0002, &[(45, 1), (30, 1), (4428, 100)]),
            ascii(0x0003, "W"),
            rationals(0x0004, &[(122, 1), (39, 1), (1548, 100)]),
        ];
        let ifd0_base = vec![
            ascii(0x010F, "Apple"),
            ascii(0x0110, "iPhone 13"),
            (0x0112, 3, 1, 6u16.to_le_bytes().to_vec()),
        ];
        let ifd0_len = ifd_len(&ifd0_base) + 2 * 12;
        let exif_at = 8 + ifd0_len;
        let gps_at = exif_at + ifd_len(&exif_entries);
        let mut ifd0 = ifd0_base;
        ifd0.push(long(0x8769, exif_at as u32));
        ifd0.push(long(0x8825, gps_at as u32));
        let mut tiff = b"II*\0".to_vec();
        tiff.extend(8u32.to_le_bytes());
        write_ifd(&mut tiff, 8, &ifd0);
        write_ifd(&mut tiff, exif_at, &exif_entries);
        write_ifd(&mut tiff, gps_at, &gps_entries);
        tiff
    }

    fn jpeg(width: u32, height: u32) -> Vec<u8> {
        let pixels = vec![128u8; (width * height * 3) as usize];
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut out)
            .encode(&pixels, width, height, image::ExtendedColorType::Rgb8)
            .unwrap();
        out
    }

    fn jpeg_with_exif(width: u32, height: u32) -> Vec<u8> {
        let plain = jpeg(width, height);
        let tiff = exif_tiff();
        let mut out = plain[..2].to_vec(); // SOI
        out.extend([0xFF, 0xE1]);
        out.extend(((tiff.len() + 8) as u16).to_be_bytes());
        out.extend(b"Exif\0\0");
        out.extend(tiff);
        out.extend(&plain[2..]);
        out
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let pixels = vec![200u8; (width * height * 3) as usize];
        let mut out = Vec::new();
        image::ImageEncoder::write_image(
            image::codecs::png::PngEncoder::new(&mut out),
            &pixels,
            width,
            height,
            image::ExtendedColorType::Rgb8,
        )
        .unwrap();
        out
    }

    #[test]
    fn photo_with_exif() {
        let bytes = jpeg_with_exif(32, 16);
        let c = convert_image(&image_input("Pictures/2025/IMG_4471.jpg", &bytes)).unwrap();
        let u = &c.units[0];
        assert_eq!(u.kind(), UnitKind::Image);
        assert_eq!(u.locator, Locator::default());
        assert_eq!(
            u.text,
            "Photo IMG_4471.jpg, JPEG, 32×16, taken Saturday 4 October 2025 13:22 with Apple \
             iPhone 13, GPS 45.5123, -122.6543"
        );
        let taken = DateTime::parse_from_rfc3339("2025-10-04T13:22:05-07:00").unwrap();
        assert_eq!(u.content_time, Some(taken));
        assert_eq!(c.meta.created, Some(taken));
        assert_eq!(u.fields["taken"], "2025-10-04T13:22:05-07:00");
        assert_eq!(u.fields["camera"], "Apple iPhone 13");
        assert_eq!(u.fields["width"], "32");
        assert_eq!(u.fields["height"], "16");
        assert_eq!(u.fields["gps_lat"], "45.512300");
        assert_eq!(u.fields["gps_lon"], "-122.654300");
        assert_eq!(u.fields["orientation"], "6");
        assert_eq!(c.meta.extra["gps"], "45.512300, -122.654300");
    }

    #[test]
    fn plain_image_and_naive_exif_time() {
        let bytes = png(4, 3);
        let c = convert_image(&image_input("diagram.png", &bytes)).unwrap();
        assert_eq!(c.units[0].text, "Image diagram.png, PNG, 4×3");
        assert_eq!(c.units[0].content_time, None);
        let t = exif_time("2008:10:22 16:28:39", None).unwrap();
        assert_eq!(t.to_rfc3339(), "2008-10-22T16:28:39+00:00");
        assert_eq!(exif_time("0000:00:00 00:00:00", None), None);
        assert_eq!(
            camera_name(Some("Canon".into()), Some("Canon EOS R5".into())).unwrap(),
            "Canon EOS R5"
        );
    }

    #[test]
    fn broken_images_are_errors() {
        let err = |bytes: &[u8]| convert_image(&image_input("x.png", bytes)).unwrap_err();
        assert!(matches!(err(b""), ConvertError::Empty));
        let png = png(64, 64);
        assert_eq!(err(&png[..png.len() / 2]).reason(), "corrupt");
        let mut bad_header = png.clone();
        bad_header[12..16].copy_from_slice(b"XXXX"); // IHDR renamed
        assert_eq!(err(&bad_header).reason(), "corrupt");
        assert_eq!(
            err(b"random bytes that are no image at all").reason(),
            "corrupt"
        );
        // A PDF named .jpg.
        assert_eq!(err(b"%PDF-1.7\n1 0 obj\n").reason(), "corrupt");
        // Formats this build cannot decode still get a metadata unit.
        let mut heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic".to_vec();
        heic.extend([0u8; 16]);
        let c = convert_image(&image_input("IMG_1.HEIC", &heic)).unwrap();
        assert_eq!(c.units[0].text, "Image IMG_1.HEIC, HEIC");
    }

    #[test]
    fn truncated_jpeg_with_intact_header_keeps_its_exif() {
        let bytes = jpeg_with_exif(64, 64);
        let cut = &bytes[..bytes.len() - 40];
        let c = convert_image(&image_input("cut.jpg", cut)).unwrap();
        assert!(
            c.units[0].text.starts_with("Photo cut.jpg"),
            "{}",
            c.units[0].text
        );
    }

    // --- audio / video ---------------------------------------------------------------

    fn wav_header(data_len: u32, rate: u32, channels: u16) -> Vec<u8> {
        let mut h = b"RIFF".to_vec();
        h.extend((36 + data_len).to_le_bytes());
        h.extend(b"WAVEfmt ");
        h.extend(16u32.to_le_bytes());
        h.extend(1u16.to_le_bytes());
        h.extend(channels.to_le_bytes());
        h.extend(rate.to_le_bytes());
        h.extend((rate * u32::from(channels) * 2).to_le_bytes());
        h.extend((channels * 2).to_le_bytes());
        h.extend(16u16.to_le_bytes());
        h.extend(b"data");
        h.extend(data_len.to_le_bytes());
        h
    }

    #[test]
    fn wav_duration_from_header_only() {
        let header = wav_header(64_000, 16_000, 1);
        assert_eq!(header.len(), 44);
        let c =
            convert_media(&input("Voice/memo 1.wav", &header, 64_044, FileType::Audio)).unwrap();
        let u = &c.units[0];
        assert_eq!(u.kind(), UnitKind::Media);
        assert_eq!(
            u.text,
            "Audio recording memo 1.wav, WAV, duration 2 s, 62.5 KB"
        );
        assert_eq!(u.fields["duration_s"], "2.0");
        assert_eq!(u.fields["sample_rate"], "16000");
        assert_eq!(c.meta.extra["format"], "WAV");
        // The data chunk claims more than the file holds: cut.
        let err = convert_media(&input("m.wav", &header, 1_000, FileType::Audio)).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
    }

    fn bmff_box(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut b = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        b.extend(kind);
        b.extend(body);
        b
    }

    fn mp4(duration_units: u32, chunk_offset: u32) -> Vec<u8> {
        let mut mvhd = vec![0u8; 4]; // version 0, flags
        mvhd.extend(3_786_912_000u32.to_be_bytes()); // created 2024-01-01 (1904 epoch)
        mvhd.extend(0u32.to_be_bytes());
        mvhd.extend(1000u32.to_be_bytes());
        mvhd.extend(duration_units.to_be_bytes());
        mvhd.extend([0u8; 80]);
        let mut stco = vec![0u8; 4];
        stco.extend(1u32.to_be_bytes());
        stco.extend(chunk_offset.to_be_bytes());
        let stbl = bmff_box(b"stbl", &bmff_box(b"stco", &stco));
        let mdia = bmff_box(b"mdia", &bmff_box(b"minf", &stbl));
        let mut tkhd = vec![0u8; 76];
        tkhd.extend((640u32 << 16).to_be_bytes());
        tkhd.extend((480u32 << 16).to_be_bytes());
        let trak = bmff_box(b"trak", &[bmff_box(b"tkhd", &tkhd), mdia].concat());
        let moov = bmff_box(b"moov", &[bmff_box(b"mvhd", &mvhd), trak].concat());
        let ftyp = bmff_box(b"ftyp", b"isom\0\0\x02\0isomiso2mp41");
        let mdat = bmff_box(b"mdat", &[0u8; 64]);
        [ftyp, moov, mdat].concat()
    }

    #[test]
    fn mp4_duration_size_and_time_from_moov() {
        let bytes = mp4(5_000, 200);
        let c = convert_media(&input(
            "clip.mp4",
            &bytes,
            bytes.len() as u64,
            FileType::Video,
        ))
        .unwrap();
        let u = &c.units[0];
        assert_eq!(
            u.text,
            "Video clip.mp4, MPEG-4, 640×480, duration 5 s, recorded Monday 1 January 2024 00:00, \
             360 bytes"
        );
        assert_eq!(u.fields["duration_s"], "5.0");
        assert_eq!(
            u.content_time.unwrap().to_rfc3339(),
            "2024-01-01T00:00:00+00:00"
        );
        // Sample data pointing past the end of the file: cut.
        let cut = mp4(5_000, 1_000_000);
        let err = convert_media(&input("cut.mp4", &cut, cut.len() as u64, FileType::Video));
        assert_eq!(err.unwrap_err().reason(), "corrupt");
        // Only the head of a larger file: a box beyond the real size is a cut, but an
        // unknown tail is not.
        let head = &bytes[..100];
        assert!(convert_media(&input("h.mp4", head, bytes.len() as u64, FileType::Video)).is_ok());
        assert!(convert_media(&input("h.mp4", head, 120, FileType::Video)).is_err());
    }

    #[test]
    fn broken_media_headers() {
        let bad = |bytes: &[u8]| {
            convert_media(&input("x.mp4", bytes, bytes.len() as u64, FileType::Video)).unwrap_err()
        };
        assert!(matches!(bad(b""), ConvertError::Empty));
        assert_eq!(bad(b"tiny").reason(), "corrupt");
        let noise: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 7) as u8 | 1)
            .collect();
        assert_eq!(bad(&noise).reason(), "corrupt");
        // Text named .mp3.
        let text = b"This is not an audio file, just some words in a text file.";
        let err = convert_media(&input("a.mp3", text, text.len() as u64, FileType::Audio));
        assert_eq!(err.unwrap_err().reason(), "corrupt");
        // A truncated Matroska header.
        let mkv = b"\x1A\x45\xDF\xA3\x9F\x42\x86\x81\x01";
        assert_eq!(
            bad(&[mkv.as_slice(), &[0u8; 8]].concat()).reason(),
            "corrupt"
        );
    }

    #[test]
    fn flac_streaminfo() {
        let mut flac = b"fLaC\0\0\0\x22".to_vec();
        flac.extend([0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0]);
        // 44100 Hz, 2 channels, 16 bits, 441000 samples.
        let packed: u64 = (44_100u64 << 44) | (1 << 41) | (15 << 36) | 441_000;
        flac.extend(packed.to_be_bytes());
        flac.extend([0u8; 16]);
        let c = convert_media(&input("s.flac", &flac, 10_000, FileType::Audio)).unwrap();
        assert_eq!(c.units[0].fields["duration_s"], "10.0");
        assert_eq!(c.units[0].fields["channels"], "2");
    }

    // --- binaries ----------------------------------------------------------------------

    fn npy(header: &str) -> Vec<u8> {
        let mut h = header.to_string();
        while (11 + h.len()) & 63 != 0 {
            h.push(' ');
        }
        h.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((h.len() as u16).to_le_bytes());
        out.extend(h.as_bytes());
        out.extend([0u8; 48]);
        out
    }

    #[test]
    fn npy_header_is_described() {
        let bytes = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
        let c =
            convert_binary(&input("data/emb.npy", &bytes, 2_000_000, FileType::Binary)).unwrap();
        let u = &c.units[0];
        assert_eq!(u.kind(), UnitKind::Metadata);
        assert_eq!(
            u.text,
            "File emb.npy, NumPy array, 1.9 MB\ndtype float32 (<f4), shape (3, 4)"
        );
        assert_eq!(u.fields["shape"], "(3, 4)");
        assert_eq!(u.fields["dtype"], "float32");
        let bad = npy("{'fortran_order': False}");
        let err = convert_binary(&input("x.npy", &bad, 100, FileType::Binary)).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
        let err = convert_binary(&input("x.npy", &bytes[..12], 100, FileType::Binary));
        assert_eq!(err.unwrap_err().reason(), "corrupt");
    }

    fn zip_bytes(names: &[&str]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for name in names {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(b"some content some content").unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn zip_members_are_listed() {
        let bytes = zip_bytes(&["report.docx", "photos/beach.jpg"]);
        let size = bytes.len() as u64;
        let c =
            convert_binary(&input("Downloads/trip.zip", &bytes, size, FileType::Binary)).unwrap();
        assert_eq!(
            c.units[0].text,
            format!(
                "File trip.zip, zip archive, {size} bytes\nContains: report.docx, photos/beach.jpg"
            )
        );
        assert_eq!(c.units[0].fields["members"], "2");
        // Only the head of a bigger file: names come from the local headers.
        let head = &bytes[..bytes.len() - 60];
        let c = convert_binary(&input("trip.zip", head, 1 << 30, FileType::Binary)).unwrap();
        assert!(
            c.units[0].text.contains("report.docx"),
            "{}",
            c.units[0].text
        );
        // The whole file, central directory damaged.
        let mut broken = bytes.clone();
        let eocd = broken.len() - 22;
        broken[eocd + 16..eocd + 20].copy_from_slice(&9_999u32.to_le_bytes());
        let err = convert_binary(&input("b.zip", &broken, size, FileType::Binary)).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
    }

    #[test]
    fn other_binaries() {
        let ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest of an encrypted package";
        let err = convert_binary(&input("secret.xlsx", ole, 4096, FileType::Binary)).unwrap_err();
        assert_eq!(err.reason(), "encrypted");
        let c = convert_binary(&input("old.doc", ole, 4096, FileType::Binary)).unwrap();
        assert_eq!(
            c.units[0].text,
            "File old.doc, Microsoft Word 97-2003 document, 4.0 KB"
        );
        let c = convert_binary(&input("m.pkl", b"\x80\x04\x95", 10, FileType::Binary)).unwrap();
        assert_eq!(c.units[0].text, "File m.pkl, Python pickle, 10 bytes");
        let mut gz = b"\x1f\x8b\x08\x08\0\0\0\0\0\x03notes.txt\0".to_vec();
        gz.extend([0u8; 8]);
        let c = convert_binary(&input("n.gz", &gz, 30, FileType::Binary)).unwrap();
        assert!(c.units[0]
            .text
            .contains("gzip compressed data (of notes.txt)"));
        let header = br#"{"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}"#;
        let mut st = (header.len() as u64).to_le_bytes().to_vec();
        st.extend(header);
        let c = convert_binary(&input("m.safetensors", &st, 100, FileType::Binary)).unwrap();
        assert!(
            c.units[0].text.ends_with("Tensors: w F32 [2,3]"),
            "{}",
            c.units[0].text
        );
        assert!(matches!(
            convert_binary(&input("e.bin", b"", 0, FileType::Binary)),
            Err(ConvertError::Empty)
        ));
    }

    #[test]
    fn broken_corpus_files_when_present() {
        let dir = std::path::Path::new("../../shared/corpus/realworld/Broken");
        if !dir.exists() {
            println!("note: {} not present, skipped", dir.display());
            return;
        }
        let cases: [(&str, FileType, bool); 8] = [
            ("broken.png", FileType::Image, false),
            ("broken_data_stream.png", FileType::Image, false),
            ("truncated_image.png", FileType::Image, false),
            ("truncated_jpeg.jpg", FileType::Image, true),
            ("empty.webm", FileType::Video, false),
            ("invalid_userdata.mp4", FileType::Video, false),
            ("truncated.mkv", FileType::Video, false),
            ("invalid_offset.zip", FileType::Binary, false),
        ];
        for (name, file_type, ok) in cases {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let head = &bytes[..bytes.len().min(1 << 20)];
            let result = crate::convert(&input(name, head, bytes.len() as u64, file_type));
            assert_eq!(result.is_ok(), ok, "{name}: {result:?}");
        }
    }

    #[test]
    fn truncated_jpeg_is_reported_as_damaged() {
        let mut jpeg = Vec::new();
        image::DynamicImage::new_rgb8(16, 16)
            .write_to(
                &mut std::io::Cursor::new(&mut jpeg),
                image::ImageFormat::Jpeg,
            )
            .unwrap();
        let whole = crate::convert(&Input::detect("a.jpg", &jpeg)).unwrap();
        assert!(!whole.meta.extra.contains_key(crate::unit::DAMAGE_KEY));
        let cut = &jpeg[..jpeg.len() - 2];
        if let Ok(partial) = crate::convert(&Input::detect("a.jpg", cut)) {
            assert!(partial.meta.extra[crate::unit::DAMAGE_KEY].contains("truncated"));
        }
    }

    // --- damaged and random input -----------------------------------------------------

    fn flac() -> Vec<u8> {
        let mut flac = b"fLaC\0\0\0\x22".to_vec();
        flac.extend([0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0]);
        let packed: u64 = (44_100u64 << 44) | (1 << 41) | (15 << 36) | 441_000;
        flac.extend(packed.to_be_bytes());
        flac.extend([0u8; 16]);
        flac
    }

    /// An EBML element with an 8-byte size.
    fn ebml(id: &[u8], body: &[u8]) -> Vec<u8> {
        let mut out = id.to_vec();
        out.push(0x01);
        out.extend(&(body.len() as u64).to_be_bytes()[1..]);
        out.extend(body);
        out
    }

    fn webm() -> Vec<u8> {
        let header = ebml(b"\x1A\x45\xDF\xA3", &ebml(b"\x42\x82", b"webm"));
        let info = ebml(
            b"\x15\x49\xA9\x66",
            &[
                ebml(b"\x2A\xD7\xB1", &1_000_000u32.to_be_bytes()[1..]),
                ebml(b"\x44\x89", &12_500.0f64.to_be_bytes()),
            ]
            .concat(),
        );
        let cluster = ebml(b"\x1F\x43\xB6\x75", &[0u8; 32]);
        [header, ebml(b"\x18\x53\x80\x67", &[info, cluster].concat())].concat()
    }

    fn aiff() -> Vec<u8> {
        let mut comm = 2u16.to_be_bytes().to_vec();
        comm.extend(88_200u32.to_be_bytes());
        comm.extend(16u16.to_be_bytes());
        comm.extend([0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]); // 44100 Hz
        let mut chunk = b"COMM".to_vec();
        chunk.extend((comm.len() as u32).to_be_bytes());
        chunk.extend(comm);
        let mut out = b"FORM".to_vec();
        out.extend(((chunk.len() + 4) as u32).to_be_bytes());
        out.extend(b"AIFF");
        out.extend(chunk);
        out
    }

    fn ogg() -> Vec<u8> {
        let mut out = b"OggS\0\x02".to_vec();
        out.extend([0u8; 22]);
        out.extend(b"\x01vorbis\0\0\0\0\x02");
        out.extend(44_100u32.to_le_bytes());
        out.extend([0u8; 16]);
        out
    }

    fn avi() -> Vec<u8> {
        let mut avih = 40_000u32.to_le_bytes().to_vec(); // 25 fps
        avih.extend([0u8; 12]);
        avih.extend(250u32.to_le_bytes()); // frames
        avih.extend([0u8; 12]);
        avih.extend(320u32.to_le_bytes());
        avih.extend(240u32.to_le_bytes());
        avih.extend([0u8; 16]);
        let mut list = b"hdrlavih".to_vec();
        list.extend((avih.len() as u32).to_le_bytes());
        list.extend(avih);
        let mut body = b"AVI LIST".to_vec();
        body.extend((list.len() as u32).to_le_bytes());
        body.extend(list);
        let mut out = b"RIFF".to_vec();
        out.extend((body.len() as u32).to_le_bytes());
        out.extend(body);
        out
    }

    fn tar(names: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for name in names {
            let mut header = [0u8; 512];
            header[..name.len()].copy_from_slice(name.as_bytes());
            header[124..136].copy_from_slice(b"00000000012\0");
            header[257..262].copy_from_slice(b"ustar");
            out.extend(header);
            out.extend([b'x'; 512]);
        }
        out
    }

    /// A size as `convert_media` may see it: the whole file, the head of a larger file,
    /// or a file that grew or shrank between listing and reading.
    fn some_size(rng: &mut Rng, len: usize) -> u64 {
        match rng.below(3) {
            0 => len as u64,
            1 => (len + rng.below(1 << 20)) as u64,
            _ => rng.below(len + 1) as u64,
        }
    }

    #[test]
    fn damaged_media_headers_do_not_panic() {
        let fixtures: Vec<(&str, FileType, Vec<u8>)> = vec![
            (
                "a.wav",
                FileType::Audio,
                [wav_header(64, 16_000, 1), vec![0; 64]].concat(),
            ),
            ("v.mp4", FileType::Video, mp4(5_000, 200)),
            ("s.flac", FileType::Audio, flac()),
            ("v.webm", FileType::Video, webm()),
            ("a.aiff", FileType::Audio, aiff()),
            ("a.ogg", FileType::Audio, ogg()),
            ("v.avi", FileType::Video, avi()),
            (
                "a.mp3",
                FileType::Audio,
                [
                    b"ID3\x04\0\0\0\0\0\x10".as_slice(),
                    &[0xFF, 0xFB, 0x90, 0x64],
                    &[0u8; 48],
                ]
                .concat(),
            ),
        ];
        for (name, file_type, bytes) in &fixtures {
            let c = convert_media(&input(name, bytes, bytes.len() as u64, *file_type));
            assert!(c.is_ok(), "intact {name}: {c:?}");
        }
        let mut rng = Rng(0x3ED1_A000_0000_0001);
        for _ in 0..1500 {
            let (name, file_type, base) = rng.pick(&fixtures);
            let bytes = testutil::mutate(&mut rng, base);
            let size = some_size(&mut rng, bytes.len());
            let Ok(c) = convert_media(&input(name, &bytes, size, *file_type)) else {
                continue;
            };
            testutil::check_conversion(&c, name);
            if let Some(d) = c.units[0].fields.get("duration_s") {
                let d: f64 = d.parse().unwrap();
                assert!(d >= 0.0, "{name}: duration {d}");
            }
        }
    }

    #[test]
    fn bmff_boxes_with_64_bit_sizes_near_the_limit_are_errors() {
        let ftyp = bmff_box(b"ftyp", b"isom\0\0\x02\0isomiso2mp41");
        for k in 0..64u64 {
            for declared in [u64::MAX - k, (u64::MAX - k) / 2, 1 << 63, u64::MAX >> k] {
                let mut bytes = ftyp.clone();
                bytes.extend(1u32.to_be_bytes());
                bytes.extend(b"free");
                bytes.extend(declared.to_be_bytes());
                bytes.extend([0u8; 32]);
                let size = bytes.len() as u64;
                let result = convert_media(&input("b.mp4", &bytes, size, FileType::Video));
                assert_eq!(result.unwrap_err().reason(), "corrupt", "{declared}");
            }
        }
    }

    #[test]
    fn damaged_fixture_media_files_do_not_panic_when_present() {
        let mut rng = Rng(0x3ED1_A000_0000_0002);
        for (name, file_type) in [
            ("memo.mp3", FileType::Audio),
            ("screen.mp4", FileType::Video),
            ("truncated.mp4", FileType::Video),
        ] {
            let Ok(bytes) = std::fs::read(format!("../tests/fixtures/media/{name}")) else {
                println!("note: {name} not present, skipped");
                continue;
            };
            for _ in 0..60 {
                let damaged = testutil::mutate(&mut rng, &bytes);
                let size = some_size(&mut rng, damaged.len());
                if let Ok(c) = convert_media(&input(name, &damaged, size, file_type)) {
                    testutil::check_conversion(&c, name);
                }
            }
        }
    }

    #[test]
    fn damaged_images_do_not_panic() {
        let fixtures = [jpeg_with_exif(32, 16), png(16, 8), exif_tiff()];
        let mut rng = Rng(0x1A6E_0000_0000_0001);
        for _ in 0..300 {
            let base = rng.pick(&fixtures);
            let bytes = testutil::mutate(&mut rng, base);
            let Ok(c) = convert_image(&image_input("p.jpg", &bytes)) else {
                continue;
            };
            testutil::check_conversion(&c, "image");
            let fields = &c.units[0].fields;
            if let (Some(lat), Some(lon)) = (fields.get("gps_lat"), fields.get("gps_lon")) {
                let (lat, lon): (f64, f64) = (lat.parse().unwrap(), lon.parse().unwrap());
                assert!(lat.abs() <= 90.0 && lon.abs() <= 180.0, "{fields:?}");
            }
        }
    }

    #[test]
    fn exif_times_and_offsets_from_any_text() {
        let mut pieces: Vec<&str> = testutil::TEXT_PIECES.to_vec();
        pieces.extend(testutil::EDGE_NUMBERS);
        pieces.extend(["+", "-", ":", "2025:10:04 13:22:05", "2025-10-04 13:22:05"]);
        for hours in testutil::EDGE_NUMBERS {
            for minutes in testutil::EDGE_NUMBERS {
                for sign in ['+', '-'] {
                    let text = format!("{sign}{hours}:{minutes}");
                    let expected = match (hours.parse::<i32>(), minutes.parse::<i32>()) {
                        (Ok(h), Ok(m)) if (0..24).contains(&h) && (0..60).contains(&m) => {
                            let seconds = h * 3600 + m * 60;
                            FixedOffset::east_opt(if sign == '-' { -seconds } else { seconds })
                        }
                        _ => None,
                    };
                    if expected.is_some() {
                        assert_eq!(parse_offset(&text), expected, "{text}");
                    }
                    let _ = exif_time("2025:10:04 13:22:05", Some(&text));
                }
            }
        }
        let mut rng = Rng(0x1A6E_0000_0000_0002);
        for _ in 0..2000 {
            let value = testutil::random_text(&mut rng, &pieces, 12);
            let offset = testutil::random_text(&mut rng, &pieces, 6);
            if let Some(t) = exif_time(&value, Some(&offset)) {
                assert!(t.offset().local_minus_utc().abs() < 86_400);
            }
            let _ = parse_offset(&offset);
            let _ = camera_name(Some(value.clone()), Some(offset.clone()));
        }
    }

    #[test]
    fn damaged_binaries_do_not_panic() {
        let header = br#"{"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}"#;
        let mut safetensors = (header.len() as u64).to_le_bytes().to_vec();
        safetensors.extend(header);
        let fixtures: Vec<(&str, Vec<u8>)> = vec![
            (
                "x.npy",
                npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"),
            ),
            ("x.zip", zip_bytes(&["report.docx", "photos/beach.jpg"])),
            ("x.tar", tar(&["a.txt", "dir/b.bin"])),
            (
                "x.gz",
                b"\x1f\x8b\x08\x0c\0\0\0\0\0\x03\x02\0abnotes.txt\0\0\0\0\0".to_vec(),
            ),
            ("m.safetensors", safetensors),
            ("m.pkl", b"\x80\x04\x95\0\0".to_vec()),
            ("d.doc", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1 OLE".to_vec()),
        ];
        let mut rng = Rng(0xB1A4_0000_0000_0001);
        for _ in 0..1500 {
            let (name, base) = rng.pick(&fixtures);
            let bytes = testutil::mutate(&mut rng, base);
            let size = some_size(&mut rng, bytes.len());
            if let Ok(c) = convert_binary(&input(name, &bytes, size, FileType::Binary)) {
                testutil::check_conversion(&c, name);
                assert!(c.units[0].text.starts_with("File "), "{c:?}");
            }
        }
    }

    /// Whether `part` lies inside `whole` (same allocation).
    fn within(part: &[u8], whole: &[u8]) -> bool {
        let (start, end) = (
            whole.as_ptr() as usize,
            whole.as_ptr() as usize + whole.len(),
        );
        let at = part.as_ptr() as usize;
        part.is_empty() || (at >= start && at + part.len() <= end)
    }

    #[test]
    fn box_and_ebml_walkers_stay_in_bounds() {
        let seeds = [mp4(5_000, 200), webm(), Vec::new()];
        let mut rng = Rng(0xB0C5_0000_0000_0001);
        for _ in 0..2000 {
            let data = match rng.below(3) {
                0 => testutil::random_bytes(&mut rng, 96),
                _ => {
                    let seed = rng.pick(&seeds);
                    testutil::mutate(&mut rng, seed)
                }
            };
            let mut visits = 0;
            for_each_box(&data, &mut |kind, body| {
                visits += 1;
                assert!(kind.len() == 4 && within(kind, &data) && within(body, &data));
            });
            assert!(visits <= data.len() / 8);
            let children = ebml_children(&data);
            assert!(children.len() <= 256);
            assert!(children.iter().all(|(_, body)| within(body, &data)));
            for at in 0..data.len() + 4 {
                if let Ok((kind, header, size)) = box_header(&data, at, rng.next() >> rng.below(64))
                {
                    assert!(
                        within(kind, &data)
                            && (header == 8 || header == 16)
                            && size >= header as u64
                    );
                }
                if let Some((_, len)) = ebml_id(&data, at) {
                    assert!((1..=4).contains(&len) && at + len <= data.len());
                }
                if let Some((_, len)) = ebml_size(&data, at) {
                    assert!((1..=8).contains(&len) && at + len <= data.len());
                }
            }
            let names = zip_local_names(&data);
            assert!(names.len() <= MAX_MEMBERS);
            let _ = gzip_kind(&data);
            let _ = describe_tar(&data);
            let _ = describe_safetensors(&data);
            let _ = probe_media(&data, data.len() as u64);
            let text = String::from_utf8_lossy(&data);
            for key in ["descr", "shape"] {
                if let Some(value) = dict_value(&text, key) {
                    assert!(text.contains(&value) && value == value.trim(), "{text:?}");
                }
            }
        }
    }
}
