//! HippoCamp's WebUI file API, key for key, so the benchmark's tools and agents work
//! against Dentate unchanged (shapes from HippoCamp's `docs/docker_api.md` and the
//! prompts of its agents):
//!
//! | route | reply |
//! |---|---|
//! | `GET /api/files/list?pattern=P` | `{success, files: [path], total, pattern}` (+ the CLI's `count`, `data`, `error`) |
//! | `GET /api/files?path=DIR` | `{success, files: tree, total}`: `{name, path, type: "file", ext}` / `{name, path, type: "directory", children}` |
//! | `GET /api/return_txt/PATH` (`?preview=1&max_chars=N`), `/api/return_txt_full/PATH` | `{success, data: {file_info, summary, segments}, error}` |
//! | `GET /api/return_metadata/PATH` | `{success, metadata: {id, file_path, file_type, file_modality, creation_date, modification_date, latitude, longitude, location}, error}` |
//! | `GET /api/return_img/PATH?page=N` | `{success, image_path, image_paths, image_b64, image_b64_list, page_count, error}` |
//! | `GET /api/return_ori/PATH` (`?preview=1`), `/api/return_ori_full/PATH` | `{success, file_path, file_b64, error}` |
//! | `GET /api/serve_file/PATH` | the raw file (404 `{success: false, error}` when missing) |
//! | `GET /api/serve_image/NAME` | an image written by `return_img` |
//!
//! As in HippoCamp, a failure is HTTP 200 with `{"success": false, "error": message}`
//! (`serve_file` and `serve_image` answer 404). Paths are relative to the profile root
//! and URL-decoded; nothing outside the root is ever served (the engine checks every
//! path on its canonical form). Dentate's richer facts are extra keys; HippoCamp's keys
//! are never renamed or moved.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query as UrlQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::engine::Engine;
use crate::error::SearchError;
use crate::http::listing::{tree, ListPattern};
use index::{FileRecord, FileStatus, StoredUnit, UnitPath};

/// Previews (`?preview=1`) are cut at this many characters unless `max_chars` says.
const PREVIEW_MAX_CHARS: usize = 50_000;
/// `return_ori` inlines at most this many bytes as base64; larger files are served by
/// `serve_file`.
const MAX_INLINE_BYTES: u64 = 256 * 1024 * 1024;

/// Where `return_img` writes its images (served back by `/api/serve_image/NAME`).
#[derive(Debug, Clone)]
pub struct OutputDir(pub PathBuf);

impl Default for OutputDir {
    /// `$DENTATE_OUTPUT_DIR`, else `dentate-output` in the system's temporary folder.
    fn default() -> Self {
        OutputDir(
            std::env::var_os("DENTATE_OUTPUT_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| std::env::temp_dir().join("dentate-output")),
        )
    }
}

#[derive(Clone)]
struct Shared {
    engine: Arc<Engine>,
    output: OutputDir,
}

/// HippoCamp's file routes.
pub fn router(engine: Arc<Engine>, output: OutputDir) -> Router {
    Router::new()
        .route("/api/files/list", get(files_list))
        .route("/api/files", get(files_tree))
        .route("/api/return_txt/{*path}", get(return_txt))
        .route("/api/return_txt_full/{*path}", get(return_txt_full))
        .route("/api/return_metadata/{*path}", get(return_metadata))
        .route("/api/return_img/{*path}", get(return_img))
        .route("/api/return_ori/{*path}", get(return_ori))
        .route("/api/return_ori_full/{*path}", get(return_ori_full))
        .route("/api/serve_file/{*path}", get(serve_file))
        .route("/api/serve_image/{name}", get(serve_image))
        .with_state(Shared { engine, output })
}

/// `{"success": true, …fields, "error": null}`.
fn success(mut fields: Map<String, Value>) -> Response {
    fields.insert("success".into(), json!(true));
    fields.entry("error").or_insert(Value::Null);
    Json(Value::Object(fields)).into_response()
}

/// HippoCamp's failure envelope: HTTP 200, `success` false.
fn failure(message: impl std::fmt::Display) -> Response {
    Json(json!({ "success": false, "error": message.to_string() })).into_response()
}

async fn blocking<T: Send + 'static>(
    engine: &Arc<Engine>,
    work: impl FnOnce(&Engine) -> Result<T, SearchError> + Send + 'static,
) -> Result<T, String> {
    crate::http::web::run_blocking(engine, work)
        .await
        .map_err(|error| error.message().to_string())
}

