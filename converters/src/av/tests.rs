use super::bmff::{box_header, for_each_box};
use super::ebml::{ebml_children, ebml_id, ebml_size};
use super::*;
use crate::testutil::{self, input, some_size, Rng};

fn wav_header(data_len: u32, rate: u32, channels: u16) -> Vec<u8> {
    let mut h = b"RIFF".to_vec();
    h.extend((36 + data_len).to_le_bytes());
    h.extend(b"WAVEfmt ");
    h.extend(16u32.to_le_bytes());
    h.extend(1u16.to_le_bytes());
    h.extend(channels.to_le_bytes());
    h.extend(rate.to_le_bytes());
    h.extend((rate * u32::from(channels) * 2).to_le_bytes());
    h.extend((channels * 2).to_le_bytes());
    h.extend(16u16.to_le_bytes());
    h.extend(b"data");
    h.extend(data_len.to_le_bytes());
    h
}

#[test]
fn wav_duration_from_header_only() {
    let header = wav_header(64_000, 16_000, 1);
    assert_eq!(header.len(), 44);
    let c = convert(&input("Voice/memo 1.wav", &header, 64_044, FileType::Audio)).unwrap();
    let u = &c.units[0];
    assert_eq!(u.kind(), UnitKind::Media);
    assert_eq!(
        u.text,
        "Audio recording memo 1.wav, WAV, duration 2 s, 62.5 KB"
    );
    assert_eq!(u.fields["duration_s"], "2.0");
    assert_eq!(u.fields["sample_rate"], "16000");
    assert_eq!(c.meta.extra["format"], "WAV");
    // The data chunk claims more than the file holds: cut.
    let err = convert(&input("m.wav", &header, 1_000, FileType::Audio)).unwrap_err();
    assert_eq!(err.reason(), "corrupt");
}

fn bmff_box(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut b = ((body.len() + 8) as u32).to_be_bytes().to_vec();
    b.extend(kind);
    b.extend(body);
    b
}

fn mp4(duration_units: u32, chunk_offset: u32) -> Vec<u8> {
    let mut mvhd = vec![0u8; 4]; // version 0, flags
    mvhd.extend(3_786_912_000u32.to_be_bytes()); // created 2024-01-01 (1904 epoch)
    mvhd.extend(0u32.to_be_bytes());
    mvhd.extend(1000u32.to_be_bytes());
    mvhd.extend(duration_units.to_be_bytes());
    mvhd.extend([0u8; 80]);
    let mut stco = vec![0u8; 4];
    stco.extend(1u32.to_be_bytes());
    stco.extend(chunk_offset.to_be_bytes());
    let stbl = bmff_box(b"stbl", &bmff_box(b"stco", &stco));
    let mdia = bmff_box(b"mdia", &bmff_box(b"minf", &stbl));
    let mut tkhd = vec![0u8; 76];
    tkhd.extend((640u32 << 16).to_be_bytes());
    tkhd.extend((480u32 << 16).to_be_bytes());
    let trak = bmff_box(b"trak", &[bmff_box(b"tkhd", &tkhd), mdia].concat());
    let moov = bmff_box(b"moov", &[bmff_box(b"mvhd", &mvhd), trak].concat());
    let ftyp = bmff_box(b"ftyp", b"isom\0\0\x02\0isomiso2mp41");
    let mdat = bmff_box(b"mdat", &[0u8; 64]);
    [ftyp, moov, mdat].concat()
}

