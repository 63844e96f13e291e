//! Word-processor and presentation formats: Office Open XML (docx, pptx) and
//! OpenDocument text (odt), zipped XML packages read with the shared plumbing of
//! [`ooxml`] (zip package, relationships, properties), [`xml`] (the XML tree) and
//! [`pages`] (page-equivalents). Spreadsheets, zipped or not, are in `crate::sheet`.

pub(crate) mod docx;
pub(crate) mod odt;
mod ooxml;
mod pages;
pub(crate) mod pptx;
mod xml;
