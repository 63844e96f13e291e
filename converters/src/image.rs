//! Images → one [`UnitKind::Image`] unit that describes the picture in a sentence
//! ("Photo IMG_4471.jpg, JPEG, 32×16, taken Saturday 4 October 2025 13:22 with Apple
//! iPhone 13, GPS 45.5123, -122.6543"), with the same facts in `fields` (`format`,
//! `width`, `height`, `camera`, `gps_lat`/`gps_lon`, `orientation`, `taken`) and the EXIF
//! time as the unit's content time.
//!
//! EXIF comes from any container kamadak-exif reads (JPEG, TIFF, PNG, WebP, HEIF). Images
//! up to [`MAX_DECODE_PIXELS`] are decoded in full (with a memory cap), so damaged pixel
//! data makes the file `corrupt` unless its header and EXIF survived (then the unit keeps
//! the EXIF facts). A JPEG without its end-of-image marker is indexed with a damage note.
//! Formats this build cannot decode (HEIC, AVIF, SVG, ICO) still get a unit from their
//! name, format and EXIF (the indexer decodes HEIC/HEIF and AVIF for OCR and tags with
//! libheif's `heif-convert`, `indexer::pictures`). TIFF and GIF are probed by their
//! first page or frame; the indexer reads the others.
//!
//! The text in the picture and its visual tags are not read here: the indexer appends
//! them to this unit (`indexer::ocr`, `indexer::tags`).

use std::io::Cursor;

use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone};
use exif::{In, Tag, Value};
use image::{ImageError, ImageFormat, ImageReader};

use crate::meta::base_name;
use crate::{Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};

/// Images up to this many pixels are decoded in full to check the pixel data.
const MAX_DECODE_PIXELS: u64 = 40_000_000;
/// Decoder memory cap.
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;

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

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 2;

/// Converts an image into one [`UnitKind::Image`] metadata unit (dimensions, format,
/// EXIF time, camera, GPS). OCR text and visual tags are added by the indexer.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
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
    if let Some(brand) = crate::detect::heif_brand(bytes) {
        return Some(if brand.starts_with(b"avi") {
            "AVIF"
        } else {
            "HEIC"
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{self, input, Rng};
    use crate::FileType;

    fn image_input<'a>(name: &'a str, bytes: &'a [u8]) -> Input<'a> {
        input(name, bytes, bytes.len() as u64, FileType::Image)
    }

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
        let c = convert(&image_input("Pictures/2025/IMG_4471.jpg", &bytes)).unwrap();
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
    fn photo_gets_the_nearest_place_of_its_gps_position() {
        let bytes = jpeg_with_exif(32, 16);
        let mut c = convert(&image_input("Pictures/2025/IMG_4471.jpg", &bytes)).unwrap();
        let unit = &mut c.units[0];
        assert!(crate::places::annotate(
            unit,
            &crate::places::tests::sample()
        ));
        assert_eq!(
            unit.text,
            "Photo IMG_4471.jpg, JPEG, 32×16, taken Saturday 4 October 2025 13:22 with Apple \
             iPhone 13, GPS 45.5123, -122.6543. Place: Portland, Oregon, US (United States)"
        );
        assert_eq!(unit.fields["place"], "Portland, Oregon, US");
        assert_eq!(unit.fields["gps_lat"], "45.512300");
        assert_eq!(unit.fields["gps_lon"], "-122.654300");
        // A picture without GPS is left as it is.
        let mut plain = convert(&image_input("diagram.png", &png(4, 3))).unwrap();
        assert!(!crate::places::annotate(
            &mut plain.units[0],
            &crate::places::tests::sample()
        ));
    }

    #[test]
    fn plain_image_and_naive_exif_time() {
        let bytes = png(4, 3);
        let c = convert(&image_input("diagram.png", &bytes)).unwrap();
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
        let err = |bytes: &[u8]| convert(&image_input("x.png", bytes)).unwrap_err();
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
        let c = convert(&image_input("IMG_1.HEIC", &heic)).unwrap();
        assert_eq!(c.units[0].text, "Image IMG_1.HEIC, HEIC");
    }

    #[test]
    fn truncated_jpeg_with_intact_header_keeps_its_exif() {
        let bytes = jpeg_with_exif(64, 64);
        let cut = &bytes[..bytes.len() - 40];
        let c = convert(&image_input("cut.jpg", cut)).unwrap();
        assert!(
            c.units[0].text.starts_with("Photo cut.jpg"),
            "{}",
            c.units[0].text
        );
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

    #[test]
    fn damaged_images_do_not_panic() {
        let fixtures = [jpeg_with_exif(32, 16), png(16, 8), exif_tiff()];
        let mut rng = Rng(0x1A6E_0000_0000_0001);
        for _ in 0..300 {
            let base = rng.pick(&fixtures);
            let bytes = testutil::mutate(&mut rng, base);
            let Ok(c) = convert(&image_input("p.jpg", &bytes)) else {
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
    #[cfg_attr(
        not(dentate_shared),
        ignore = "needs ../shared/corpus beside the repository"
    )]
    fn broken_corpus_files_when_present() {
        let dir = std::path::Path::new("../../shared/corpus/realworld/Broken");
        if !dir.exists() {
            panic!("missing: {} not present", dir.display());
        }
        let cases: [(&str, FileType, bool); 4] = [
            ("broken.png", FileType::Image, false),
            ("broken_data_stream.png", FileType::Image, false),
            ("truncated_image.png", FileType::Image, false),
            ("truncated_jpeg.jpg", FileType::Image, true),
        ];
        for (name, file_type, ok) in cases {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let head = &bytes[..bytes.len().min(1 << 20)];
            let result = crate::convert(&input(name, head, bytes.len() as u64, file_type));
            assert_eq!(result.is_ok(), ok, "{name}: {result:?}");
        }
    }
}
