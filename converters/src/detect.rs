//! File type detection from content (magic bytes) and extension.
//!
//! Content wins where it is unambiguous (a PDF named `.txt` is a PDF); the extension
//! decides between formats that share a container (zip: docx / pptx / xlsx / odt), and
//! for formats without magic bytes (csv, ics, eml, source code).

use crate::unit::Modality;

/// Serialised as its stored name ([`FileType::as_str`]), as the index writes it.
impl serde::Serialize for FileType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for FileType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<FileType, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        FileType::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format_args!("unknown file type {name:?}")))
    }
}

/// A detected file type. The name (`as_str`) is what the index stores as `file_type`
/// when the extension is missing or misleading. A new type must be listed in
/// [`FileType::ALL`] (else [`FileType::parse`] cannot read it back and its files never
/// count as converted by the current converter version).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    Pdf,
    Docx,
    Odt,
    Pptx,
    Xlsx,
    /// Legacy binary Excel and OpenDocument spreadsheets (read by calamine too).
    Xls,
    Ods,
    Csv,
    Tsv,
    Eml,
    /// A mailbox of the mbox family: many messages in one file.
    Mbox,
    Ics,
    Sqlite,
    /// Jupyter notebook (JSON with cells).
    Ipynb,
    /// HTML / XHTML.
    Html,
    /// Any other text: txt, md, log, json, xml, code.
    Text,
    Image,
    Audio,
    Video,
    /// Archives, arrays, weights and unknown binaries: one metadata unit.
    Binary,
}

impl FileType {
    pub const ALL: [FileType; 20] = [
        FileType::Pdf,
        FileType::Docx,
        FileType::Odt,
        FileType::Pptx,
        FileType::Xlsx,
        FileType::Xls,
        FileType::Ods,
        FileType::Csv,
        FileType::Tsv,
        FileType::Eml,
        FileType::Mbox,
        FileType::Ics,
        FileType::Sqlite,
        FileType::Ipynb,
        FileType::Html,
        FileType::Text,
        FileType::Image,
        FileType::Audio,
        FileType::Video,
        FileType::Binary,
    ];

    /// The name the index stores as `file_type` (`pdf`, `docx`, …, `binary`).
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::Pdf => "pdf",
            FileType::Docx => "docx",
            FileType::Odt => "odt",
            FileType::Pptx => "pptx",
            FileType::Xlsx => "xlsx",
            FileType::Xls => "xls",
            FileType::Ods => "ods",
            FileType::Csv => "csv",
            FileType::Tsv => "tsv",
            FileType::Eml => "eml",
            FileType::Mbox => "mbox",
            FileType::Ics => "ics",
            FileType::Sqlite => "sqlite",
            FileType::Ipynb => "ipynb",
            FileType::Html => "html",
            FileType::Text => "text",
            FileType::Image => "image",
            FileType::Audio => "audio",
            FileType::Video => "video",
            FileType::Binary => "binary",
        }
    }

    /// The type named `name` (as written by [`FileType::as_str`]), if any.
    pub fn parse(name: &str) -> Option<FileType> {
        FileType::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// HippoCamp's modality label for this type.
    pub fn modality(self) -> Modality {
        match self {
            FileType::Pdf
            | FileType::Docx
            | FileType::Odt
            | FileType::Pptx
            | FileType::Xlsx
            | FileType::Xls
            | FileType::Ods => Modality::Document,
            FileType::Csv
            | FileType::Tsv
            | FileType::Eml
            | FileType::Mbox
            | FileType::Ics
            | FileType::Sqlite
            | FileType::Ipynb
            | FileType::Html
            | FileType::Text => Modality::Text,
            FileType::Image => Modality::Image,
            FileType::Audio => Modality::Audio,
            FileType::Video => Modality::Video,
            FileType::Binary => Modality::Binary,
        }
    }

    /// Whether the converter needs the whole file in memory. Media and opaque binaries
    /// only need their first bytes (headers, EXIF) and the file size; a mailbox on disk
    /// is read as a stream, message by message (`mail::mbox::Messages`).
    pub fn needs_full_content(self) -> bool {
        !matches!(
            self,
            FileType::Audio | FileType::Video | FileType::Binary | FileType::Mbox
        )
    }
}

