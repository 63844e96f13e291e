//! RIFF containers. WAV: the `fmt ` chunk gives codec, sample rate, channels and byte
//! rate, the `data` chunk's size the duration; a `data` chunk declaring more bytes than
//! the file holds means the file was cut. AVI: the RIFF size is checked against the file,
//! and the main header (`avih`) gives duration (µs per frame × frames) and dimensions.

use super::{simple, MediaProbe};
use crate::meta::{find, le_u16, le_u32};

/// WAV: the `fmt ` chunk (rate, channels, byte rate) and the `data` chunk size.
pub(super) fn probe_wav(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    let mut probe = simple("WAV");
    let mut byte_rate = None;
    let mut at = 12usize;
    while let (Some(id), Some(len)) = (bytes.get(at..at + 4), le_u32(bytes, at + 4)) {
        let body = at + 8;
        if id == b"fmt " {
            let codec = le_u16(bytes, body).ok_or("truncated fmt chunk")?;
            probe.channels = le_u16(bytes, body + 2).map(u32::from);
            probe.sample_rate = le_u32(bytes, body + 4);
            byte_rate = le_u32(bytes, body + 8).filter(|r| *r > 0);
            if codec != 1 && codec != 0xFFFE {
                probe.format = format!("WAV (codec {codec:#06x})");
            }
        } else if id == b"data" {
            let available = size.saturating_sub(body as u64);
            let declared = u64::from(len);
            let data_len = if len == 0 || len == u32::MAX {
                available
            } else if declared > available {
                return Err(format!(
                    "truncated: data chunk declares {declared} bytes, {available} present"
                ));
            } else {
                declared
            };
            if let Some(rate) = byte_rate {
                probe.duration_s = Some(data_len as f64 / f64::from(rate));
            }
            return Ok(probe);
        }
        at = body + len as usize + (len as usize & 1);
    }
    if byte_rate.is_none() && (bytes.len() as u64) >= size {
        return Err("no fmt chunk".into());
    }
    Ok(probe)
}

/// AVI: duration from the main header (`avih`: µs per frame × total frames).
pub(super) fn probe_avi(bytes: &[u8], size: u64) -> Result<MediaProbe, String> {
    check_riff_size(bytes, size)?;
    let mut probe = simple("AVI");
    if let Some(at) = find(&bytes[..bytes.len().min(4096)], b"avih") {
        let body = at + 8;
        let us_per_frame = le_u32(bytes, body).unwrap_or(0);
        let frames = le_u32(bytes, body + 16).unwrap_or(0);
        if us_per_frame > 0 && frames > 0 {
            probe.duration_s = Some(f64::from(us_per_frame) * f64::from(frames) / 1e6);
        }
        probe.width = le_u32(bytes, body + 32).filter(|w| *w > 0);
        probe.height = le_u32(bytes, body + 36).filter(|h| *h > 0);
    }
    Ok(probe)
}

fn check_riff_size(bytes: &[u8], size: u64) -> Result<(), String> {
    let declared = u64::from(le_u32(bytes, 4).unwrap_or(0)) + 8;
    if declared > size && declared != u64::from(u32::MAX) + 8 {
        return Err(format!(
            "truncated: riff declares {declared} bytes, file has {size}"
        ));
    }
    Ok(())
}
