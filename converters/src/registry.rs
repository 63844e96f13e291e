//! The registry: which converter handles each detected [`FileType`]. One exhaustive
//! `match`, so a new file type cannot be added without choosing its converter, and
//! [`crate::convert`] is the only caller.

use crate::{
    av, binary, calendar, image, mail, office, pdf, sheet, sqlite, text, Conversion, ConvertError,
    FileType, Input,
};

/// A converter's entry point: one file in, its units out.
pub(crate) type ConvertFn = fn(&Input) -> Result<Conversion, ConvertError>;

/// The converter of a detected type.
pub(crate) fn converter_for(file_type: FileType) -> ConvertFn {
    match file_type {
        FileType::Pdf => pdf::convert,
        FileType::Docx => office::docx::convert,
        FileType::Odt => office::odt::convert,
        FileType::Pptx => office::pptx::convert,
        FileType::Xlsx | FileType::Xls | FileType::Ods => sheet::convert_workbook,
        FileType::Csv | FileType::Tsv => sheet::convert_delimited,
        FileType::Eml => mail::convert,
        FileType::Ics => calendar::convert,
        FileType::Sqlite => sqlite::convert,
        FileType::Ipynb => text::convert_notebook,
        FileType::Html => text::convert_html,
        FileType::Text => text::convert_text,
        FileType::Image => image::convert,
        FileType::Audio | FileType::Video => av::convert,
        FileType::Binary => binary::convert,
    }
}