/// A stable integer id for a file (HippoCamp's ids are integers): the first 13 hex
/// digits of Dentate's file id, below 2^52 so every JSON reader keeps it exact.
pub fn numeric_id(file_id: &str) -> u64 {
    let digits: String = file_id.chars().take(13).collect();
    u64::from_str_radix(&digits, 16).unwrap_or(0)
}

/// `YYYY-MM-DD HH:MM:SS` in local time, as HippoCamp writes dates.
fn hippocamp_date_from_ns(ns: i64) -> Option<String> {
    use chrono::TimeZone;
    if ns == 0 {
        return None;
    }
    chrono::Utc
        .timestamp_opt(ns.div_euclid(1_000_000_000), 0)
        .single()
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string()
        })
}

/// An RFC 3339 time as `YYYY-MM-DD HH:MM:SS` in its own offset.
fn hippocamp_date_from_rfc3339(text: &str) -> Option<String> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
}

/// `MM:SS`, or `HH:MM:SS` from one hour on (HippoCamp Gold's timestamps).
pub fn clock(seconds: f64) -> String {
    let total = seconds.max(0.0) as u64;
    let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
    if h > 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{m:02}:{s:02}")
    }
}

/// The name of the profile (its folder), HippoCamp's `user`.
fn profile_user(engine: &Engine) -> String {
    Path::new(engine.profile_root())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// GPS of a photo as `(latitude, longitude)`.
fn gps(record: &FileRecord) -> Option<(f64, f64)> {
    let (lat, lon) = record.extra.get("gps")?.split_once(',')?;
    Some((lat.trim().parse().ok()?, lon.trim().parse().ok()?))
}

/// HippoCamp's `file_info` (Gold keys, in Gold's types) plus Dentate's extra facts.
fn file_info(record: &FileRecord, user: &str) -> Value {
    let modified = hippocamp_date_from_ns(record.mtime_ns);
    let created = record
        .created
        .as_deref()
        .and_then(hippocamp_date_from_rfc3339)
        .or_else(|| modified.clone());
    let (latitude, longitude) = match gps(record) {
        Some((lat, lon)) => (json!(format!("{lat}")), json!(format!("{lon}"))),
        None => (Value::Null, Value::Null),
    };
    json!({
        "id": numeric_id(&record.file_id),
        "user": user,
        "file_path": record.path,
        "file_name": record.name(),
        "file_type": record.ext,
        "file_modality": record.modality_name(),
        "creation_date": created,
        "modification_date": modified,
        "latitude": latitude,
        "longitude": longitude,
        "location": Value::Null,
        // Dentate's own.
        "file_id": record.file_id,
        "size": record.size,
        "status": record.status.as_str(),
        "title": record.title,
        "author": record.author,
        "parent_path": record.parent_path,
        "unit_count": record.unit_count,
    })
}

/// One Gold-style segment: `content`, with `page` (and `page_number`) for pages and
/// `start`/`end` as `MM:SS` for time windows, plus the unit's other locator fields.
fn segment(unit: &StoredUnit) -> Value {
    let mut segment = Map::new();
    segment.insert("content".into(), json!(unit.text));
    if let Some(page) = unit.locator.page {
        segment.insert("page".into(), json!(page));
        segment.insert("page_number".into(), json!(page));
    }
    if let (Some(a), Some(b)) = (unit.locator.t_start_ms, unit.locator.t_end_ms) {
        let (a, b) = (a as f64 / 1000.0, b as f64 / 1000.0);
        segment.insert("start".into(), json!(clock(a.floor())));
        segment.insert("end".into(), json!(clock(b.ceil())));
        segment.insert("start_seconds".into(), json!(a));
        segment.insert("end_seconds".into(), json!(b));
    }
    if let Ok(Value::Object(locator)) = serde_json::to_value(&unit.locator) {
        for (key, value) in locator {
            if !value.is_null() && !key.starts_with("t_") && key != "page" {
                segment.entry(key).or_insert(value);
            }
        }
    }
    segment.insert("kind".into(), json!(unit.kind));
    // Dentate's own: which unit this is (the web page scrolls to it).
    segment.insert("unit_id".into(), json!(unit.unit_id));
    if !unit.title.is_empty() {
        segment.insert("title".into(), json!(unit.title));
    }
    segment.insert("content_time".into(), json!(unit.content_time_text));
    Value::Object(segment)
}

/// `return_txt`'s `data`: `{file_info, summary, segments}`. A Gold summary unit (or the
/// file's title) is the summary.
fn text_data(engine: &Engine, path: &str) -> Result<Value, SearchError> {
    let (record, units) = engine.text(path)?;
    if record.status != FileStatus::Indexed {
        return Err(SearchError::NotFound(format!(
            "{:?} is not indexed ({}): {}",
            record.path,
            record.status.as_str(),
            record.error.as_deref().unwrap_or("no reason recorded")
        )));
    }
    let (summaries, contents): (Vec<&StoredUnit>, Vec<&StoredUnit>) = units
        .iter()
        .partition(|u| u.kind == converters::UnitKind::Metadata && u.title == "summary");
    let summary = summaries
        .first()
        .map(|u| u.text.clone())
        .or_else(|| record.title.clone())
        .unwrap_or_default();
    Ok(json!({
        "file_info": file_info(&record, &profile_user(engine)),
        "summary": summary,
        "segments": contents.into_iter().map(segment).collect::<Vec<_>>(),
    }))
}

#[derive(Debug, Default, Deserialize)]
struct PreviewParams {
    preview: Option<String>,
    max_chars: Option<String>,
}

impl PreviewParams {
    /// `Some(limit)` when a preview was asked for.
    fn limit(&self) -> Option<usize> {
        let wanted = matches!(
            self.preview.as_deref().map(str::trim),
            Some("1" | "true" | "yes")
        );
        wanted.then(|| {
            self.max_chars
                .as_deref()
                .and_then(|m| m.trim().parse::<usize>().ok())
                .filter(|&m| m > 0)
                .unwrap_or(PREVIEW_MAX_CHARS)
        })
    }
}

fn cut(text: &str, limit: usize) -> (String, bool) {
    match text.char_indices().nth(limit) {
        Some((end, _)) => (text[..end].to_string(), true),
        None => (text.to_string(), false),
    }
}

async fn return_txt(
    State(shared): State<Shared>,
    UrlPath(path): UrlPath<String>,
    UrlQuery(preview): UrlQuery<PreviewParams>,
) -> Response {
    if path.split_whitespace().any(|w| w == "--page") {
        return failure("return_txt does not support --page; use return_img <file_path> --page N");
    }
    let data = match blocking(&shared.engine, move |e| text_data(e, &path)).await {
        Ok(data) => data,
        Err(message) => return failure(message),
    };
    match preview.limit() {
        None => success(Map::from_iter([("data".to_string(), data)])),
        Some(limit) => {
            let pretty = serde_json::to_string_pretty(&data).unwrap_or_default();
            let (preview, truncated) = cut(&pretty, limit);
            success(Map::from_iter([
                ("data_preview".to_string(), json!(preview)),
                ("truncated".to_string(), json!(truncated)),
                ("full_available".to_string(), json!(true)),
            ]))
        }
    }
}

async fn return_txt_full(State(shared): State<Shared>, UrlPath(path): UrlPath<String>) -> Response {
    match blocking(&shared.engine, move |e| text_data(e, &path)).await {
        Ok(data) => success(Map::from_iter([("data".to_string(), data)])),
        Err(message) => failure(message),
    }
}

async fn return_metadata(State(shared): State<Shared>, UrlPath(path): UrlPath<String>) -> Response {
    let result = blocking(&shared.engine, move |e| {
        let record = e.metadata(&path)?;
        Ok((record, profile_user(e)))
    })
    .await;
    let (record, user) = match result {
        Ok(found) => found,
        Err(message) => return failure(message),
    };
    let info = file_info(&record, &user);
    let (latitude, longitude) = match gps(&record) {
        Some((lat, lon)) => (json!(lat), json!(lon)),
        None => (Value::Null, Value::Null),
    };
    let mut metadata = Map::new();
    for key in [
        "id",
        "file_path",
        "file_type",
        "file_modality",
        "creation_date",
        "modification_date",
    ] {
        metadata.insert(key.into(), info[key].clone());
    }
    metadata.insert("latitude".into(), latitude);
    metadata.insert("longitude".into(), longitude);
    metadata.insert("location".into(), Value::Null);
    // Dentate's own.
    for key in [
        "file_name",
        "file_id",
        "size",
        "status",
        "title",
        "author",
        "unit_count",
    ] {
        metadata.insert(key.into(), info[key].clone());
    }
    metadata.insert("error".into(), json!(record.error));
    metadata.insert("extra".into(), json!(record.extra_all()));
    success(Map::from_iter([(
        "metadata".to_string(),
        Value::Object(metadata),
    )]))
}

#[derive(Debug, Default, Deserialize)]
struct ImageParams {
    page: Option<String>,
    second: Option<String>,
}

/// A file name for a rendering of `path`: its stem, the page or second, and the suffix.
pub fn image_name(
    path: &str,
    page: Option<u32>,
    second: Option<f64>,
    content_type: &str,
) -> String {
    let name = UnitPath::parse(path).name();
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_ ".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let suffix = match content_type {
        "image/png" => "png",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => "jpg",
    };
    match (page, second) {
        (Some(page), _) => format!("{stem}_page{page}.{suffix}"),
        (None, Some(second)) => format!("{stem}_{second}s.{suffix}"),
        (None, None) => format!("{stem}.{suffix}"),
    }
}

