//! Keyframes first: which seconds of a video must be decoded at one frame per second,
//! and which can take the picture of the keyframe before them.
//!
//! A screen recording is mostly a still picture: between two keyframes its other
//! frames are a few dozen bytes each ("nothing moved"), while new text, a new slide or
//! a scrolled page costs hundreds or thousands. The packets' sizes are known without
//! decoding anything (ffmpeg copies them out in a fraction of a second), so a video is
//! planned before it is decoded:
//!
//! * a stretch from one keyframe to the next is **still** when none of its frames after
//!   the first [`SETTLE_S`] (where encoders refine the keyframe's picture) is larger than
//!   [`still_bytes`]: its seconds all show the keyframe's picture, and only that
//!   keyframe is decoded;
//! * a stretch of at most [`SHORT_STRETCH_S`] also takes its keyframe's picture, moving
//!   or not: its seconds are within a second of it (camera footage with a keyframe a
//!   second is read from its keyframes alone);
//! * every other stretch is decoded at one frame per second, as every video was before;
//! * when more than half of the seconds would be decoded anyway (camera footage, where
//!   every frame moves, with keyframes seconds apart), or the stream does not look like
//!   one this plan understands (no keyframe at its start, more than four keyframes a
//!   second), there is no plan and the
//!   whole video is decoded at one frame per second.
//!
//! Text that appears between two keyframes makes its stretch be decoded; text that only
//! disappears is cheap to encode and may not: its run then ends at the next keyframe
//! instead of when it vanished (a few seconds late, never lost).

/// A video packet: its presentation time, size in bytes and whether it is a keyframe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packet {
    pub pts_s: f64,
    pub end_s: f64,
    pub size: u32,
    pub key: bool,
}

/// Frames this soon after a keyframe are not counted as changes: encoders refine a
/// keyframe's picture in the next few frames (a few hundred bytes on a still screen).
pub const SETTLE_S: f64 = 0.5;

/// A stretch between keyframes this short (s) takes its keyframe's picture even when
/// the picture moves.
pub const SHORT_STRETCH_S: f64 = 1.05;

/// Largest frame (bytes) of a still stretch: 1/8192 of a byte per pixel, at least 96
/// (112 bytes at 1280×720, 253 at 1920×1080; an unchanged screen's frames are 40–100,
/// a one-letter change about 200, a new line of text 1,000 or more).
pub fn still_bytes(width: u32, height: u32) -> u32 {
    ((u64::from(width) * u64::from(height)) / 8192).max(96) as u32
}

/// Where a run of seconds takes its picture from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The keyframe with this index (in time order) among the stream's keyframes.
    Key(usize),
    /// One frame per second, decoded.
    Decode,
}

/// Consecutive seconds `first .. first + count` with one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub first: u32,
    pub count: u32,
    pub source: Source,
}

/// What to decode of a video.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Seconds of the video (what one frame per second gives).
    pub seconds: u32,
    /// Keyframes before `seconds`, in time order (the keyframe pass decodes them all).
    pub keyframes: usize,
    pub spans: Vec<Span>,
}

impl Plan {
    /// Seconds decoded one by one.
    pub fn decoded_seconds(&self) -> u32 {
        self.spans
            .iter()
            .filter(|s| s.source == Source::Decode)
            .map(|s| s.count)
            .sum()
    }
}

/// The plan for a video stream of `packets` (any order) with pictures of
/// `width`×`height`, up to `max_seconds`; `None` when every second should be decoded.
pub fn plan(packets: &[Packet], width: u32, height: u32, max_seconds: u32) -> Option<Plan> {
    let mut packets: Vec<Packet> = packets
        .iter()
        .copied()
        .filter(|p| p.pts_s.is_finite() && p.pts_s >= 0.0 && p.pts_s < f64::from(max_seconds))
        .collect();
    packets.sort_by(|a, b| a.pts_s.total_cmp(&b.pts_s));
    let keys: Vec<f64> = packets.iter().filter(|p| p.key).map(|p| p.pts_s).collect();
    // ffmpeg's one frame per second starts at 0: a stream that starts later, or whose
    // first picture is not a keyframe, is decoded as before.
    if keys.first().is_none_or(|&first| first > 0.5) || !packets[0].key {
        return None;
    }
    let end = packets
        .iter()
        .map(|p| p.end_s.max(p.pts_s))
        .fold(0.0, f64::max);
    let seconds = (end.round() as u32).min(max_seconds);
    if seconds == 0 || keys.len() > 4 * seconds as usize {
        return None;
    }
    let limit = still_bytes(width, height);
    // stretches whose seconds can take their keyframe's picture
    let still: Vec<bool> = keys
        .iter()
        .enumerate()
        .map(|(i, &start)| {
            let stop = keys.get(i + 1).copied().unwrap_or(end);
            // the stretch's packets after its settling time (they are sorted by time)
            let from = packets.partition_point(|p| p.pts_s < start + SETTLE_S);
            let to = packets.partition_point(|p| p.pts_s < stop).max(from);
            stop - start <= SHORT_STRETCH_S
                || packets[from..to].iter().all(|p| p.key || p.size <= limit)
        })
        .collect();
    let mut spans: Vec<Span> = Vec::new();
    for second in 0..seconds {
        // the keyframe shown at this second (a small tolerance for rounded timestamps)
        let at = f64::from(second) + 1e-3;
        let key = keys.partition_point(|&t| t <= at).saturating_sub(1);
        let source = if still[key] {
            Source::Key(key)
        } else {
            Source::Decode
        };
        match spans.last_mut() {
            Some(span) if span.source == source => span.count += 1,
            _ => spans.push(Span {
                first: second,
                count: 1,
                source,
            }),
        }
    }
    let plan = Plan {
        seconds,
        keyframes: keys.len(),
        spans,
    };
    (plan.decoded_seconds() * 2 <= seconds).then_some(plan)
}

