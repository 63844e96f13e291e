//! The speech and on-screen text of audio and video files on disk (see `crate::media`
//! for decoding, VAD, Whisper and frames), as a stage: units per spoken sentence and
//! per run of equal screen text, the models recorded in the file's `media` marker.

use std::path::Path;
use std::sync::Arc;

use chrono::DateTime;
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
            && record.parent_path.is_none()
            && matches!(record.file_type, Some(FileType::Audio | FileType::Video))
    }

    fn applies(&self, input: &StageInput<'_>) -> bool {
        matches!(input.file_type, FileType::Audio | FileType::Video)
            && input.on_disk.is_some()
            && self.media.available()
    }

    fn apply(&self, input: &StageInput<'_>, converted: &mut Converted) {
        let Some(file) = input.on_disk else { return };
        if converted.record.status == FileStatus::Indexed {
            analyse_media(
                &self.media,
                self.models.as_deref(),
                file,
                input.file_type,
                converted,
            );
        }
    }
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
    let created = record
        .created
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok());
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
