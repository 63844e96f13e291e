//! The daemon's exact text-vector store in memory: every unit's vectors as f32 rows,
//! or int8 rows past [`QUANTIZE_ABOVE`] units with a sign pass first and an exact
//! rescoring of the best; dot products compiled for AVX2 too and chosen at run time.

use std::collections::HashSet;

use crate::api::{StoreError, VectorHit};
use crate::columns::{Hashes, RunStrings, Strings};
use crate::error::IndexError;
use crate::manifest::Manifest;
use crate::vector::{best_of, best_window, from_bytes, windows_from_bytes, TEXT_DIM};

/// Dot product, chunked so the compiler vectorises it; compiled for AVX2 too and chosen
/// at run time (same lanes, same order of additions: the same result on every path).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked at run time).
        return unsafe { dot_avx2(a, b) };
    }
    dot_generic(a, b)
}

/// [`dot_generic`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_avx2(a: &[f32], b: &[f32]) -> f32 {
    dot_generic(a, b)
}

#[inline(always)]
pub(crate) fn dot_generic(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0.0f32; 8];
    let chunks_a = a.chunks_exact(8);
    let chunks_b = b.chunks_exact(8);
    let tail: f32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (ca, cb) in chunks_a.zip(chunks_b) {
        for i in 0..8 {
            sums[i] += ca[i] * cb[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

/// A text-vector hit before staleness checks.
#[derive(Debug, Clone, PartialEq)]
pub struct TextHit {
    pub unit_id: String,
    pub file_id: String,
    /// Hash of the text the vector was computed from.
    pub text_hash: String,
    pub score: f32,
    /// The window of the unit's text that scored (0 for a text the model saw whole; see
    /// `indexer::windows`).
    pub window: usize,
    /// How many windows the unit's vector holds (the indexer's `--text-windows` may
    /// have spread fewer over a long text than the default).
    pub windows: usize,
}

/// Text vectors beyond this many are held as int8 (a quarter of the memory, a quarter of
/// the bytes each scan reads); below it they stay float32 and the scan is exact.
pub const QUANTIZE_ABOVE: usize = 100_000;

/// Bytes reserved per unit id when a store's size is known (a guess: the column grows as
/// needed).
pub(crate) const UNIT_ID_BYTES: usize = 20;

/// [`QUANTIZE_ABOVE`], or `DENTATE_QUANTIZE_ABOVE` when set (a number of vectors; a
/// large one keeps every store float32, 0 makes every one int8).
pub fn quantize_above() -> usize {
    std::env::var("DENTATE_QUANTIZE_ABOVE")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(QUANTIZE_ABOVE)
}

/// Candidates an int8 scan hands to exact rescoring for `k` results.
pub fn rescore_depth(k: usize) -> usize {
    (k * 4).max(k + 32)
}

/// The share of an int8 store's units that its sign-bit first pass hands to the int8
/// rows (1 in `SIGN_SHARE`): enough for recall@10 ≥ 0.99 of the int8 scan on random
/// unit vectors at 1M units, the hardest case (see [`crate::signs`]).
pub const SIGN_SHARE: usize = 32;

/// Units the sign-bit pass of a store of `units` keeps for the int8 rows to score when
/// `k` are wanted: a [`SIGN_SHARE`]th of them, never fewer than `16 k` or 2,048.
pub fn sign_depth(units: usize, k: usize) -> usize {
    (units / SIGN_SHARE).max(k.saturating_mul(16)).max(2048)
}

/// Whether int8 stores loaded from now on scan sign bits first: yes, unless
/// `DENTATE_SIGN_PASS` is `0` or `off` (every int8 row scored, as before the pass).
pub(crate) fn sign_pass_enabled() -> bool {
    !matches!(
        std::env::var("DENTATE_SIGN_PASS").as_deref().map(str::trim),
        Ok("0" | "off")
    )
}

/// The stored vectors, row-major.
#[derive(Debug, Clone)]
pub(crate) enum Matrix {
    F32(Vec<f32>),
    /// Each row scaled so its largest component is ±127; `scales[row]` undoes it.
    /// `signs` holds each row's sign bits ([`crate::signs`]), for a first pass that
    /// reads an eighth of the bytes; `sign_pass` says whether scans use it.
    I8 {
        codes: Vec<i8>,
        scales: Vec<f32>,
        signs: crate::signs::SignRows,
        sign_pass: bool,
    },
}

/// Brute-force search over vectors of one dimension in memory, loaded from the manifest:
/// the text vectors (`TEXT_DIM`, [`ExactStore::load`]) or the CLIP vectors of one model
/// (the dimension of the first stored vector, [`ExactStore::load_images`]). Exact for
/// float32 rows; int8 rows (large text stores, [`QUANTIZE_ABOVE`]) give approximate
/// scores, which [`EmbeddedVectors`] rescores exactly from the manifest.
///
/// A unit has one row per window of its text (one for a text the model saw whole) and
/// scores by its best row.
#[derive(Debug, Clone)]
pub struct ExactStore {
    pub(crate) dim: usize,
    // Per unit, end to end in one buffer each (see `crate::columns`).
    pub(crate) unit_ids: Strings,
    pub(crate) file_ids: RunStrings,
    /// Hash of the text each vector was computed from (empty for image vectors).
    pub(crate) text_hashes: Hashes,
    /// Unit `u`'s rows are `starts[u]..starts[u + 1]` (one entry more than units).
    pub(crate) starts: Vec<u32>,
    pub(crate) matrix: Matrix,
}

/// Integer dot product of two int8 rows (before their scales).
#[inline(always)]
pub(crate) fn dot_i8_generic(a: &[i8], b: &[i8]) -> i32 {
    let mut sums = [0i32; 32];
    let chunks_a = a.chunks_exact(32);
    let chunks_b = b.chunks_exact(32);
    let tail: i32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    for (ca, cb) in chunks_a.zip(chunks_b) {
        for i in 0..32 {
            sums[i] += i32::from(ca[i]) * i32::from(cb[i]);
        }
    }
    sums.iter().sum::<i32>() + tail
}

/// [`dot_i8_generic`] compiled for AVX2 (the default target has only SSE2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    dot_i8_generic(a, b)
}

/// Whether this CPU has AVX2 (asked once).
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx2() -> bool {
    static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVX2.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
}

/// Integer dot product of two int8 rows, with AVX2 where the CPU has it.
pub(crate) fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked at run time).
        return unsafe { dot_i8_avx2(a, b) };
    }
    dot_i8_generic(a, b)
}

