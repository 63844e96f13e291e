//! Office Open XML and OpenDocument formats.
pub(crate) mod docx;
pub(crate) mod odt;
pub(crate) mod ooxml;
pub(crate) mod pptx;
