//! The registry: which converter handles each detected [`FileType`], and the version of
//! that converter's output. One exhaustive `match`, so a new type cannot be added without
//! choosing its converter; [`crate::convert`] runs the converter it names.
//!
//! Versions: every format module declares `VERSION`, the version of the units it makes.
//! The indexer stores [`converter_version`] of a file's type with the file and converts
//! the file again when it is no longer current ([`is_current`]), so bumping one module's
//! `VERSION` re-converts only the files of that module's types (and the files that
//! carry such files as attachments), not every file of every profile.
//!
//! Bump a module's `VERSION` when its units change, including through shared code:
//! `text` (decoding, chunker, HTML) also shapes `sheet`, `calendar`, `mail` and the
//! office formats; `office::{ooxml, xml, pages}` shape docx, odt and pptx; `sheet`'s
//! row grouping shapes `sqlite`; `meta` shapes `image`, `av` and `binary`; the unit model
//! shapes them all. A [`crate::detect`] change that gives files another type needs a
//! bump of the type they had, so that they are detected again.
//!
//! Every `VERSION` started at 2, the last crate-wide version, so indexes written before
//! per-type versions are not converted again.

use crate::{
    av, binary, calendar, image, mail, office, pdf, sheet, sqlite, text, Conversion, ConvertError,
    FileType, Input,
};

/// A converter's entry point: one file in, its units out.
pub(crate) type ConvertFn = fn(&Input) -> Result<Conversion, ConvertError>;

/// The converter of one file type.
#[derive(Clone, Copy)]
pub(crate) struct Converter {
    pub(crate) convert: ConvertFn,
    /// The `VERSION` of the converter's module.
    pub(crate) version: u32,
}

/// The converter of a detected type.
pub(crate) fn converter_for(file_type: FileType) -> Converter {
    let (convert, version): (ConvertFn, u32) = match file_type {
        FileType::Pdf => (pdf::convert, pdf::VERSION),
        FileType::Docx => (office::docx::convert, office::docx::VERSION),
        FileType::Odt => (office::odt::convert, office::odt::VERSION),
        FileType::Pptx => (office::pptx::convert, office::pptx::VERSION),
        FileType::Xlsx | FileType::Xls | FileType::Ods => (sheet::convert_workbook, sheet::VERSION),
        FileType::Csv | FileType::Tsv => (sheet::delimited::convert_delimited, sheet::VERSION),
        FileType::Eml => (mail::convert, mail::VERSION),
        FileType::Mbox => (mail::mbox::convert, mail::VERSION),
        FileType::Ics => (calendar::convert, calendar::VERSION),
        FileType::Sqlite => (sqlite::convert, sqlite::VERSION),
        FileType::Ipynb => (text::convert_notebook, text::VERSION),
        FileType::Html => (text::convert_html, text::VERSION),
        FileType::Text => (text::convert_text, text::VERSION),
        FileType::Image => (image::convert, image::VERSION),
        FileType::Audio | FileType::Video => (av::convert, av::VERSION),
        FileType::Binary => (binary::convert, binary::VERSION),
    };
    Converter { convert, version }
}

/// The version of the converter of `file_type`'s output, to be stored with each file
/// converted (and compared by [`is_current`] on the next run).
pub fn converter_version(file_type: FileType) -> u32 {
    converter_for(file_type).version
}

/// Whether a file recorded with type name `file_type` (as [`FileType::as_str`] writes it)
/// and converter version `stored_version` was converted by the current version of its
/// type's converter. A name that is no known type is never current.
pub fn is_current(file_type: &str, stored_version: u32) -> bool {
    is_current_with(converter_version, file_type, stored_version)
}

/// [`is_current`] against the versions `version_of` gives.
fn is_current_with(
    version_of: impl Fn(FileType) -> u32,
    file_type: &str,
    stored_version: u32,
) -> bool {
    FileType::parse(file_type).is_some_and(|t| version_of(t) == stored_version)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crate-wide `CONVERTER_VERSION` that every index written before per-type
    /// versions stores.
    const LAST_GLOBAL_VERSION: u32 = 2;

    #[test]
    fn files_recorded_with_the_current_versions_are_current() {
        for file_type in FileType::ALL {
            let version = converter_version(file_type);
            assert!(is_current(file_type.as_str(), version), "{file_type:?}");
            assert!(
                !is_current(file_type.as_str(), version - 1),
                "{file_type:?}"
            );
            assert!(
                !is_current(file_type.as_str(), version + 1),
                "{file_type:?}"
            );
        }
    }

    #[test]
    fn versions_never_go_below_the_last_crate_wide_version() {
        for file_type in FileType::ALL {
            assert!(
                converter_version(file_type) >= LAST_GLOBAL_VERSION,
                "{file_type:?}"
            );
        }
    }

    #[test]
    fn bumping_one_version_marks_only_that_type_stale() {
        for bumped in FileType::ALL {
            let after_bump = |t: FileType| converter_version(t) + u32::from(t == bumped);
            for file_type in FileType::ALL {
                // A file converted before the bump.
                let stored = converter_version(file_type);
                assert_eq!(
                    is_current_with(after_bump, file_type.as_str(), stored),
                    file_type != bumped,
                    "bumped {bumped:?}, file of type {file_type:?}"
                );
                // A file converted after it.
                assert!(is_current_with(
                    after_bump,
                    file_type.as_str(),
                    after_bump(file_type)
                ));
            }
        }
    }

    #[test]
    fn records_without_a_known_type_are_stale() {
        for name in ["", "PDF", "media", "unknown"] {
            for version in [0, 1, LAST_GLOBAL_VERSION, u32::MAX] {
                assert!(!is_current(name, version), "{name:?} {version}");
            }
        }
    }
}
