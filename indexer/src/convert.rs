//! Converting one file: read it, skip it when only its mtime moved, run its converter
//! on a thread with a time limit, convert its attachments, and run the enrichment
//! stages (OCR, page OCR, media) on the result. Gold-imported files take their units
//! from their Gold JSON instead.
//!
//! Mailboxes (mbox) are read as a stream, message by message, each message converted
//! with its own time limit and its attachments converted at once, so that a mailbox
//! of any size is never held in memory. A file whose size or modification time moved
//! while it was read is kept with a note ([`CHANGED_KEY`]) and its walked size and time,
//! so the next run reads it again.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::sync::mpsc;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Local, TimeZone, Utc};
use converters::{ChildFile, Conversion, ConvertError, FileType, Input};

pub use crate::converted::{tally_units, Converted};
use crate::manifest::{FileRecord, FileStatus};
use crate::stages::{Earlier, StageInput, Stages};
use crate::walk::WalkedFile;
use index::{CommittedUnits, UnitPath};

/// `FileRecord.extra` key of a file that changed while it was read (a download in
/// progress, a mailbox being appended): what was read is indexed, the run lists it, and
/// the next run reads it again.
pub const CHANGED_KEY: &str = "changed_while_read";

/// How many bytes of a media/binary file are read for detection and metadata.
const HEAD_BYTES: u64 = 1024 * 1024;
/// How many of the last bytes of a larger audio or video file are read too: MP4/MOV
/// files written in one pass keep their index (`moov`: duration, time, position) after
/// the media data.
const TAIL_BYTES: u64 = 8 * 1024 * 1024;

/// The last bytes of an audio or video file beyond its head (see [`TAIL_BYTES`]); empty
/// for other files, small files and on a read error (the head alone is converted).
fn read_tail(file: &WalkedFile, file_type: FileType) -> Vec<u8> {
    use std::io::{Seek, SeekFrom};
    if !matches!(file_type, FileType::Audio | FileType::Video) || file.size <= HEAD_BYTES {
        return Vec::new();
    }
    let length = TAIL_BYTES.min(file.size - HEAD_BYTES);
    let read = || -> std::io::Result<Vec<u8>> {
        let mut handle = std::fs::File::open(&file.abs_path)?;
        handle.seek(SeekFrom::Start(file.size - length))?;
        let mut tail = Vec::with_capacity(length as usize);
        handle.take(length).read_to_end(&mut tail)?;
        Ok(tail)
    };
    // A file that shrank since it was walked: its tail would not end at its size.
    read()
        .ok()
        .filter(|tail| tail.len() as u64 == length)
        .unwrap_or_default()
}

fn read_file(file: &WalkedFile) -> Result<(FileType, Vec<u8>), std::io::Error> {
    let mut handle = std::fs::File::open(&file.abs_path)?;
    let mut head = Vec::with_capacity(converters::detect::SNIFF_LEN);
    (&mut handle)
        .take(converters::detect::SNIFF_LEN as u64)
        .read_to_end(&mut head)?;
    let file_type = converters::detect(&file.rel_path, &head);
    let limit = if file_type.needs_full_content() {
        converters::MAX_CONTENT_BYTES
    } else {
        HEAD_BYTES
    };
    if file_type.needs_full_content() && file.size > limit {
        return Ok((file_type, head));
    }
    let mut bytes = head;
    handle
        .take(limit.saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)?;
    Ok((file_type, bytes))
}

pub fn mtime_of(mtime_ns: i64) -> DateTime<FixedOffset> {
    let utc = Utc
        .timestamp_opt(
            mtime_ns.div_euclid(1_000_000_000),
            mtime_ns.rem_euclid(1_000_000_000) as u32,
        )
        .single()
        .unwrap_or_default();
    utc.with_timezone(&Local).fixed_offset()
}

/// How files are converted in a run.
pub struct Converter<'a> {
    /// Give up on one file's conversion after this long.
    pub timeout: Duration,
    pub stages: &'a Stages,
    /// What the index held when the run began, for stages to carry their work over.
    pub earlier: Option<EarlierFiles<'a>>,
}

/// The files indexed before this run: their records by path (attachments included) and
/// their committed units (see [`crate::stages::Earlier`]).
pub struct EarlierFiles<'a> {
    pub records: &'a HashMap<String, FileRecord>,
    pub units: &'a CommittedUnits,
}

