//! Whisper's byte-level BPE: the prompt's tokens (through `tokenizers`), the text of
//! sampled ids (through the vocabulary of `tokenizer.json`), and the decoder's start.

use std::collections::HashMap;
use std::path::Path;

use super::{MediaError, MAX_PROMPT_TOKENS};

/// Text → token ids with Whisper's own byte-level BPE, and the decoder's start sequence.
pub struct PromptTokens {
    tokenizer: tokenizers::Tokenizer,
    sot_prev: u32,
    sot: u32,
}

impl PromptTokens {
    /// Reads `tokenizer.json` (as shipped with the weights, `<model dir>/ct2/`).
    pub fn load(path: &Path) -> Result<PromptTokens, MediaError> {
        let tokenizer = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| MediaError::model(format!("{}: {e}", path.display())))?;
        let id = |name: &str| {
            tokenizer
                .token_to_id(name)
                .ok_or_else(|| MediaError::model(format!("{}: no token {name}", path.display())))
        };
        Ok(PromptTokens {
            sot_prev: id("<|startofprev|>")?,
            sot: id("<|startoftranscript|>")?,
            tokenizer,
        })
    }

    /// Text tokens of `text` (no special tokens added).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, MediaError> {
        self.tokenizer
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| MediaError::model(format!("prompt: {e}")))
    }

    /// Text of token ids.
    pub fn decode(&self, ids: &[u32]) -> Result<String, MediaError> {
        self.tokenizer
            .decode(ids, false)
            .map_err(|e| MediaError::model(format!("prompt: {e}")))
    }

    /// The prompt's tokens: `text` (given a leading space, as Whisper does), the last
    /// [`MAX_PROMPT_TOKENS`] kept.
    pub fn prompt(&self, text: &str) -> Result<Vec<u32>, MediaError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Vec::new());
        }
        let ids = self.encode(&format!(" {text}"))?;
        Ok(ids[ids.len().saturating_sub(MAX_PROMPT_TOKENS)..].to_vec())
    }

    /// What the decoder is fed before the language: `<|startoftranscript|>`, preceded by
    /// `<|startofprev|>` and the prompt when there is one.
    pub fn start_sequence(&self, prompt: &[u32]) -> Vec<u32> {
        start_sequence(self.sot_prev, prompt, self.sot)
    }
}

pub(super) fn start_sequence(sot_prev: u32, prompt: &[u32], sot: u32) -> Vec<u32> {
    let mut sequence = Vec::with_capacity(prompt.len() + 2);
    if !prompt.is_empty() {
        sequence.push(sot_prev);
        sequence.extend_from_slice(&prompt[prompt.len().saturating_sub(MAX_PROMPT_TOKENS)..]);
    }
    sequence.push(sot);
    sequence
}

/// Vocabulary (id → token string) and name → id for the added tokens.
pub(super) fn read_vocab(path: &Path) -> Result<(Vec<String>, HashMap<String, u32>), MediaError> {
    let bytes = crate::onnx::read(path)?;
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| MediaError::model(format!("{}: {e}", path.display())))?;
    let bad = || MediaError::model(format!("{}: no BPE vocabulary", path.display()));
    let mut entries: Vec<(u32, String)> = json["model"]["vocab"]
        .as_object()
        .ok_or_else(bad)?
        .iter()
        .filter_map(|(k, v)| Some((v.as_u64()? as u32, k.clone())))
        .collect();
    let mut names = HashMap::new();
    for added in json["added_tokens"].as_array().into_iter().flatten() {
        if let (Some(id), Some(content)) = (added["id"].as_u64(), added["content"].as_str()) {
            entries.push((id as u32, content.to_string()));
            names.insert(content.to_string(), id as u32);
        }
    }
    let size = entries
        .iter()
        .map(|(id, _)| *id as usize + 1)
        .max()
        .ok_or_else(bad)?;
    let mut vocab = vec![String::new(); size];
    for (id, token) in entries {
        vocab[id as usize] = token;
    }
    Ok((vocab, names))
}

/// GPT-2's reversible byte ↔ printable-unicode map, reversed.
fn unicode_to_byte() -> &'static HashMap<char, u8> {
    static TABLE: std::sync::OnceLock<HashMap<char, u8>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let printable = |b: u32| {
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b)
        };
        let mut extra = 0u32;
        (0u32..256)
            .map(|b| {
                let ch = if printable(b) {
                    b
                } else {
                    extra += 1;
                    255 + extra
                };
                (char::from_u32(ch).unwrap_or('?'), b as u8)
            })
            .collect()
    })
}

/// Text of token ids in `vocab` (byte-level BPE).
pub(super) fn text_of(vocab: &[String], ids: &[u32]) -> String {
    let table = unicode_to_byte();
    let mut bytes = Vec::new();
    for &id in ids {
        let Some(piece) = vocab.get(id as usize) else {
            continue;
        };
        for ch in piece.chars() {
            match table.get(&ch) {
                Some(&b) => bytes.push(b),
                None => {
                    let mut buffer = [0u8; 4];
                    bytes.extend_from_slice(ch.encode_utf8(&mut buffer).as_bytes());
                }
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_alphabet_round_trips() {
        let table = unicode_to_byte();
        assert_eq!(table.len(), 256);
        assert_eq!(table[&'Ġ'], b' ');
        assert_eq!(table[&'a'], b'a');
        assert_eq!(table[&'Ċ'], b'\n');
    }
    #[test]
    fn decoder_input_opens_with_the_prompt_and_closes_it_with_start_of_transcript() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let path = models.join("whisper-base/ct2/tokenizer.json");
        if !path.exists() {
            eprintln!("whisper tokenizer missing: skipping (run scripts/fetch-models)");
            return;
        }
        let tokens = PromptTokens::load(&path).unwrap();
        let (prev, sot) = (
            tokens.tokenizer.token_to_id("<|startofprev|>").unwrap(),
            tokens
                .tokenizer
                .token_to_id("<|startoftranscript|>")
                .unwrap(),
        );
        let prompt = tokens.prompt("Zofia Kowalczyk, Tomás").unwrap();
        let sequence = tokens.start_sequence(&prompt);
        assert_eq!(sequence[0], prev);
        assert_eq!(*sequence.last().unwrap(), sot);
        assert_eq!(&sequence[1..sequence.len() - 1], prompt.as_slice());
        // Text tokens only, Whisper's leading space included; they decode back.
        assert!(prompt.iter().all(|&t| t < tokens.sot_prev.min(sot)));
        assert_eq!(tokens.decode(&prompt).unwrap(), " Zofia Kowalczyk, Tomás");
        // No prompt: the plain start.
        assert_eq!(tokens.start_sequence(&[]), vec![sot]);
        assert!(tokens.prompt("  ").unwrap().is_empty());
        // A long prompt keeps its last MAX_PROMPT_TOKENS tokens.
        let long = vec!["Zofia Kowalczyk"; 200].join(", ") + ", Tomás";
        let ids = tokens.prompt(&long).unwrap();
        assert_eq!(ids.len(), MAX_PROMPT_TOKENS);
        assert!(tokens.decode(&ids).unwrap().ends_with(", Tomás"));
        assert_eq!(tokens.start_sequence(&ids).len(), MAX_PROMPT_TOKENS + 2);
    }
}
