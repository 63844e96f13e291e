//! Shared pieces of the Dentate benchmarks (`benches/benches/core.rs`, criterion) and of
//! the `gen-profile` tool:
//!
//! * [`generate_profile`] / [`generate_files`]: a **synthetic profile** of text notes,
//!   markdown, `.eml` mail, `.ics` calendars and `.csv` sheets, deterministic from a seed
//!   and sized by a number of files or a target number of units (units are counted by
//!   running the real converters on every generated file);
//! * [`build_unit_corpus`]: a **unit corpus** written straight into an index with
//!   `index::IndexWriter` (no files, no conversion), optionally with random unit-length
//!   text vectors, for query latency at 10K–1M units;
//! * small helpers: a seeded [`Rng`], a made-up [`vocabulary`], [`percentile_ms`], and
//!   process memory from `/proc` ([`proc_status_kib`]).
//!
//! Nothing here touches the network or needs the models.

pub mod fuzz;
pub mod load;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use converters::{Input, Locator, Unit, UnitKind};
use index::api::StoreWriter;
use index::vector::{normalize, text_hash, unit_embedding_text, TEXT_DIM};
use index::{FileRecord, IndexHandle, IndexLayout, IndexWriter};

/// A small deterministic generator (xorshift64 over a splitmix-scrambled seed).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Any seed (0 included) gives a usable, distinct stream.
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// Zipf-like pick in `0..n` (rank r with weight about 1/r).
    pub fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next_u64() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }

    /// Uniform in `[-1, 1)`.
    pub fn signed_unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// `size` made-up words (syllable triples, a numeric suffix past 4096), the same for
/// every call: word frequencies of generated text follow [`Rng::zipf`] over this list.
pub fn vocabulary(size: usize) -> Vec<String> {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ren", "sto", "va", "pel", "dor", "in", "tu", "sha", "bre", "qui", "no",
        "fal", "ge",
    ];
    (0..size)
        .map(|i| {
            let mut word = String::new();
            let mut n = i + 17;
            for _ in 0..3 {
                word.push_str(SYLLABLES[n % SYLLABLES.len()]);
                n /= SYLLABLES.len();
            }
            if i >= 4096 {
                word.push_str(&(i / 4096).to_string());
            }
            word
        })
        .collect()
}

/// `words` Zipf-distributed words of `vocab`, space-separated.
pub fn sentence(rng: &mut Rng, vocab: &[String], words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&vocab[rng.zipf(vocab.len())]);
    }
    out
}

/// A search query of 2–5 words, skipping the 50 most frequent (stopword-like) ones.
pub fn query(rng: &mut Rng, vocab: &[String]) -> String {
    let n = rng.between(2, 5);
    (0..n)
        .map(|_| vocab[50 + rng.zipf(vocab.len() - 50)].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The size of the vocabulary every generator here uses.
pub const VOCABULARY: usize = 20_000;

// ---------------------------------------------------------------------------------------
// The synthetic profile

/// The kinds of file [`generate_profile`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// `Notes/**/*.txt`: journal-like notes, some lines opening with a date.
    Note,
    /// `Notes/**/*.md`: headings, bullets and paragraphs.
    Markdown,
    /// `Mail/{Inbox,Sent}/*.eml`: one plain-text RFC 5322 message each.
    Mail,
    /// `Calendar/*.ics`: a VCALENDAR of 5–20 events.
    Calendar,
    /// `Documents/Finance/*.csv`: a statement of 20–300 rows.
    Sheet,
}

impl Family {
    pub const ALL: [Family; 5] = [
        Family::Note,
        Family::Markdown,
        Family::Mail,
        Family::Calendar,
        Family::Sheet,
    ];

    /// The file extension (and the name used in reports).
    pub fn ext(self) -> &'static str {
        match self {
            Family::Note => "txt",
            Family::Markdown => "md",
            Family::Mail => "eml",
            Family::Calendar => "ics",
            Family::Sheet => "csv",
        }
    }

    /// The family of file number `i`: of every 10 files, 3 notes, 2 markdown, 3 mails,
    /// 1 calendar and 1 sheet.
    pub fn of_index(i: usize) -> Family {
        const MIX: [Family; 10] = [
            Family::Note,
            Family::Mail,
            Family::Markdown,
            Family::Note,
            Family::Mail,
            Family::Sheet,
            Family::Note,
            Family::Mail,
            Family::Markdown,
            Family::Calendar,
        ];
        MIX[i % MIX.len()]
    }
}

