//! Serving a file with HTTP range requests (RFC 9110 §14): a browser's `<audio>` and
//! `<video>` need them to start playing at a unit's time window without downloading the
//! whole recording first, and to seek at all. One range per request (a multi-range
//! request gets the whole file, which the RFC allows); a range that starts past the end
//! is 416 with `Content-Range: bytes */LEN`.

use std::io::SeekFrom;
use std::path::Path;

use axum::body::Body;
use axum::http::header::{ACCEPT_RANGES, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, RANGE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::io::{AsyncReadExt, AsyncSeekExt};

/// What a `Range` header asks of a file of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// No range, or one this server answers with the whole file.
    Whole,
    /// Bytes `start..=end`.
    Part { start: u64, end: u64 },
    /// Starts past the end (416).
    Unsatisfiable,
}

/// Reads a `Range` header value against a file of `len` bytes.
pub fn wanted(header: Option<&str>, len: u64) -> Wanted {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return Wanted::Whole;
    };
    if spec.contains(',') {
        return Wanted::Whole;
    }
    let Some((first, last)) = spec.split_once('-') else {
        return Wanted::Whole;
    };
    let (first, last) = (first.trim(), last.trim());
    let number = |text: &str| text.parse::<u64>().ok();
    match (first.is_empty(), last.is_empty()) {
        // bytes=-N: the last N bytes.
        (true, false) => match number(last) {
            Some(0) => Wanted::Unsatisfiable,
            Some(n) if len > 0 => Wanted::Part {
                start: len.saturating_sub(n),
                end: len - 1,
            },
            Some(_) => Wanted::Unsatisfiable,
            None => Wanted::Whole,
        },
        // bytes=A- and bytes=A-B.
        (false, _) => {
            let Some(start) = number(first) else {
                return Wanted::Whole;
            };
            let end = if last.is_empty() {
                Some(u64::MAX)
            } else {
                number(last)
            };
            match end {
                None => Wanted::Whole,
                Some(end) if end < start => Wanted::Whole,
                Some(_) if start >= len => Wanted::Unsatisfiable,
                Some(end) => Wanted::Part {
                    start,
                    end: end.min(len - 1),
                },
            }
        }
        (true, true) => Wanted::Whole,
    }
}

/// Streams `path` with `content_type`, honouring the request's `Range` header; `None`
/// when the file cannot be opened.
pub async fn serve(
    path: &Path,
    content_type: &'static str,
    request: &HeaderMap,
) -> Option<Response> {
    let mut file = tokio::fs::File::open(path).await.ok()?;
    let len = file.metadata().await.ok()?.len();
    let range = request.get(RANGE).and_then(|v| v.to_str().ok());
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    let (status, start, count) = match wanted(range, len) {
        Wanted::Whole => (StatusCode::OK, 0, len),
        Wanted::Part { start, end } => {
            headers.insert(
                CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes {start}-{end}/{len}")).ok()?,
            );
            (StatusCode::PARTIAL_CONTENT, start, end - start + 1)
        }
        Wanted::Unsatisfiable => {
            headers.insert(
                CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes */{len}")).ok()?,
            );
            return Some((StatusCode::RANGE_NOT_SATISFIABLE, headers).into_response());
        }
    };
    if start > 0 {
        file.seek(SeekFrom::Start(start)).await.ok()?;
    }
    headers.insert(CONTENT_LENGTH, HeaderValue::from(count));
    let body = Body::from_stream(crate::http::web::file_stream(file.take(count)));
    Some((status, headers, body).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_read_like_the_rfc_says() {
        let part = |start, end| Wanted::Part { start, end };
        assert_eq!(wanted(None, 100), Wanted::Whole);
        assert_eq!(wanted(Some("bytes=0-"), 100), part(0, 99));
        assert_eq!(wanted(Some("bytes=10-19"), 100), part(10, 19));
        assert_eq!(wanted(Some("bytes=90-500"), 100), part(90, 99));
        assert_eq!(wanted(Some("bytes=-10"), 100), part(90, 99));
        assert_eq!(wanted(Some("bytes=-500"), 100), part(0, 99));
        assert_eq!(wanted(Some("bytes=100-"), 100), Wanted::Unsatisfiable);
        assert_eq!(wanted(Some("bytes=-0"), 100), Wanted::Unsatisfiable);
        assert_eq!(wanted(Some("bytes=0-"), 0), Wanted::Unsatisfiable);
        // Not understood, reversed, or several ranges: the whole file.
        for odd in [
            "items=0-1",
            "bytes=5-1",
            "bytes=0-1,5-6",
            "bytes=x-",
            "bytes=-",
        ] {
            assert_eq!(wanted(Some(odd), 100), Wanted::Whole, "{odd}");
        }
    }
}