/// One file (or attachment) to convert.
struct Job<'a> {
    path: &'a str,
    parent: Option<&'a str>,
    /// The file on disk (top-level files only).
    on_disk: Option<&'a std::path::Path>,
    file_type: FileType,
    bytes: Vec<u8>,
    /// The file's last bytes when `bytes` is its head (see [`read_tail`]).
    tail: Vec<u8>,
    size: u64,
    mtime_ns: i64,
    hash: Option<String>,
    depth: usize,
}

pub fn convert_file(
    converter: &Converter<'_>,
    file: &WalkedFile,
    previous: Option<&FileRecord>,
) -> Converted {
    let mtime = mtime_of(file.mtime_ns);
    let (file_type, bytes) = match read_file(file) {
        Ok(read) => read,
        Err(error) => return read_failure(file, FileType::Binary, &error),
    };
    let hash = if file_type == FileType::Mbox {
        match stream_hash(&file.abs_path, file.size) {
            Ok(hash) => hash,
            Err(error) => return read_failure(file, file_type, &error),
        }
    } else {
        content_hash(&bytes, file.size)
    };
    // mtime moved, content did not: keep what is indexed.
    if let Some(previous) = previous {
        if previous.hash.as_deref() == Some(hash.as_str())
            && previous.file_type == Some(file_type)
            && converted_by_current(previous)
            && previous.status == FileStatus::Indexed
            && previous.unit_count > 0
            && !converter.stages.owed(previous)
        {
            let mut record = previous.clone();
            record.mtime_ns = file.mtime_ns;
            return Converted {
                record,
                units: Vec::new(),
                mtime,
                children: Vec::new(),
            };
        }
    }
    let mut converted = if file_type == FileType::Mbox {
        converter.convert_mailbox(file, hash)
    } else {
        let tail = read_tail(file, file_type);
        converter.convert(Job {
            path: &file.rel_path,
            parent: None,
            on_disk: Some(&file.abs_path),
            file_type,
            bytes,
            tail,
            size: file.size,
            mtime_ns: file.mtime_ns,
            hash: Some(hash),
            depth: 0,
        })
    };
    if let Some(change) = changed_since_walk(file) {
        converted
            .record
            .extra
            .insert(CHANGED_KEY.to_string(), change);
    }
    converted
}

/// How the file's size or modification time moved since it was walked, if they did:
/// what was read may be part old, part new.
fn changed_since_walk(file: &WalkedFile) -> Option<String> {
    let now = std::fs::metadata(&file.abs_path).ok()?;
    let mtime_ns = now
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(file.mtime_ns, |d| d.as_nanos() as i64);
    ((now.len(), mtime_ns) != (file.size, file.mtime_ns)).then(|| {
        format!(
            "the file changed while it was read (size {} → {} bytes); what was read is indexed and the next run reads it again",
            file.size,
            now.len()
        )
    })
}

/// A record of a file that could not be read.
fn read_failure(file: &WalkedFile, file_type: FileType, error: &std::io::Error) -> Converted {
    let mut record = base_record(
        &file.rel_path,
        None,
        file.size,
        file.mtime_ns,
        file_type,
        None,
    );
    fail(&mut record, "io", format!("read error: {error}"));
    Converted {
        record,
        units: Vec::new(),
        mtime: mtime_of(file.mtime_ns),
        children: Vec::new(),
    }
}

/// The content hash a conversion of `file` records (`None`: unreadable).
pub fn content_hash_of(file: &WalkedFile) -> Option<String> {
    let (file_type, bytes) = read_file(file).ok()?;
    if file_type == FileType::Mbox {
        return stream_hash(&file.abs_path, file.size).ok();
    }
    Some(content_hash(&bytes, file.size))
}

/// [`content_hash`] of a whole file read in pieces (a mailbox is never held in memory).
fn stream_hash(path: &std::path::Path, size: u64) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    let mut handle = std::fs::File::open(path)?;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = handle.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    hasher.update(&size.to_le_bytes());
    Ok(hasher.finalize().to_hex().to_string())
}

/// BLAKE3 of the bytes read (the whole file, or the head of a media file plus its size).
fn content_hash(bytes: &[u8], size: u64) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(bytes);
    hasher.update(&size.to_le_bytes());
    hasher.finalize().to_hex().to_string()
}