/// How big a synthetic profile is.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileSpec {
    /// At most this many files.
    pub files: usize,
    /// Stop once the files written convert to at least this many units.
    pub target_units: Option<usize>,
    pub seed: u64,
}

impl ProfileSpec {
    /// Exactly `files` files.
    pub fn files(files: usize, seed: u64) -> ProfileSpec {
        ProfileSpec {
            files,
            target_units: None,
            seed,
        }
    }

    /// As many files as it takes to reach `units` units.
    pub fn units(units: usize, seed: u64) -> ProfileSpec {
        ProfileSpec {
            files: usize::MAX,
            target_units: Some(units),
            seed,
        }
    }
}

/// What a generator made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProfileStats {
    pub files: usize,
    pub bytes: u64,
    /// Units the converters make of those files.
    pub units: usize,
    /// Per extension: (files, bytes, units).
    pub by_family: BTreeMap<&'static str, (usize, u64, usize)>,
}

impl ProfileStats {
    fn add(&mut self, family: Family, bytes: usize, units: usize) {
        self.files += 1;
        self.bytes += bytes as u64;
        self.units += units;
        let entry = self.by_family.entry(family.ext()).or_default();
        entry.0 += 1;
        entry.1 += bytes as u64;
        entry.2 += units;
    }
}

/// Units the real converters make of one file (0 when it does not convert).
pub fn count_units(name: &str, bytes: &[u8]) -> usize {
    converters::convert(&Input::detect(name, bytes))
        .map(|c| c.units.len())
        .unwrap_or(0)
}

struct Generator {
    rng: Rng,
    vocab: Vec<String>,
}

const PEOPLE: [&str; 8] = [
    "Ann Example <ann@example.org>",
    "Bram Stoker <bram@example.net>",
    "Chidi Okafor <chidi@example.com>",
    "Dana Scully <dana@example.org>",
    "Eero Saarinen <eero@example.fi>",
    "Fatima Zahra <fatima@example.ma>",
    "Gus Fring <gus@example.com>",
    "Hana Sato <hana@example.jp>",
];

impl Generator {
    fn new(seed: u64) -> Generator {
        Generator {
            rng: Rng::new(seed),
            vocab: vocabulary(VOCABULARY),
        }
    }

    fn words(&mut self, n: usize) -> String {
        sentence(&mut self.rng, &self.vocab, n)
    }

    /// Between `lo` and `hi` words.
    fn some_words(&mut self, lo: usize, hi: usize) -> String {
        let n = self.rng.between(lo, hi);
        self.words(n)
    }

    /// A day in 2023–2025 as (year, month, day).
    fn day(&mut self) -> (usize, usize, usize) {
        (
            self.rng.between(2023, 2025),
            self.rng.between(1, 12),
            self.rng.between(1, 28),
        )
    }

    fn file(&mut self, i: usize) -> (Family, String, Vec<u8>) {
        let family = Family::of_index(i);
        let (path, text) = match family {
            Family::Note => self.note(i),
            Family::Markdown => self.markdown(i),
            Family::Mail => self.mail(i),
            Family::Calendar => self.calendar(i),
            Family::Sheet => self.sheet(i),
        };
        (family, path, text.into_bytes())
    }

    fn note(&mut self, i: usize) -> (String, String) {
        let mut text = format!("{}\n\n", self.words(4));
        for _ in 0..self.rng.between(5, 60) {
            if self.rng.below(4) == 0 {
                let (y, m, d) = self.day();
                text.push_str(&format!("{y}-{m:02}-{d:02} "));
            }
            let n = self.rng.between(6, 18);
            text.push_str(&self.words(n));
            text.push('\n');
        }
        (format!("Notes/{}/note-{i:06}.txt", i % 17), text)
    }

