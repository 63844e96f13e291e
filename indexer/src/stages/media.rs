//! The speech and on-screen text of audio and video files (see `crate::media` for
//! decoding, VAD, Whisper and frames), as a stage: units per spoken sentence and per
//! run of equal screen text, the models recorded in the file's `media` marker. Files on
//! disk are read where they are; attachments (in memory only) are written to a private
//! temporary file for ffmpeg first, named with the attachment's extension.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, FixedOffset};
use converters::FileType;

use super::{Stage, StageInput};
use crate::converted::{tally_units, Converted};
use crate::manifest::{FileRecord, FileStatus};
use crate::media::MediaStage;
use crate::models::SharedModels;

pub struct Media {
    media: Arc<MediaStage>,
    /// OCR and tags for video frames, when OCR is on.
    models: Option<Arc<SharedModels>>,
}

impl Media {
    pub fn new(media: Arc<MediaStage>, models: Option<Arc<SharedModels>>) -> Media {
        Media { media, models }
    }
}

impl Stage for Media {
    fn name(&self) -> &'static str {
        "media"
    }

    fn marker(&self) -> Option<String> {
        self.media.available().then(|| self.media.marker())
    }

    fn owes(&self, record: &FileRecord) -> bool {
        self.media.missing(record.stages.media.as_deref())
            && matches!(record.file_type, Some(FileType::Audio | FileType::Video))
    }

    fn applies(&self, input: &StageInput<'_>) -> bool {
        matches!(input.file_type, FileType::Audio | FileType::Video)
            && (input.on_disk.is_some() || input.bytes.is_some())
            && self.media.available()
    }

    /// An earlier analysis by this run's models that ffmpeg and the models completed:
    /// a file whose analysis left a note (recorded as damage) is analysed again.
    fn holds(&self, earlier: &FileRecord) -> bool {
        self.media.available()
            && earlier.stages.media.as_deref() == Some(self.media.marker().as_str())
            && !earlier.extra.contains_key(converters::unit::DAMAGE_KEY)
    }

    fn carry(&self, earlier: &[crate::StoredUnit], converted: &mut Converted) -> bool {
        if converted.record.status != FileStatus::Indexed {
            return false;
        }
        // The media marker does not say whether frames were read (OCR off, or no models):
        // a video carries only when they are now and its earlier units have screen text.
        let video = converted.record.file_type == Some(FileType::Video);
        let screen = |unit: &crate::StoredUnit| {
            unit.fields.get(crate::media::TRACK_KEY).map(String::as_str) == Some("screen")
        };
        let frames_read_now = self
            .models
            .as_deref()
            .is_some_and(SharedModels::ocr_available);
        if video && !(frames_read_now && earlier.iter().any(screen)) {
            return false;
        }
        let created = created_of(&converted.record);
        self.media.carry(earlier, created, &mut converted.units);
        converted.record.stages.media = Some(self.media.marker());
        tally_units(&mut converted.record, &converted.units);
        true
    }

    fn apply(&self, input: &StageInput<'_>, converted: &mut Converted) {
        if converted.record.status != FileStatus::Indexed {
            return;
        }
        let (models, file_type) = (self.models.as_deref(), input.file_type);
        match (input.on_disk, input.bytes) {
            (Some(file), _) => analyse_media(&self.media, models, file, file_type, converted),
            (None, Some(bytes)) => match attachment_copy(input.path, bytes) {
                Ok(copy) => analyse_media(&self.media, models, copy.path(), file_type, converted),
                Err(error) => {
                    tracing::warn!(path = input.path, error = %error, "attachment not copied for ffmpeg");
                }
            },
            (None, None) => {}
        }
    }
}

/// A temporary copy of an attachment's bytes, named with its extension (ffmpeg probes
/// the content, but some demuxers want the name too). Removed when dropped.
fn attachment_copy(path: &str, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let ext = converters::extension_of(path);
    let suffix =
        if !ext.is_empty() && ext.len() <= 7 && ext.chars().all(|c| c.is_ascii_alphanumeric()) {
            format!(".{ext}")
        } else {
            String::new()
        };
    let mut copy = tempfile::Builder::new()
        .prefix("dentate-attachment")
        .suffix(&suffix)
        .tempfile()?;
    std::io::Write::write_all(&mut copy, bytes)?;
    std::io::Write::flush(&mut copy)?;
    Ok(copy)
}

/// Adds the speech and screen units of an audio/video file (see [`crate::media`]).
fn analyse_media(
    media: &MediaStage,
    models: Option<&SharedModels>,
    file: &Path,
    file_type: FileType,
    converted: &mut Converted,
) {
    let record = &mut converted.record;
    let created = created_of(record);
    let engine = models.and_then(SharedModels::engine);
    let tagger = models.and_then(SharedModels::tagger);
    let note = media.apply(
        file,
        file_type == FileType::Video,
        created,
        engine,
        tagger,
        &mut converted.units,
    );
    record.stages.media = Some(media.marker());
    if let Some(note) = note {
        // The metadata unit stays; the file is listed as damaged with ffmpeg's reason.
        tracing::warn!(path = %record.path, note = %note, "media analysis incomplete");
        let damage = match record.extra.get(converters::unit::DAMAGE_KEY) {
            Some(earlier) => format!("{earlier}; {note}"),
            None => note,
        };
        record
            .extra
            .insert(converters::unit::DAMAGE_KEY.to_string(), damage);
    }
    tally_units(record, &converted.units);
}

/// The recording's own time, which dates its speech and screen units.
fn created_of(record: &FileRecord) -> Option<DateTime<FixedOffset>> {
    record
        .created
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
}
