//! docx (being written).
use crate::{Conversion, ConvertError, Input};
pub fn convert(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("docx", "not implemented yet"))
}