    fn markdown(&mut self, i: usize) -> (String, String) {
        let mut text = format!("# {}\n", self.words(3));
        for _ in 0..self.rng.between(1, 6) {
            text.push_str(&format!("\n## {}\n\n", self.words(2)));
            for _ in 0..self.rng.between(1, 5) {
                let n = self.rng.between(4, 10);
                text.push_str(&format!("- {}\n", self.words(n)));
            }
            let n = self.rng.between(20, 80);
            text.push_str(&format!("\n{}.\n", self.words(n)));
        }
        (format!("Notes/{}/page-{i:06}.md", i % 13), text)
    }

    fn mail(&mut self, i: usize) -> (String, String) {
        let from = PEOPLE[self.rng.below(PEOPLE.len())];
        let to = PEOPLE[self.rng.below(PEOPLE.len())];
        let (y, m, d) = self.day();
        let hour = self.rng.between(7, 20);
        let subject = self.some_words(2, 6);
        let mut body = String::new();
        for _ in 0..self.rng.between(3, 25) {
            let n = self.rng.between(5, 16);
            body.push_str(&self.words(n));
            body.push('\n');
        }
        let month = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ][m - 1];
        let text = format!(
            "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nDate: {d} {month} {y} {hour:02}:15:00 +0100\r\n\
             Message-ID: <bench-{i}@example.org>\r\nMIME-Version: 1.0\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{body}"
        );
        let folder = if i % 3 == 1 { "Sent" } else { "Inbox" };
        (format!("Mail/{folder}/message-{i:06}.eml"), text)
    }

    fn calendar(&mut self, i: usize) -> (String, String) {
        let mut text = String::from(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Dentate//bench//EN\r\nCALSCALE:GREGORIAN\r\n",
        );
        for e in 0..self.rng.between(5, 20) {
            let (y, m, d) = self.day();
            let hour = self.rng.between(8, 18);
            let summary = self.some_words(2, 5);
            let location = self.words(2);
            let description = self.some_words(3, 8);
            text.push_str(&format!(
                "BEGIN:VEVENT\r\nUID:bench-{i}-{e}@example.org\r\nDTSTAMP:20250101T000000Z\r\n\
                 DTSTART:{y}{m:02}{d:02}T{hour:02}0000Z\r\nDTEND:{y}{m:02}{d:02}T{:02}0000Z\r\n\
                 SUMMARY:{summary}\r\nLOCATION:{location}\r\nDESCRIPTION:{description}\r\nEND:VEVENT\r\n",
                hour + 1
            ));
        }
        text.push_str("END:VCALENDAR\r\n");
        (format!("Calendar/calendar-{i:06}.ics"), text)
    }

    fn sheet(&mut self, i: usize) -> (String, String) {
        let mut text = String::from("date,amount,category,description\n");
        for _ in 0..self.rng.between(20, 300) {
            let (y, m, d) = self.day();
            let category = self.vocab[self.rng.zipf(200)].clone();
            let description = self.words(5);
            text.push_str(&format!(
                "{y}-{m:02}-{d:02},{}.{:02},{category},{description}\n",
                self.rng.below(500),
                self.rng.below(100),
            ));
        }
        (format!("Documents/Finance/statement-{i:06}.csv"), text)
    }
}

/// The files of a synthetic profile, in memory: (relative path, bytes), with the stats
/// (units counted by the converters). Deterministic for a spec.
pub fn generate_files(spec: &ProfileSpec) -> (Vec<(String, Vec<u8>)>, ProfileStats) {
    let mut files = Vec::new();
    let stats = generate(spec, |path, bytes| {
        files.push((path.to_string(), bytes.to_vec()));
        Ok(())
    })
    .expect("in-memory generation does not fail");
    (files, stats)
}

/// Writes a synthetic profile under `root` (created if missing; existing files with the
/// same names are overwritten). Deterministic for a spec: the same seed and size give
/// byte-identical files.
pub fn generate_profile(root: &Path, spec: &ProfileSpec) -> anyhow::Result<ProfileStats> {
    generate(spec, |path, bytes| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap())?;
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))
    })
}