pub fn base_record(
    path: &str,
    parent: Option<&str>,
    size: u64,
    mtime_ns: i64,
    file_type: FileType,
    hash: Option<String>,
) -> FileRecord {
    FileRecord {
        parent_path: parent.map(str::to_string),
        size,
        mtime_ns,
        hash,
        converter_version: converters::converter_version(file_type),
        file_type: Some(file_type),
        modality: Some(file_type.modality()),
        ext: converters::extension_of(UnitPath::parse(path).name()),
        ..FileRecord::new(path)
    }
}

fn fail(record: &mut FileRecord, category: &str, message: String) {
    record.status = FileStatus::Failed;
    record.reason = Some(category.to_string());
    record.error = Some(message);
}

/// Whether the file was converted by the current version of its type's converter
/// (versions are per type: improving one converter re-converts only its files).
pub fn converted_by_current(record: &FileRecord) -> bool {
    converters::is_current(record.file_type_name(), record.converter_version)
}

/// Maximum nesting of attachments (mail in mail in mail…).
pub const MAX_ATTACHMENT_DEPTH: usize = 3;

impl Converter<'_> {
    fn convert(&self, job: Job<'_>) -> Converted {
        let Job {
            path,
            parent,
            on_disk,
            file_type,
            bytes,
            tail,
            size,
            mtime_ns,
            hash,
            depth,
        } = job;
        let mtime = mtime_of(mtime_ns);
        let mut record = base_record(path, parent, size, mtime_ns, file_type, hash);
        let stage_bytes = self
            .stages
            .wants_bytes(file_type, on_disk.is_none())
            .then(|| bytes.clone());
        let conversion =
            match convert_with_timeout(path, file_type, bytes, tail, size, self.timeout) {
                Ok(conversion) => conversion,
                Err(error) => {
                    tracing::warn!(path, error = %error, "conversion failed");
                    fail(&mut record, error.reason(), error.to_string());
                    return Converted {
                        record,
                        units: Vec::new(),
                        mtime,
                        children: Vec::new(),
                    };
                }
            };
        let Conversion {
            units,
            meta,
            children,
        } = conversion;
        tally_units(&mut record, &units);
        record.title = meta.title.clone();
        record.author = meta.author.clone();
        record.created = meta.created.map(|t| t.to_rfc3339());
        record.extra = meta.extra.clone();
        if let Some(pages) = meta.page_count {
            record
                .extra
                .insert("page_count".to_string(), pages.to_string());
        }
        let mut converted = Converted {
            record,
            units,
            mtime,
            children: Vec::new(),
        };
        let earlier = self.earlier.as_ref().and_then(|earlier| {
            Earlier::of(
                earlier.records.get(path),
                (converted.record.hash.as_deref(), size, mtime_ns),
                file_type,
                earlier.units,
            )
        });
        let input = StageInput {
            path,
            on_disk,
            file_type,
            bytes: stage_bytes.as_deref(),
            earlier: earlier.as_ref(),
        };
        self.stages.apply(&input, &mut converted);
        if depth < MAX_ATTACHMENT_DEPTH {
            converted.children = self.convert_children(path, children, mtime_ns, depth);
        }
        converted
    }

    fn convert_children(
        &self,
        parent: &str,
        children: Vec<ChildFile>,
        mtime_ns: i64,
        depth: usize,
    ) -> Vec<Converted> {
        let mut used = HashSet::new();
        children
            .into_iter()
            .map(|child| {
                let mut name = child.name.replace(['/', '\\', '#'], "_");
                if name.is_empty() || name == "." || name == ".." {
                    name = "attachment".to_string();
                }
                let mut unique = name.clone();
                let mut n = 1;
                while !used.insert(unique.clone()) {
                    n += 1;
                    unique = format!("{n}-{name}");
                }
                let path = UnitPath::attachment(parent, &unique);
                let head = &child.bytes[..child.bytes.len().min(converters::detect::SNIFF_LEN)];
                let file_type = converters::detect(&unique, head);
                let size = child.bytes.len() as u64;
                let hash = Some(content_hash(&child.bytes, size));
                self.convert(Job {
                    path: &path,
                    parent: Some(parent),
                    on_disk: None,
                    file_type,
                    bytes: child.bytes,
                    tail: Vec::new(),
                    size,
                    mtime_ns,
                    hash,
                    depth: depth + 1,
                })
            })
            .collect()
    }
}

