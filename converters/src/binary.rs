//! Opaque files (archives, arrays, model weights, executables, unknown binaries) → one
//! [`UnitKind::Metadata`] unit: "File trip.zip, zip archive, 4.0 KB", plus what the format
//! tells cheaply about its content: the member names of zip and tar archives (from the
//! central directory when the whole file is here, else from the headers in the first
//! bytes), the dtype and shape of a NumPy `.npy` array, the tensors of a `.safetensors`
//! file, the original name inside a gzip. Other types are named by their magic bytes
//! (7-Zip, RAR, xz, bzip2, HDF5, Parquet, ELF, PE, Mach-O, pickle, OLE2 office files) or
//! else by their extension. `input.bytes` may hold only the head of the file.
//!
//! An OLE2 file named like a zipped office document (or holding an encrypted OOXML
//! package) is a password-protected Office file: `encrypted`.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

use crate::meta::{base_name, human_size, le_u16, le_u32, le_u64};
use crate::{Conversion, ConvertError, FileMeta, Input, Locator, Unit, UnitKind};

/// Member names listed for an archive.
const MAX_MEMBERS: usize = 50;

/// Version of the units this module makes: bump it when they change, and the indexer
/// converts the files of this module's types again (see [`crate::registry`]).
pub(crate) const VERSION: u32 = 2;

/// Converts an opaque file into one [`UnitKind::Metadata`] unit: "File <name>, <type>,
/// <size>", with the array header of a .npy, the tensor names of a .safetensors and the
/// member names of zip/tar archives (so an archive is findable by what it contains).
pub(crate) fn convert(input: &Input) -> Result<Conversion, ConvertError> {
    if input.bytes.is_empty() || input.size == 0 {
        return Err(ConvertError::Empty);
    }
    let ext = crate::extension_of(input.name);
    let bytes = input.bytes;
    let description = describe_binary(bytes, input.size, &ext)?;
    let name = base_name(input.name);
    let mut text = format!(
        "File {name}, {}, {}",
        description.kind,
        human_size(input.size)
    );
    for line in &description.details {
        text.push('\n');
        text.push_str(line);
    }
    let mut unit = Unit::new(UnitKind::Metadata, Locator::default(), text);
    unit.fields = description.fields.clone();
    unit.fields.insert("type".into(), description.kind.clone());
    let mut meta = FileMeta {
        extra: description.fields,
        ..FileMeta::default()
    };
    meta.extra.insert("type".into(), description.kind);
    Ok(Conversion {
        units: vec![unit],
        meta,
        children: Vec::new(),
    })
}

#[derive(Debug, Default)]
struct BinaryDescription {
    kind: String,
    details: Vec<String>,
    fields: BTreeMap<String, String>,
}

impl BinaryDescription {
    fn new(kind: impl Into<String>) -> BinaryDescription {
        BinaryDescription {
            kind: kind.into(),
            ..BinaryDescription::default()
        }
    }
}

fn describe_binary(bytes: &[u8], size: u64, ext: &str) -> Result<BinaryDescription, ConvertError> {
    const OLE2: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
    if bytes.starts_with(b"\x93NUMPY") {
        return describe_npy(bytes);
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return describe_zip(bytes, size, ext);
    }
    if bytes.starts_with(OLE2) {
        if matches!(ext, "docx" | "xlsx" | "pptx" | "docm" | "xlsm" | "pptm")
            || crate::sheet::is_encrypted_ooxml(bytes)
        {
            return Err(ConvertError::encrypted("office", "password required"));
        }
        let kind = match ext {
            "doc" => "Microsoft Word 97-2003 document",
            "xls" => "Microsoft Excel 97-2003 workbook",
            "ppt" => "Microsoft PowerPoint 97-2003 presentation",
            "msg" => "Outlook message",
            _ => "OLE2 compound document",
        };
        return Ok(BinaryDescription::new(kind));
    }
    if ext == "safetensors" {
        if let Some(description) = describe_safetensors(bytes) {
            return Ok(description);
        }
    }
    if bytes.get(257..262) == Some(b"ustar") {
        return Ok(describe_tar(bytes));
    }
    let kind = match bytes {
        b if b.starts_with(b"\x1f\x8b") => gzip_kind(b),
        b if b.starts_with(b"7z\xBC\xAF\x27\x1C") => "7-Zip archive".into(),
        b if b.starts_with(b"Rar!\x1a\x07") => "RAR archive".into(),
        b if b.starts_with(b"\xFD7zXZ\0") => "xz compressed data".into(),
        b if b.starts_with(b"BZh") => "bzip2 compressed data".into(),
        b if b.starts_with(b"\x89HDF\r\n\x1a\n") => "HDF5 data".into(),
        b if b.starts_with(b"PAR1") => "Parquet table".into(),
        b if b.starts_with(b"\x7FELF") => "ELF executable".into(),
        b if b.starts_with(b"MZ") => "Windows executable".into(),
        b if b.starts_with(b"\xCF\xFA\xED\xFE") || b.starts_with(b"\xCE\xFA\xED\xFE") => {
            "Mach-O executable".into()
        }
        b if b.len() > 1 && b[0] == 0x80 && (2..=5).contains(&b[1]) => "Python pickle".into(),
        _ => extension_kind(ext),
    };
    Ok(BinaryDescription::new(kind))
}