/// Codecs whose packet sizes and keyframe flags the plan is made for, and whose
/// decoders honour `-skip_frame` (VP9 hides frames in superframes and codes large flat
/// changes in a few dozen bytes; others are decoded every second).
pub const PLANNED_CODECS: [&str; 3] = ["h264", "hevc", "mpeg4"];

/// A video stream as ffmpeg's `framecrc` listing of it (`-c copy -f framecrc`) gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    pub codec: String,
    pub width: u32,
    pub height: u32,
    pub packets: Vec<Packet>,
}

impl Listing {
    /// The plan for this stream up to `max_seconds` (see [`plan`]); `None` for codecs
    /// outside [`PLANNED_CODECS`].
    pub fn plan(&self, max_seconds: u32) -> Option<Plan> {
        if !PLANNED_CODECS.contains(&self.codec.as_str()) {
            return None;
        }
        plan(&self.packets, self.width, self.height, max_seconds)
    }
}

/// The listing of ffmpeg's `framecrc` output for one stream; `None` when it is not
/// understood.
pub fn parse_framecrc(text: &str) -> Option<Listing> {
    let (mut base, mut size, mut codec) = (None, None, None);
    let mut packets = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("#tb ") {
            // "#tb 0: 1/12800"
            let (num, den) = rest.split_once(':')?.1.trim().split_once('/')?;
            let (num, den): (f64, f64) = (num.parse().ok()?, den.parse().ok()?);
            (den > 0.0).then_some(())?;
            base = Some(num / den);
        } else if let Some(rest) = line.strip_prefix("#codec_id ") {
            // "#codec_id 0: h264"
            codec = Some(rest.split_once(':')?.1.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("#dimensions ") {
            // "#dimensions 0: 1280x720"
            let (w, h) = rest.split_once(':')?.1.trim().split_once('x')?;
            size = Some((w.parse().ok()?, h.parse().ok()?));
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            // "0, dts, pts, duration, size, checksum[, F=0x0][, S=…]"
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let base = base?;
            let pts: i64 = fields.get(2)?.parse().ok()?;
            let duration: i64 = fields.get(3)?.parse().ok()?;
            let bytes: u32 = fields.get(4)?.parse().ok()?;
            // framecrc names the flags only when they are not just "key"
            let key = match fields.iter().skip(6).find_map(|f| f.strip_prefix("F=")) {
                Some(flags) => {
                    u32::from_str_radix(flags.trim_start_matches("0x"), 16).ok()? & 1 == 1
                }
                None => true,
            };
            let pts_s = pts as f64 * base;
            packets.push(Packet {
                pts_s,
                end_s: pts_s + duration.max(0) as f64 * base,
                size: bytes,
                key,
            });
        }
    }
    let (width, height) = size?;
    Some(Listing {
        codec: codec?,
        width,
        height,
        packets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 25 fps packets for `seconds`, a keyframe every `gop` seconds, `size(pts)` bytes.
    fn stream(seconds: u32, gop: u32, size: impl Fn(f64) -> u32) -> Vec<Packet> {
        (0..seconds * 25)
            .map(|n| {
                let pts_s = f64::from(n) / 25.0;
                let key = n % (gop * 25) == 0;
                Packet {
                    pts_s,
                    end_s: pts_s + 0.04,
                    size: if key { 18_000 } else { size(pts_s) },
                    key,
                }
            })
            .collect()
    }

    #[test]
    fn a_still_screen_takes_each_keyframe_for_its_seconds() {
        // refinement frames just after each keyframe are larger, and do not count
        let packets = stream(40, 10, |t| if t % 10.0 < 0.3 { 340 } else { 60 });
        let plan = plan(&packets, 1280, 720, 3600).unwrap();
        assert_eq!(plan.seconds, 40);
        assert_eq!(plan.keyframes, 4);
        assert_eq!(plan.decoded_seconds(), 0);
        assert_eq!(
            plan.spans[1],
            Span {
                first: 10,
                count: 10,
                source: Source::Key(1)
            }
        );
    }

    #[test]
    fn text_appearing_between_keyframes_decodes_that_stretch() {
        // a line typed at 23.4 s: one frame of 1,500 bytes in the third stretch
        let packets = stream(40, 10, |t| if (t - 23.4).abs() < 0.01 { 1_500 } else { 60 });
        let plan = plan(&packets, 1280, 720, 3600).unwrap();
        assert_eq!(plan.decoded_seconds(), 10);
        assert_eq!(
            plan.spans,
            vec![
                Span {
                    first: 0,
                    count: 10,
                    source: Source::Key(0)
                },
                Span {
                    first: 10,
                    count: 10,
                    source: Source::Key(1)
                },
                Span {
                    first: 20,
                    count: 10,
                    source: Source::Decode
                },
                Span {
                    first: 30,
                    count: 10,
                    source: Source::Key(3)
                },
            ]
        );
    }

    #[test]
    fn moving_pictures_with_a_keyframe_a_second_are_read_from_their_keyframes() {
        let plan = plan(&stream(20, 1, |_| 9_000), 1920, 1080, 3600).unwrap();
        assert_eq!(
            (plan.seconds, plan.keyframes, plan.decoded_seconds()),
            (20, 20, 0)
        );
        assert_eq!(
            plan.spans[7],
            Span {
                first: 7,
                count: 1,
                source: Source::Key(7)
            }
        );
    }

    #[test]
    fn moving_pictures_and_odd_streams_are_decoded_every_second() {
        // camera footage: every frame changes, a keyframe every two seconds
        assert_eq!(plan(&stream(40, 2, |_| 9_000), 1920, 1080, 3600), None);
        // every frame a keyframe
        assert_eq!(
            plan(
                &stream(10, 1, |_| 60)
                    .iter()
                    .map(|p| Packet { key: true, ..*p })
                    .collect::<Vec<_>>(),
                640,
                360,
                3600
            ),
            None
        );
        // no keyframe at the start
        let late: Vec<Packet> = stream(40, 10, |_| 60)
            .into_iter()
            .filter(|p| p.pts_s >= 5.0)
            .collect();
        assert_eq!(plan(&late, 1280, 720, 3600), None);
        assert_eq!(plan(&[], 1280, 720, 3600), None);
    }

    #[test]
    fn the_plan_stops_at_the_longest_stretch_analysed() {
        let plan = plan(&stream(40, 10, |_| 60), 1280, 720, 25).unwrap();
        assert_eq!(plan.seconds, 25);
        assert_eq!(plan.keyframes, 3);
        assert_eq!(
            plan.spans.last().unwrap(),
            &Span {
                first: 20,
                count: 5,
                source: Source::Key(2)
            }
        );
    }

    #[test]
    fn the_still_limit_follows_the_picture_size() {
        assert_eq!(still_bytes(1280, 720), 112);
        assert_eq!(still_bytes(1920, 1080), 253);
        assert_eq!(still_bytes(320, 240), 96);
    }

    #[test]
    fn framecrc_listings_are_read() {
        let text = "#extradata 0:       47, 0x372d0f4b\n#tb 0: 1/12800\n#media_type 0: video\n\
                    #codec_id 0: h264\n#dimensions 0: 1280x720\n#sar 0: 1/1\n\
                    0,      -1024,          0,      512,     4263, 0xc9d9607f\n\
                    0,       -512,       2048,      512,      120, 0xaab9326b, F=0x0\n\
                    0,          0,       1024,      512,       45, 0x08120929, F=0x0\n";
        let listing = parse_framecrc(text).unwrap();
        assert_eq!(
            (listing.codec.as_str(), listing.width, listing.height),
            ("h264", 1280, 720)
        );
        let packets = listing.packets;
        assert_eq!(packets.len(), 3);
        assert!(packets[0].key && !packets[1].key && !packets[2].key);
        assert_eq!(packets[1].pts_s, 0.16);
        assert_eq!(packets[1].size, 120);
        assert!((packets[2].end_s - 0.12).abs() < 1e-9);
        assert_eq!(
            parse_framecrc("0, 0, 0, 512, 10, 0x0\n"),
            None,
            "no time base"
        );
        assert_eq!(
            parse_framecrc("#tb 0: 1/25\n#dimensions 0: 2x2\n0, 0, x, 1, 10, 0x0\n"),
            None
        );
    }
}
