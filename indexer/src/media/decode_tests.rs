//! Tests of [`super`]: PPM frames, pdftoppm, keyframes-first reading with real ffmpeg.

use super::super::frames;
use super::*;

#[test]
fn reads_consecutive_ppm_frames() {
    let mut stream = b"P6\n2 1\n255\n".to_vec();
    stream.extend_from_slice(&[1, 2, 3, 4, 5, 6]);
    stream.extend_from_slice(b"P6 1 1 255\n");
    stream.extend_from_slice(&[7, 8, 9]);
    let mut reader = std::io::Cursor::new(stream);
    let first = read_ppm(&mut reader).unwrap().unwrap();
    assert_eq!(first.dimensions(), (2, 1));
    assert_eq!(first.get_pixel(1, 0).0, [4, 5, 6]);
    let second = read_ppm(&mut reader).unwrap().unwrap();
    assert_eq!(second.get_pixel(0, 0).0, [7, 8, 9]);
    assert!(read_ppm(&mut reader).unwrap().is_none());
}

/// pdftoppm prints ~130K error lines for this damaged PDF: both pipes must be drained
/// or the render blocks until its time limit.
#[test]
#[cfg_attr(
    not(dentate_shared),
    ignore = "needs ../shared/corpus beside the repository"
)]
fn chatty_pdftoppm_does_not_block() {
    let pdf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/realworld/Broken/qpdf issue-202 damaged xref.pdf");
    if !pdf.exists() || Command::new("pdftoppm").arg("-v").output().is_err() {
        panic!("missing: shared corpus or pdftoppm missing");
    }
    let started = Instant::now();
    let image = render_pdf_page(&pdf, 2, "72").expect("page 2 renders");
    assert!(image.width() > 100, "{:?}", image.dimensions());
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// A video made by ffmpeg's own sources, encoded with `encoder`'s arguments.
fn encoded(dir: &Path, name: &str, source: &str, filter: &str, encoder: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let status = Command::new("ffmpeg")
        .args([
            "-v", "error", "-y", "-f", "lavfi", "-i", source, "-vf", filter,
        ])
        .args(encoder)
        .arg(&path)
        .status()
        .expect("ffmpeg runs");
    assert!(status.success());
    path
}

/// [`encoded`] by libx264, a keyframe every `keyint` frames.
fn video(dir: &Path, name: &str, source: &str, filter: &str, keyint: u32) -> PathBuf {
    let params = format!("keyint={keyint}:scenecut=0");
    let encoder = [
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-x264-params",
        &params,
    ];
    encoded(dir, name, source, filter, &encoder)
}

/// Asserts that every second of `planned` looks like the full decode's picture of it.
fn assert_like_every_second(ffmpeg: &Ffmpeg, path: &Path, planned: &Pictures, read: SecondsRead) {
    let mut every = Vec::new();
    ffmpeg
        .frames(path, 3600, |_, image| {
            every.push(image);
            true
        })
        .unwrap();
    assert_eq!(every.len(), planned.seconds.len(), "{read:?}");
    for (second, (a, b)) in every.iter().zip(&planned.seconds).enumerate() {
        let apart = frames::distance(frames::phash(a), frames::phash(b));
        assert!(
            apart <= frames::DUPLICATE_DISTANCE,
            "second {second}: {apart} bits apart, {read:?}"
        );
    }
}

/// Every second's picture (the last one repeated for `Same`).
#[derive(Default)]
struct Pictures {
    seconds: Vec<RgbImage>,
    new: usize,
    restarts: usize,
}

impl SecondSink for Pictures {
    fn second(&mut self, second: u32, picture: Picture) -> bool {
        assert_eq!(second as usize, self.seconds.len());
        let picture = match picture {
            Picture::New(image) => {
                self.new += 1;
                image
            }
            Picture::Same => self.seconds.last().expect("a picture before").clone(),
        };
        self.seconds.push(picture);
        true
    }
    fn restart(&mut self) {
        self.seconds.clear();
        self.restarts += 1;
    }
}

#[test]
fn a_still_screen_is_read_keyframes_first_with_the_same_pictures() {
    let dir = tempfile::tempdir().unwrap();
    // 30 s, a keyframe every 10 s; a line of text appears at 14 s, between two
    // keyframes, and a slide title changes at 20 s (a keyframe)
    let filter = "drawtext=text='Quarterly report':fontsize=40:x=40:y=40:enable='lt(t,20)',\
                  drawtext=text='Appendix':fontsize=40:x=40:y=40:enable='gte(t,20)',\
                  drawtext=text='Invoice 4471 paid':fontsize=32:x=40:y=200:enable='gte(t,14)'";
    let path = video(
        dir.path(),
        "screen.mp4",
        "color=c=white:s=640x360:r=25:d=30",
        filter,
        250,
    );
    let ffmpeg = Ffmpeg::new(Duration::from_secs(60));
    let mut planned = Pictures::default();
    let read = ffmpeg.seconds(&path, 3600, &mut planned).unwrap();
    assert!(read.keyframes_first, "{read:?}");
    assert_eq!(read.seconds, 30);
    // three keyframes, and the ten seconds of the stretch where the line appears
    assert_eq!(read.decoded, 13, "{read:?}");
    assert_eq!(planned.restarts, 0);
    assert_like_every_second(&ffmpeg, &path, &planned, read);
    // a limit cuts the plan
    let mut cut = Pictures::default();
    assert_eq!(ffmpeg.seconds(&path, 12, &mut cut).unwrap().seconds, 12);
    assert_eq!(cut.seconds.len(), 12);
}

/// VP9 codes a large flat change in a few dozen bytes and its decoder ignores
/// `-skip_frame`: its videos are decoded every second, with the same pictures.
#[test]
fn a_vp9_screen_recording_is_decoded_every_second() {
    let dir = tempfile::tempdir().unwrap();
    // the second slide darkens the lower half: the two pictures are far apart
    let filter = "drawtext=text='Slide one':fontsize=40:x=40:y=40:enable='lt(t,6)',\
                  drawbox=x=0:y=180:w=640:h=180:color=black:t=fill:enable='gte(t,6)'";
    let encoder = ["-c:v", "libvpx-vp9", "-g", "100", "-b:v", "300k"];
    let path = encoded(
        dir.path(),
        "slides.webm",
        "color=c=white:s=640x360:r=25:d=12",
        filter,
        &encoder,
    );
    let ffmpeg = Ffmpeg::new(Duration::from_secs(60));
    let mut planned = Pictures::default();
    let read = ffmpeg.seconds(&path, 3600, &mut planned).unwrap();
    assert!(!read.keyframes_first, "{read:?}");
    assert_like_every_second(&ffmpeg, &path, &planned, read);
}

#[test]
fn moving_pictures_are_decoded_every_second_unless_a_keyframe_comes_each_second() {
    let dir = tempfile::tempdir().unwrap();
    let source = "testsrc=size=320x240:rate=25:duration=8";
    let ffmpeg = Ffmpeg::new(Duration::from_secs(60));
    // a keyframe every 10 s: every second decoded
    let sparse = video(dir.path(), "sparse.mp4", source, "null", 250);
    let mut pictures = Pictures::default();
    let read = ffmpeg.seconds(&sparse, 3600, &mut pictures).unwrap();
    assert!(!read.keyframes_first, "{read:?}");
    assert_eq!((read.seconds, read.decoded, pictures.new), (8, 8, 8));
    // a keyframe a second (as phones record): the keyframes alone
    let dense = video(dir.path(), "dense.mp4", source, "null", 25);
    let mut pictures = Pictures::default();
    let read = ffmpeg.seconds(&dense, 3600, &mut pictures).unwrap();
    assert!(read.keyframes_first, "{read:?}");
    assert_eq!((read.seconds, read.decoded, pictures.new), (8, 8, 8));
}

#[test]
fn truncated_ppm_is_an_error() {
    let mut reader = std::io::Cursor::new(b"P6\n4 4\n255\n\x01\x02".to_vec());
    assert!(read_ppm(&mut reader).is_err());
    let mut reader = std::io::Cursor::new(b"P6\n4".to_vec());
    assert!(read_ppm(&mut reader).is_err());
}