async fn return_img(
    State(shared): State<Shared>,
    UrlPath(path): UrlPath<String>,
    UrlQuery(params): UrlQuery<ImageParams>,
    prefix: Option<axum::Extension<crate::http::web::UrlPrefix>>,
) -> Response {
    let page = match params.page.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => match text.parse::<u32>() {
            Ok(page) => Some(page),
            Err(_) => return failure(format!("--page takes a page number, not {text:?}")),
        },
    };
    let second = match params.second.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => match text.parse::<f64>() {
            Ok(second) => Some(second),
            Err(_) => return failure(format!("second takes a number, not {text:?}")),
        },
    };
    let rendered = blocking(&shared.engine, move |e| {
        let record = e.metadata(&path)?;
        let rendered = crate::render::render(e, &path, page, second)?;
        Ok((record, rendered))
    })
    .await;
    let (record, rendered) = match rendered {
        Ok(found) => found,
        Err(message) => return failure(message),
    };
    let name = image_name(&record.path, page, second, rendered.content_type);
    let written = shared.output.0.join(&name);
    // Written whole under a temporary name, then renamed: a concurrent request for the
    // same image never reads half a file.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let partial = shared.output.0.join(format!(
        ".{name}.{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    if let Err(error) = std::fs::create_dir_all(&shared.output.0)
        .and_then(|()| std::fs::write(&partial, &rendered.bytes))
        .and_then(|()| std::fs::rename(&partial, &written))
    {
        let _ = std::fs::remove_file(&partial);
        return failure(format!(
            "cannot write the image to {}: {error}",
            written.display()
        ));
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(&rendered.bytes);
    let image_path = written.display().to_string();
    success(Map::from_iter([
        ("image_path".to_string(), json!(image_path)),
        ("image_paths".to_string(), json!([image_path])),
        ("image_b64".to_string(), json!(b64)),
        ("image_b64_list".to_string(), json!([b64])),
        (
            "page_count".to_string(),
            json!(crate::render::page_count(&record)),
        ),
        ("content_type".to_string(), json!(rendered.content_type)),
        (
            "serve_url".to_string(),
            json!(format!(
                "{}/api/serve_image/{}",
                prefix.map(|p| p.0 .0).unwrap_or_default(),
                url_encode(&name)
            )),
        ),
    ]))
}

