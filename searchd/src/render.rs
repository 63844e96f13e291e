//! Rendering evidence as images, like HippoCamp's `return_img`: an image file as itself
//! (re-encoded as JPEG when browsers cannot show its format), a PDF page through
//! poppler's `pdftoppm`, a video frame at a given second through `ffmpeg`. The external
//! tools come from Debian's `poppler-utils` and `ffmpeg` packages (the README commands
//! install them); each run is bounded in time and reads only files inside the profile.

use std::path::Path;
use std::time::Duration;

use converters::{FileType, Modality};

use crate::engine::Engine;
use crate::error::SearchError;

/// A rendered image.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
}

/// Longest a renderer may run.
const RENDER_TIMEOUT: Duration = Duration::from_secs(30);
/// Resolution of rendered PDF pages.
const PDF_DPI: &str = "110";

/// Renders a file of the index: `page` (1-based) for PDFs, `second` for videos.
pub fn render(
    engine: &Engine,
    path: &str,
    page: Option<u32>,
    second: Option<f64>,
) -> Result<Rendered, SearchError> {
    let record = engine.metadata(path)?;
    let original = engine.original_path(path)?;
    match (record.modality, record.file_type) {
        (Some(Modality::Image), _) => render_image(&original),
        (_, Some(FileType::Pdf)) => {
            let page = page.unwrap_or(1);
            let pages = page_count(&record);
            if page == 0 || page > pages.max(1) {
                return Err(SearchError::invalid(format!(
                    "page {page} is out of range (1-{pages})"
                )));
            }
            render_pdf_page(&original, page)
        }
        (Some(Modality::Video), _) => {
            let second = second.unwrap_or(0.0);
            if !(second.is_finite() && second >= 0.0) {
                return Err(SearchError::invalid("second must be a non-negative number"));
            }
            render_video_frame(&original, second)
        }
        _ => Err(SearchError::invalid(format!(
            "cannot render a {} file ({}); images, PDF pages and video frames can be rendered",
            record.file_type_name(),
            record.modality_name()
        ))),
    }
}

/// Pages of a PDF (from its converter, else its page units); 1 for anything else.
pub fn page_count(record: &index::FileRecord) -> u32 {
    if record.file_type != Some(FileType::Pdf) {
        return 1;
    }
    record
        .extra
        .get("page_count")
        .and_then(|p| p.parse().ok())
        .unwrap_or(record.unit_count)
        .max(1)
}

fn render_image(path: &Path) -> Result<Rendered, SearchError> {
    let bytes = std::fs::read(path)
        .map_err(|e| SearchError::NotFound(format!("cannot read the image: {e}")))?;
    let passthrough = if bytes.starts_with(b"\xFF\xD8\xFF") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"\x89PNG") {
        Some("image/png")
    } else if bytes.starts_with(b"GIF8") {
        Some("image/gif")
    } else if bytes.len() > 12 && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    };
    if let Some(content_type) = passthrough {
        return Ok(Rendered {
            content_type,
            bytes,
        });
    }
    // TIFF, BMP, …: decode (with memory limits) and re-encode as JPEG.
    let mut reader = image::ImageReader::new(std::io::Cursor::new(&bytes))
        .with_guessed_format()
        .map_err(|e| SearchError::invalid(format!("cannot read the image: {e}")))?;
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(512 * 1024 * 1024);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|e| SearchError::invalid(format!("cannot decode the image: {e}")))?;
    let mut out = Vec::new();
    decoded
        .to_rgb8()
        .write_to(
            &mut std::io::Cursor::new(&mut out),
            image::ImageFormat::Jpeg,
        )
        .map_err(|e| SearchError::invalid(format!("cannot encode the image: {e}")))?;
    Ok(Rendered {
        content_type: "image/jpeg",
        bytes: out,
    })
}

fn render_pdf_page(path: &Path, page: u32) -> Result<Rendered, SearchError> {
    let page = page.to_string();
    let bytes = run_tool(
        "pdftoppm",
        "poppler-utils",
        &[
            "-f",
            &page,
            "-l",
            &page,
            "-r",
            PDF_DPI,
            "-jpeg",
            "-singlefile",
            &path.to_string_lossy(),
        ],
    )?;
    jpeg_or_error(bytes, "pdftoppm")
}

fn render_video_frame(path: &Path, second: f64) -> Result<Rendered, SearchError> {
    let at = format!("{second:.3}");
    let bytes = run_tool(
        "ffmpeg",
        "ffmpeg",
        &[
            "-nostdin",
            "-v",
            "error",
            "-ss",
            &at,
            "-i",
            &path.to_string_lossy(),
            "-frames:v",
            "1",
            "-f",
            "image2",
            "-c:v",
            "mjpeg",
            "pipe:1",
        ],
    )?;
    jpeg_or_error(bytes, "ffmpeg")
}

fn jpeg_or_error(bytes: Vec<u8>, tool: &str) -> Result<Rendered, SearchError> {
    if bytes.starts_with(b"\xFF\xD8") {
        Ok(Rendered {
            content_type: "image/jpeg",
            bytes,
        })
    } else {
        Err(SearchError::invalid(format!(
            "{tool} produced no image (past the end of the file?)"
        )))
    }
}

/// Runs a tool that writes the image to stdout (pdftoppm writes to stdout without an
/// output root), killing it after [`RENDER_TIMEOUT`].
fn run_tool(tool: &str, package: &'static str, args: &[&str]) -> Result<Vec<u8>, SearchError> {
    models::process::run_limited(tool, package, args, RENDER_TIMEOUT)
        .map(|output| output.stdout)
        .map_err(|error| match error {
            models::process::ToolError::NotInstalled { .. } => {
                SearchError::Unavailable(format!("rendering needs {error}"))
            }
            other => SearchError::Unavailable(other.to_string()),
        })
}