/// The brand of a HEIF container of still images or image sequences (ISO BMFF `ftyp`
/// with a HEIC, HEIF or AVIF major brand), which is an image, not a video.
pub fn heif_brand(head: &[u8]) -> Option<&[u8]> {
    const BRANDS: [&[u8; 4]; 10] = [
        b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis",
    ];
    let brand = head
        .get(8..12)
        .filter(|_| head.get(4..8) == Some(b"ftyp"))?;
    BRANDS
        .iter()
        .any(|b| b.as_slice() == brand)
        .then_some(brand)
}

/// How many leading bytes `detect` looks at.
pub const SNIFF_LEN: usize = 8192;

const TEXT_EXTENSIONS: &[&str] = &[
    "txt",
    "md",
    "markdown",
    "rst",
    "log",
    "json",
    "jsonl",
    "ndjson",
    "xml",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
    "py",
    "sh",
    "bash",
    "zsh",
    "rs",
    "go",
    "js",
    "ts",
    "tsx",
    "jsx",
    "java",
    "c",
    "h",
    "cpp",
    "hpp",
    "cc",
    "cs",
    "rb",
    "php",
    "pl",
    "r",
    "m",
    "swift",
    "kt",
    "scala",
    "sql",
    "css",
    "scss",
    "tex",
    "bib",
    "srt",
    "vtt",
    "org",
    "adoc",
    "env",
    "gitignore",
    "dockerfile",
    "makefile",
    "lua",
    "hs",
    "ml",
    "ex",
    "exs",
    "clj",
    "vim",
    "bat",
    "ps1",
    "properties",
    "gradle",
];
const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "webp", "tif", "tiff", "bmp", "heic", "heif", "avif", "svg", "ico",
];
const AUDIO_EXTENSIONS: &[&str] = &[
    "mp3", "wav", "flac", "m4a", "ogg", "oga", "opus", "aac", "wma", "aiff", "aif",
];
const VIDEO_EXTENSIONS: &[&str] = &[
    "mp4", "mkv", "mov", "webm", "avi", "m4v", "wmv", "mpg", "mpeg", "3gp",
];

/// The lower-case extension of a file name (without the dot), or "".
pub fn extension_of(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
        _ => String::new(),
    }
}

/// Detects the type of a file from its name and its first bytes (`head`, up to
/// [`SNIFF_LEN`]).
pub fn detect(name: &str, head: &[u8]) -> FileType {
    let ext = extension_of(name);
    if let Some(by_magic) = detect_magic(&ext, head) {
        return by_magic;
    }
    by_extension(&ext).unwrap_or_else(|| {
        if looks_like_text(head) {
            if looks_like_mbox(head) {
                FileType::Mbox
            } else if looks_like_email(head) {
                FileType::Eml
            } else if starts_with_ci(trim_bom(head), b"BEGIN:VCALENDAR") {
                FileType::Ics
            } else {
                FileType::Text
            }
        } else {
            FileType::Binary
        }
    })
}

fn by_extension(ext: &str) -> Option<FileType> {
    let file_type = match ext {
        "pdf" => FileType::Pdf,
        "docx" | "docm" | "dotx" => FileType::Docx,
        "odt" => FileType::Odt,
        "pptx" | "pptm" | "ppsx" => FileType::Pptx,
        "xlsx" | "xlsm" | "xlsb" => FileType::Xlsx,
        "xls" => FileType::Xls,
        "ods" => FileType::Ods,
        "csv" => FileType::Csv,
        "tsv" | "tab" => FileType::Tsv,
        "eml" => FileType::Eml,
        "mbox" | "mbx" => FileType::Mbox,
        "ics" | "ical" | "ifb" => FileType::Ics,
        "sqlite" | "sqlite3" | "db" => FileType::Sqlite,
        "ipynb" => FileType::Ipynb,
        "html" | "htm" | "xhtml" => FileType::Html,
        e if TEXT_EXTENSIONS.contains(&e) => FileType::Text,
        e if IMAGE_EXTENSIONS.contains(&e) => FileType::Image,
        e if AUDIO_EXTENSIONS.contains(&e) => FileType::Audio,
        e if VIDEO_EXTENSIONS.contains(&e) => FileType::Video,
        "npy" | "npz" | "pkl" | "pickle" | "pt" | "pth" | "bin" | "onnx" | "safetensors"
        | "zip" | "gz" | "tgz" | "tar" | "bz2" | "xz" | "7z" | "rar" | "exe" | "dll" | "so"
        | "dylib" | "iso" | "dmg" | "parquet" | "h5" | "hdf5" | "ckpt" | "doc" | "ppt" => {
            FileType::Binary
        }
        _ => return None,
    };
    Some(file_type)
}

