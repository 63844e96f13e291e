//! Fuzzing on stable Rust, without instrumentation: a seeded mutation loop over real
//! files (the repository's samples, `../shared/corpus/realworld/Broken/`, small built-in
//! seeds). Each iteration damages a seed or an earlier input that behaved differently
//! from the others (bytes flipped, cut, zeroed, repeated, spliced; for ZIP-based
//! formats one member rewritten inside a valid archive, so the XML parsers are reached),
//! runs the target and judges the outcome. A panic, a broken invariant or an input that
//! runs longer than the hang limit is a crash; each crash's input is kept (and written
//! to a folder when one is given) so it becomes a regression test.
//!
//! [`run`] is the engine, shared with the daemon's targets (`searchd::fuzz`);
//! [`FAMILIES`] and [`family_target`] are the converter targets, one per format family.
//! The converter families' inputs carry the type in their first byte (an index into the
//! family's types), so a mutation of that byte feeds a file to its sibling converter.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::{Conversion, ConvertError, FileType, Input};

/// A small deterministic generator (xorshift64*), so runs reproduce. The seed must not
/// be 0.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits (not an `Iterator`: the stream never ends).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True once in `n` times on average.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A length skewed towards the small: often 0..8, sometimes up to `max`.
    pub fn size(&mut self, max: usize) -> usize {
        match self.below(4) {
            0 => self.below(8),
            1 => self.below(64.min(max) + 1),
            _ => self.below(max + 1),
        }
    }
}

/// Random bytes, biased towards 0, 0xFF, 0x80 and ASCII.
pub fn random_bytes(rng: &mut Rng, max_len: usize) -> Vec<u8> {
    let len = rng.size(max_len);
    (0..len)
        .map(|_| match rng.below(5) {
            0 => 0,
            1 => 0xFF,
            2 => 0x80 | rng.below(64) as u8,
            3 => b' ' + rng.below(95) as u8,
            _ => rng.next() as u8,
        })
        .collect()
}

/// Numbers and tokens that parsers trip on, inserted by [`mutate`].
const DICTIONARY: &[&str] = &[
    "0",
    "-1",
    "4294967295",
    "18446744073709551615",
    "99999999999999999999",
    "1e309",
    "NaN",
    "<",
    ">",
    "</",
    "<?xml",
    "&amp;",
    "&#x0;",
    "]]>",
    "\"",
    "{",
    "}",
    "[",
    "]",
    "obj",
    "endobj",
    "stream",
    "endstream",
    "xref",
    "trailer",
    "/Length 99999999",
    "BEGIN:VEVENT",
    "END:VEVENT",
    "RRULE:FREQ=SECONDLY;COUNT=999999999",
    "DTSTART:99991231T235959Z",
    "Content-Type: multipart/mixed; boundary=\"b\"",
    "--b",
    "=?utf-8?B?",
    "\r\n\r\n",
    "\u{feff}",
    "é",
    "𝄞",
];

/// A damaged copy of `bytes`: one to three of bytes flipped, cut short, a span zeroed
/// or set to 0xFF, deleted or repeated, random bytes, a dictionary token or a stray
/// multi-byte UTF-8 fragment inserted.
pub fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..1 + rng.below(3) {
        let len = out.len();
        let at = rng.below(len + 1);
        let span = 1 + rng.size(64);
        let end = (at + span).min(len);
        match rng.below(9) {
            0 => {
                for _ in 0..1 + rng.below(8) {
                    if len > 0 {
                        let i = rng.below(len);
                        out[i] ^= 1 << rng.below(8);
                    }
                }
            }
            1 => out.truncate(at),
            2 => out[at..end].iter_mut().for_each(|b| *b = 0),
            3 => out[at..end].iter_mut().for_each(|b| *b = 0xFF),
            4 => {
                out.drain(at..end);
            }
            5 => {
                let copy = out[at..end].to_vec();
                for _ in 0..1 + rng.below(4) {
                    out.splice(at..at, copy.iter().copied());
                }
            }
            6 => {
                let noise = random_bytes(rng, 16);
                out.splice(at..at, noise);
            }
            7 => {
                let token = rng.pick(DICTIONARY).as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            _ => {
                let piece = rng.pick(&["é", "€", "𝄞", "\u{feff}"]).as_bytes();
                let cut = 1 + rng.below(piece.len());
                out.splice(at..at, piece[..cut].iter().copied());
            }
        }
    }
    out
}