/// The original's absolute path and base64 bytes.
async fn original(shared: &Shared, path: String) -> Result<(PathBuf, String), String> {
    let resolved = blocking(&shared.engine, move |e| e.original_path(&path)).await?;
    let size = tokio::fs::metadata(&resolved)
        .await
        .map_err(|e| format!("cannot read the file: {e}"))?
        .len();
    if size > MAX_INLINE_BYTES {
        return Err(format!(
            "the file has {size} bytes, more than return_ori inlines ({MAX_INLINE_BYTES}); fetch it from /api/serve_file/"
        ));
    }
    let bytes = tokio::fs::read(&resolved)
        .await
        .map_err(|e| format!("cannot read the file: {e}"))?;
    Ok((
        resolved,
        base64::engine::general_purpose::STANDARD.encode(bytes),
    ))
}

async fn return_ori(
    State(shared): State<Shared>,
    UrlPath(path): UrlPath<String>,
    UrlQuery(preview): UrlQuery<PreviewParams>,
) -> Response {
    let (resolved, b64) = match original(&shared, path).await {
        Ok(found) => found,
        Err(message) => return failure(message),
    };
    let file_path = resolved.display().to_string();
    match preview.limit() {
        None => success(Map::from_iter([
            ("file_path".to_string(), json!(file_path)),
            ("file_b64".to_string(), json!(b64)),
        ])),
        Some(limit) => {
            let (preview, truncated) = cut(&b64, limit);
            success(Map::from_iter([
                ("file_path".to_string(), json!(file_path)),
                ("original_path".to_string(), json!(file_path)),
                ("file_b64_preview".to_string(), json!(preview)),
                ("truncated".to_string(), json!(truncated)),
                ("full_available".to_string(), json!(true)),
            ]))
        }
    }
}

