//! Images, audio, video and opaque binaries: metadata units (being written).
use crate::{Conversion, ConvertError, Input};
pub fn convert_image(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("image", "not implemented yet"))
}
pub fn convert_media(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("media", "not implemented yet"))
}
pub fn convert_binary(_input: &Input) -> Result<Conversion, ConvertError> {
    Err(ConvertError::unsupported("binary", "not implemented yet"))
}
