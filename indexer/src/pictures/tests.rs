use std::path::PathBuf;

use super::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/images")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(number, width, height)` of a frame handed on.
type Seen = (u32, u32, u32);

/// The numbers and sizes of the frames `read_frames` hands on.
fn frames_of(bytes: &[u8], caps: FrameCaps) -> (Result<FramesReport, FramesError>, Vec<Seen>) {
    let mut seen = Vec::new();
    let report = read_frames(bytes, caps, |number, image| {
        seen.push((number, image.width(), image.height()))
    });
    (report, seen)
}

fn heif_tool_installed() -> bool {
    let installed = std::process::Command::new(HEIF_TOOL)
        .arg("--help")
        .output()
        .is_ok();
    if !installed {
        eprintln!("{HEIF_TOOL} missing (apt-get install libheif-examples): skipping");
    }
    installed
}

#[test]
fn filter_skips_near_duplicates_and_keeps_to_its_caps() {
    let caps = FrameCaps {
        kept: 3,
        decoded: 6,
        decoded_bytes: 1000,
    };
    let mut filter = FrameFilter::new(caps);
    assert!(filter.admit(10, Some(0)));
    // Within DUPLICATE_DISTANCE bits of a kept frame: skipped.
    assert!(!filter.admit(10, Some(0b1011)));
    assert!(filter.admit(10, Some(0xFFFF)));
    // Near the second kept frame, not the first: still a duplicate.
    assert!(!filter.admit(10, Some(0xFFFE)));
    assert_eq!((filter.kept, filter.duplicates, filter.decoded), (2, 2, 4));
    // Pages (no hash) are always kept; the third kept frame fills the cap.
    assert!(filter.room_for(10).is_ok());
    assert!(filter.admit(10, None));
    assert_eq!(filter.room_for(10), Err(Cap::Kept(3)));

    let mut decoded = FrameFilter::new(caps);
    for _ in 0..6 {
        assert!(decoded.room_for(1).is_ok());
        decoded.admit(1, Some(7));
    }
    assert_eq!(decoded.room_for(1), Err(Cap::Decoded(6)));
    assert_eq!(decoded.kept, 1);

    let mut bytes = FrameFilter::new(caps);
    assert!(bytes.room_for(600).is_ok());
    bytes.skip(600);
    assert_eq!(bytes.room_for(600), Err(Cap::DecodedBytes(600)));
    assert!(bytes.room_for(400).is_ok());
    assert_eq!(
        FrameFilter::new(caps).room_for(u64::MAX),
        Err(Cap::DecodedBytes(0))
    );
}

#[test]
fn frame_text_drops_repeated_lines_and_marks_pages() {
    let frames = vec![
        (1, vec!["Title".to_string(), "one".to_string()]),
        (3, vec!["Title".to_string(), " ".to_string()]),
        (4, vec!["two".to_string(), "one".to_string()]),
    ];
    assert_eq!(frames_text(&frames, false), "Title\none\ntwo");
    assert_eq!(
        frames_text(&frames, true),
        "[page 1]\nTitle\none\n[page 3]\nTitle\n[page 4]\ntwo\none"
    );
    assert_eq!(frames_text(&[], false), "");
}

#[test]
fn transparency_is_put_on_white() {
    let rgba = RgbaImage::from_raw(2, 1, vec![0, 0, 0, 0, 10, 20, 30, 255]).unwrap();
    assert_eq!(on_white(rgba).into_raw(), vec![255, 255, 255, 10, 20, 30]);
}

#[test]
fn tiff_pixels_become_images_or_are_skipped() {
    use tiff::decoder::DecodingResult as D;
    use tiff::ColorType as C;
    // 1-bit rows padded to bytes: 10 pixels wide is 2 bytes a row.
    let bits = vec![0b1000_0000, 0b0100_0000, 0xFF, 0xFF];
    let page = pages::page_image(10, 2, C::Gray(1), D::U8(bits)).unwrap();
    let grey = page.to_luma8();
    assert_eq!(grey.get_pixel(0, 0).0, [255]);
    assert_eq!(grey.get_pixel(1, 0).0, [0]);
    assert_eq!(grey.get_pixel(9, 0).0, [255]);
    assert_eq!(grey.get_pixel(8, 0).0, [0]);
    assert_eq!(grey.get_pixel(5, 1).0, [255]);
    // 16-bit grey is scaled to 8 bits.
    let page = pages::page_image(2, 1, C::Gray(16), D::U16(vec![0xFFFF, 0x8000])).unwrap();
    assert_eq!(page.to_luma8().into_raw(), vec![255, 128]);
    // Unconverted kinds, and buffers too short for the page, give nothing.
    assert!(pages::page_image(1, 1, C::CMYK(8), D::U8(vec![0; 4])).is_none());
    assert!(pages::page_image(1, 1, C::Palette(8), D::U8(vec![0])).is_none());
    assert!(pages::page_image(4, 4, C::RGB(8), D::U8(vec![0; 5])).is_none());
    assert!(pages::page_image(9, 2, C::Gray(1), D::U8(vec![0; 3])).is_none());
}