/// A vector as int8 codes and the scale that undoes them (largest component ±127).
pub(crate) fn quantize(vector: &[f32]) -> (Vec<i8>, f32) {
    let largest = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
    let codes = vector
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (codes, scale)
}

impl ExactStore {
    /// An empty text-vector store (`TEXT_DIM`).
    pub fn text() -> ExactStore {
        ExactStore::empty(TEXT_DIM)
    }

    pub(crate) fn empty(dim: usize) -> ExactStore {
        ExactStore {
            dim,
            unit_ids: Strings::default(),
            file_ids: RunStrings::default(),
            text_hashes: Hashes::default(),
            starts: vec![0],
            matrix: Matrix::F32(Vec::new()),
        }
    }

    /// Holds the vectors pushed from now on as int8.
    pub(crate) fn quantized(mut self) -> ExactStore {
        self.matrix = Matrix::I8 {
            codes: Vec::new(),
            scales: Vec::new(),
            signs: crate::signs::SignRows::new(self.dim),
            sign_pass: sign_pass_enabled(),
        };
        self
    }

    /// An int8 store whose scans do (`true`) or do not use its sign bits first.
    pub(crate) fn with_sign_pass(mut self, on: bool) -> ExactStore {
        if let Matrix::I8 { sign_pass, .. } = &mut self.matrix {
            *sign_pass = on;
        }
        self
    }

    /// Whether scores are approximate (int8 rows).
    pub fn is_quantized(&self) -> bool {
        matches!(self.matrix, Matrix::I8 { .. })
    }

    /// Every text vector of the manifest (rows of another dimension are left out), as
    /// int8 beyond [`QUANTIZE_ABOVE`] rows. Rows are streamed, never all held as bytes.
    pub fn load(manifest: &Manifest) -> Result<ExactStore, IndexError> {
        let count = manifest.vector_count()?;
        let mut store = ExactStore::text();
        if count > quantize_above() {
            store = store.quantized();
        }
        store.reserve(count);
        manifest.for_each_vector(|unit_id, file_id, text_hash, bytes| {
            if let Some(windows) = windows_from_bytes(bytes, TEXT_DIM) {
                store.push(&unit_id, &file_id, &text_hash, &windows);
            }
        })?;
        Ok(store)
    }