/// Content-based detection; `None` when the bytes do not decide (text, unknown).
fn detect_magic(ext: &str, head: &[u8]) -> Option<FileType> {
    let by_ext = by_extension(ext);
    if head.starts_with(b"%PDF")
        || (head.len() > 4
            && find(&head[..head.len().min(1024)], b"%PDF-").is_some()
            && by_ext == Some(FileType::Pdf))
    {
        return Some(FileType::Pdf);
    }
    if head.starts_with(b"PK\x03\x04") {
        // A zip container: the extension says which office format it claims to be; an
        // unknown extension is sniffed from the member names in the first bytes.
        return Some(match by_ext {
            Some(
                t @ (FileType::Docx
                | FileType::Odt
                | FileType::Pptx
                | FileType::Xlsx
                | FileType::Ods),
            ) => t,
            _ => sniff_zip(head),
        });
    }
    if head.starts_with(b"SQLite format 3\0") {
        return Some(FileType::Sqlite);
    }
    if head.starts_with(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1") {
        // OLE2: legacy xls/doc/ppt/msg. Only xls is readable here.
        return Some(if by_ext == Some(FileType::Xls) {
            FileType::Xls
        } else {
            FileType::Binary
        });
    }
    let image = head.starts_with(b"\xFF\xD8\xFF")
        || head.starts_with(b"\x89PNG\r\n\x1a\n")
        || head.starts_with(b"GIF87a")
        || head.starts_with(b"GIF89a")
        || head.starts_with(b"II*\0")
        || head.starts_with(b"MM\0*")
        || head.starts_with(b"BM") && by_ext == Some(FileType::Image)
        || (head.len() >= 12 && &head[0..4] == b"RIFF" && &head[8..12] == b"WEBP")
        || heif_brand(head).is_some();
    if image {
        return Some(FileType::Image);
    }
    if head.len() >= 12 && &head[0..4] == b"RIFF" {
        return Some(match &head[8..12] {
            b"WAVE" => FileType::Audio,
            b"AVI " => FileType::Video,
            _ => FileType::Binary,
        });
    }
    if head.starts_with(b"fLaC") || head.starts_with(b"ID3") || head.starts_with(b"FORM") {
        return Some(FileType::Audio);
    }
    if head.starts_with(b"OggS") {
        return Some(if by_ext == Some(FileType::Video) {
            FileType::Video
        } else {
            FileType::Audio
        });
    }
    if head.len() >= 12 && &head[4..8] == b"ftyp" {
        let brand = &head[8..12];
        return Some(
            if brand.starts_with(b"M4A")
                || brand.starts_with(b"M4B")
                || by_ext == Some(FileType::Audio)
            {
                FileType::Audio
            } else {
                FileType::Video
            },
        );
    }
    if head.starts_with(b"\x1A\x45\xDF\xA3") {
        return Some(if by_ext == Some(FileType::Audio) {
            FileType::Audio
        } else {
            FileType::Video
        });
    }
    if head.len() >= 2
        && head[0] == 0xFF
        && (head[1] & 0xE0) == 0xE0
        && by_ext == Some(FileType::Audio)
    {
        return Some(FileType::Audio);
    }
    if head.starts_with(b"\x1f\x8b")
        || head.starts_with(b"7z\xBC\xAF")
        || head.starts_with(b"\x93NUMPY")
    {
        return Some(FileType::Binary);
    }
    // A document extension on bytes that are not that document: let the extension's
    // converter report the mismatch (e.g. "corrupt pdf: no %PDF header").
    None
}