/// A copy of a ZIP archive (docx, pptx, odt, xlsx, ods…) with one member damaged by
/// [`mutate`] and the archive rewritten whole, so the damage gets past the archive's
/// checksums to the member's parser. `None` when `bytes` is no readable archive.
pub fn mutate_zip_member(rng: &mut Rng, bytes: &[u8]) -> Option<Vec<u8>> {
    if !bytes.starts_with(b"PK") {
        return None;
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).ok()?;
    if archive.is_empty() || archive.len() > 512 {
        return None;
    }
    let victim = rng.below(archive.len());
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for index in 0..archive.len() {
        let mut member = archive.by_index(index).ok()?;
        let name = String::from_utf8_lossy(member.name_raw()).into_owned();
        let mut content = Vec::new();
        member
            .by_ref()
            .take(8 << 20)
            .read_to_end(&mut content)
            .ok()?;
        if index == victim {
            content = mutate(rng, &content);
        }
        writer.start_file(name, options).ok()?;
        writer.write_all(&content).ok()?;
    }
    Some(writer.finish().ok()?.into_inner())
}

/// What one input did: a signature of its behaviour (inputs with a signature not seen
/// before are kept and mutated further), or a crash with its message.
pub enum Verdict {
    Ok(u64),
    Crash(String),
}

/// A signature from anything hashable.
pub fn signature(value: impl Hash) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// How long and how a run goes.
#[derive(Debug, Clone)]
pub struct Budget {
    /// How long a run goes on, when [`Budget::iterations`] is not set.
    pub time: Duration,
    /// How many inputs a run checks (after the seeds), whatever the time: the same
    /// inputs on every machine. Set, it takes the place of `time`.
    pub iterations: Option<u64>,
    /// The generator's seed (runs with the same seed, seeds and budget repeat).
    pub seed: u64,
    /// An input running longer than this is reported as a hang and the process exits
    /// (a conversion cannot be interrupted).
    pub hang_after: Duration,
    /// Where crashing inputs are written (`<target>-<n>.bin`), if anywhere.
    pub crash_dir: Option<PathBuf>,
}

impl Budget {
    /// A run of exactly `iterations` damaged inputs after the seeds (see
    /// [`Budget::iterations`]); `DENTATE_FUZZ_ITERATIONS` overrides the number.
    pub fn iterations(iterations: u64) -> Budget {
        let iterations = std::env::var("DENTATE_FUZZ_ITERATIONS")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(iterations);
        Budget {
            iterations: Some(iterations),
            ..Budget::from_env(0.0)
        }
    }

    /// `DENTATE_FUZZ_SECONDS` seconds when set, else `default_seconds`.
    pub fn from_env(default_seconds: f64) -> Budget {
        let seconds = std::env::var("DENTATE_FUZZ_SECONDS")
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(default_seconds);
        Budget {
            time: Duration::from_secs_f64(seconds),
            iterations: None,
            seed: 0x0D3E_17A7_E5EE_D001,
            hang_after: Duration::from_secs(60),
            crash_dir: None,
        }
    }
}

