//! Spreadsheets and delimited text (being written).
use crate::{Conversion, ConvertError, Input};
pub fn convert_workbook(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("xlsx", "not implemented yet"))
}
pub fn convert_delimited(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("csv", "not implemented yet"))
}
