//! How a stage of a run ended (the `status` of each stage block of the summary); a
//! leaf module, so the stages and the summary that gathers their blocks do not import
//! each other.

use serde::{Deserialize, Serialize};

/// How a stage block of the summary (embeddings, OCR, media, CLIP) ended; serialised as
/// its lower-case name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StageStatus {
    /// The stage ran (or had nothing left to do with its models ready).
    Done,
    /// Enabled, but nothing in this run needed it (its models were not loaded). Also the
    /// value of a block no run has filled in yet.
    #[default]
    Unused,
    /// Switched off for this run (`--no-ocr`, no `--clip`, …).
    Disabled,
    /// Enabled, but its models (or tools) are missing.
    Skipped,
    /// Its models did not load or failed while running.
    Failed,
}

impl StageStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StageStatus::Done => "done",
            StageStatus::Unused => "unused",
            StageStatus::Disabled => "disabled",
            StageStatus::Skipped => "skipped",
            StageStatus::Failed => "failed",
        }
    }
}

impl std::fmt::Display for StageStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
