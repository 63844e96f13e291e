//! Converters: turn personal files into atomic units (AUs).
//!
//! Pure functions: bytes in, [`Conversion`] out. Nothing here knows about the index.
//! [`convert`] detects nothing by itself: callers detect with [`detect::detect`] (content
//! first, extension second) and pass the [`FileType`] in an [`Input`]. Every converter
//! runs under `catch_unwind`, so a panic inside a parsing library becomes a per-file
//! [`ConvertError::Panic`] rather than a crash.

pub mod av;
pub mod binary;
pub mod calendar;
pub mod detect;
pub mod error;
pub mod image;
pub mod mail;
mod meta;
pub mod office;
mod panic_capture;
pub mod pdf;
pub mod sheet;
pub mod sqlite;
pub mod text;
pub mod unit;

pub use detect::{detect, extension_of, FileType};
pub use error::ConvertError;
pub use unit::{ChildFile, Conversion, FileMeta, Locator, Modality, Unit, UnitKind};

/// Bump when a converter's output changes, so the indexer re-converts files that were
/// converted by an older version.
pub const CONVERTER_VERSION: u32 = 2;

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
}

impl<'a> Input<'a> {
    /// An input holding a whole in-memory file, type detected from name and content.
    pub fn detect(name: &'a str, bytes: &'a [u8]) -> Input<'a> {
        let head = &bytes[..bytes.len().min(detect::SNIFF_LEN)];
        Input {
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
    let result = panic_capture::catching(|| convert_unguarded(input));
    match result {
        Ok(converted) => converted,
        Err(detail) => Err(ConvertError::Panic { format, detail }),
    }
}

fn convert_unguarded(input: &Input) -> Result<Conversion, ConvertError> {
    match input.file_type {
        FileType::Pdf => pdf::convert(input),
        FileType::Docx => office::docx::convert(input),
        FileType::Odt => office::odt::convert(input),
        FileType::Pptx => office::pptx::convert(input),
        FileType::Xlsx | FileType::Xls | FileType::Ods => sheet::convert_workbook(input),
        FileType::Csv | FileType::Tsv => sheet::convert_delimited(input),
        FileType::Eml => mail::convert(input),
        FileType::Ics => calendar::convert(input),
        FileType::Sqlite => sqlite::convert(input),
        FileType::Ipynb => text::convert_notebook(input),
        FileType::Html => text::convert_html(input),
        FileType::Text => text::convert_text(input),
        FileType::Image => image::convert(input),
        FileType::Audio | FileType::Video => av::convert(input),
        FileType::Binary => binary::convert(input),
    }
}

#[cfg(test)]
mod testutil;