#[test]
fn animated_gif_gives_its_distinct_frames() {
    let (report, seen) = frames_of(&fixture("animated.gif"), FrameCaps::default());
    let report = report.unwrap();
    // Frame 2 repeats frame 1.
    assert_eq!(seen, vec![(1, 420, 100), (3, 420, 100), (4, 420, 100)]);
    assert_eq!((report.decoded, report.kept, report.duplicates), (4, 3, 1));
    assert!(!report.paged && report.stopped.is_none() && report.damage.is_none());

    let caps = FrameCaps {
        kept: 2,
        ..FrameCaps::default()
    };
    let (report, seen) = frames_of(&fixture("animated.gif"), caps);
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), vec![1, 3]);
    assert_eq!(report.unwrap().stopped, Some(Cap::Kept(2)));
}

#[test]
fn every_tiff_page_is_read() {
    let mut pages = Vec::new();
    let report = read_frames(
        &fixture("pages.tif"),
        FrameCaps::default(),
        |number, image| pages.push((number, image.to_luma8())),
    )
    .unwrap();
    assert!(report.paged);
    assert_eq!((report.decoded, report.kept, report.unsupported), (4, 4, 0));
    assert_eq!(
        pages.iter().map(|p| p.0).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    for (number, grey) in &pages {
        // White pages with black text, whatever their pixel kind (RGB, 8-bit grey,
        // 16-bit grey, 1-bit).
        let dark = grey.pixels().filter(|p| p.0[0] < 64).count();
        assert!(grey.get_pixel(0, 0).0[0] > 240, "page {number}");
        assert!(dark > 200, "page {number}: {dark} dark pixels");
    }
}

#[test]
fn heif_photo_is_decoded_by_heif_convert() {
    if !heif_tool_installed() {
        let error = frames_of(&fixture("photo.heic"), FrameCaps::default())
            .0
            .unwrap_err();
        assert!(
            matches!(&error, FramesError::Heif(e) if e.tool_missing()),
            "{error}"
        );
        return;
    }
    let (report, seen) = frames_of(&fixture("photo.heic"), FrameCaps::default());
    assert_eq!(report.unwrap().kept, 1);
    assert_eq!(seen, vec![(1, 320, 100)]);
    let error = frames_of(&fixture("truncated.heic"), FrameCaps::default())
        .0
        .unwrap_err();
    assert!(
        matches!(error, FramesError::Heif(HeifError::Failed(_))),
        "{error}"
    );
    assert!(
        error.to_string().contains("heif-convert cannot decode it"),
        "{error}"
    );
}

#[test]
fn first_picture_of_any_kind() {
    let gif = first_picture("a.gif", &fixture("animated.gif")).unwrap();
    assert_eq!((gif.width(), gif.height()), (420, 100));
    let tiff = first_picture("a.tif", &fixture("pages.tif")).unwrap();
    assert_eq!((tiff.width(), tiff.height()), (420, 120));
    assert!(first_picture("x", b"not an image").is_none());
    let heic = first_picture("a.heic", &fixture("photo.heic"));
    if heif_tool_installed() {
        assert_eq!(heic.map(|i| i.width()), Some(320));
    }
}

#[test]
fn tiff_pages_of_other_kinds_fall_back_to_the_image_crate() {
    // One CMYK page (not converted by `pages`): the image crate reads it.
    let mut bytes = Vec::new();
    let mut encoder = tiff::encoder::TiffEncoder::new(Cursor::new(&mut bytes)).unwrap();
    encoder
        .write_image::<tiff::encoder::colortype::CMYK8>(2, 1, &[0, 0, 0, 0, 0, 0, 0, 255])
        .unwrap();
    let (report, seen) = frames_of(&bytes, FrameCaps::default());
    let report = report.unwrap();
    assert_eq!(seen, vec![(1, 2, 1)]);
    assert_eq!((report.unsupported, report.kept), (0, 1));
}

#[test]
fn truncated_pictures_keep_their_readable_frames() {
    // The second page's directory is cut off: page 1 is read, the break reported.
    let (report, seen) = frames_of(&fixture("truncated.tif"), FrameCaps::default());
    let report = report.unwrap();
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), vec![1]);
    let damage = report.damage.expect("the break is reported").to_string();
    assert!(damage.starts_with("tiff page 2:"), "{damage}");

    let (report, seen) = frames_of(&fixture("truncated.gif"), FrameCaps::default());
    match report {
        Ok(report) => {
            assert!(!seen.is_empty() && seen.len() < 3, "{seen:?}");
            assert!(report.damage.is_some(), "{report:?}");
        }
        Err(error) => assert!(error.to_string().starts_with("gif frame 1"), "{error}"),
    }
}

#[test]
fn damaged_pictures_never_panic() {
    let files = ["animated.gif", "pages.tif", "truncated.tif"].map(fixture);
    assert!(matches!(
        read_frames(b"GIF89a", FrameCaps::default(), |_, _| {}),
        Err(FramesError::Gif { frame: 1, .. })
    ));
    assert!(matches!(
        read_frames(b"not an image", FrameCaps::default(), |_, _| {}),
        Err(FramesError::Undecodable { image: 1 })
    ));
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..300 {
        let mut bytes = files[round % files.len()].clone();
        let cut = 8 + next() as usize % (bytes.len() - 8);
        bytes.truncate(cut);
        for _ in 0..(next() % 8) {
            let at = next() as usize % bytes.len();
            bytes[at] = next() as u8;
        }
        let mut frames = 0;
        let _ = read_frames(&bytes, FrameCaps::default(), |_, _| frames += 1);
        assert!(frames <= MAX_OCR_FRAMES);
    }
}