/// One crash: its message and the input that caused it.
#[derive(Debug, Clone)]
pub struct Crash {
    pub message: String,
    pub input: Vec<u8>,
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct Report {
    pub target: String,
    pub seeds: usize,
    pub iterations: u64,
    pub seconds: f64,
    /// Distinct behaviours seen (signatures).
    pub behaviours: usize,
    /// The slowest input, in milliseconds.
    pub slowest_ms: u64,
    /// Crashing inputs, one per distinct message.
    pub crashes: Vec<Crash>,
    /// Crashing inputs in all (with repeats of the same message).
    pub crash_count: u64,
}

impl Report {
    pub fn summary(&self) -> String {
        format!(
            "{}: {} iterations in {:.1} s, {} seeds, {} behaviours, slowest {} ms, {} crashes ({} distinct)",
            self.target,
            self.iterations,
            self.seconds,
            self.seeds,
            self.behaviours,
            self.slowest_ms,
            self.crash_count,
            self.crashes.len()
        )
    }
}

/// Keeps the input under test where the watchdog can save it.
struct Watch {
    started_ms: AtomicU64,
    input: Mutex<Vec<u8>>,
    done: AtomicBool,
}

const IDLE: u64 = u64::MAX;

fn start_watchdog(name: &str, budget: &Budget, origin: Instant) -> Arc<Watch> {
    let watch = Arc::new(Watch {
        started_ms: AtomicU64::new(IDLE),
        input: Mutex::new(Vec::new()),
        done: AtomicBool::new(false),
    });
    let (shared, name, limit, dir) = (
        watch.clone(),
        name.to_string(),
        budget.hang_after,
        budget.crash_dir.clone(),
    );
    std::thread::spawn(move || {
        while !shared.done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(250));
            let started = shared.started_ms.load(Ordering::Relaxed);
            if started == IDLE {
                continue;
            }
            let running = (origin.elapsed().as_millis() as u64).saturating_sub(started);
            if running > limit.as_millis() as u64 {
                let input = shared.input.lock().map(|i| i.clone()).unwrap_or_default();
                let saved = dir
                    .as_deref()
                    .and_then(|d| save(d, &format!("{name}-hang"), &input));
                eprintln!(
                    "fuzz {name}: HANG: one input ran longer than {} s ({} bytes{})",
                    limit.as_secs(),
                    input.len(),
                    saved
                        .map(|p| format!(", saved to {}", p.display()))
                        .unwrap_or_default()
                );
                std::process::exit(3);
            }
        }
    });
    watch
}

fn save(dir: &Path, stem: &str, input: &[u8]) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!("{stem}.bin"));
    std::fs::write(&path, input).ok()?;
    Some(path)
}

/// The next input: a seed or a kept input, damaged.
fn next_input(rng: &mut Rng, seeds: &[Vec<u8>], pool: &[Vec<u8>]) -> Vec<u8> {
    let base: &[u8] = if !pool.is_empty() && rng.one_in(3) {
        &pool[rng.below(pool.len())]
    } else {
        &seeds[rng.below(seeds.len())]
    };
    match rng.below(20) {
        0 => random_bytes(rng, 4096),
        1 => {
            // Splice: the head of one input, the tail of another.
            let other = rng.pick(seeds);
            let head = rng.below(base.len() + 1);
            let tail = rng.below(other.len() + 1);
            [&base[..head], &other[tail..]].concat()
        }
        2..=5 => {
            // Converter inputs carry their type in the first byte: keep it.
            let (kind, body) = base.split_at(base.len().min(1));
            match mutate_zip_member(rng, body) {
                Some(zipped) => [kind, &zipped].concat(),
                None => mutate(rng, base),
            }
        }
        _ => {
            let mut out = mutate(rng, base);
            for _ in 0..rng.below(3) {
                out = mutate(rng, &out);
            }
            out
        }
    }
}

