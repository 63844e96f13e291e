//! The pictures in an image file, one at a time, for OCR and tags: every distinct frame
//! of an animated GIF (composited, near-duplicates skipped by their perceptual hash),
//! every page of a multi-page TIFF ([`pages`]), the images of a HEIC/HEIF/AVIF photo
//! (decoded by libheif's `heif-convert`, [`heif`]), and the one picture of any other
//! image. Decoding is bounded: at most [`MAX_OCR_FRAMES`] frames are handed on, at most
//! [`MAX_DECODED_FRAMES`] decoded and [`MAX_DECODED_BYTES`] bytes of pixels produced,
//! each frame under the size and memory limits of [`crate::models::decode_limits`]; a
//! frame is decoded, handed on and dropped before the next.
//!
//! A picture that breaks after its first readable frames keeps those (the break is in
//! [`FramesReport::damage`]); one that breaks before is a [`FramesError`].

mod heif;
mod pages;

use std::io::Cursor;

use image::codecs::gif::GifDecoder;
use image::{AnimationDecoder, DynamicImage, ImageDecoder, RgbImage, RgbaImage};
use thiserror::Error;

use crate::media::frames::{distance, phash, DUPLICATE_DISTANCE};

pub use heif::{warn_heif, HeifError, HEIF_TOOL};

/// At most this many distinct frames (or pages) of one picture are read.
pub const MAX_OCR_FRAMES: usize = 64;
/// At most this many frames (or pages) of one picture are decoded, duplicates included.
pub const MAX_DECODED_FRAMES: usize = 500;
/// At most this many bytes of pixels are decoded for one picture (summed over frames).
pub const MAX_DECODED_BYTES: u64 = 512 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum FramesError {
    #[error("gif frame {frame}: {source}")]
    Gif {
        frame: u32,
        source: image::ImageError,
    },
    #[error("tiff page {page}: {source}")]
    Tiff { page: u32, source: tiff::TiffError },
    #[error("tiff page {page} is {width}×{height} pixels, more than the decoder allows")]
    TooLarge { page: u32, width: u32, height: u32 },
    #[error(transparent)]
    Heif(#[from] HeifError),
    #[error("image {image} of the file cannot be decoded")]
    Undecodable { image: u32 },
}

/// The limits of one picture's decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameCaps {
    /// Frames handed on (distinct frames, or pages).
    pub kept: usize,
    /// Frames decoded, duplicates and unsupported pages included.
    pub decoded: usize,
    /// Bytes of pixels decoded (4 per pixel and frame).
    pub decoded_bytes: u64,
}

impl Default for FrameCaps {
    fn default() -> FrameCaps {
        FrameCaps {
            kept: MAX_OCR_FRAMES,
            decoded: MAX_DECODED_FRAMES,
            decoded_bytes: MAX_DECODED_BYTES,
        }
    }
}

/// The limit that stopped the decoding of a picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Cap {
    #[error("{0} distinct frames read")]
    Kept(usize),
    #[error("{0} frames decoded")]
    Decoded(usize),
    #[error("{0} bytes of pixels decoded")]
    DecodedBytes(u64),
}

/// Which frames to decode and hand on: the caps, and the near-duplicate test (a frame
/// whose pHash is within [`DUPLICATE_DISTANCE`] of a frame already kept is skipped).
#[derive(Debug)]
pub struct FrameFilter {
    caps: FrameCaps,
    kept_hashes: Vec<u64>,
    kept: usize,
    decoded: usize,
    decoded_bytes: u64,
    duplicates: usize,
}

impl FrameFilter {
    pub fn new(caps: FrameCaps) -> FrameFilter {
        FrameFilter {
            caps,
            kept_hashes: Vec::new(),
            kept: 0,
            decoded: 0,
            decoded_bytes: 0,
            duplicates: 0,
        }
    }

    /// Whether a frame of `frame_bytes` may be decoded next.
    pub fn room_for(&self, frame_bytes: u64) -> Result<(), Cap> {
        if self.kept >= self.caps.kept {
            return Err(Cap::Kept(self.kept));
        }
        if self.decoded >= self.caps.decoded {
            return Err(Cap::Decoded(self.decoded));
        }
        if self.decoded_bytes.saturating_add(frame_bytes) > self.caps.decoded_bytes {
            return Err(Cap::DecodedBytes(self.decoded_bytes));
        }
        Ok(())
    }