#[test]
fn mp4_duration_size_and_time_from_moov() {
    let bytes = mp4(5_000, 200);
    let c = convert(&input(
        "clip.mp4",
        &bytes,
        bytes.len() as u64,
        FileType::Video,
    ))
    .unwrap();
    let u = &c.units[0];
    assert_eq!(
        u.text,
        "Video clip.mp4, MPEG-4, 640×480, duration 5 s, recorded Monday 1 January 2024 00:00, \
         360 bytes"
    );
    assert_eq!(u.fields["duration_s"], "5.0");
    assert_eq!(
        u.content_time.unwrap().to_rfc3339(),
        "2024-01-01T00:00:00+00:00"
    );
    // Sample data pointing past the end of the file: cut.
    let cut = mp4(5_000, 1_000_000);
    let err = convert(&input("cut.mp4", &cut, cut.len() as u64, FileType::Video));
    assert_eq!(err.unwrap_err().reason(), "corrupt");
    // Only the head of a larger file: a box beyond the real size is a cut, but an
    // unknown tail is not.
    let head = &bytes[..100];
    assert!(convert(&input("h.mp4", head, bytes.len() as u64, FileType::Video)).is_ok());
    assert!(convert(&input("h.mp4", head, 120, FileType::Video)).is_err());
}

/// An MP4 whose `moov` follows its media data and carries a position: `©xyz` in
/// `udta` (cameras, Android), or QuickTime metadata keys (iPhones).
fn mp4_at_the_end(position: &[u8], apple: bool, mdat_len: usize) -> Vec<u8> {
    let mut mvhd = vec![0u8; 4];
    mvhd.extend(3_786_912_000u32.to_be_bytes());
    mvhd.extend(0u32.to_be_bytes());
    mvhd.extend(1000u32.to_be_bytes());
    mvhd.extend(7_000u32.to_be_bytes());
    mvhd.extend([0u8; 80]);
    let located = if apple {
        let key = b"com.apple.quicktime.location.ISO6709";
        let mut keys = vec![0u8; 4];
        keys.extend(2u32.to_be_bytes());
        for name in [b"com.apple.quicktime.make".as_slice(), key] {
            keys.extend(((name.len() + 8) as u32).to_be_bytes());
            keys.extend(b"mdta");
            keys.extend(name);
        }
        let item = |index: u32, value: &[u8]| {
            let mut data = vec![0, 0, 0, 1, 0, 0, 0, 0];
            data.extend(value);
            let data = bmff_box(b"data", &data);
            let mut b = ((data.len() + 8) as u32).to_be_bytes().to_vec();
            b.extend(index.to_be_bytes());
            b.extend(data);
            b
        };
        let ilst = bmff_box(b"ilst", &[item(1, b"Apple"), item(2, position)].concat());
        let hdlr = bmff_box(b"hdlr", &[0u8; 24]);
        bmff_box(b"meta", &[hdlr, bmff_box(b"keys", &keys), ilst].concat())
    } else {
        let mut xyz = (position.len() as u16).to_be_bytes().to_vec();
        xyz.extend(0x15c7u16.to_be_bytes());
        xyz.extend(position);
        bmff_box(b"udta", &bmff_box(b"\xA9xyz", &xyz))
    };
    let moov = bmff_box(b"moov", &[bmff_box(b"mvhd", &mvhd), located].concat());
    let ftyp = bmff_box(b"ftyp", b"isom\0\0\x02\0isomiso2mp41");
    let mdat = bmff_box(b"mdat", &vec![7u8; mdat_len]);
    [ftyp, mdat, moov].concat()
}

#[test]
fn the_recording_position_and_a_moov_after_the_media_data() {
    for apple in [false, true] {
        let bytes = mp4_at_the_end(b"+54.1843-002.7189/", apple, 5_000);
        let whole = convert(&input("v.mp4", &bytes, bytes.len() as u64, FileType::Video)).unwrap();
        let u = &whole.units[0];
        assert!(u.text.contains("duration 7 s"), "{}", u.text);
        assert!(u.text.contains("GPS 54.1843, -2.7189"), "{}", u.text);
        assert_eq!(u.fields["gps_lat"], "54.184300");
        assert_eq!(u.fields["gps_lon"], "-2.718900");
        assert_eq!(whole.meta.extra["gps"], "54.184300, -2.718900");
        // Only the head was read: nothing from the moov, no error.
        let head = &bytes[..2_000];
        let mut only_head = input("v.mp4", head, bytes.len() as u64, FileType::Video);
        let c = convert(&only_head).unwrap();
        assert!(!c.units[0].fields.contains_key("gps_lat"));
        assert!(!c.units[0].fields.contains_key("duration_s"));
        // Head and tail: as the whole file.
        let tail = &bytes[bytes.len() - 1_000..];
        only_head.tail = tail;
        let c = convert(&only_head).unwrap();
        assert_eq!(c.units[0].text, u.text.clone());
        // A tail that does not reach back to the moov's start is no harm either.
        only_head.tail = &bytes[bytes.len() - 10..];
        assert!(convert(&only_head).is_ok());
    }
}