async fn return_ori_full(State(shared): State<Shared>, UrlPath(path): UrlPath<String>) -> Response {
    match original(&shared, path).await {
        Ok((resolved, b64)) => success(Map::from_iter([
            (
                "file_path".to_string(),
                json!(resolved.display().to_string()),
            ),
            ("file_b64".to_string(), json!(b64)),
        ])),
        Err(message) => failure(message),
    }
}

fn not_found(message: impl std::fmt::Display) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({ "success": false, "error": message.to_string() })),
    )
        .into_response()
}

async fn serve_file(
    State(shared): State<Shared>,
    UrlPath(path): UrlPath<String>,
    request: HeaderMap,
) -> Response {
    let resolved = match blocking(&shared.engine, move |e| e.original_path(&path)).await {
        Ok(resolved) => resolved,
        Err(message) => return not_found(format!("File not found: {message}")),
    };
    stream_file(&resolved, &request).await
}

async fn serve_image(
    State(shared): State<Shared>,
    UrlPath(name): UrlPath<String>,
    request: HeaderMap,
) -> Response {
    // Only plain file names written by return_img.
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return not_found(format!("Image not found: {name}"));
    }
    stream_file(&shared.output.0.join(&name), &request).await
}

/// Streams a file with a content type guessed from its name (with range requests, so
/// browsers can seek in audio and video).
async fn stream_file(path: &Path, request: &HeaderMap) -> Response {
    match crate::http::ranged::serve(path, content_type_of(path), request).await {
        Some(response) => response,
        None => not_found("File not found"),
    }
}

fn content_type_of(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "txt" | "md" | "log" | "csv" | "tsv" => "text/plain; charset=utf-8",
        "html" | "htm" => "text/html; charset=utf-8",
        "json" | "ipynb" => "application/json",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "m4a" | "aac" => "audio/mp4",
        "ogg" | "oga" | "opus" => "audio/ogg",
        "flac" => "audio/flac",
        "mp4" | "m4v" => "video/mp4",
        "webm" => "video/webm",
        "mov" => "video/quicktime",
        _ => "application/octet-stream",
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub(crate) fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// The files a HippoCamp listing shows: files on disk (no attachments), indexed or
/// failed, not the paths skipped on purpose; sorted.
fn listed_paths(engine: &Engine) -> Result<Vec<String>, SearchError> {
    let outcome = engine.list_files("", 100_000, true)?;
    Ok(outcome
        .files
        .into_iter()
        .filter(|f| f.parent_path.is_none() && f.status != FileStatus::Skipped)
        .map(|f| f.path)
        .collect())
}

#[derive(Debug, Default, Deserialize)]
struct PatternParams {
    #[serde(default)]
    pattern: String,
}

async fn files_list(
    State(shared): State<Shared>,
    UrlQuery(params): UrlQuery<PatternParams>,
) -> Response {
    let pattern = match ListPattern::parse(&params.pattern) {
        Ok(pattern) => pattern,
        Err(message) => return failure(message),
    };
    let paths = match blocking(&shared.engine, listed_paths).await {
        Ok(paths) => paths,
        Err(message) => return failure(message),
    };
    let files: Vec<String> = paths.into_iter().filter(|p| pattern.matches(p)).collect();
    success(Map::from_iter([
        ("total".to_string(), json!(files.len())),
        ("count".to_string(), json!(files.len())),
        ("pattern".to_string(), json!(params.pattern)),
        ("data".to_string(), json!(files)),
        ("files".to_string(), json!(files)),
    ]))
}

#[derive(Debug, Default, Deserialize)]
struct TreeParams {
    #[serde(default)]
    path: String,
}

async fn files_tree(
    State(shared): State<Shared>,
    UrlQuery(params): UrlQuery<TreeParams>,
) -> Response {
    let folder = params.path.trim().trim_matches('/').to_string();
    if folder.split('/').any(|p| p == "..") {
        return failure("path must not contain \"..\"");
    }
    let paths = match blocking(&shared.engine, listed_paths).await {
        Ok(paths) => paths,
        Err(message) => return failure(message),
    };
    let paths: Vec<String> = paths
        .into_iter()
        .filter(|p| folder.is_empty() || p.starts_with(&format!("{folder}/")))
        .collect();
    success(Map::from_iter([
        ("total".to_string(), json!(paths.len())),
        ("files".to_string(), json!(tree(&paths))),
    ]))
}

/// HippoCamp's nested metadata of one retrieved unit, as its indexer writes it:
/// `file_info` (the four keys its scorer reads, plus the modality), `segment_info`
/// (`segment_indices`; `page_numbers` and `time_ranges` in seconds when the unit has
/// them) and `chunk_meta`.
///
/// `file_info` names the file on disk: an e-mail attachment's is its message's (the
/// benchmark's annotations name real files), with the attachment in `attachment`.
pub struct UnitMetadata<'a> {
    pub file_info: FileInfo<'a>,
    pub segment_info: SegmentInfo,
    pub chunk_meta: ChunkMeta,
}

