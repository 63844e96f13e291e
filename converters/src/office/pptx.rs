//! pptx (being written).
use crate::{Conversion, ConvertError, Input};
pub fn convert(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("pptx", "not implemented yet"))
}
