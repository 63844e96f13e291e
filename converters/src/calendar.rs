//! calendar (being written).
use crate::{Conversion, ConvertError, Input};
pub fn convert(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("calendar", "not implemented yet"))
}