#[derive(Serialize)]
pub struct FileInfo<'a> {
    pub file_id: u64,
    pub file_path: &'a str,
    pub file_type: String,
    pub file_name: &'a str,
    pub file_modality: converters::Modality,
    /// The attachment's name inside its container, for a unit of an attachment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attachment: Option<&'a str>,
}

#[derive(Serialize)]
pub struct SegmentInfo {
    pub segment_indices: [u64; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_numbers: Option<[u32; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ranges: Option<[TimeRange; 1]>,
}

#[derive(Serialize)]
pub struct TimeRange {
    pub start: f64,
    pub end: f64,
}

#[derive(Serialize)]
pub struct ChunkMeta {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub chunk_index: u64,
    pub char_count: usize,
    pub token_count: usize,
}

impl<'a> UnitMetadata<'a> {
    pub fn of(unit: &'a StoredUnit) -> Self {
        let parsed = UnitPath::parse(&unit.path);
        let file_path = parsed.container();
        let attachment = parsed
            .is_attachment()
            .then(|| &unit.path[file_path.len() + index::path::ATTACHMENT_MARKER.len()..]);
        let name = file_path.rsplit('/').next().unwrap_or(file_path);
        let file_type = match attachment {
            Some(_) => name.rsplit_once('.').map_or("", |(_, e)| e).to_lowercase(),
            None if unit.ext.is_empty() => unit.file_type.as_str().to_string(),
            None => unit.ext.clone(),
        };
        let file_id = match attachment {
            Some(_) => numeric_id(&index::file_id_for(file_path)),
            None => numeric_id(&unit.file_id),
        };
        let summary = unit.kind == converters::UnitKind::Metadata && unit.title == "summary";
        UnitMetadata {
            file_info: FileInfo {
                file_id,
                file_path,
                file_type,
                file_name: name,
                file_modality: unit.modality,
                attachment,
            },
            segment_info: SegmentInfo {
                segment_indices: [unit.ordinal],
                page_numbers: unit.locator.page.map(|page| [page]),
                time_ranges: match (unit.locator.t_start_ms, unit.locator.t_end_ms) {
                    (Some(a), Some(b)) => Some([TimeRange {
                        start: a as f64 / 1000.0,
                        end: b as f64 / 1000.0,
                    }]),
                    _ => None,
                },
            },
            chunk_meta: ChunkMeta {
                kind: if summary { "summary" } else { "content" },
                chunk_index: unit.ordinal,
                char_count: unit.text.chars().count(),
                token_count: converters::approx_tokens(&unit.text),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_are_gold_timestamps() {
        assert_eq!(clock(0.0), "00:00");
        assert_eq!(clock(65.4), "01:05");
        assert_eq!(clock(3915.0), "01:05:15");
    }

    #[test]
    fn numeric_ids_are_exact_in_json() {
        let id = numeric_id("ffffffffffffffff");
        assert!(id < (1u64 << 53));
        assert_eq!(numeric_id("0000000000001abc"), 1);
        assert_eq!(
            image_name("Docs/My Report (v2).pdf", Some(3), None, "image/jpeg"),
            "My Report _v2__page3.jpg"
        );
    }
}
