//! The vector codec: how embeddings are normalised, keyed and stored.

/// Dimension of the text embedding space.
pub const TEXT_DIM: usize = 384;

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in vector.iter_mut() {
            *x /= norm;
        }
    }
}

/// The text a unit is embedded from: its title and text.
pub fn embedding_text(title: &str, text: &str) -> String {
    if title.is_empty() || text.starts_with(title) {
        text.to_string()
    } else {
        format!("{title}\n{text}")
    }
}

/// BLAKE3 (hex, 32 chars) of the embedding text: vectors are reused for unchanged text.
pub fn text_hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..32].to_string()
}

/// The text model of vectors written before each vector recorded its model: MiniLM's
/// packaged graph (`models/minilm/model.onnx`).
pub const LEGACY_TEXT_MODEL: &str = "all-MiniLM-L6-v2-int8";

/// What a file's `embedded` column holds once its text vectors are complete for
/// `content_hash` under `model`: the bare hash for [`LEGACY_TEXT_MODEL`] (as before
/// models were recorded), else `hash@model`. A file whose marker differs is embedded
/// again, so a model change re-embeds every file on the next run.
pub fn embedded_marker(content_hash: &str, model: &str) -> String {
    if model == LEGACY_TEXT_MODEL {
        content_hash.to_string()
    } else {
        format!("{content_hash}@{model}")
    }
}

/// Little-endian f32 bytes of a vector (the storage format).
pub fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The inverse of [`to_bytes`]; `None` for a length that is not a multiple of 4.
pub fn from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_normalisation() {
        let mut v = vec![3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
        assert_eq!(from_bytes(&to_bytes(&v)).unwrap(), v);
        assert!(from_bytes(&[1, 2, 3]).is_none());
        assert_eq!(embedding_text("T", "T and more"), "T and more");
        assert_eq!(embedding_text("T", "body"), "T\nbody");
        assert_eq!(text_hash("x").len(), 32);
        assert_eq!(embedded_marker("h", LEGACY_TEXT_MODEL), "h");
        assert_eq!(embedded_marker("h", "m-q8"), "h@m-q8");
    }
}