#[test]
fn iso6709_positions() {
    use super::bmff::iso6709;
    assert_eq!(iso6709("+54.1843-002.7189/"), Some((54.1843, -2.7189)));
    assert_eq!(
        iso6709("+52.3676+004.9041+000.000/"),
        Some((52.3676, 4.9041))
    );
    assert_eq!(iso6709("-33.8688+151.2093"), Some((-33.8688, 151.2093)));
    // 0,0 (no fix), out of range, degrees-minutes form, garbage.
    for bad in [
        "+00.0000+000.0000/",
        "+91.0+010.0/",
        "+5230.5+00454.3/",
        "abc",
        "",
        "+1",
    ] {
        assert_eq!(iso6709(bad), None, "{bad}");
    }
}

#[test]
fn broken_media_headers() {
    let bad = |bytes: &[u8]| {
        convert(&input("x.mp4", bytes, bytes.len() as u64, FileType::Video)).unwrap_err()
    };
    assert!(matches!(bad(b""), ConvertError::Empty));
    assert_eq!(bad(b"tiny").reason(), "corrupt");
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 7) as u8 | 1)
        .collect();
    assert_eq!(bad(&noise).reason(), "corrupt");
    // Text named .mp3.
    let text = b"This is not an audio file, just some words in a text file.";
    let err = convert(&input("a.mp3", text, text.len() as u64, FileType::Audio));
    assert_eq!(err.unwrap_err().reason(), "corrupt");
    // A truncated Matroska header.
    let mkv = b"\x1A\x45\xDF\xA3\x9F\x42\x86\x81\x01";
    assert_eq!(
        bad(&[mkv.as_slice(), &[0u8; 8]].concat()).reason(),
        "corrupt"
    );
}

#[test]
fn flac_streaminfo() {
    let mut flac = b"fLaC\0\0\0\x22".to_vec();
    flac.extend([0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0]);
    // 44100 Hz, 2 channels, 16 bits, 441000 samples.
    let packed: u64 = (44_100u64 << 44) | (1 << 41) | (15 << 36) | 441_000;
    flac.extend(packed.to_be_bytes());
    flac.extend([0u8; 16]);
    let c = convert(&input("s.flac", &flac, 10_000, FileType::Audio)).unwrap();
    assert_eq!(c.units[0].fields["duration_s"], "10.0");
    assert_eq!(c.units[0].fields["channels"], "2");
}

fn flac() -> Vec<u8> {
    let mut flac = b"fLaC\0\0\0\x22".to_vec();
    flac.extend([0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0]);
    let packed: u64 = (44_100u64 << 44) | (1 << 41) | (15 << 36) | 441_000;
    flac.extend(packed.to_be_bytes());
    flac.extend([0u8; 16]);
    flac
}

/// An EBML element with an 8-byte size.
fn ebml(id: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = id.to_vec();
    out.push(0x01);
    out.extend(&(body.len() as u64).to_be_bytes()[1..]);
    out.extend(body);
    out
}

fn webm() -> Vec<u8> {
    let header = ebml(b"\x1A\x45\xDF\xA3", &ebml(b"\x42\x82", b"webm"));
    let info = ebml(
        b"\x15\x49\xA9\x66",
        &[
            ebml(b"\x2A\xD7\xB1", &1_000_000u32.to_be_bytes()[1..]),
            ebml(b"\x44\x89", &12_500.0f64.to_be_bytes()),
        ]
        .concat(),
    );
    let cluster = ebml(b"\x1F\x43\xB6\x75", &[0u8; 32]);
    [header, ebml(b"\x18\x53\x80\x67", &[info, cluster].concat())].concat()
}

