//! The library's one error type.

/// Why reading annotations or replies, or talking HTTP to the daemon, failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the questions file is not valid JSON")]
    QuestionsNotJson(#[source] serde_json::Error),
    #[error("the questions file must hold a JSON array of question records")]
    QuestionsNotArray,
    #[error("question record #{number} is malformed")]
    MalformedQuestion {
        /// 1-based position in the file.
        number: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("the split file has no {0:?} list of question ids")]
    SplitWithoutPart(String),
    #[error("the split names question {0:?}, which the questions file does not hold")]
    SplitUnknownId(String),
    #[error("the HTTP reply has no \"files\" array")]
    ReplyWithoutFiles,
    #[error("a file in the HTTP reply has no file.path")]
    ReplyFileWithoutPath,
    #[error("the HTTP reply is not JSON")]
    ReplyNotJson(#[source] serde_json::Error),
    /// The request could not be made or its reply not read (unreachable daemon, timeout,
    /// malformed URL or reply).
    #[error("HTTP {method} {url} failed")]
    Http {
        method: String,
        url: String,
        #[source]
        source: ureq::Error,
    },
}