    /// Room for `rows` more units of about a row each.
    pub(crate) fn reserve(&mut self, rows: usize) {
        self.unit_ids.reserve(rows, UNIT_ID_BYTES);
        self.file_ids.reserve(rows);
        self.text_hashes.reserve(rows);
        self.starts.reserve(rows);
        match &mut self.matrix {
            Matrix::F32(values) => values.reserve(rows * self.dim),
            Matrix::I8 {
                codes,
                scales,
                signs,
                ..
            } => {
                codes.reserve(rows * self.dim);
                scales.reserve(rows);
                signs.reserve(rows);
            }
        }
    }

    /// The image vectors of one CLIP model; the first non-empty vector sets the
    /// dimension, rows of another dimension are left out.
    pub fn load_images(manifest: &Manifest, model: &str) -> Result<ExactStore, IndexError> {
        let mut store = ExactStore::empty(0);
        for (unit_id, file_id, bytes) in manifest.image_vectors(model)? {
            let Some(vector) = from_bytes(&bytes) else {
                continue;
            };
            if store.dim == 0 {
                store.dim = vector.len();
            }
            if vector.len() != store.dim || vector.is_empty() {
                continue;
            }
            store.push(&unit_id, &file_id, "", &vector);
        }
        Ok(store)
    }

    /// Appends a unit with its rows: `windows` holds one or more vectors of the store's
    /// dimension, one after another.
    pub(crate) fn push(&mut self, unit_id: &str, file_id: &str, text_hash: &str, windows: &[f32]) {
        self.unit_ids.push(unit_id);
        self.file_ids.push(file_id);
        self.text_hashes.push(text_hash);
        for vector in windows.chunks_exact(self.dim.max(1)) {
            match &mut self.matrix {
                Matrix::F32(values) => values.extend_from_slice(vector),
                Matrix::I8 {
                    codes,
                    scales,
                    signs,
                    ..
                } => {
                    let (row, scale) = quantize(vector);
                    signs.push(&row);
                    codes.extend_from_slice(&row);
                    scales.push(scale);
                }
            }
        }
        let rows = self.rows_total() + windows.len() / self.dim.max(1);
        self.starts.push(rows as u32);
    }

    /// Rows of all units.
    pub(crate) fn rows_total(&self) -> usize {
        self.starts.last().map_or(0, |&r| r as usize)
    }

    /// The rows of unit `unit`.
    #[inline]
    pub(crate) fn rows_of(&self, unit: usize) -> std::ops::Range<usize> {
        self.starts[unit] as usize..self.starts[unit + 1] as usize
    }

    /// This store with the rows of `files` replaced by the manifest's current text
    /// vectors of those files, in unit-id order as [`ExactStore::load`] gives them: a few
    /// changed files cost one copy of the rows in memory instead of reading and
    /// converting every stored vector again. `None` when a full load is due instead (a
    /// float32 store that would grow past [`quantize_above`]).
    pub fn updated(
        &self,
        manifest: &Manifest,
        files: &[String],
    ) -> Result<Option<ExactStore>, IndexError> {
        let changed: HashSet<&str> = files.iter().map(String::as_str).collect();
        let mut fresh: Vec<(String, String, String, Vec<f32>)> = Vec::new();
        for file_id in files {
            for (unit_id, (text_hash, bytes)) in manifest.vectors_of_file(file_id)? {
                if let Some(windows) = windows_from_bytes(&bytes, TEXT_DIM) {
                    fresh.push((unit_id, file_id.clone(), text_hash, windows));
                }
            }
        }
        fresh.sort_by(|a, b| a.0.cmp(&b.0));
        let keep: Vec<bool> = self
            .file_ids
            .iter()
            .map(|file| !changed.contains(file))
            .collect();
        let kept = |row: &usize| keep[*row];
        let total = keep.iter().filter(|k| **k).count() + fresh.len();
        if !self.is_quantized() && total > quantize_above() {
            return Ok(None);
        }
        let mut out = ExactStore::empty(self.dim);
        if let Matrix::I8 { sign_pass, .. } = &self.matrix {
            out = out.quantized().with_sign_pass(*sign_pass);
        }
        out.reserve(total);
        let mut fresh = fresh.into_iter().peekable();
        for row in (0..self.len()).filter(kept) {
            while let Some((unit_id, file_id, text_hash, vector)) =
                fresh.next_if(|f| *f.0 < *self.unit_ids.get(row))
            {
                out.push(&unit_id, &file_id, &text_hash, &vector);
            }
            out.copy_row(self, row);
        }
        for (unit_id, file_id, text_hash, vector) in fresh {
            out.push(&unit_id, &file_id, &text_hash, &vector);
        }
        Ok(Some(out))
    }

