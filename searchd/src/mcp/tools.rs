//! The tool list and the tools: each parses its arguments ([`super::args`]), makes
//! the engine call its HTTP route makes, and answers a [`Reply`]: structured content
//! (matching the tool's output schema) and a short text rendering.

use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use rmcp::schemars::{self, JsonSchema};
use serde::Serialize;
use serde_json::{json, Value};

use super::args::{self, parse, unix_time};
use super::text::{clip, clip_marked, plain_snippet};
use crate::engine::Engine;
use crate::error::SearchError;
use crate::query::{Mode, SearchParams};

/// Every tool's name, in the order listed.
pub const NAMES: [&str; 7] = [
    "search",
    "get_text",
    "list_files",
    "get_metadata",
    "render",
    "timeline",
    "routine",
];

/// The tools with their descriptions and schemas, in [`NAMES`] order, made once (the
/// HTTP transport looks a tool up on every call).
pub fn list() -> &'static [Tool] {
    static TOOLS: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(make_list)
}

fn make_list() -> Vec<Tool> {
    use rmcp::handler::server::common::{schema_for_output, schema_for_type};
    let table: [(&'static str, Arc<JsonObject>, Arc<JsonObject>); 7] = [
        (
            "Find the files that answer a question, best first, each with the page, lines or time of its best match and a snippet.",
            schema_for_type::<args::SearchArgs>(),
            schema_for_output::<SearchReply>(),
        ),
        (
            "A file's text as units (pages, rows, e-mails, spoken sentences) with their locators; optionally one page, line range or time range.",
            schema_for_type::<args::GetTextArgs>(),
            schema_for_output::<TextReply>(),
        ),
        (
            "Indexed files whose path matches a glob, with type, size and date.",
            schema_for_type::<args::ListFilesArgs>(),
            schema_for_output::<FilesReply>(),
        ),
        (
            "One file's metadata: type, size, dates, title, author, units, place.",
            schema_for_type::<args::PathArgs>(),
            any_object(),
        ),
        (
            "A PDF page, a picture or a video frame as a JPEG image.",
            schema_for_type::<args::RenderArgs>(),
            schema_for_output::<RenderReply>(),
        ),
        (
            "What the files and activity log hold day by day in a period, grouped by folder.",
            schema_for_type::<args::TimelineArgs>(),
            any_object(),
        ),
        (
            "Habits over a period: weekday-by-hour activity, recurring events, people per week, folders.",
            schema_for_type::<args::RoutineArgs>(),
            any_object(),
        ),
    ];
    NAMES
        .iter()
        .zip(table)
        .map(|(name, (description, input, output))| {
            let mut tool = Tool::new(*name, description, input);
            tool.output_schema = Some(output);
            tool
        })
        .collect()
}

/// The output schema of tools that answer with the HTTP route's JSON object.
fn any_object() -> Arc<JsonObject> {
    let schema = json!({"type": "object", "additionalProperties": true});
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

/// A tool's answer.
pub struct Reply {
    pub structured: Value,
    pub text: String,
    /// Base64 data and MIME type of an image.
    pub image: Option<(String, String)>,
}

impl Reply {
    fn of(value: impl Serialize, text: String) -> Result<Reply, SearchError> {
        let structured = serde_json::to_value(value)
            .map_err(|e| SearchError::Unavailable(format!("reply not serialisable: {e}")))?;
        Ok(Reply {
            structured,
            text,
            image: None,
        })
    }

    pub fn into_result(self) -> CallToolResult {
        let mut result = CallToolResult::structured(self.structured);
        result.content = vec![ContentBlock::text(self.text)];
        if let Some((data, mime)) = self.image {
            result.content.push(ContentBlock::image(data, mime));
        }
        result
    }
}

/// Runs tool `name` (blocking: call it off the async threads).
pub fn call(engine: &Engine, name: &str, arguments: Value) -> Result<Reply, SearchError> {
    match name {
        "search" => search(engine, parse(name, arguments)?),
        "get_text" => get_text(engine, parse(name, arguments)?),
        "list_files" => list_files(engine, parse(name, arguments)?),
        "get_metadata" => get_metadata(engine, parse(name, arguments)?),
        "render" => render(engine, parse(name, arguments)?),
        "timeline" => timeline(engine, parse(name, arguments)?),
        "routine" => routine(engine, parse(name, arguments)?),
        other => Err(SearchError::invalid(format!("no tool {other:?}"))),
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchReply {
    pub query: String,
    pub files: Vec<FoundFile>,
    pub took_ms: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FoundFile {
    /// Profile-relative path (give it to `get_text`, `render`, `get_metadata`).
    pub path: String,
    pub score: f32,
    pub file_type: String,
    /// Where in the file the best match is ("p. 2", "lines 4-9", "00:01:05-00:01:09").
    pub locator: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second: Option<f64>,
    /// The content's date (RFC 3339), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The best match, matched words in `**`.
    pub snippet: String,
}

fn time_range(
    engine: &Engine,
    when: Option<&str>,
    after: Option<&str>,
    before: Option<&str>,
) -> Result<(Option<i64>, Option<i64>), SearchError> {
    /// Slack around a wall-clock range: the widest UTC offsets.
    const ZONE_SLACK: i64 = 14 * 3600;
    let when = when.map(str::trim).filter(|w| !w.is_empty());
    if let Some(when) = when {
        if after.is_some() || before.is_some() {
            return Err(SearchError::invalid(
                "give either when or after/before, not both",
            ));
        }
        let snapshot = engine.backend().snapshot()?;
        let reference = crate::priors::reference_time(&*snapshot, None)?;
        let Some((a, b)) = crate::timeparse::parse(when, reference).range else {
            return Err(SearchError::invalid(format!(
                "when: no date range understood in {when:?} (try \"last week\", \"March 2024\")"
            )));
        };
        return Ok((
            Some(a.and_utc().timestamp() - ZONE_SLACK),
            Some(b.and_utc().timestamp() + ZONE_SLACK),
        ));
    }
    let start = after.map(|t| unix_time("after", t)).transpose()?;
    let end = before.map(|t| unix_time("before", t)).transpose()?;
    Ok((start, end))
}

fn search(engine: &Engine, args: args::SearchArgs) -> Result<Reply, SearchError> {
    if args.query.trim().is_empty() {
        return Err(SearchError::invalid("search: query is empty"));
    }
    let (time_start, time_end) = time_range(
        engine,
        args.when.as_deref(),
        args.after.as_deref(),
        args.before.as_deref(),
    )?;
    let top_k = args.top_k.unwrap_or(10).clamp(1, 100) as usize;
    let params = SearchParams {
        query: args.query.clone(),
        top_k,
        units_per_file: 1,
        mode: Mode::parse(args.mode.as_deref().unwrap_or(""))?,
        path_prefixes: args.path_prefixes,
        modalities: args.modalities,
        time_start,
        time_end,
        cutoff: crate::cutoff::Cutoff {
            autocut: u32::from(args.autocut == Some(true)),
            min_score: None,
        },
        ..SearchParams::default()
    };
    let outcome = engine.search(params)?;
    let files: Vec<FoundFile> = outcome
        .files
        .iter()
        .map(|hit| {
            let best = hit
                .units
                .iter()
                .find(|u| !u.is_context)
                .or(hit.units.first());
            let locator = best.map(|u| &u.unit.locator);
            FoundFile {
                path: hit.file.path.clone(),
                score: hit.score,
                file_type: hit.file.file_type_name().to_string(),
                locator: locator.map(|l| l.describe()).unwrap_or_default(),
                page: locator.and_then(|l| l.page.or(l.slide)),
                line_start: locator.and_then(|l| l.line_start),
                second: locator
                    .and_then(|l| l.t_start_ms)
                    .map(|ms| ms as f64 / 1000.0),
                date: best
                    .map(|u| u.unit.content_time_text.clone())
                    .filter(|t| !t.is_empty()),
                snippet: best
                    .map(|u| match &u.snippet {
                        Some(html) => plain_snippet(html),
                        None => clip(&u.unit.text, 240),
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    let mut text = String::new();
    if files.is_empty() {
        text.push_str("No file matches.");
    }
    for (i, file) in files.iter().enumerate() {
        let at = if file.locator.is_empty() {
            String::new()
        } else {
            format!(" ({})", file.locator)
        };
        text.push_str(&format!(
            "{}. {}{at}\n   {}\n",
            i + 1,
            file.path,
            clip_marked(&file.snippet, 200)
        ));
    }
    Reply::of(
        SearchReply {
            query: args.query,
            files,
            took_ms: outcome.took_ms,
        },
        text,
    )
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TextReply {
    pub path: String,
    pub file_type: String,
    pub units: Vec<TextUnit>,
    /// Units in the file.
    pub total_units: usize,
    /// More text matched than `max_chars` allowed.
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TextUnit {
    pub locator: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_end: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_start: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_end: Option<f64>,
    pub text: String,
}

/// Whether `unit` lies in the part of the file `args` asks for.
fn wanted(locator: &converters::Locator, args: &args::GetTextArgs) -> bool {
    if let Some(page) = args.page {
        if locator.page.or(locator.slide) != Some(page) {
            return false;
        }
    }
    if args.line_start.is_some() || args.line_end.is_some() {
        let (Some(a), Some(b)) = (locator.line_start, locator.line_end) else {
            return false;
        };
        if b < args.line_start.unwrap_or(0) || a > args.line_end.unwrap_or(u64::MAX) {
            return false;
        }
    }
    if args.second_start.is_some() || args.second_end.is_some() {
        let (Some(a), Some(b)) = (locator.t_start_ms, locator.t_end_ms) else {
            return false;
        };
        let (a, b) = (a as f64 / 1000.0, b as f64 / 1000.0);
        if b < args.second_start.unwrap_or(0.0) || a > args.second_end.unwrap_or(f64::MAX) {
            return false;
        }
    }
    true
}

fn get_text(engine: &Engine, args: args::GetTextArgs) -> Result<Reply, SearchError> {
    let (record, units) = engine.text(&args.path)?;
    let budget = args.max_chars.unwrap_or(20_000).clamp(1, 200_000) as usize;
    let (mut used, mut truncated) = (0usize, false);
    let mut chosen = Vec::new();
    for unit in units.iter().filter(|u| wanted(&u.locator, &args)) {
        let left = budget.saturating_sub(used);
        if left == 0 {
            truncated = true;
            break;
        }
        let length = unit.text.chars().count();
        let text = if length > left {
            truncated = true;
            clip(&unit.text, left)
        } else {
            unit.text.clone()
        };
        used += length.min(left);
        let l = &unit.locator;
        chosen.push(TextUnit {
            locator: l.describe(),
            page: l.page.or(l.slide),
            line_start: l.line_start,
            line_end: l.line_end,
            second_start: l.t_start_ms.map(|ms| ms as f64 / 1000.0),
            second_end: l.t_end_ms.map(|ms| ms as f64 / 1000.0),
            text,
        });
    }
    let mut text = format!(
        "{} ({}, {} of {} units{})\n",
        record.path,
        record.file_type_name(),
        chosen.len(),
        units.len(),
        if truncated { ", cut" } else { "" }
    );
    for unit in &chosen {
        if !unit.locator.is_empty() {
            text.push_str(&format!("[{}] ", unit.locator));
        }
        text.push_str(&unit.text);
        text.push('\n');
    }
    Reply::of(
        TextReply {
            path: record.path.clone(),
            file_type: record.file_type_name().to_string(),
            units: chosen,
            total_units: units.len(),
            truncated,
        },
        text,
    )
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FilesReply {
    pub files: Vec<ListedFile>,
    /// More files matched than `limit`.
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ListedFile {
    pub path: String,
    pub file_type: String,
    pub size: u64,
    pub units: u32,
    /// Last modification (RFC 3339).
    pub modified: String,
}

fn list_files(engine: &Engine, args: args::ListFilesArgs) -> Result<Reply, SearchError> {
    let limit = args.limit.unwrap_or(100).clamp(1, 1000) as usize;
    let outcome = engine.list_files(args.pattern.as_deref().unwrap_or(""), limit, false)?;
    let files: Vec<ListedFile> = outcome
        .files
        .iter()
        .map(|f| ListedFile {
            path: f.path.clone(),
            file_type: f.file_type_name().to_string(),
            size: f.size,
            units: f.unit_count,
            modified: crate::time::rfc3339_from_ns(f.mtime_ns),
        })
        .collect();
    let mut text: String = files.iter().map(|f| format!("{}\n", f.path)).collect();
    if files.is_empty() {
        text.push_str("No file matches.");
    }
    if outcome.truncated {
        text.push_str("(more files match; raise limit or narrow the pattern)\n");
    }
    Reply::of(
        FilesReply {
            files,
            truncated: outcome.truncated,
        },
        text,
    )
}

fn get_metadata(engine: &Engine, args: args::PathArgs) -> Result<Reply, SearchError> {
    let record = engine.metadata(&args.path)?;
    let text = format!(
        "{}: {}, {} bytes, {} units, modified {}",
        record.path,
        record.file_type_name(),
        record.size,
        record.unit_count,
        crate::time::rfc3339_from_ns(record.mtime_ns)
    );
    Reply::of(&record, text)
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RenderReply {
    pub path: String,
    pub mime_type: String,
    pub bytes: usize,
}

fn render(engine: &Engine, args: args::RenderArgs) -> Result<Reply, SearchError> {
    let rendered = crate::render::render(engine, &args.path, args.page, args.second)?;
    let what = match (args.page, args.second) {
        (Some(page), _) => format!("page {page} of "),
        (_, Some(second)) => format!("the frame at {second} s of "),
        _ => String::new(),
    };
    let mut reply = Reply::of(
        RenderReply {
            path: args.path.clone(),
            mime_type: rendered.content_type.to_string(),
            bytes: rendered.bytes.len(),
        },
        format!("{what}{} as {}", args.path, rendered.content_type),
    )?;
    reply.image = Some((
        base64::engine::general_purpose::STANDARD.encode(&rendered.bytes),
        rendered.content_type.to_string(),
    ));
    Ok(reply)
}

fn timeline(engine: &Engine, args: args::TimelineArgs) -> Result<Reply, SearchError> {
    // The engine's own messages name the HTTP route's fields; say the tool's.
    let has_when = args.when.as_deref().is_some_and(|w| !w.trim().is_empty());
    match (has_when, args.after.is_some() || args.before.is_some()) {
        (false, false) => {
            return Err(SearchError::invalid(
                "timeline: give when (\"last week\", \"March 2024\") or after/before (YYYY-MM-DD)",
            ))
        }
        (true, true) => {
            return Err(SearchError::invalid(
                "timeline: give either when or after/before, not both",
            ))
        }
        _ => {}
    }
    let (start, end) = match (&args.after, &args.before) {
        (None, None) => (None, None),
        _ => (
            args.after
                .as_deref()
                .map(|t| unix_time("after", t))
                .transpose()?,
            args.before
                .as_deref()
                .map(|t| unix_time("before", t))
                .transpose()?,
        ),
    };
    let outcome = engine.timeline(crate::timeline::TimelineParams {
        start,
        end,
        when: args.when,
        query: args.query.unwrap_or_default(),
        max_units: args.max_units.unwrap_or(500) as usize,
        ..Default::default()
    })?;
    let mut text = format!(
        "{}: {} units on {} days{}\n",
        outcome.range,
        outcome.units_matched,
        outcome.days.len(),
        if outcome.truncated { " (cut)" } else { "" }
    );
    for day in &outcome.days {
        let folders: Vec<&str> = day.folders.iter().map(|f| f.folder.as_str()).collect();
        text.push_str(&format!(
            "{}: {} units in {}\n",
            day.date,
            day.units,
            folders.join(", ")
        ));
    }
    Reply::of(&outcome, text)
}

fn routine(engine: &Engine, args: args::RoutineArgs) -> Result<Reply, SearchError> {
    let outcome = engine.routine(crate::routine::RoutineParams {
        when: args.when,
        folder: args.folder.unwrap_or_default(),
        top: args.top.unwrap_or(0) as usize,
        ..Default::default()
    })?;
    let value = serde_json::to_value(&outcome)
        .map_err(|e| SearchError::Unavailable(format!("reply not serialisable: {e}")))?;
    let text = format!(
        "routine{}: {}",
        outcome_range(&value),
        clip(&serde_json::to_string(&value).unwrap_or_default(), 1500)
    );
    Ok(Reply {
        structured: value,
        text,
        image: None,
    })
}

fn outcome_range(value: &Value) -> String {
    value["range"]
        .as_str()
        .map(|r| format!(" over {r}"))
        .unwrap_or_default()
}