impl Converter<'_> {
    /// Converts a mailbox on disk message by message (see the module's documentation).
    /// Messages that cannot be read are named in the record's damage note; an I/O
    /// error ends the mailbox with what was read before it kept and noted.
    fn convert_mailbox(&self, file: &WalkedFile, hash: String) -> Converted {
        use converters::mail::mbox;
        let path = file.rel_path.as_str();
        let mut record = base_record(
            path,
            None,
            file.size,
            file.mtime_ns,
            FileType::Mbox,
            Some(hash),
        );
        let handle = match std::fs::File::open(&file.abs_path) {
            Ok(handle) => handle,
            Err(error) => return read_failure(file, FileType::Mbox, &error),
        };
        let reader = std::io::BufReader::with_capacity(1 << 20, handle);
        let mut all = Conversion::default();
        let mut children = Vec::new();
        let (mut count, mut failed) = (0u64, Vec::new());
        for message in mbox::Messages::new(reader) {
            let mut message = match message {
                Ok(message) => message,
                Err(error) => {
                    failed.push(format!("read error after message {count}: {error}"));
                    break;
                }
            };
            count += 1;
            let name = format!("{path}#message/{}", message.number);
            let bytes = std::mem::take(&mut message.bytes);
            let size = bytes.len() as u64;
            let mut conversion = match convert_with_timeout(
                &name,
                FileType::Eml,
                bytes,
                Vec::new(),
                size,
                self.timeout,
            ) {
                Ok(conversion) => conversion,
                Err(error) => {
                    failed.push(format!("message {}: {error}", message.number));
                    continue;
                }
            };
            if message.oversized {
                failed.push(format!(
                    "message {}: longer than {} bytes, its beginning only is indexed",
                    message.number,
                    mbox::MAX_MESSAGE_BYTES
                ));
            }
            mbox::place(&message, &mut conversion);
            if all.meta.created.is_none() {
                all.meta.created = conversion.meta.created;
            }
            all.units.append(&mut conversion.units);
            // Attachments now, so their bytes are not kept for the whole mailbox.
            children.extend(self.convert_children(
                path,
                std::mem::take(&mut conversion.children),
                file.mtime_ns,
                0,
            ));
        }
        if all.units.is_empty() {
            let why = match failed.first() {
                Some(first) if count == 0 => first.clone(),
                _ if count == 0 => "no messages (no `From ` separator line)".to_string(),
                _ => format!(
                    "none of its {count} messages could be read ({})",
                    failed.join("; ")
                ),
            };
            fail(&mut record, "corrupt", format!("corrupt mbox: {why}"));
            return Converted {
                record,
                units: Vec::new(),
                mtime: mtime_of(file.mtime_ns),
                children,
            };
        }
        mbox::note(&mut all, count, &failed);
        tally_units(&mut record, &all.units);
        record.created = all.meta.created.map(|t| t.to_rfc3339());
        record.extra = all.meta.extra;
        Converted {
            record,
            units: all.units,
            mtime: mtime_of(file.mtime_ns),
            children,
        }
    }
}

/// Runs a converter on its own thread and gives up after `timeout` (the thread is left
/// to finish on its own; its result is dropped).
fn convert_with_timeout(
    name: &str,
    file_type: FileType,
    bytes: Vec<u8>,
    tail: Vec<u8>,
    size: u64,
    timeout: Duration,
) -> Result<Conversion, ConvertError> {
    let (sender, receiver) = mpsc::channel();
    let owned_name = name.to_string();
    let spawned = std::thread::Builder::new()
        .name("convert".to_string())
        .stack_size(16 * 1024 * 1024)
        .spawn(move || {
            let input = Input {
                tail: &tail,
                name: &owned_name,
                bytes: &bytes,
                size,
                file_type,
            };
            let _ = sender.send(converters::convert(&input));
        });
    if let Err(error) = spawned {
        return Err(ConvertError::Io(error));
    }
    match receiver.recv_timeout(timeout) {
        Ok(result) => result,
        Err(_) => Err(ConvertError::Timeout {
            format: file_type.as_str(),
            seconds: timeout.as_secs(),
        }),
    }
}

