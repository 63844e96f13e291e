//! The MCP server: Dentate's search and file tools for agents, over Streamable HTTP
//! (`/mcp` on the daemon's HTTP address, `/p/NAME/mcp` for a profile, behind the same
//! `Host`/`Origin` checks, keys and limits as every route) and over stdio
//! (`dentate-searchd --mcp-stdio`).
//!
//! The tools are listed by hand ([`tools::list`]) from `schemars` schemas of plain
//! argument and reply types, and answered by [`tools::call`] over the same engine
//! calls the HTTP routes make. Bad arguments, an unknown file or a path outside the
//! profile give a tool error (`isError`) with the reason, never a transport error.

pub mod args;
pub mod text;
pub mod tools;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::engine::Engine;
use crate::limits::Class;

/// What the server tells an agent on connecting (kept short: agents pay per word).
const INSTRUCTIONS: &str = "Search one person's files (documents, mail, calendars, sheets, \
notes, photos, recordings). `search` finds files and the page, lines or second that answer; \
`get_text` reads them; `render` shows a page or frame. Paths are relative to the profile.";

/// One profile's MCP server.
#[derive(Clone)]
pub struct DentateMcp {
    engine: Arc<Engine>,
}

impl DentateMcp {
    pub fn new(engine: Arc<Engine>) -> DentateMcp {
        DentateMcp { engine }
    }
}

impl ServerHandler for DentateMcp {
    fn get_info(&self) -> ServerConfig {
        let mut server = Implementation::new("dentate", env!("CARGO_PKG_VERSION"));
        server.title = Some("Dentate personal-file search".to_string());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(server)
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        tools::list().iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !tools::NAMES.contains(&name.as_str()) {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool {name:?}; the tools are {}",
                    tools::NAMES.join(", ")
                ),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let engine = self.engine.clone();
        let answer =
            tokio::task::spawn_blocking(move || tools::call(&engine, &name, arguments)).await;
        let result = match answer {
            Ok(Ok(reply)) => reply.into_result(),
            Ok(Err(error)) => CallToolResult::error(vec![ContentBlock::text(error.to_string())]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
                "the tool failed: {error}"
            ))]),
        };
        Ok(result.into())
    }
}

/// The Streamable HTTP service of one profile, mounted at `/mcp`: stateless (each POST
/// is answered on its own, in JSON), since every tool is a single request. `Host` and
/// `Origin` are checked by the daemon's own layers (`crate::http::host_check`), which know
/// `--allow-host` and `--cors-origin`.
pub fn http_service(engine: Arc<Engine>) -> StreamableHttpService<DentateMcp, NeverSessionManager> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts();
    StreamableHttpService::new(
        move || Ok(DentateMcp::new(engine.clone())),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// Serves MCP on standard input and output until the client closes them.
pub async fn serve_stdio(engine: Arc<Engine>) -> anyhow::Result<()> {
    let running = DentateMcp::new(engine)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("MCP over stdio could not start: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| anyhow::anyhow!("MCP over stdio stopped: {e}"))?;
    Ok(())
}

/// The limits class of an MCP request: a `tools/call` costs what its tool does;
/// everything else (initialize, the tool list) is a file-class request.
pub fn limits_class(body: Option<&Value>) -> Class {
    let Some(body) = body else {
        return Class::Files;
    };
    if body["method"].as_str() != Some("tools/call") {
        return Class::Files;
    }
    match body["params"]["name"].as_str().unwrap_or("") {
        "search" => match body["params"]["arguments"]["mode"].as_str() {
            Some("lexical") => Class::Lexical,
            _ => Class::Search,
        },
        "render" => Class::Render,
        "timeline" | "routine" => Class::Lexical,
        _ => Class::Files,
    }
}

#[cfg(test)]
mod tests;