fn sniff_zip(head: &[u8]) -> FileType {
    if find(head, b"word/").is_some() {
        FileType::Docx
    } else if find(head, b"ppt/").is_some() {
        FileType::Pptx
    } else if find(head, b"xl/").is_some() {
        FileType::Xlsx
    } else if find(head, b"application/vnd.oasis.opendocument.text").is_some() {
        FileType::Odt
    } else if find(head, b"application/vnd.oasis.opendocument.spreadsheet").is_some() {
        FileType::Ods
    } else {
        FileType::Binary
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn trim_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

fn starts_with_ci(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// True when the bytes look like text: no NUL bytes and mostly valid UTF-8 (a cut
/// multi-byte sequence at the end of the sniffed window is allowed).
pub(crate) fn looks_like_text(head: &[u8]) -> bool {
    if head.is_empty() {
        return true;
    }
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.valid_up_to() + 4 >= head.len() || latin1_plausible(head),
    }
}

fn latin1_plausible(head: &[u8]) -> bool {
    let control = head
        .iter()
        .filter(|&&b| b < 0x09 || (0x0E..0x20).contains(&b) || b == 0x7F)
        .count();
    control * 100 < head.len()
}

fn looks_like_email(head: &[u8]) -> bool {
    email_header_lines(head) >= 3
}

/// Whether `head` (the first bytes of a file) is a mailbox (mbox): a separator line,
/// then e-mail headers.
pub(crate) fn looks_like_mbox(head: &[u8]) -> bool {
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let head = &head[start..];
    let Some(end) = head.iter().position(|&b| b == b'\n') else {
        return false;
    };
    is_mbox_separator(&head[..end]) && email_header_lines(&head[end + 1..]) >= 2
}

/// A `From ` separator line (line end not included): `From SENDER DATE…` where the
/// date holds a time of day (`12:34`) and a four-digit year.
pub(crate) fn is_mbox_separator(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let rest = String::from_utf8_lossy(rest);
    let mut words = rest.split_whitespace();
    let Some(_sender) = words.next() else {
        return false;
    };
    let date: Vec<&str> = words.collect();
    let has_time = date.iter().any(|w| {
        let parts: Vec<&str> = w.split(':').collect();
        (2..=3).contains(&parts.len())
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()))
    });
    let has_year = date
        .iter()
        .any(|w| w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()));
    has_time && has_year
}