fn aiff() -> Vec<u8> {
    let mut comm = 2u16.to_be_bytes().to_vec();
    comm.extend(88_200u32.to_be_bytes());
    comm.extend(16u16.to_be_bytes());
    comm.extend([0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]); // 44100 Hz
    let mut chunk = b"COMM".to_vec();
    chunk.extend((comm.len() as u32).to_be_bytes());
    chunk.extend(comm);
    let mut out = b"FORM".to_vec();
    out.extend(((chunk.len() + 4) as u32).to_be_bytes());
    out.extend(b"AIFF");
    out.extend(chunk);
    out
}

fn ogg() -> Vec<u8> {
    let mut out = b"OggS\0\x02".to_vec();
    out.extend([0u8; 22]);
    out.extend(b"\x01vorbis\0\0\0\0\x02");
    out.extend(44_100u32.to_le_bytes());
    out.extend([0u8; 16]);
    out
}

fn avi() -> Vec<u8> {
    let mut avih = 40_000u32.to_le_bytes().to_vec(); // 25 fps
    avih.extend([0u8; 12]);
    avih.extend(250u32.to_le_bytes()); // frames
    avih.extend([0u8; 12]);
    avih.extend(320u32.to_le_bytes());
    avih.extend(240u32.to_le_bytes());
    avih.extend([0u8; 16]);
    let mut list = b"hdrlavih".to_vec();
    list.extend((avih.len() as u32).to_le_bytes());
    list.extend(avih);
    let mut body = b"AVI LIST".to_vec();
    body.extend((list.len() as u32).to_le_bytes());
    body.extend(list);
    let mut out = b"RIFF".to_vec();
    out.extend((body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

#[test]
fn damaged_media_headers_do_not_panic() {
    let fixtures: Vec<(&str, FileType, Vec<u8>)> = vec![
        (
            "a.wav",
            FileType::Audio,
            [wav_header(64, 16_000, 1), vec![0; 64]].concat(),
        ),
        ("v.mp4", FileType::Video, mp4(5_000, 200)),
        ("s.flac", FileType::Audio, flac()),
        ("v.webm", FileType::Video, webm()),
        ("a.aiff", FileType::Audio, aiff()),
        ("a.ogg", FileType::Audio, ogg()),
        ("v.avi", FileType::Video, avi()),
        (
            "a.mp3",
            FileType::Audio,
            [
                b"ID3\x04\0\0\0\0\0\x10".as_slice(),
                &[0xFF, 0xFB, 0x90, 0x64],
                &[0u8; 48],
            ]
            .concat(),
        ),
    ];
    for (name, file_type, bytes) in &fixtures {
        let c = convert(&input(name, bytes, bytes.len() as u64, *file_type));
        assert!(c.is_ok(), "intact {name}: {c:?}");
    }
    let mut rng = Rng(0x3ED1_A000_0000_0001);
    for _ in 0..1500 {
        let (name, file_type, base) = rng.pick(&fixtures);
        let bytes = testutil::mutate(&mut rng, base);
        let size = some_size(&mut rng, bytes.len());
        let Ok(c) = convert(&input(name, &bytes, size, *file_type)) else {
            continue;
        };
        testutil::check_conversion(&c, name);
        if let Some(d) = c.units[0].fields.get("duration_s") {
            let d: f64 = d.parse().unwrap();
            assert!(d >= 0.0, "{name}: duration {d}");
        }
    }
}

#[test]
fn bmff_boxes_with_64_bit_sizes_near_the_limit_are_errors() {
    let ftyp = bmff_box(b"ftyp", b"isom\0\0\x02\0isomiso2mp41");
    for k in 0..64u64 {
        for declared in [u64::MAX - k, (u64::MAX - k) / 2, 1 << 63, u64::MAX >> k] {
            let mut bytes = ftyp.clone();
            bytes.extend(1u32.to_be_bytes());
            bytes.extend(b"free");
            bytes.extend(declared.to_be_bytes());
            bytes.extend([0u8; 32]);
            let size = bytes.len() as u64;
            let result = convert(&input("b.mp4", &bytes, size, FileType::Video));
            assert_eq!(result.unwrap_err().reason(), "corrupt", "{declared}");
        }
    }
}

#[test]
fn damaged_fixture_media_files_do_not_panic_when_present() {
    let mut rng = Rng(0x3ED1_A000_0000_0002);
    for (name, file_type) in [
        ("memo.mp3", FileType::Audio),
        ("screen.mp4", FileType::Video),
        ("truncated.mp4", FileType::Video),
    ] {
        let Ok(bytes) = std::fs::read(format!("../tests/fixtures/media/{name}")) else {
            println!("note: {name} not present, skipped");
            continue;
        };
        for _ in 0..60 {
            let damaged = testutil::mutate(&mut rng, &bytes);
            let size = some_size(&mut rng, damaged.len());
            if let Ok(c) = convert(&input(name, &damaged, size, file_type)) {
                testutil::check_conversion(&c, name);
            }
        }
    }
}

/// Whether `part` lies inside `whole` (same allocation).
fn within(part: &[u8], whole: &[u8]) -> bool {
    let (start, end) = (
        whole.as_ptr() as usize,
        whole.as_ptr() as usize + whole.len(),
    );
    let at = part.as_ptr() as usize;
    part.is_empty() || (at >= start && at + part.len() <= end)
}

#[test]
fn box_and_ebml_walkers_stay_in_bounds() {
    let seeds = [mp4(5_000, 200), webm(), Vec::new()];
    let mut rng = Rng(0xB0C5_0000_0000_0001);
    for _ in 0..2000 {
        let data = match rng.below(3) {
            0 => testutil::random_bytes(&mut rng, 96),
            _ => {
                let seed = rng.pick(&seeds);
                testutil::mutate(&mut rng, seed)
            }
        };
        let mut visits = 0;
        for_each_box(&data, &mut |kind, body| {
            visits += 1;
            assert!(kind.len() == 4 && within(kind, &data) && within(body, &data));
        });
        assert!(visits <= data.len() / 8);
        let children = ebml_children(&data);
        assert!(children.len() <= 256);
        assert!(children.iter().all(|(_, body)| within(body, &data)));
        for at in 0..data.len() + 4 {
            if let Ok((kind, header, size)) = box_header(&data, at, rng.next() >> rng.below(64)) {
                assert!(
                    within(kind, &data) && (header == 8 || header == 16) && size >= header as u64
                );
            }
            if let Some((_, len)) = ebml_id(&data, at) {
                assert!((1..=4).contains(&len) && at + len <= data.len());
            }
            if let Some((_, len)) = ebml_size(&data, at) {
                assert!((1..=8).contains(&len) && at + len <= data.len());
            }
        }
        let _ = probe_media(&data, &[], data.len() as u64);
    }
}

#[test]
#[cfg_attr(
    not(dentate_shared),
    ignore = "needs ../shared/corpus beside the repository"
)]
fn broken_corpus_files_when_present() {
    let dir = std::path::Path::new("../../shared/corpus/realworld/Broken");
    if !dir.exists() {
        panic!("missing: {} not present", dir.display());
    }
    let cases: [(&str, FileType, bool); 3] = [
        ("empty.webm", FileType::Video, false),
        ("invalid_userdata.mp4", FileType::Video, false),
        ("truncated.mkv", FileType::Video, false),
    ];
    for (name, file_type, ok) in cases {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let head = &bytes[..bytes.len().min(1 << 20)];
        let result = crate::convert(&input(name, head, bytes.len() as u64, file_type));
        assert_eq!(result.is_ok(), ok, "{name}: {result:?}");
    }
}