// ---- Gold import -------------------------------------------------------------------

/// Indexes a file from its Gold JSON instead of converting it (the file itself is only
/// sniffed for its type).
pub fn convert_gold(file: &WalkedFile, entry: &crate::gold::GoldEntry) -> Converted {
    let mut head = Vec::with_capacity(converters::detect::SNIFF_LEN);
    if let Ok(handle) = std::fs::File::open(&file.abs_path) {
        let _ = handle
            .take(converters::detect::SNIFF_LEN as u64)
            .read_to_end(&mut head);
    }
    let file_type = converters::detect(&file.rel_path, &head);
    let hash = crate::gold::record_hash(&entry.hash, file.size);
    let mut record = base_record(
        &file.rel_path,
        None,
        file.size,
        file.mtime_ns,
        file_type,
        Some(hash),
    );
    let units = crate::gold::gold_units(&entry.file);
    tally_units(&mut record, &units);
    record.stages.gold = Some(entry.path.to_string_lossy().to_string());
    record.stages.gold_hash = Some(entry.hash.clone());
    Converted {
        record,
        units,
        mtime: mtime_of(file.mtime_ns),
        children: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::IndexOptions;

    fn walked(path: &std::path::Path) -> WalkedFile {
        let meta = std::fs::metadata(path).unwrap();
        let mtime = meta.modified().unwrap();
        WalkedFile {
            rel_path: path.file_name().unwrap().to_string_lossy().to_string(),
            abs_path: path.to_path_buf(),
            size: meta.len(),
            mtime_ns: mtime
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as i64,
        }
    }

    fn convert_one(dir: &std::path::Path, file: &WalkedFile) -> Converted {
        let mut options = IndexOptions::new(dir, dir.join("index"));
        (options.ocr, options.media, options.embed) = (false, false, false);
        let stages = Stages::new(&options);
        let converter = Converter {
            timeout: Duration::from_secs(30),
            stages: &stages,
            earlier: None,
        };
        convert_file(&converter, file, None)
    }

    /// A download in progress: the file grew between the walk and the read. What was
    /// read is indexed with a note, and the walked size is recorded, so the next run
    /// (which sees another size) reads it again.
    #[test]
    fn a_file_that_changed_while_read_is_noted_and_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("download.txt");
        std::fs::write(&path, "The first part of the download.\n").unwrap();
        let file = walked(&path);
        let calm = convert_one(dir.path(), &file);
        assert!(!calm.record.extra.contains_key(CHANGED_KEY));

        std::fs::write(
            &path,
            "The first part of the download.\nAnd the rest of it.\n",
        )
        .unwrap();
        let converted = convert_one(dir.path(), &file);
        let note = &converted.record.extra[CHANGED_KEY];
        assert!(note.contains("changed while it was read"), "{note}");
        assert_eq!(converted.record.size, file.size);
        assert_eq!(converted.record.status, FileStatus::Indexed);
    }

    /// A mailbox is streamed: its messages become units, its attachments files.
    #[test]
    fn a_mailbox_on_disk_is_read_message_by_message() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Inbox");
        let mut text = String::new();
        for k in 1..=50 {
            text.push_str(&format!(
                "From a{k}@example.com Mon Jan  1 10:00:00 2024\nFrom: a{k}@example.com\n\
                 Subject: Note {k}\nDate: 2 Jan 2024 10:{:02}:00 +0000\n\nBody {k}.\n\n",
                k % 60
            ));
        }
        text.push_str("From broken@example.com Mon Jan  1 10:00:00 2024\n\n\n");
        std::fs::write(&path, &text).unwrap();
        let converted = convert_one(dir.path(), &walked(&path));
        assert_eq!(converted.record.file_type, Some(FileType::Mbox));
        assert_eq!(converted.record.status, FileStatus::Indexed);
        assert_eq!(converted.units.len(), 50);
        assert_eq!(converted.record.extra["messages"], "51");
        let damage = &converted.record.extra[converters::unit::DAMAGE_KEY];
        assert!(
            damage.starts_with("1 of 51 messages could not be read"),
            "{damage}"
        );
        assert_eq!(
            converted.record.hash,
            content_hash_of(&walked(&path)),
            "the streamed hash is the one a later run compares"
        );
    }
}
