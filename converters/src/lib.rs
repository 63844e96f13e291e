//! Converters: turn personal files into atomic units (AUs).
//!
//! Pure functions: bytes in, [`Conversion`] out; nothing here knows about the index. The
//! public surface:
//!
//! - [`detect()`] (module [`detect`]): the [`FileType`] of a file from its name and first
//!   bytes, content first, extension second;
//! - [`convert`]: an [`Input`] (name, bytes, real size, detected type) → units, through
//!   the registry that maps each type to its converter. Every converter runs under
//!   `catch_unwind`, so a panic inside a parsing library becomes a per-file
//!   [`ConvertError::Panic`] rather than a crash;
//! - [`converter_version`] and [`is_current`]: the version of each type's converter,
//!   which the indexer stores per file, so that improving one converter re-converts only
//!   the files of its types;
//! - the unit model (module [`unit`]): [`Unit`], [`Locator`], [`UnitKind`], [`Modality`],
//!   [`FileMeta`], [`ChildFile`], [`Conversion`];
//! - [`approx_tokens`], the token estimate the converters size their units with.
//!
//! The format modules are private: `pdf`, `office` (docx, odt, pptx), `sheet` (xlsx, xls,
//! ods, csv, tsv), `mail`, `calendar`, `sqlite`, `text` (text, html, ipynb), `image`,
//! `av` (audio and video containers) and `binary`; `registry` maps types to them.

mod av;
mod binary;
mod calendar;
pub mod detect;
mod error;
pub mod fuzz;
mod image;
mod log_records;
pub use log_records::MAX_GATHERED_UNITS;
pub mod mail;
mod meta;
pub mod name_date;
mod office;
mod panic_capture;
mod pdf;
pub mod places;
mod record_dates;
pub use record_dates::mentioned_dates;
mod registry;
mod sheet;
mod sqlite;
mod text;
mod tokens;
pub mod unit;

/// RRULE parsing shared with the daemon's routine summary (`FREQ=WEEKLY;BYDAY=MO,WE`).
pub mod rrule {
    pub use crate::calendar::{bydays, rule_parts};
}
pub use detect::{detect, extension_of, FileType};
pub use error::ConvertError;
pub use registry::{converter_version, is_current};
pub use text::approx_tokens;
pub use unit::{ChildFile, Conversion, FileMeta, Locator, Modality, Unit, UnitKind};

/// Largest file whose full content is loaded for conversion.
pub const MAX_CONTENT_BYTES: u64 = 512 * 1024 * 1024;

/// One file handed to a converter.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The file's path relative to the profile root (or a virtual path such as
    /// `Mail/x.eml#attachment/report.pdf`); used for messages and the extension.
    pub name: &'a str,
    /// The whole file for document and text types; for media and binaries
    /// ([`FileType::needs_full_content`] is false) at least the first
    /// [`detect::SNIFF_LEN`] bytes, more when cheap (EXIF sits in the first 64 KiB).
    pub bytes: &'a [u8],
    /// The file's real size in bytes.
    pub size: u64,
    pub file_type: FileType,
    /// The last bytes of the file when `bytes` holds only its head and the reader
    /// fetched its end too (a video whose index, `moov`, follows its media data); the
    /// tail ends at byte `size`. Empty otherwise.
    pub tail: &'a [u8],
}

impl<'a> Input<'a> {
    /// An input holding a whole in-memory file, type detected from name and content.
    pub fn detect(name: &'a str, bytes: &'a [u8]) -> Input<'a> {
        let head = &bytes[..bytes.len().min(detect::SNIFF_LEN)];
        Input {
            tail: &[],
            name,
            bytes,
            size: bytes.len() as u64,
            file_type: detect(name, head),
        }
    }
}

/// Converts one file into units. Never panics: a panic inside a converter is caught and
/// returned as [`ConvertError::Panic`].
pub fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    if input.size == 0 {
        return Err(ConvertError::Empty);
    }
    if input.file_type.needs_full_content() && input.size > MAX_CONTENT_BYTES {
        return Err(ConvertError::TooLarge {
            size: input.size,
            limit: MAX_CONTENT_BYTES,
        });
    }
    let format = input.file_type.as_str();
    let converter = registry::converter_for(input.file_type);
    let result = panic_capture::catching(|| (converter.convert)(input));
    match result {
        Ok(converted) => converted,
        Err(detail) => Err(ConvertError::Panic { format, detail }),
    }
}

#[cfg(test)]
mod testutil;