fn extension_kind(ext: &str) -> String {
    match ext {
        "pkl" | "pickle" => "Python pickle".into(),
        "pt" | "pth" | "ckpt" => "PyTorch checkpoint".into(),
        "onnx" => "ONNX model".into(),
        "bin" => "binary data".into(),
        "iso" => "disk image".into(),
        "dmg" => "macOS disk image".into(),
        "" => "binary data".into(),
        other => format!("{} file", other.to_uppercase()),
    }
}

/// gzip, with the original file name when the header stores one.
fn gzip_kind(bytes: &[u8]) -> String {
    let flags = bytes.get(3).copied().unwrap_or(0);
    let mut at = 10usize;
    if flags & 0x04 != 0 {
        at += 2 + le_u16(bytes, 10).unwrap_or(0) as usize;
    }
    if flags & 0x08 != 0 {
        if let Some(rest) = bytes.get(at..) {
            if let Some(end) = rest.iter().take(512).position(|b| *b == 0) {
                let name = String::from_utf8_lossy(&rest[..end]);
                return format!("gzip compressed data (of {name})");
            }
        }
    }
    "gzip compressed data".into()
}

/// .npy: magic, version, header length, then a Python dict literal
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`.
fn describe_npy(bytes: &[u8]) -> Result<BinaryDescription, ConvertError> {
    let corrupt = |d: &str| ConvertError::corrupt("npy", d.to_string());
    let major = *bytes.get(6).ok_or_else(|| corrupt("truncated header"))?;
    let (len, start): (Option<usize>, usize) = match major {
        1 => (le_u16(bytes, 8).map(usize::from), 10),
        2 | 3 => (le_u32(bytes, 8).map(|l| l as usize), 12),
        v => return Err(corrupt(&format!("unknown version {v}"))),
    };
    let len = len.ok_or_else(|| corrupt("truncated header"))?;
    let header = bytes
        .get(start..start.saturating_add(len))
        .ok_or_else(|| corrupt("truncated header"))?;
    let header = String::from_utf8_lossy(header);
    let descr = dict_value(&header, "descr").ok_or_else(|| corrupt("header has no descr"))?;
    let shape = dict_value(&header, "shape").ok_or_else(|| corrupt("header has no shape"))?;
    let descr = descr.trim_matches(['\'', '"']).to_string();
    let dtype = numpy_dtype_name(&descr);
    let mut description = BinaryDescription::new("NumPy array");
    description
        .details
        .push(format!("dtype {dtype} ({descr}), shape {shape}"));
    description.fields.insert("dtype".into(), dtype);
    description.fields.insert("shape".into(), shape);
    Ok(description)
}

/// The raw value text of `'key': value` in a Python dict literal.
fn dict_value(header: &str, key: &str) -> Option<String> {
    let quoted = [format!("'{key}'"), format!("\"{key}\"")];
    let at = quoted
        .iter()
        .find_map(|k| header.find(k.as_str()).map(|i| i + k.len()))?;
    let rest = header
        .get(at..)?
        .trim_start()
        .strip_prefix(':')?
        .trim_start();
    let value = if rest.starts_with('(') {
        let end = rest.find(')')?;
        rest.get(..=end)?
    } else if let Some(quote) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let end = rest.get(1..)?.find(quote)? + 1;
        rest.get(..=end)?
    } else {
        rest.split([',', '}']).next()?
    };
    Some(value.trim().to_string())
}

fn numpy_dtype_name(descr: &str) -> String {
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    let name = match code {
        "f2" => "float16",
        "f4" => "float32",
        "f8" => "float64",
        "i1" => "int8",
        "i2" => "int16",
        "i4" => "int32",
        "i8" => "int64",
        "u1" => "uint8",
        "u2" => "uint16",
        "u4" => "uint32",
        "u8" => "uint64",
        "b1" => "bool",
        "c8" => "complex64",
        "c16" => "complex128",
        "O" => "object",
        other => other,
    };
    name.to_string()
}

/// Zip archives: member names from the central directory when the whole file is here,
/// else from the local headers found in the first bytes.
fn describe_zip(bytes: &[u8], size: u64, ext: &str) -> Result<BinaryDescription, ConvertError> {
    let kind = match ext {
        "pt" | "pth" => "PyTorch checkpoint (zip)",
        "npz" => "NumPy array archive (npz)",
        "jar" => "Java archive",
        "apk" => "Android package",
        _ => "zip archive",
    };
    let (names, total) = if bytes.len() as u64 >= size {
        zip_central_names(bytes)?
    } else {
        let names = zip_local_names(bytes);
        let count = names.len();
        (names, count)
    };
    let mut description = BinaryDescription::new(kind);
    description
        .fields
        .insert("members".into(), total.to_string());
    if !names.is_empty() {
        let more = if total > names.len() {
            format!(" (and {} more)", total - names.len())
        } else {
            String::new()
        };
        description
            .details
            .push(format!("Contains: {}{more}", names.join(", ")));
    }
    Ok(description)
}

fn zip_central_names(bytes: &[u8]) -> Result<(Vec<String>, usize), ConvertError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| ConvertError::corrupt("zip", e.to_string().to_lowercase()))?;
    let total = archive.len();
    let names: Vec<String> = archive
        .file_names()
        .take(MAX_MEMBERS)
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .collect();
    // The directory can point past the data: check the first member's local header.
    if total > 0 {
        let mut first = archive
            .by_index_raw(0)
            .map_err(|e| ConvertError::corrupt("zip", e.to_string().to_lowercase()))?;
        let mut probe = [0u8; 1];
        if first.size() > 0 {
            first
                .read(&mut probe)
                .map_err(|e| ConvertError::corrupt("zip", e.to_string().to_lowercase()))?;
        }
    }
    Ok((names, total))
}

/// Member names from local file headers in a zip's first bytes.
fn zip_local_names(bytes: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut at = 0usize;
    while names.len() < MAX_MEMBERS && bytes.get(at..at + 4) == Some(b"PK\x03\x04") {
        let flags = le_u16(bytes, at + 6).unwrap_or(0);
        let compressed = le_u32(bytes, at + 18).unwrap_or(0) as usize;
        let name_len = le_u16(bytes, at + 26).unwrap_or(0) as usize;
        let extra_len = le_u16(bytes, at + 28).unwrap_or(0) as usize;
        let Some(name) = bytes.get(at + 30..at + 30 + name_len) else {
            break;
        };
        names.push(String::from_utf8_lossy(name).into_owned());
        if flags & 0x08 != 0 {
            break; // sizes follow the data: the next header cannot be located cheaply
        }
        at += 30 + name_len + extra_len + compressed;
    }
    names
}

/// tar: member names from the 512-byte headers in the bytes we have.
fn describe_tar(bytes: &[u8]) -> BinaryDescription {
    let mut names = Vec::new();
    let mut at = 0usize;
    while names.len() < MAX_MEMBERS {
        let Some(header) = bytes.get(at..at + 512) else {
            break;
        };
        if header.get(257..262) != Some(b"ustar") {
            break;
        }
        let name_end = header[..100].iter().position(|b| *b == 0).unwrap_or(100);
        names.push(String::from_utf8_lossy(&header[..name_end]).into_owned());
        let size_field = String::from_utf8_lossy(&header[124..136]);
        let size = u64::from_str_radix(size_field.trim_matches(['\0', ' ']), 8).unwrap_or(0);
        let blocks = size.div_ceil(512) as usize;
        at = at.saturating_add(512 * (blocks + 1));
    }
    let mut description = BinaryDescription::new("tar archive");
    if !names.is_empty() {
        description
            .details
            .push(format!("Contains: {}", names.join(", ")));
    }
    description
}

/// safetensors: u64 header length + JSON {tensor: {dtype, shape, data_offsets}}.
fn describe_safetensors(bytes: &[u8]) -> Option<BinaryDescription> {
    let len = usize::try_from(le_u64(bytes, 0)?).ok()?;
    let header = bytes.get(8..8usize.checked_add(len)?)?;
    let json: serde_json::Value = serde_json::from_slice(header).ok()?;
    let tensors = json.as_object()?;
    let count = tensors
        .keys()
        .filter(|k| k.as_str() != "__metadata__")
        .count();
    let names: Vec<String> = tensors
        .iter()
        .filter(|(k, _)| k.as_str() != "__metadata__")
        .take(MAX_MEMBERS)
        .map(|(k, v)| {
            let dtype = v.get("dtype").and_then(|d| d.as_str()).unwrap_or("?");
            let shape = v.get("shape").map(|s| s.to_string()).unwrap_or_default();
            format!("{k} {dtype} {shape}")
        })
        .collect();
    let mut description = BinaryDescription::new("safetensors weights");
    description
        .fields
        .insert("tensors".into(), count.to_string());
    if !names.is_empty() {
        description
            .details
            .push(format!("Tensors: {}", names.join(", ")));
    }
    Some(description)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::testutil::{self, input, some_size, Rng};
    use crate::FileType;

    fn npy(header: &str) -> Vec<u8> {
        let mut h = header.to_string();
        while (11 + h.len()) & 63 != 0 {
            h.push(' ');
        }
        h.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((h.len() as u16).to_le_bytes());
        out.extend(h.as_bytes());
        out.extend([0u8; 48]);
        out
    }

    #[test]
    fn npy_header_is_described() {
        let bytes = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
        let c = convert(&input("data/emb.npy", &bytes, 2_000_000, FileType::Binary)).unwrap();
        let u = &c.units[0];
        assert_eq!(u.kind(), UnitKind::Metadata);
        assert_eq!(
            u.text,
            "File emb.npy, NumPy array, 1.9 MB\ndtype float32 (<f4), shape (3, 4)"
        );
        assert_eq!(u.fields["shape"], "(3, 4)");
        assert_eq!(u.fields["dtype"], "float32");
        let bad = npy("{'fortran_order': False}");
        let err = convert(&input("x.npy", &bad, 100, FileType::Binary)).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
        let err = convert(&input("x.npy", &bytes[..12], 100, FileType::Binary));
        assert_eq!(err.unwrap_err().reason(), "corrupt");
    }

    fn zip_bytes(names: &[&str]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for name in names {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(b"some content some content").unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn zip_members_are_listed() {
        let bytes = zip_bytes(&["report.docx", "photos/beach.jpg"]);
        let size = bytes.len() as u64;
        let c = convert(&input("Downloads/trip.zip", &bytes, size, FileType::Binary)).unwrap();
        assert_eq!(
            c.units[0].text,
            format!(
                "File trip.zip, zip archive, {size} bytes\nContains: report.docx, photos/beach.jpg"
            )
        );
        assert_eq!(c.units[0].fields["members"], "2");
        // Only the head of a bigger file: names come from the local headers.
        let head = &bytes[..bytes.len() - 60];
        let c = convert(&input("trip.zip", head, 1 << 30, FileType::Binary)).unwrap();
        assert!(
            c.units[0].text.contains("report.docx"),
            "{}",
            c.units[0].text
        );
        // The whole file, central directory damaged.
        let mut broken = bytes.clone();
        let eocd = broken.len() - 22;
        broken[eocd + 16..eocd + 20].copy_from_slice(&9_999u32.to_le_bytes());
        let err = convert(&input("b.zip", &broken, size, FileType::Binary)).unwrap_err();
        assert_eq!(err.reason(), "corrupt");
    }

    #[test]
    fn other_binaries() {
        let ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest of an encrypted package";
        let err = convert(&input("secret.xlsx", ole, 4096, FileType::Binary)).unwrap_err();
        assert_eq!(err.reason(), "encrypted");
        let c = convert(&input("old.doc", ole, 4096, FileType::Binary)).unwrap();
        assert_eq!(
            c.units[0].text,
            "File old.doc, Microsoft Word 97-2003 document, 4.0 KB"
        );
        let c = convert(&input("m.pkl", b"\x80\x04\x95", 10, FileType::Binary)).unwrap();
        assert_eq!(c.units[0].text, "File m.pkl, Python pickle, 10 bytes");
        let mut gz = b"\x1f\x8b\x08\x08\0\0\0\0\0\x03notes.txt\0".to_vec();
        gz.extend([0u8; 8]);
        let c = convert(&input("n.gz", &gz, 30, FileType::Binary)).unwrap();
        assert!(c.units[0]
            .text
            .contains("gzip compressed data (of notes.txt)"));
        let header = br#"{"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}"#;
        let mut st = (header.len() as u64).to_le_bytes().to_vec();
        st.extend(header);
        let c = convert(&input("m.safetensors", &st, 100, FileType::Binary)).unwrap();
        assert!(
            c.units[0].text.ends_with("Tensors: w F32 [2,3]"),
            "{}",
            c.units[0].text
        );
        assert!(matches!(
            convert(&input("e.bin", b"", 0, FileType::Binary)),
            Err(ConvertError::Empty)
        ));
    }

    fn tar(names: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for name in names {
            let mut header = [0u8; 512];
            header[..name.len()].copy_from_slice(name.as_bytes());
            header[124..136].copy_from_slice(b"00000000012\0");
            header[257..262].copy_from_slice(b"ustar");
            out.extend(header);
            out.extend([b'x'; 512]);
        }
        out
    }

    #[test]
    fn damaged_binaries_do_not_panic() {
        let header = br#"{"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}"#;
        let mut safetensors = (header.len() as u64).to_le_bytes().to_vec();
        safetensors.extend(header);
        let fixtures: Vec<(&str, Vec<u8>)> = vec![
            (
                "x.npy",
                npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"),
            ),
            ("x.zip", zip_bytes(&["report.docx", "photos/beach.jpg"])),
            ("x.tar", tar(&["a.txt", "dir/b.bin"])),
            (
                "x.gz",
                b"\x1f\x8b\x08\x0c\0\0\0\0\0\x03\x02\0abnotes.txt\0\0\0\0\0".to_vec(),
            ),
            ("m.safetensors", safetensors),
            ("m.pkl", b"\x80\x04\x95\0\0".to_vec()),
            ("d.doc", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1 OLE".to_vec()),
        ];
        let mut rng = Rng(0xB1A4_0000_0000_0001);
        for _ in 0..1500 {
            let (name, base) = rng.pick(&fixtures);
            let bytes = testutil::mutate(&mut rng, base);
            let size = some_size(&mut rng, bytes.len());
            if let Ok(c) = convert(&input(name, &bytes, size, FileType::Binary)) {
                testutil::check_conversion(&c, name);
                assert!(c.units[0].text.starts_with("File "), "{c:?}");
            }
        }
    }

    #[test]
    fn member_and_header_walkers_stay_in_bounds() {
        let header = br#"{"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}"#;
        let mut safetensors = (header.len() as u64).to_le_bytes().to_vec();
        safetensors.extend(header);
        let seeds = [
            zip_bytes(&["report.docx", "photos/beach.jpg"]),
            tar(&["a.txt", "dir/b.bin"]),
            npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"),
            b"\x1f\x8b\x08\x0c\0\0\0\0\0\x03\x02\0abnotes.txt\0\0\0\0\0".to_vec(),
            safetensors,
            Vec::new(),
        ];
        let mut rng = Rng(0xB0C5_0000_0000_0002);
        for _ in 0..2000 {
            let data = match rng.below(3) {
                0 => testutil::random_bytes(&mut rng, 96),
                _ => {
                    let seed = rng.pick(&seeds);
                    testutil::mutate(&mut rng, seed)
                }
            };
            let names = zip_local_names(&data);
            assert!(names.len() <= MAX_MEMBERS);
            let _ = gzip_kind(&data);
            let _ = describe_tar(&data);
            let _ = describe_safetensors(&data);
            let text = String::from_utf8_lossy(&data);
            for key in ["descr", "shape"] {
                if let Some(value) = dict_value(&text, key) {
                    assert!(text.contains(&value) && value == value.trim(), "{text:?}");
                }
            }
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
        let cases: [(&str, FileType, bool); 1] = [("invalid_offset.zip", FileType::Binary, false)];
        for (name, file_type, ok) in cases {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let head = &bytes[..bytes.len().min(1 << 20)];
            let result = crate::convert(&input(name, head, bytes.len() as u64, file_type));
            assert_eq!(result.is_ok(), ok, "{name}: {result:?}");
        }
    }
}