    /// Counts a decoded frame; whether it is kept. `hash: None` (pages, which are
    /// never duplicates of each other) always keeps it.
    pub fn admit(&mut self, frame_bytes: u64, hash: Option<u64>) -> bool {
        self.decoded += 1;
        self.decoded_bytes = self.decoded_bytes.saturating_add(frame_bytes);
        if let Some(hash) = hash {
            if self
                .kept_hashes
                .iter()
                .any(|&kept| distance(kept, hash) <= DUPLICATE_DISTANCE)
            {
                self.duplicates += 1;
                return false;
            }
            self.kept_hashes.push(hash);
        }
        self.kept += 1;
        true
    }

    /// Counts a decoded frame that is not kept for another reason (unsupported pixels).
    pub fn skip(&mut self, frame_bytes: u64) {
        self.decoded += 1;
        self.decoded_bytes = self.decoded_bytes.saturating_add(frame_bytes);
    }
}

/// What decoding a picture did.
#[derive(Debug, Default)]
pub struct FramesReport {
    /// Frames or pages decoded (duplicates and unsupported pages included).
    pub decoded: usize,
    /// Frames or pages handed on.
    pub kept: usize,
    /// Frames skipped as near-duplicates of a kept frame.
    pub duplicates: usize,
    /// Pages skipped for pixels this decoder does not convert (palette, CMYK, ...).
    pub unsupported: usize,
    /// The frames are the pages of a document (TIFF).
    pub paged: bool,
    /// The limit that ended decoding early.
    pub stopped: Option<Cap>,
    /// The file broke after its first readable frames (those were handed on).
    pub damage: Option<FramesError>,
}

/// Where decoded frames go: the filter, then the caller.
struct Sink<'a> {
    filter: FrameFilter,
    /// Compare frames by pHash (animations), or keep every page (documents).
    dedup: bool,
    unsupported: usize,
    stopped: Option<Cap>,
    on_frame: &'a mut dyn FnMut(u32, &DynamicImage),
}

impl Sink<'_> {
    /// Whether another frame of `frame_bytes` may be decoded (records the cap if not).
    fn room_for(&mut self, frame_bytes: u64) -> bool {
        match self.filter.room_for(frame_bytes) {
            Ok(()) => true,
            Err(cap) => {
                self.stopped = Some(cap);
                false
            }
        }
    }

    /// A decoded frame (`number` counts from 1 in the file).
    fn offer(&mut self, number: u32, frame_bytes: u64, image: DynamicImage) {
        let hash = self.dedup.then(|| match &image {
            DynamicImage::ImageRgb8(rgb) => phash(rgb),
            other => phash(&other.to_rgb8()),
        });
        if self.filter.admit(frame_bytes, hash) {
            (self.on_frame)(number, &image);
        }
    }

    fn unsupported(&mut self, frame_bytes: u64) {
        self.filter.skip(frame_bytes);
        self.unsupported += 1;
    }
}

/// Decodes the pictures in an image file and calls `on_frame(number, image)` for each
/// one kept (numbers count frames or pages from 1).
pub fn read_frames(
    bytes: &[u8],
    caps: FrameCaps,
    mut on_frame: impl FnMut(u32, &DynamicImage),
) -> Result<FramesReport, FramesError> {
    let paged = pages::is_tiff(bytes);
    let mut sink = Sink {
        filter: FrameFilter::new(caps),
        dedup: !paged,
        unsupported: 0,
        stopped: None,
        on_frame: &mut on_frame,
    };
    let outcome = if paged {
        let pages = pages::tiff_pages(bytes, &mut sink);
        // No page of a kind read here: the image crate's first page (it converts some
        // more, such as CMYK and floats).
        let fallback = (sink.filter.kept == 0 && sink.stopped.is_none())
            .then(|| crate::models::decode_image(bytes))
            .flatten();
        match fallback {
            Some(first) => {
                sink.unsupported = sink.unsupported.saturating_sub(1);
                sink.offer(1, 0, first);
                Ok(())
            }
            None => pages,
        }
    } else if is_gif(bytes) {
        gif_frames(bytes, &mut sink)
    } else if heif::is_heif(bytes) {
        heif_images(bytes, &mut sink)
    } else {
        match crate::models::decode_image(bytes) {
            Some(image) => {
                sink.offer(1, 0, image);
                Ok(())
            }
            None => Err(FramesError::Undecodable { image: 1 }),
        }
    };
    let filter = &sink.filter;
    let mut report = FramesReport {
        decoded: filter.decoded,
        kept: filter.kept,
        duplicates: filter.duplicates,
        unsupported: sink.unsupported,
        paged,
        stopped: sink.stopped,
        damage: None,
    };
    match outcome {
        Err(error) if report.kept == 0 => Err(error),
        Err(error) => {
            report.damage = Some(error);
            Ok(report)
        }
        Ok(()) => Ok(report),
    }
}

