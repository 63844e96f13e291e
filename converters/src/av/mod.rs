//! Audio and video → one [`UnitKind::Media`] unit from the container headers ("Video
//! clip.mp4, MPEG-4, 640×480, duration 5 s, recorded Monday 1 January 2024 00:00, 360
//! bytes"), with `format`, `duration_s`, `width`/`height`, `sample_rate` and `channels`
//! in `fields` and the recording time, when the container states one, as content time.
//!
//! `input.bytes` may hold only the head of the file (the indexer reads the first MiB of a
//! media file on disk); `input.size` is the real size. The container is recognised by its magic
//! bytes and read as far as its headers go: RIFF (WAV, AVI: [`riff`]), ISO base media
//! (MP4, MOV, M4A, 3GP: [`bmff`]), EBML (Matroska, WebM: [`ebml`]) and, here, FLAC
//! STREAMINFO, AIFF COMM, the codec of the first Ogg stream, and MP3, AAC (ADTS), MPEG
//! program streams and ASF by their magic alone. Without a decoder a file cannot be fully
//! validated: the checks stop at the headers (their structure, a declared size that runs
//! past the end of the file, sample data beyond it), and a failed check makes the file
//! `corrupt`.
//!
//! Speech and on-screen text are not read here: the indexer decodes audio and video files
//! with ffmpeg and adds transcript and screen-text units (`indexer::media`).

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset};

use crate::meta::{base_name, be_u16, be_u32, be_u64, find, human_size, le_u32};
use crate::{Conversion, ConvertError, FileMeta, FileType, Input, Locator, Unit, UnitKind};

mod bmff;
mod ebml;
mod riff;
#[cfg(test)]
mod tests;

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
    /// Where it was recorded (latitude, longitude in degrees), when the container says.
    gps: Option<(f64, f64)>,
}

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
/// 3: the recording position (`gps_lat`/`gps_lon`), and MP4/MOV headers at the end of
/// the file read from its tail.
pub(crate) const VERSION: u32 = 3;

/// Converts an audio or video file into one [`UnitKind::Media`] metadata unit (format,
/// duration when the headers give it cheaply). `input.bytes` may hold only the head of
/// the file; `input.size` is the real size. Transcripts and on-screen text are added by
/// the indexer.
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
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
    let probe = probe_media(input.bytes, input.tail, input.size)
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
    if let Some((lat, lon)) = probe.gps {
        text.push_str(&format!(", GPS {lat:.4}, {lon:.4}"));
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
    let mut extra = fields.clone();
    if let Some((lat, lon)) = probe.gps {
        // As photos have them: the unit's fields, and the record's `gps` (what the
        // indexer's places stage looks for).
        fields.insert("gps_lat".into(), format!("{lat:.6}"));
        fields.insert("gps_lon".into(), format!("{lon:.6}"));
        extra.insert("gps".into(), format!("{lat:.6}, {lon:.6}"));
    }
    let mut unit = Unit::new(UnitKind::Media, Locator::default(), text).with_time(probe.created);
    unit.fields = fields;
    let meta = FileMeta {
        created: probe.created,
        extra,
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

/// Identifies the container by its magic bytes and reads cheap facts from its headers
/// (`tail`: the file's last bytes, when `bytes` is only its head; see [`Input::tail`]).
fn probe_media(bytes: &[u8], tail: &[u8], size: u64) -> Result<MediaProbe, String> {
    let tag = bytes.get(8..12).unwrap_or_default();
    if bytes.starts_with(b"RIFF") && tag == b"WAVE" {
        return riff::probe_wav(bytes, size);
    }
    if bytes.starts_with(b"RIFF") && tag == b"AVI " {
        return riff::probe_avi(bytes, size);
    }
    if bytes.starts_with(b"\x1A\x45\xDF\xA3") {
        return ebml::probe_ebml(bytes, size);
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
    if bmff::looks_like_bmff(bytes) {
        return bmff::probe_bmff(bytes, tail, size);
    }
    Err("unrecognised audio/video header (no known container magic)".into())
}

fn simple(format: &str) -> MediaProbe {
    MediaProbe {
        format: format.to_string(),
        ..MediaProbe::default()
    }
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