/// Runs `check` on damaged copies of `seeds` until the budget is spent. Every seed is
/// first checked as it is.
pub fn run(
    name: &str,
    seeds: &[Vec<u8>],
    budget: &Budget,
    mut check: impl FnMut(&[u8]) -> Verdict,
) -> Report {
    let seeds: Vec<Vec<u8>> = if seeds.is_empty() {
        vec![Vec::new()]
    } else {
        seeds.to_vec()
    };
    let origin = Instant::now();
    let watch = start_watchdog(name, budget, origin);
    let mut rng = Rng(budget.seed.max(1));
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut crashes: HashMap<String, Vec<u8>> = HashMap::new();
    let (mut iterations, mut crash_count, mut slowest_ms) = (0u64, 0u64, 0u64);
    let mut next_seed = 0;
    let more = |iterations: u64| match budget.iterations {
        Some(count) => iterations < seeds.len() as u64 + count,
        None => origin.elapsed() < budget.time,
    };
    while next_seed < seeds.len() || more(iterations) {
        let input = if next_seed < seeds.len() {
            next_seed += 1;
            seeds[next_seed - 1].clone()
        } else {
            next_input(&mut rng, &seeds, &pool)
        };
        if let Ok(mut slot) = watch.input.lock() {
            slot.clone_from(&input);
        }
        let started = Instant::now();
        watch
            .started_ms
            .store(origin.elapsed().as_millis() as u64, Ordering::Relaxed);
        let verdict = crate::panic_capture::catching(|| check(&input))
            .unwrap_or_else(|panic| Verdict::Crash(format!("panic: {panic}")));
        watch.started_ms.store(IDLE, Ordering::Relaxed);
        slowest_ms = slowest_ms.max(started.elapsed().as_millis() as u64);
        iterations += 1;
        match verdict {
            Verdict::Ok(signature) => {
                if seen.insert(signature) && input.len() <= 4 << 20 {
                    if pool.len() >= 256 {
                        let evict = rng.below(pool.len());
                        pool.swap_remove(evict);
                    }
                    pool.push(input);
                }
            }
            Verdict::Crash(message) => {
                crash_count += 1;
                if !crashes.contains_key(&message) {
                    let stem = format!("{name}-crash-{}", crashes.len() + 1);
                    if let Some(dir) = &budget.crash_dir {
                        save(dir, &stem, &input);
                    }
                    eprintln!("fuzz {name}: CRASH {stem}: {message}");
                    crashes.insert(message, input);
                }
            }
        }
    }
    watch.done.store(true, Ordering::Relaxed);
    let mut crashes: Vec<Crash> = crashes
        .into_iter()
        .map(|(message, input)| Crash { message, input })
        .collect();
    crashes.sort_by(|a, b| a.message.cmp(&b.message));
    Report {
        target: name.to_string(),
        seeds: seeds.len(),
        iterations,
        seconds: origin.elapsed().as_secs_f64(),
        behaviours: seen.len(),
        slowest_ms,
        crashes,
        crash_count,
    }
}

/// A converter family: the file types one format module handles.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    pub name: &'static str,
    pub types: &'static [FileType],
    /// Small valid files of the family, so every family has seeds without a corpus.
    builtin: &'static [&'static str],
}