fn is_gif(bytes: &[u8]) -> bool {
    bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a")
}

/// The frames of a GIF, composited as they are shown, with transparency on white.
fn gif_frames(bytes: &[u8], sink: &mut Sink<'_>) -> Result<(), FramesError> {
    let gif_error = |frame: u32| move |source| FramesError::Gif { frame, source };
    let mut decoder = GifDecoder::new(Cursor::new(bytes)).map_err(gif_error(1))?;
    decoder
        .set_limits(crate::models::decode_limits())
        .map_err(gif_error(1))?;
    let (width, height) = decoder.dimensions();
    let frame_bytes = u64::from(width) * u64::from(height) * 4;
    let mut frames = decoder.into_frames();
    let mut number = 0u32;
    while sink.room_for(frame_bytes) {
        number += 1;
        let Some(frame) = frames.next() else { break };
        let frame = frame.map_err(gif_error(number))?;
        let rgb = on_white(frame.into_buffer());
        sink.offer(number, frame_bytes, DynamicImage::ImageRgb8(rgb));
    }
    Ok(())
}

/// The images of a HEIF container (usually one), in order.
fn heif_images(bytes: &[u8], sink: &mut Sink<'_>) -> Result<(), FramesError> {
    let images = heif::convert(bytes)?;
    for (index, path) in images.paths.iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        if !sink.room_for(0) {
            break;
        }
        let png = std::fs::read(path).map_err(HeifError::from)?;
        let image =
            crate::models::decode_image(&png).ok_or(FramesError::Undecodable { image: number })?;
        let frame_bytes = u64::from(image.width()) * u64::from(image.height()) * 4;
        sink.offer(number, frame_bytes, image);
    }
    Ok(())
}

/// The first picture of an image file (the one tags and CLIP describe); `None` if it
/// cannot be decoded.
pub fn first_picture(path: &str, bytes: &[u8]) -> Option<DynamicImage> {
    if !heif::is_heif(bytes) {
        return crate::models::decode_image(bytes);
    }
    let caps = FrameCaps {
        kept: 1,
        ..FrameCaps::default()
    };
    let mut first = None;
    let read = read_frames(bytes, caps, |_, image| first = Some(image.clone()));
    if let Err(FramesError::Heif(error)) = &read {
        warn_heif(path, error);
    }
    first
}

/// Transparent pixels over white (OCR reads dark text on a light ground).
fn on_white(rgba: RgbaImage) -> RgbImage {
    let (width, height) = rgba.dimensions();
    let mut rgb = RgbImage::new(width, height);
    for (out, pixel) in rgb.pixels_mut().zip(rgba.pixels()) {
        let alpha = u32::from(pixel.0[3]);
        out.0 =
            [0, 1, 2].map(|c| ((u32::from(pixel.0[c]) * alpha + 255 * (255 - alpha)) / 255) as u8);
    }
    rgb
}

/// The text of a picture's frames, from the lines read in each `(number, lines)`: in
/// frame order, lines an earlier frame already showed left out; the pages of a
/// document with more than one page are marked "[page N]".
pub fn frames_text(frames: &[(u32, Vec<String>)], mark_pages: bool) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for (number, lines) in frames {
        let lines: Vec<&String> = lines
            .iter()
            .filter(|line| !line.trim().is_empty())
            .filter(|line| mark_pages || seen.insert(line.as_str()))
            .collect();
        if lines.is_empty() {
            continue;
        }
        if mark_pages {
            out.push(format!("[page {number}]"));
        }
        out.extend(lines.into_iter().cloned());
    }
    out.join("\n")
}

#[cfg(test)]
mod tests;