fn generate(
    spec: &ProfileSpec,
    mut sink: impl FnMut(&str, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<ProfileStats> {
    let mut generator = Generator::new(spec.seed);
    let mut stats = ProfileStats::default();
    let mut i = 0;
    while i < spec.files && spec.target_units.is_none_or(|target| stats.units < target) {
        let (family, path, bytes) = generator.file(i);
        let units = count_units(&path, &bytes);
        sink(&path, &bytes)?;
        stats.add(family, bytes.len(), units);
        i += 1;
    }
    Ok(stats)
}

// ---------------------------------------------------------------------------------------
// The unit corpus

/// How big a unit corpus is.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusSpec {
    pub units: usize,
    /// Units per (made-up PDF) file.
    pub units_per_file: usize,
    /// Words per unit.
    pub words_per_unit: usize,
    /// Also store a random unit-length text vector for every unit (fresh for its text,
    /// so dense retrieval uses it).
    pub vectors: bool,
    pub seed: u64,
}

impl CorpusSpec {
    /// `units` units of 60 words in files of 100 pages, with vectors.
    pub fn new(units: usize, seed: u64) -> CorpusSpec {
        CorpusSpec {
            units,
            units_per_file: 100,
            words_per_unit: 60,
            vectors: true,
            seed,
        }
    }
}

/// What [`build_unit_corpus`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusStats {
    pub units: usize,
    pub files: usize,
    pub vectors: usize,
    pub lexical_seconds: f64,
    pub vector_seconds: f64,
}

/// A random unit-length vector of [`TEXT_DIM`] components.
pub fn random_unit_vector(rng: &mut Rng) -> Vec<f32> {
    let mut v: Vec<f32> = (0..TEXT_DIM).map(|_| rng.signed_unit()).collect();
    normalize(&mut v);
    v
}

/// Writes a corpus of made-up PDF pages straight into the index at `index_root` (for
/// the profile folder `profile`, which needs no files): no walk, no conversion, one
/// tantivy commit at the end; then, with `spec.vectors`, a random unit vector per unit
/// through `StoreWriter::put_text_vectors`. Random vectors carry no meaning, but the
/// exact dense scan costs the same for any vectors, so latency is representative.
pub fn build_unit_corpus(
    index_root: &Path,
    profile: &Path,
    spec: &CorpusSpec,
) -> anyhow::Result<CorpusStats> {
    let mut rng = Rng::new(spec.seed);
    let vocab = vocabulary(VOCABULARY);
    let layout = IndexLayout::new(index_root);
    let mut writer = IndexWriter::open(&layout, profile, 2, 200_000_000)?;
    let mtime = chrono::DateTime::parse_from_rfc3339("2025-10-01T12:00:00+00:00")?;
    let started = Instant::now();
    let files = spec.units.div_ceil(spec.units_per_file);
    let mut records = Vec::with_capacity(files);
    let mut written = 0;
    for file in 0..files {
        let count = spec.units_per_file.min(spec.units - written);
        written += count;
        let path = format!("Folder{}/doc-{file:07}.pdf", file % 37);
        let record = FileRecord {
            size: 1,
            hash: Some(format!("bench-{}-{file}", spec.seed)),
            converter_version: converters::converter_version(converters::FileType::Pdf),
            file_type: Some(converters::FileType::Pdf),
            modality: Some(converters::Modality::Document),
            ext: "pdf".into(),
            unit_count: count as u32,
            units_by_kind: BTreeMap::from([("page".to_string(), count as u64)]),
            title: Some(sentence(&mut rng, &vocab, 3)),
            ..FileRecord::new(&path)
        };
        let pages: Vec<Unit> = (0..count)
            .map(|page| {
                Unit::new(
                    UnitKind::Page,
                    Locator::page(page as u32 + 1),
                    sentence(&mut rng, &vocab, spec.words_per_unit),
                )
            })
            .collect();
        writer.add_file(record.clone(), &pages, mtime)?;
        records.push(record);
    }
    writer.commit()?;
    let lexical_seconds = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut vectors = 0;
    if spec.vectors {
        let handle = IndexHandle::open(index_root)?;
        for record in &records {
            let rows: Vec<(String, String, Vec<f32>)> = handle
                .units_of_file(&record.file_id)?
                .into_iter()
                .map(|u| {
                    (
                        u.unit_id,
                        text_hash(&unit_embedding_text(&u.path, &u.title, &u.text)),
                        random_unit_vector(&mut rng),
                    )
                })
                .collect();
            vectors += rows.len();
            writer.put_text_vectors(
                &record.path,
                &record.file_id,
                record.hash.as_deref().unwrap(),
                index::vector::LEGACY_TEXT_MODEL,
                // One vector per unit, as `--text-windows 1` embeds.
                1,
                &rows,
            )?;
        }
    }
    let (_, _, manifest) = writer.finish()?;
    manifest.set_info("last_commit", "2025-10-01T12:00:00+00:00")?;
    Ok(CorpusStats {
        units: written,
        files,
        vectors,
        lexical_seconds,
        vector_seconds: started.elapsed().as_secs_f64(),
    })
}

