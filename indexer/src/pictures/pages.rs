//! Every page of a TIFF (the image crate reads the first only), read with the `tiff`
//! crate directory by directory. Pages of 1-bit, 8-bit or 16-bit grey (with or
//! without alpha) and 8-bit or 16-bit RGB(A) become images (16-bit scaled to 8);
//! other pixel kinds (palette, CMYK, YCbCr, floats) are skipped and counted.

use std::io::Cursor;

use image::{DynamicImage, GrayAlphaImage, GrayImage, RgbImage, RgbaImage};
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::{ColorType, TiffError};

use super::{FramesError, Sink};
use crate::models::{OCR_MAX_DECODE_BYTES, OCR_MAX_IMAGE_SIDE};

pub(super) fn is_tiff(bytes: &[u8]) -> bool {
    [b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"]
        .iter()
        .any(|magic| bytes.starts_with(*magic))
}

fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(OCR_MAX_DECODE_BYTES).unwrap_or(usize::MAX);
    limits
}

/// Hands every page of the TIFF to `sink`, until the caps stop it.
pub(super) fn tiff_pages(bytes: &[u8], sink: &mut Sink<'_>) -> Result<(), FramesError> {
    let tiff_error = |page: u32| move |source| FramesError::Tiff { page, source };
    let mut decoder = Decoder::new(Cursor::new(bytes))
        .map_err(tiff_error(1))?
        .with_limits(limits());
    let mut page = 1u32;
    loop {
        let (width, height) = decoder.dimensions().map_err(tiff_error(page))?;
        if width > OCR_MAX_IMAGE_SIDE || height > OCR_MAX_IMAGE_SIDE {
            return Err(FramesError::TooLarge {
                page,
                width,
                height,
            });
        }
        let frame_bytes = u64::from(width) * u64::from(height) * 4;
        if !sink.room_for(frame_bytes) {
            return Ok(());
        }
        let colour = decoder.colortype().map_err(tiff_error(page))?;
        let image = match decoder.read_image() {
            Ok(data) => page_image(width, height, colour, data),
            Err(TiffError::UnsupportedError(error)) => {
                tracing::debug!(page, %error, "tiff page not decoded");
                None
            }
            Err(error) => return Err(tiff_error(page)(error)),
        };
        match image {
            Some(image) => sink.offer(page, frame_bytes, image),
            None => {
                tracing::debug!(
                    page,
                    ?colour,
                    "tiff page skipped: pixels of this kind are not read"
                );
                sink.unsupported(frame_bytes);
            }
        }
        if !decoder.more_images() {
            return Ok(());
        }
        page += 1;
        decoder.next_image().map_err(tiff_error(page))?;
    }
}

/// A decoded page as an image; `None` for pixel kinds not converted (or a buffer that
/// does not fit the page's size).
pub(super) fn page_image(
    width: u32,
    height: u32,
    colour: ColorType,
    data: DecodingResult,
) -> Option<DynamicImage> {
    match (colour, data) {
        (ColorType::Gray(1), DecodingResult::U8(bits)) => {
            bilevel(width, height, &bits).map(DynamicImage::ImageLuma8)
        }
        (ColorType::Gray(8), DecodingResult::U8(v)) => {
            GrayImage::from_raw(width, height, v).map(DynamicImage::ImageLuma8)
        }
        (ColorType::Gray(16), DecodingResult::U16(v)) => {
            GrayImage::from_raw(width, height, to_8_bits(&v)).map(DynamicImage::ImageLuma8)
        }
        (ColorType::GrayA(8), DecodingResult::U8(v)) => {
            GrayAlphaImage::from_raw(width, height, v).map(DynamicImage::ImageLumaA8)
        }
        (ColorType::GrayA(16), DecodingResult::U16(v)) => {
            GrayAlphaImage::from_raw(width, height, to_8_bits(&v)).map(DynamicImage::ImageLumaA8)
        }
        (ColorType::RGB(8), DecodingResult::U8(v)) => {
            RgbImage::from_raw(width, height, v).map(DynamicImage::ImageRgb8)
        }
        (ColorType::RGB(16), DecodingResult::U16(v)) => {
            RgbImage::from_raw(width, height, to_8_bits(&v)).map(DynamicImage::ImageRgb8)
        }
        (ColorType::RGBA(8), DecodingResult::U8(v)) => {
            RgbaImage::from_raw(width, height, v).map(DynamicImage::ImageRgba8)
        }
        (ColorType::RGBA(16), DecodingResult::U16(v)) => {
            RgbaImage::from_raw(width, height, to_8_bits(&v)).map(DynamicImage::ImageRgba8)
        }
        _ => None,
    }
}

fn to_8_bits(samples: &[u16]) -> Vec<u8> {
    samples.iter().map(|&s| (s >> 8) as u8).collect()
}

/// 1-bit rows (each padded to a whole byte, most significant bit first; 1 is white
/// once the decoder has undone WhiteIsZero) as 8-bit grey.
fn bilevel(width: u32, height: u32, bits: &[u8]) -> Option<GrayImage> {
    let stride = (width as usize).div_ceil(8);
    if bits.len() < stride.checked_mul(height as usize)? {
        return None;
    }
    Some(GrayImage::from_fn(width, height, |x, y| {
        let byte = bits[y as usize * stride + x as usize / 8];
        let bit = (byte >> (7 - x % 8)) & 1;
        image::Luma([if bit == 1 { 255 } else { 0 }])
    }))
}