/// One target per format module.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "pdf",
        types: &[FileType::Pdf],
        builtin: &["%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>>>>>>>endobj 4 0 obj<</Length 44>>stream\nBT /F1 12 Tf 72 720 Td (Hello budget) Tj ET\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"],
    },
    Family {
        name: "office",
        types: &[FileType::Docx, FileType::Odt, FileType::Pptx],
        builtin: &[],
    },
    Family {
        name: "sheet",
        types: &[
            FileType::Xlsx,
            FileType::Xls,
            FileType::Ods,
            FileType::Csv,
            FileType::Tsv,
        ],
        builtin: &[
            "\u{3}date,amount,note\n2024-01-05,12.50,\"coffee, beans\"\n2024-01-06,-3,refund\n",
            "\u{4}name\tcount\nalpha\t1\nbeta\t2\n",
        ],
    },
    Family {
        name: "mail",
        types: &[FileType::Eml, FileType::Mbox],
        builtin: &["\u{1}From ann@example.org Mon Oct  6 09:30:00 2025\nFrom: Ann <ann@example.org>\nSubject: One\nDate: Mon, 6 Oct 2025 09:30:00 +0200\n\nFirst.\n>From the quoted line.\n\nFrom bob@example.org Tue Oct  7 10:00:00 2025\nFrom: bob@example.org\nSubject: Two\nContent-Length: 8\n\nSecond.\n\n", "\0From: Ann <ann@example.org>\r\nTo: bob@example.org\r\nSubject: =?utf-8?B?QnVkZ2V0?=\r\nDate: Mon, 6 Oct 2025 09:30:00 +0200\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nSee the attached notes.\r\n--b\r\nContent-Type: text/plain; name=\"notes.txt\"\r\nContent-Disposition: attachment; filename=\"notes.txt\"\r\n\r\nmeeting notes\r\n--b--\r\n"],
    },
    Family {
        name: "calendar",
        types: &[FileType::Ics],
        builtin: &["\0BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:1@x\r\nDTSTART;TZID=Europe/Paris:20250106T090000\r\nDTEND;TZID=Europe/Paris:20250106T100000\r\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10\r\nEXDATE;TZID=Europe/Paris:20250108T090000\r\nSUMMARY:Choir practice\r\nATTENDEE;CN=Ann:mailto:ann@example.org\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"],
    },
    Family {
        name: "sqlite",
        types: &[FileType::Sqlite],
        builtin: &[],
    },
    Family {
        name: "text",
        types: &[FileType::Text, FileType::Html, FileType::Ipynb],
        builtin: &[
            "\0Budget notes\n\nLine one.\r\nLine two with é and 𝄞.\n",
            "\u{1}<html><head><title>T</title><script>x()</script></head><body><h1>Head</h1><p>Para &amp; <b>bold</b></p><table><tr><td>1</td></tr></table></body></html>",
            "\u{2}{\"cells\":[{\"cell_type\":\"markdown\",\"source\":[\"# Title\"]},{\"cell_type\":\"code\",\"source\":\"print(1)\",\"outputs\":[{\"text\":\"1\"}]}],\"metadata\":{},\"nbformat\":4}",
        ],
    },
    Family {
        name: "image",
        types: &[FileType::Image],
        builtin: &[],
    },
    Family {
        name: "av",
        types: &[FileType::Audio, FileType::Video],
        builtin: &[],
    },
    Family {
        name: "binary",
        types: &[FileType::Binary],
        builtin: &["\0\u{7f}ELF\u{2}\u{1}\u{1}\0\0\0\0\0\0\0\0\0"],
    },
];

impl Family {
    pub fn by_name(name: &str) -> Option<&'static Family> {
        FAMILIES.iter().find(|f| f.name == name)
    }

    /// The seeds of this family: files under `dirs` (walked, at most 64 MiB each) whose
    /// detected type belongs to it, each prefixed with its type's index, then the
    /// built-in seeds.
    pub fn seeds(&self, dirs: &[PathBuf]) -> Vec<Vec<u8>> {
        let mut files = Vec::new();
        for dir in dirs {
            collect_files(dir, &mut files, 0);
        }
        files.sort();
        let mut seeds = Vec::new();
        for path in files {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let name = path.to_string_lossy();
            let detected =
                crate::detect(&name, &bytes[..bytes.len().min(crate::detect::SNIFF_LEN)]);
            if let Some(index) = self.types.iter().position(|t| *t == detected) {
                seeds.push([&[index as u8][..], &bytes].concat());
            }
        }
        seeds.extend(self.builtin.iter().map(|s| s.as_bytes().to_vec()));
        seeds
    }

    /// Converts one fuzz input (type index in the first byte) and its attachments.
    pub fn check(&self, input: &[u8]) -> Verdict {
        let Some((&kind, bytes)) = input.split_first() else {
            return Verdict::Ok(0);
        };
        let file_type = self.types[kind as usize % self.types.len()];
        let name = format!("fuzz.{}", extension(file_type));
        // Head-only types may see a head of a larger file.
        let size = if file_type.needs_full_content() || kind < 0x80 {
            bytes.len() as u64
        } else {
            bytes.len() as u64 + u64::from(kind) * 4096
        };
        let input = Input {
            tail: &[],
            name: &name,
            bytes,
            size,
            file_type,
        };
        let conversion = match crate::convert(&input) {
            Ok(conversion) => conversion,
            Err(ConvertError::Panic { detail, .. }) => {
                return Verdict::Crash(format!(
                    "{} converter panicked: {detail}",
                    file_type.as_str()
                ))
            }
            Err(error) => return Verdict::Ok(signature((file_type, error_kind(&error)))),
        };
        if let Some(problem) = violations(&conversion).into_iter().next() {
            return Verdict::Crash(format!("{}: {problem}", file_type.as_str()));
        }
        // Attachments are converted as the indexer does (one level here).
        for child in &conversion.children {
            let child_input = Input::detect(&child.name, &child.bytes);
            match crate::convert(&child_input) {
                Err(ConvertError::Panic { detail, .. }) => {
                    return Verdict::Crash(format!(
                        "{} attachment converter panicked: {detail}",
                        child_input.file_type.as_str()
                    ))
                }
                Ok(converted) => {
                    if let Some(problem) = violations(&converted).into_iter().next() {
                        return Verdict::Crash(format!("attachment: {problem}"));
                    }
                }
                Err(_) => {}
            }
        }
        Verdict::Ok(signature((
            file_type,
            conversion.units.len().min(32),
            conversion.children.len().min(4),
            conversion.units.first().map(|u| u.kind),
        )))
    }
}