// ---------------------------------------------------------------------------------------
// Small helpers

/// The `p` quantile (0..=1) of sorted durations, in milliseconds (nearest rank).
pub fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

/// A `kB` field (`VmRSS`, `VmHWM`…) of `/proc/<pid>/status` (`pid` `None`: this
/// process), in KiB.
pub fn proc_status_kib(pid: Option<u32>, field: &str) -> Option<u64> {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/status"),
        None => "/proc/self/status".to_string(),
    };
    let status = std::fs::read_to_string(path).ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The size of the environment variable `name` as a count (`200000`, `200K`, `1M`).
pub fn env_count(name: &str) -> Option<usize> {
    let value = std::env::var(name).ok()?;
    let value = value.trim().to_ascii_lowercase();
    let (digits, scale) = match value.strip_suffix('k') {
        Some(d) => (d, 1_000),
        None => match value.strip_suffix('m') {
            Some(d) => (d, 1_000_000),
            None => (value.as_str(), 1),
        },
    };
    digits.trim().parse::<usize>().ok().map(|n| n * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_deterministic_and_convert() {
        let spec = ProfileSpec::files(20, 7);
        let (a, stats) = generate_files(&spec);
        let (b, _) = generate_files(&spec);
        assert_eq!(a, b);
        assert_eq!(stats.files, 20);
        assert_eq!(stats.by_family.len(), Family::ALL.len());
        // Every family converts to at least one unit per file.
        for (ext, (files, _, units)) in &stats.by_family {
            assert!(units >= files, "{ext}: {units} units of {files} files");
        }
        let (c, _) = generate_files(&ProfileSpec::files(20, 8));
        assert_ne!(a, c);
    }

    #[test]
    fn target_units_bounds_the_profile() {
        let (_, stats) = generate_files(&ProfileSpec::units(300, 1));
        assert!(stats.units >= 300);
        assert!(stats.units < 400, "{stats:?}");
    }

    #[test]
    fn unit_corpus_has_vectors() {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut spec = CorpusSpec::new(250, 3);
        spec.units_per_file = 100;
        let stats = build_unit_corpus(dir.path(), profile.path(), &spec).unwrap();
        assert_eq!((stats.units, stats.files, stats.vectors), (250, 3, 250));
    }

    #[test]
    fn env_counts() {
        std::env::set_var("DENTATE_BENCH_TEST_COUNT", "200K");
        assert_eq!(env_count("DENTATE_BENCH_TEST_COUNT"), Some(200_000));
        std::env::set_var("DENTATE_BENCH_TEST_COUNT", "1m");
        assert_eq!(env_count("DENTATE_BENCH_TEST_COUNT"), Some(1_000_000));
        std::env::set_var("DENTATE_BENCH_TEST_COUNT", "12345");
        assert_eq!(env_count("DENTATE_BENCH_TEST_COUNT"), Some(12_345));
    }
}