    /// Appends unit `unit` of `from` (a store of the same dimension and row format) with
    /// its rows, as is.
    pub(crate) fn copy_row(&mut self, from: &ExactStore, unit: usize) {
        let rows = from.rows_of(unit);
        let span = rows.start * self.dim..rows.end * self.dim;
        match (&mut self.matrix, &from.matrix) {
            (Matrix::F32(values), Matrix::F32(source)) => {
                values.extend_from_slice(&source[span]);
            }
            (
                Matrix::I8 {
                    codes,
                    scales,
                    signs,
                    ..
                },
                Matrix::I8 {
                    codes: c,
                    scales: s,
                    signs: b,
                    ..
                },
            ) => {
                codes.extend_from_slice(&c[span]);
                scales.extend_from_slice(&s[rows.clone()]);
                for row in rows.clone() {
                    signs.push_from(b, row);
                }
            }
            // Never: `updated` makes `self` in `from`'s format.
            _ => return,
        }
        self.unit_ids.push(from.unit_ids.get(unit));
        self.file_ids.push(from.file_ids.get(unit));
        self.text_hashes.push_from(&from.text_hashes, unit);
        let total = self.rows_total() + rows.len();
        self.starts.push(total as u32);
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> usize {
        self.unit_ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.unit_ids.is_empty()
    }

    /// `(score, unit, window)` of the `k` best units among `allowed` (`None`: all), best
    /// first; ties in unit order. A unit scores by its best row (window). `query` has the
    /// store's dimension. A large store is scanned by several threads (see
    /// [`crate::scan`]).
    pub(crate) fn top(
        &self,
        query: &[f32],
        k: usize,
        allowed: Option<&HashSet<String>>,
    ) -> Vec<(f32, usize, usize)> {
        if self.dim == 0 || k == 0 {
            return Vec::new();
        }
        let dim = self.dim;
        match &self.matrix {
            Matrix::F32(values) => self.best_units(k, allowed, |row| {
                dot(query, &values[row * dim..(row + 1) * dim])
            }),
            Matrix::I8 {
                codes,
                scales,
                signs,
                sign_pass,
            } => {
                let (query_codes, query_scale) = quantize(query);
                let int8 = |row: usize| {
                    let dot = dot_i8(&query_codes, &codes[row * dim..(row + 1) * dim]);
                    dot as f32 * query_scale * scales[row]
                };
                let depth = sign_depth(self.len(), k);
                if !*sign_pass || depth >= self.len() {
                    return self.best_units(k, allowed, int8);
                }
                // Sign bits pick the candidates; their int8 rows rank them.
                let threads = crate::scan::threads_for(self.len());
                let question = crate::signs::SignQuery::new(query);
                let estimates = question.estimate_units(signs, &self.starts, threads, |unit| {
                    self.admits(allowed, unit)
                });
                let candidates = crate::signs::best_share(&estimates, depth);
                // Candidates' rows are far apart in memory: the threads share them.
                let mut scored: Vec<(f32, usize, usize)> =
                    crate::scan::in_parts(candidates.len(), threads, |part| {
                        candidates[part]
                            .iter()
                            .filter_map(|&unit| {
                                let rows = self.rows_of(unit);
                                best_of(rows.len(), |i| int8(rows.start + i))
                                    .map(|(score, window)| (score, unit, window))
                            })
                            .collect::<Vec<_>>()
                    })
                    .concat();
                crate::scan::keep_best(&mut scored, k);
                scored
            }
        }
    }

    /// Whether unit `unit` is among `allowed` (`None`: all are).
    pub(crate) fn admits(&self, allowed: Option<&HashSet<String>>, unit: usize) -> bool {
        allowed.is_none_or(|allowed| allowed.contains(self.unit_ids.get(unit)))
    }

    /// [`ExactStore::top`] with `score` giving each row's score: a unit scores by its
    /// best row, and that row's place among the unit's rows is its window.
    pub(crate) fn best_units(
        &self,
        k: usize,
        allowed: Option<&HashSet<String>>,
        score: impl Fn(usize) -> f32 + Sync,
    ) -> Vec<(f32, usize, usize)> {
        let units = self.len();
        let best = |unit: usize| {
            let rows = self.rows_of(unit);
            best_of(rows.len(), |i| score(rows.start + i))
        };
        crate::scan::best_rows(units, k, crate::scan::threads_for(units), |unit| {
            self.admits(allowed, unit)
                .then(|| best(unit).map_or(f32::NEG_INFINITY, |(s, _)| s))
        })
        .into_iter()
        .map(|(s, unit)| (s, unit, best(unit).map_or(0, |(_, window)| window)))
        .collect()
    }

    /// The `k` most similar points to a unit-length `query` among `allowed` (`None`:
    /// all), best first; ties in row order. A query of another dimension finds nothing.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        allowed: Option<&HashSet<String>>,
    ) -> Vec<TextHit> {
        if query.len() != self.dim || k == 0 {
            return Vec::new();
        }
        self.top(query, k, allowed)
            .into_iter()
            .map(|(score, unit, window)| TextHit {
                unit_id: self.unit_ids.get(unit).to_string(),
                file_id: self.file_ids.get(unit).to_string(),
                text_hash: self.text_hashes.get(unit),
                score,
                window,
                windows: self.rows_of(unit).len(),
            })
            .collect()
    }