/// How many standard e-mail headers (`From:`, `Subject:`, …) the first lines of `head`
/// hold, up to the first blank line.
pub(crate) fn email_header_lines(head: &[u8]) -> usize {
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    let mut header_lines = 0;
    for line in text.lines().take(40) {
        if line.is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        for h in [
            "from:",
            "to:",
            "subject:",
            "date:",
            "message-id:",
            "received:",
            "mime-version:",
            "return-path:",
        ] {
            if lower.starts_with(h) {
                header_lines += 1;
            }
        }
    }
    header_lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Input;

    #[test]
    fn content_beats_extension() {
        assert_eq!(detect("report.txt", b"%PDF-1.7\n..."), FileType::Pdf);
        assert_eq!(
            detect("photo.pdf", b"\xFF\xD8\xFF\xE0\0\x10JFIF"),
            FileType::Image
        );
        assert_eq!(detect("x.bin", b"SQLite format 3\0..."), FileType::Sqlite);
    }

    #[test]
    fn zip_uses_extension_then_members() {
        assert_eq!(detect("a.docx", b"PK\x03\x04rest"), FileType::Docx);
        assert_eq!(detect("a.xlsx", b"PK\x03\x04rest"), FileType::Xlsx);
        assert_eq!(
            detect("a", b"PK\x03\x04....ppt/slides/slide1.xml"),
            FileType::Pptx
        );
        assert_eq!(detect("a.zip", b"PK\x03\x04....data.txt"), FileType::Binary);
    }

    #[test]
    fn text_formats_by_extension_and_sniffing() {
        assert_eq!(detect("notes.md", b"# hi"), FileType::Text);
        assert_eq!(detect("data.csv", b"a,b\n1,2"), FileType::Csv);
        assert_eq!(detect("cal.ics", b"BEGIN:VCALENDAR"), FileType::Ics);
        assert_eq!(
            detect("noext", b"\xEF\xBB\xBFBEGIN:VCALENDAR\r\n"),
            FileType::Ics
        );
        let mail =
            b"From: a@b.c\nTo: d@e.f\nSubject: hi\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n\nbody";
        assert_eq!(detect("message", mail), FileType::Eml);
        assert_eq!(detect("blob", b"\x00\x01\x02"), FileType::Binary);
    }

    #[test]
    fn media() {
        assert_eq!(detect("a.wav", b"RIFF\0\0\0\0WAVEfmt "), FileType::Audio);
        assert_eq!(
            detect("a.mp4", b"\0\0\0\x20ftypisom\0\0\0\0"),
            FileType::Video
        );
        assert_eq!(
            detect("a.m4a", b"\0\0\0\x20ftypM4A \0\0\0\0"),
            FileType::Audio
        );
        assert_eq!(detect("a.mkv", b"\x1A\x45\xDF\xA3...."), FileType::Video);
        assert_eq!(detect("a.mp3", b"ID3\x04\0"), FileType::Audio);
        assert_eq!(FileType::Video.modality(), Modality::Video);
    }

    #[test]
    fn heif_photos_are_images_whatever_their_name() {
        for brand in ["heic", "heix", "mif1", "msf1", "hevc", "avif"] {
            let head = format!("\0\0\0\x18ftyp{brand}\0\0\0\0mif1heic");
            for name in ["IMG_0001.HEIC", "photo.heif", "attachment", "x.mp4"] {
                assert_eq!(
                    detect(name, head.as_bytes()),
                    FileType::Image,
                    "{brand} {name}"
                );
            }
        }
    }

    #[test]
    fn type_names_round_trip() {
        for file_type in FileType::ALL {
            assert_eq!(FileType::parse(file_type.as_str()), Some(file_type));
        }
        let mut names: Vec<&str> = FileType::ALL.iter().map(|t| t.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FileType::ALL.len());
        for unknown in ["", "PDF", " pdf", "media", "xlsm"] {
            assert_eq!(FileType::parse(unknown), None, "{unknown:?}");
        }
    }

    #[test]
    fn extension_parsing() {
        assert_eq!(extension_of("Mail/x.EML"), "eml");
        assert_eq!(extension_of(".bashrc"), "");
        assert_eq!(extension_of("a/b.c/d"), "");
    }

    #[test]
    fn detection_never_panics_and_sniffing_keeps_its_promises() {
        use crate::testutil::{self, Rng};
        const MAGICS: &[&[u8]] = &[
            b"%PDF-",
            b"PK\x03\x04",
            b"SQLite format 3\0",
            b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1",
            b"\xFF\xD8\xFF",
            b"\x89PNG\r\n\x1a\n",
            b"GIF89a",
            b"II*\0",
            b"MM\0*",
            b"BM",
            b"RIFF\0\0\0\0WEBP",
            b"RIFF\0\0\0\0WAVE",
            b"\0\0\0\x20ftypheic",
            b"\0\0\0\x20ftypM4A ",
            b"fLaC",
            b"ID3",
            b"OggS",
            b"\x1A\x45\xDF\xA3",
            b"\xFF\xFB",
            b"\x1f\x8b",
            b"7z\xBC\xAF",
            b"\x93NUMPY",
            b"\xEF\xBB\xBFBEGIN:VCALENDAR",
            b"From: a@b.c\nTo: d@e.f\nSubject: hi\n",
        ];
        const NAMES: &[&str] = &[
            "a.pdf",
            "x",
            ".bashrc",
            "dir.d/file",
            "é.TXT",
            "a.",
            "",
            "a/b\\c.docx",
            "𝄞.ics",
            "m.MP3",
            "n.npy",
            "w.xlsx",
            "z.zip",
            "v.mkv",
            "p.jpg",
        ];
        let mut rng = Rng(0xDE7E_C7ED_0000_0001);
        for _ in 0..3000 {
            let name = if rng.one_in(3) {
                testutil::random_text(&mut rng, testutil::TEXT_PIECES, 12)
            } else {
                rng.pick(NAMES).to_string()
            };
            let mut head = match rng.below(3) {
                0 => testutil::random_bytes(&mut rng, 64),
                1 => testutil::random_text(&mut rng, testutil::TEXT_PIECES, 64).into_bytes(),
                _ => {
                    let magic = *rng.pick(MAGICS);
                    let mut head = magic[..rng.below(magic.len() + 1)].to_vec();
                    head.extend(testutil::random_bytes(&mut rng, 64));
                    head
                }
            };
            if rng.one_in(4) {
                head = testutil::mutate(&mut rng, &head);
            }
            let file_type = detect(&name, &head);
            assert_eq!(detect(&name, &head), file_type, "deterministic");
            assert_eq!(Input::detect(&name, &head).file_type, file_type);
            if head.contains(&0) {
                assert!(!looks_like_text(&head), "NUL bytes are binary: {head:?}");
            } else if std::str::from_utf8(&head).is_ok() {
                assert!(looks_like_text(&head), "UTF-8 is text: {head:?}");
            }
            let ext = extension_of(&name);
            assert_eq!(ext, ext.to_ascii_lowercase());
            assert!(!ext.contains(['.', '/', '\\']), "{name:?} → {ext:?}");
            assert!(
                name.to_ascii_lowercase().ends_with(&ext),
                "{name:?} → {ext:?}"
            );
            assert_eq!(
                starts_with_ci(&head, b"begin:"),
                head.len() >= 6 && head[..6].eq_ignore_ascii_case(b"BEGIN:")
            );
        }
    }
}
