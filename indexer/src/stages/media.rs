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

    /// Whether this run reads a video's frames (OCR on and its models loaded).
    fn frames_read(&self) -> bool {
        self.models
            .as_deref()
            .is_some_and(SharedModels::ocr_available)
    }

    /// Whether a recorded marker holds what this run would do for a file of this type.
    fn covers(&self, recorded: Option<&str>, file_type: Option<FileType>) -> bool {
        let video = file_type == Some(FileType::Video);
        covers(&self.media.marker(), recorded, video, self.frames_read())
    }
}

/// The part of the media marker saying a video's frames were read by PP-OCRv5. An audio
/// file's marker has it too (it always had), which changes nothing for audio.
const FRAMES_PART: &str = "+ppocrv5";

/// The marker of an analysis by the models of `marker` (which ends in [`FRAMES_PART`]):
/// a video whose frames were not read lacks that part, so a later run that reads them
/// analyses it again.
fn marker_of(marker: &str, video: bool, frames_read: bool) -> String {
    match marker.strip_suffix(FRAMES_PART) {
        Some(speech) if video && !frames_read => speech.to_string(),
        _ => marker.to_string(),
    }
}

/// Whether an analysis recorded as `recorded` holds what a run with the models of
/// `marker` would do: the same marker, or, for a video when this run reads no frames,
/// the same speech models with frames read (more than this run would do).
fn covers(marker: &str, recorded: Option<&str>, video: bool, frames_read: bool) -> bool {
    let Some(recorded) = recorded else {
        return false;
    };
    recorded == marker_of(marker, video, frames_read) || (video && recorded == marker)
}

impl Stage for Media {
    fn name(&self) -> &'static str {
        "media"
    }

    fn marker(&self) -> Option<String> {
        self.media.available().then(|| self.media.marker())
    }

    fn owes(&self, record: &FileRecord) -> bool {
        self.media.available()
            && matches!(record.file_type, Some(FileType::Audio | FileType::Video))
            && !self.covers(record.stages.media.as_deref(), record.file_type)
    }

    fn applies(&self, input: &StageInput<'_>) -> bool {
        matches!(input.file_type, FileType::Audio | FileType::Video)
            && (input.on_disk.is_some() || input.bytes.is_some())
            && self.media.available()
    }

    /// An earlier analysis by this run's models that ffmpeg and the models completed:
    /// a file whose analysis left a note (recorded as damage) is analysed again. A
    /// video's marker says whether its frames were read.
    fn holds(&self, earlier: &FileRecord) -> bool {
        self.media.available()
            && self.covers(earlier.stages.media.as_deref(), earlier.file_type)
            && !earlier.extra.contains_key(converters::unit::DAMAGE_KEY)
    }

    fn carry(
        &self,
        earlier: &FileRecord,
        units: &[crate::StoredUnit],
        converted: &mut Converted,
    ) -> bool {
        if converted.record.status != FileStatus::Indexed {
            return false;
        }
        let created = created_of(&converted.record);
        self.media.carry(units, created, &mut converted.units);
        // What was done, which may be more than this run does (frames read then).
        converted.record.stages.media = earlier.stages.media.clone();
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
    let video = file_type == FileType::Video;
    let note = media.apply(file, video, created, engine, tagger, &mut converted.units);
    record.stages.media = Some(marker_of(&media.marker(), video, engine.is_some()));
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

#[cfg(test)]
mod tests {
    use super::*;

    const MARKER: &str = "silero6+whisper-base+ppocrv5";
    const SPEECH_ONLY: &str = "silero6+whisper-base";

    #[test]
    fn a_video_is_marked_with_whether_its_frames_were_read() {
        assert_eq!(marker_of(MARKER, true, true), MARKER);
        assert_eq!(marker_of(MARKER, true, false), SPEECH_ONLY);
        // Audio keeps the marker it always had, so that no memo is heard again.
        assert_eq!(marker_of(MARKER, false, false), MARKER);
        assert_eq!(marker_of(MARKER, false, true), MARKER);
    }

    #[test]
    fn a_run_that_reads_frames_analyses_again_a_video_whose_frames_were_not() {
        // This run reads frames: only a video analysed with frames is covered.
        assert!(covers(MARKER, Some(MARKER), true, true));
        assert!(!covers(MARKER, Some(SPEECH_ONLY), true, true));
        // This run reads none (OCR off): a video with or without frames read is
        // covered, so that switching OCR off never drops screen text.
        assert!(covers(MARKER, Some(MARKER), true, false));
        assert!(covers(MARKER, Some(SPEECH_ONLY), true, false));
        // Audio: the marker only.
        assert!(covers(MARKER, Some(MARKER), false, false));
        assert!(!covers(MARKER, Some(SPEECH_ONLY), false, true));
        // Other speech models, or nothing recorded: not covered.
        let tiny = "silero6+whisper-tiny.en+ppocrv5";
        for video in [false, true] {
            for frames in [false, true] {
                assert!(!covers(MARKER, Some(tiny), video, frames));
                assert!(!covers(MARKER, None, video, frames));
            }
        }
    }
}