    /// The `k` closest images among `allowed`, best first; ties in row order. A query of
    /// another dimension than the stored vectors is an error.
    pub(crate) fn search_images(
        &self,
        query: &[f32],
        k: usize,
        allowed: Option<&HashSet<String>>,
    ) -> Result<Vec<VectorHit>, StoreError> {
        if self.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        if query.len() != self.dim {
            return Err(StoreError::Dimension {
                what: "the CLIP text embedding",
                query: query.len(),
                stored: self.dim,
            });
        }
        Ok(self
            .top(query, k, allowed)
            .into_iter()
            .map(|(score, unit, _)| VectorHit {
                unit_id: self.unit_ids.get(unit).to_string(),
                file_id: self.file_ids.get(unit).to_string(),
                score,
            })
            .collect())
    }
}

/// The `k` best of approximate hits by their exact score (`exact` gives a unit's stored
/// vectors, one per window; a hit without them keeps its approximate score), best first.
pub fn rescore(
    mut hits: Vec<TextHit>,
    query: &[f32],
    k: usize,
    exact: impl Fn(&str) -> Option<Vec<f32>>,
) -> Vec<TextHit> {
    for hit in &mut hits {
        let windows = exact(&hit.unit_id).filter(|v| v.len() % query.len().max(1) == 0);
        let Some(windows) = windows else { continue };
        if let Some((score, window)) = best_window(query, &windows, dot) {
            hit.score = score;
            hit.window = window;
            hit.windows = windows.len() / query.len();
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.unit_id.cmp(&b.unit_id)));
    hits.truncate(k);
    hits
}

/// [`rescore`] of the first `checked` approximate hits only (best first by approximate
/// score); the others follow them with their approximate scores, each capped at the
/// lowest rescored score so that the list stays sorted, in approximate order.
pub fn rescore_top(
    mut hits: Vec<TextHit>,
    query: &[f32],
    k: usize,
    checked: usize,
    exact: impl Fn(&str) -> Option<Vec<f32>>,
) -> Vec<TextHit> {
    let rest = hits.split_off(checked.min(hits.len()));
    let mut out = rescore(hits, query, checked, exact);
    let floor = out.last().map_or(f32::INFINITY, |h| h.score);
    out.extend(rest.into_iter().map(|mut hit| {
        hit.score = hit.score.min(floor);
        hit
    }));
    out.truncate(k);
    out
}