fn error_kind(error: &ConvertError) -> u8 {
    match error {
        ConvertError::Empty => 0,
        ConvertError::Encrypted { .. } => 1,
        ConvertError::Corrupt { .. } => 2,
        ConvertError::Unsupported { .. } => 3,
        ConvertError::TooLarge { .. } => 4,
        _ => 5,
    }
}

fn extension(file_type: FileType) -> &'static str {
    match file_type {
        FileType::Text => "txt",
        FileType::Image => "jpg",
        FileType::Audio => "mp3",
        FileType::Video => "mp4",
        FileType::Binary => "bin",
        other => other.as_str(),
    }
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if file_type.is_dir() && depth < 8 {
            collect_files(&path, out, depth + 1);
        } else if file_type.is_file()
            && entry
                .metadata()
                .is_ok_and(|m| m.len() > 0 && m.len() <= 64 << 20)
        {
            out.push(path);
        }
    }
}

/// What every conversion promises: kinds set, ranges in order, pages and slides
/// counted from 1. One message per broken promise.
pub fn violations(conversion: &Conversion) -> Vec<String> {
    let mut problems = Vec::new();
    for unit in &conversion.units {
        let l = &unit.locator;
        let ordered = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => a <= b,
            _ => true,
        };
        if unit.kind.is_none() {
            problems.push(format!("unit without kind {unit:?}"));
        }
        for (what, ok) in [
            ("rows", ordered(l.row_start, l.row_end)),
            ("lines", ordered(l.line_start, l.line_end)),
            ("chars", ordered(l.char_start, l.char_end)),
            ("times", ordered(l.t_start_ms, l.t_end_ms)),
            ("page", l.page.is_none_or(|p| p >= 1)),
            ("slide", l.slide.is_none_or(|s| s >= 1)),
        ] {
            if !ok {
                problems.push(format!("{what} out of order in {l:?}"));
            }
        }
    }
    problems
}

/// The seed folders a run uses by default: the repository's samples and test
/// fixtures, and the shared real-world corpus (its `Broken/` files first) when present.
pub fn default_seed_dirs(repo: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![
        repo.join("../shared/corpus/realworld/Broken"),
        repo.join("samples/profile"),
        repo.join("tests/fixtures/media"),
        repo.join("tests/fixtures/images"),
    ];
    let realworld = repo.join("../shared/corpus/realworld");
    if let Ok(entries) = std::fs::read_dir(&realworld) {
        let mut others: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() && !p.ends_with("Broken"))
            .collect();
        others.sort();
        dirs.extend(others);
    }
    dirs.into_iter().filter(|d| d.is_dir()).collect()
}

/// A fuzz run of one converter family over the default seeds of the repository at
/// `repo`.
pub fn run_family(family: &Family, repo: &Path, budget: &Budget) -> Report {
    let seeds = family.seeds(&default_seed_dirs(repo));
    run(family.name, &seeds, budget, |input| family.check(input))
}

#[cfg(test)]
mod tests;
