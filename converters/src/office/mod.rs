//! Office Open XML and OpenDocument formats.
pub mod docx;
pub mod odt;
pub mod ooxml;
pub mod pptx;
