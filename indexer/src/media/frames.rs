//! Video frames: perceptual hashes to skip near-duplicate frames, and the grouping of
//! consecutive seconds that show the same text into one unit.

use image::imageops::FilterType;
use image::RgbImage;

/// Frames whose hashes differ in at most this many of 64 bits count as the same picture
/// (their text is not read again).
pub const DUPLICATE_DISTANCE: u32 = 4;

/// 64-bit DCT perceptual hash (pHash): the 8×8 lowest frequencies of the 32×32 grey
/// thumbnail, each bit set when the coefficient is above their median.
pub fn phash(image: &RgbImage) -> u64 {
    const N: usize = 32;
    let grey = image::imageops::grayscale(image);
    let small = image::imageops::resize(&grey, N as u32, N as u32, FilterType::Triangle);
    let pixels: Vec<f32> = small.pixels().map(|p| p.0[0] as f32).collect();
    let cos = dct_table(N);
    // Only the first 8 frequencies in each direction are needed.
    let mut rows = vec![0f32; N * 8]; // rows[y][u]
    for y in 0..N {
        for u in 0..8 {
            rows[y * 8 + u] = (0..N).map(|x| pixels[y * N + x] * cos[u * N + x]).sum();
        }
    }
    let mut coefficients = [0f32; 64];
    for v in 0..8 {
        for u in 0..8 {
            coefficients[v * 8 + u] = (0..N).map(|y| rows[y * 8 + u] * cos[v * N + y]).sum();
        }
    }
    let mut sorted: Vec<f32> = coefficients[1..].to_vec();
    sorted.sort_by(f32::total_cmp);
    let median = sorted[sorted.len() / 2];
    coefficients.iter().enumerate().fold(
        0u64,
        |hash, (i, &c)| if c > median { hash | (1 << i) } else { hash },
    )
}

fn dct_table(n: usize) -> Vec<f32> {
    let mut table = vec![0f32; n * n];
    for u in 0..n {
        for x in 0..n {
            table[u * n + x] =
                ((std::f32::consts::PI / n as f32) * (x as f32 + 0.5) * u as f32).cos();
        }
    }
    table
}

pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// A run of consecutive seconds `[first, last]` that show the same text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRun {
    pub first: u32,
    pub last: u32,
    pub text: String,
}

/// Groups per-second texts into runs; seconds without text end a run and are left out.
pub fn text_runs(per_second: &[String]) -> Vec<TextRun> {
    let mut runs: Vec<TextRun> = Vec::new();
    for (second, text) in per_second.iter().enumerate() {
        let second = second as u32;
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.last + 1 == second && run.text == text => run.last = second,
            _ => runs.push(TextRun {
                first: second,
                last: second,
                text: text.to_string(),
            }),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(seed: u32) -> RgbImage {
        RgbImage::from_fn(320, 180, |x, y| {
            let v = ((x * seed + y * 7) % 256) as u8;
            image::Rgb([v, v / 2, 255 - v])
        })
    }

    #[test]
    fn phash_is_stable_under_small_changes_and_differs_across_pictures() {
        let a = pattern(3);
        let mut noisy = a.clone();
        for x in 0..10 {
            noisy.put_pixel(x, 5, image::Rgb([0, 0, 0]));
        }
        assert!(distance(phash(&a), phash(&noisy)) <= DUPLICATE_DISTANCE);
        let half = RgbImage::from_fn(320, 180, |x, _| {
            if x < 160 {
                image::Rgb([255, 255, 255])
            } else {
                image::Rgb([0, 0, 0])
            }
        });
        assert!(distance(phash(&a), phash(&half)) > DUPLICATE_DISTANCE * 2);
    }

    #[test]
    fn runs_join_equal_neighbours_only() {
        let texts: Vec<String> = ["", "A", "A", "B", "", "B", "B"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let runs = text_runs(&texts);
        assert_eq!(
            runs,
            vec![
                TextRun {
                    first: 1,
                    last: 2,
                    text: "A".into()
                },
                TextRun {
                    first: 3,
                    last: 3,
                    text: "B".into()
                },
                TextRun {
                    first: 5,
                    last: 6,
                    text: "B".into()
                },
            ]
        );
    }
}
