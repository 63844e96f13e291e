//! Which Whisper a run uses: the model (base or tiny.en), its folder, and its graphs
//! (float, or int8 on request), with the marker they give analysed files.

use std::path::{Path, PathBuf};

/// The speech recogniser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AsrModel {
    /// Whisper base, multilingual (the language is detected per window): better
    /// transcripts, about twice the compute of tiny.en.
    #[default]
    Base,
    /// Whisper tiny.en: English only, fastest.
    TinyEn,
}

impl AsrModel {
    pub fn parse(name: &str) -> Option<AsrModel> {
        match name {
            "base" => Some(AsrModel::Base),
            "tiny.en" | "tiny-en" => Some(AsrModel::TinyEn),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AsrModel::Base => "base",
            AsrModel::TinyEn => "tiny.en",
        }
    }

    /// Its folder under the models folder.
    pub fn dir(self, models_dir: &Path) -> PathBuf {
        models_dir.join(match self {
            AsrModel::Base => "whisper-base",
            AsrModel::TinyEn => "whisper-tiny-en",
        })
    }

    /// The Whisper graphs used from `models_dir`: the float ones, or with
    /// `DENTATE_WHISPER_GRAPH=int8` the int8 ones when both exist (`encoder-q8.onnx`,
    /// `decoder-q8.onnx`, made by `scripts/convert-whisper --int8`; not fetched by
    /// default: 1.6x faster, but they cost retrieval quality, see `docs/benchmarks.md`);
    /// `int8-encoder` or `int8-decoder` the int8 form of that graph alone (when it
    /// exists), for measuring each part's cost.
    pub fn graphs(self, models_dir: &Path) -> WhisperGraphs {
        let wanted = std::env::var("DENTATE_WHISPER_GRAPH").unwrap_or_default();
        let (encoder, decoder) = match wanted.as_str() {
            "int8" => (true, true),
            "int8-encoder" => (true, false),
            "int8-decoder" => (false, true),
            _ => (false, false),
        };
        self.graphs_for(models_dir, encoder, decoder)
    }

    fn graphs_for(
        self,
        models_dir: &Path,
        int8_encoder: bool,
        int8_decoder: bool,
    ) -> WhisperGraphs {
        let dir = self.dir(models_dir);
        let (q8_encoder, q8_decoder) = (dir.join("encoder-q8.onnx"), dir.join("decoder-q8.onnx"));
        // Both int8 only when both exist (the old rule for `int8`); one alone when it does.
        let both = int8_encoder && int8_decoder;
        let ready = if both {
            q8_encoder.exists() && q8_decoder.exists()
        } else {
            true
        };
        let int8_encoder = int8_encoder && ready && q8_encoder.exists();
        let int8_decoder = int8_decoder && ready && q8_decoder.exists();
        WhisperGraphs {
            encoder: if int8_encoder {
                q8_encoder
            } else {
                dir.join("encoder.onnx")
            },
            decoder: if int8_decoder {
                q8_decoder
            } else {
                dir.join("decoder.onnx")
            },
        }
    }

    /// Value of [`MEDIA_KEY`] for files analysed with this model and `graphs` (an int8
    /// graph changes it; `names`: with the profile's names as Whisper's prompt). `+ctx`:
    /// each window encoded over its own length (`whisper::audio_width`), which changes
    /// some words and times, so files heard with every window padded to 30 s (markers
    /// without it) are heard again.
    pub fn marker(self, graphs: &WhisperGraphs, names: bool) -> String {
        let q8 = graphs.q8_suffix();
        let names = if names { "+names" } else { "" };
        format!("silero6+whisper-{}{q8}{names}+ctx+ppocrv5", self.as_str())
    }
}

/// The two Whisper graphs a run uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhisperGraphs {
    pub encoder: PathBuf,
    pub decoder: PathBuf,
}

impl WhisperGraphs {
    /// Int8 weights in either graph (`scripts/convert-whisper --int8`).
    pub fn int8(&self) -> bool {
        !self.q8_suffix().is_empty()
    }

    /// The marker's part for int8 graphs: `-q8` both, `-q8e` the encoder alone, `-q8d`
    /// the decoder alone, empty for none.
    fn q8_suffix(&self) -> &'static str {
        let q8 = |path: &Path| path.to_string_lossy().ends_with("-q8.onnx");
        match (q8(&self.encoder), q8(&self.decoder)) {
            (true, true) => "-q8",
            (true, false) => "-q8e",
            (false, true) => "-q8d",
            (false, false) => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asr_models_have_their_own_folder_and_marker() {
        assert_eq!(AsrModel::default(), AsrModel::Base);
        assert_eq!(AsrModel::parse("tiny.en"), Some(AsrModel::TinyEn));
        assert_eq!(AsrModel::parse("large"), None);
        let dir = tempfile::tempdir().unwrap();
        let base = AsrModel::Base.dir(dir.path());
        std::fs::create_dir_all(&base).unwrap();
        let float = AsrModel::Base.graphs_for(dir.path(), false, false);
        assert!(!float.int8() && float.encoder.ends_with("whisper-base/encoder.onnx"));
        assert_ne!(
            AsrModel::Base.marker(&float, false),
            AsrModel::TinyEn.marker(&float, false)
        );
        assert_ne!(
            AsrModel::Base.marker(&float, true),
            AsrModel::Base.marker(&float, false)
        );
        // The int8 graphs only when asked for and present; both only when both are.
        assert!(!AsrModel::Base.graphs_for(dir.path(), true, true).int8());
        std::fs::write(base.join("encoder-q8.onnx"), b"").unwrap();
        assert!(!AsrModel::Base.graphs_for(dir.path(), true, true).int8());
        let encoder = AsrModel::Base.graphs_for(dir.path(), true, false);
        assert!(encoder.int8() && encoder.encoder.ends_with("encoder-q8.onnx"));
        assert!(encoder.decoder.ends_with("whisper-base/decoder.onnx"));
        assert!(!AsrModel::Base.graphs_for(dir.path(), false, true).int8());
        std::fs::write(base.join("decoder-q8.onnx"), b"").unwrap();
        let int8 = AsrModel::Base.graphs_for(dir.path(), true, true);
        assert!(int8.int8() && int8.decoder.ends_with("whisper-base/decoder-q8.onnx"));
        let decoder = AsrModel::Base.graphs_for(dir.path(), false, true);
        assert!(
            decoder.decoder.ends_with("decoder-q8.onnx")
                && decoder.encoder.ends_with("encoder.onnx")
        );
        // Each form has its own marker: a file analysed with another is analysed again.
        let markers: std::collections::HashSet<String> = [&float, &encoder, &decoder, &int8]
            .into_iter()
            .map(|g| AsrModel::Base.marker(g, false))
            .collect();
        assert_eq!(markers.len(), 4);
        assert!(AsrModel::TinyEn
            .dir(Path::new("m"))
            .ends_with("whisper-tiny-en"));
    }
}
