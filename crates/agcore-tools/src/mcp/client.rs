//! [`McpClient`]: connect to one MCP server and expose its tools.

use std::{
    collections::HashSet,
    fmt,
    sync::{
        Arc, PoisonError, RwLock,
        atomic::{AtomicBool, Ordering},
    },
    time::Instant,
};

use tracing::Instrument as _;

use super::{
    config::McpServerConfig, handler::AgcoreClientHandler, launch::start,
    naming::exposed_tool_names, session::Session, tool::McpTool,
};
use crate::{Tool, ToolContext, ToolError, ToolOutput};

/// A connection to one MCP server (Model Context Protocol,
/// <https://modelcontextprotocol.io/specification>), over stdio or streamable HTTP.
///
/// [`connect`](Self::connect) starts the server (or opens the HTTP session),
/// performs the `initialize` handshake and lists the server's tools;
/// [`tools`](Self::tools) returns them as [`Tool`]s named `<server>__<tool>`,
/// ready for a tool registry. Calls made after the server died fail at once
/// with [`ToolError::Mcp`] naming the server.
///
/// Call [`shutdown`](Self::shutdown) when done: it closes the session and waits
/// for the child process to exit. Dropping the client and all its tools without
/// it also ends the session and kills the child, in the background.
///
/// # Examples
///
/// ```no_run
/// use agcore_tools::{Tool, ToolContext, mcp::{McpClient, McpServerConfig}};
/// use serde_json::json;
///
/// # async fn run() -> Result<(), agcore_tools::ToolError> {
/// let config = McpServerConfig::stdio(
///     "everything",
///     "npx",
///     ["-y", "@modelcontextprotocol/server-everything"],
/// );
/// let client = McpClient::connect(config).await?;
/// for tool in client.tools() {
///     println!("{}: {}", tool.name(), tool.description());
/// }
/// let echo = client.tool("everything__echo").expect("the server has `echo`");
/// let out = echo.execute(json!({"message": "hi"}), &ToolContext::new()).await?;
/// assert_eq!(out, json!("Echo: hi"));
/// client.shutdown().await?;
/// # Ok(())
/// # }
/// ```
pub struct McpClient {
    config: McpServerConfig,
    session: Arc<Session>,
    process_id: Option<u32>,
    instructions: Option<String>,
    tools: RwLock<Vec<Arc<McpTool>>>,
    tools_changed: Arc<AtomicBool>,
}

impl McpClient {
    /// Starts or opens the connection described by `config`, completes the MCP
    /// handshake within `config.connect_timeout`, and lists the server's tools.
    ///
    /// For stdio, `config`'s command runs as a child process in its own process
    /// group, stdin/stdout carrying the protocol and stderr logged through
    /// `tracing`.
    ///
    /// # Errors
    /// [`ToolError::Mcp`] naming the server when the configuration is invalid,
    /// the command cannot be started, the handshake fails or takes too long
    /// (quoting the child's last stderr lines), or listing the tools fails;
    /// [`ToolError::Timeout`] when listing the tools exceeds the call timeout.
    /// A child started for a failed connection is killed.
    pub async fn connect(config: McpServerConfig) -> Result<Self, ToolError> {
        config.validate()?;
        let span = tracing::info_span!(
            "mcp.connect",
            server = %config.name,
            transport = config.transport.kind(),
            latency_ms = tracing::field::Empty,
        );
        let started = Instant::now();
        let result = Self::connect_inner(config).instrument(span.clone()).await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        span.record("latency_ms", latency_ms);
        span.in_scope(|| match &result {
            Ok(client) => tracing::info!(tools = client.tools_len(), "connected to MCP server"),
            Err(error) => tracing::warn!(%error, "MCP connection failed"),
        });
        result
    }

    async fn connect_inner(config: McpServerConfig) -> Result<Self, ToolError> {
        let tools_changed = Arc::new(AtomicBool::new(false));
        let handler = AgcoreClientHandler::new(&config.name, Arc::clone(&tools_changed));
        let started = start(&config, handler).await?;
        let instructions = started
            .running
            .peer()
            .peer_info()
            .and_then(|info| info.instructions.clone());
        let session = Arc::new(Session::new(
            config.name.clone(),
            config.call_timeout,
            started.running,
            started.stderr,
        ));
        let client = Self {
            config,
            session,
            process_id: started.process_id,
            instructions,
            tools: RwLock::new(Vec::new()),
            tools_changed,
        };
        if let Err(error) = client.list_tools().await {
            let _ = client.session.shutdown().await;
            return Err(error);
        }
        Ok(client)
    }

    /// The server's configured name (the prefix of its tools' names).
    pub fn server_name(&self) -> &str {
        &self.config.name
    }

    /// The configuration this client was connected with.
    pub fn config(&self) -> &McpServerConfig {
        &self.config
    }

    /// The child's process id (stdio transport only).
    pub fn process_id(&self) -> Option<u32> {
        self.process_id
    }

    /// The `instructions` the server sent in its `initialize` result, meant for
    /// the model's system prompt.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// Whether the session is over: shut down, or the server gone. A child
    /// process's death is seen at once; an HTTP server's only when a request fails.
    pub fn is_closed(&self) -> bool {
        self.session.is_closed()
    }

    /// Whether the server sent `notifications/tools/list_changed` since the
    /// last [`list_tools`](Self::list_tools).
    pub fn tools_changed(&self) -> bool {
        self.tools_changed.load(Ordering::Acquire)
    }

    /// Fetches the server's tools again (all `tools/list` pages) and replaces
    /// the set [`tools`](Self::tools) returns. A server without the `tools`
    /// capability has none.
    ///
    /// # Errors
    /// [`ToolError::Mcp`] naming the server when the request fails or the server
    /// is gone; [`ToolError::Timeout`] when a page takes longer than the call timeout.
    pub async fn list_tools(&self) -> Result<Vec<Arc<McpTool>>, ToolError> {
        let has_tools = self
            .session
            .peer()
            .peer_info()
            .is_none_or(|info| info.capabilities.tools.is_some());
        let listed = if has_tools {
            self.tools_changed.store(false, Ordering::Release);
            self.session.fetch_tools().await?
        } else {
            Vec::new()
        };
        let mut seen = HashSet::new();
        let listed: Vec<rmcp::model::Tool> = listed
            .into_iter()
            .filter(|tool| {
                let first = seen.insert(tool.name.to_string());
                if !first {
                    tracing::warn!(server = %self.config.name, tool = %tool.name, "duplicate tool name ignored");
                }
                first
            })
            .collect();
        let remote_names: Vec<&str> = listed.iter().map(|tool| tool.name.as_ref()).collect();
        let names = exposed_tool_names(&self.config.name, &remote_names);
        let tools: Vec<Arc<McpTool>> = names
            .into_iter()
            .zip(listed.iter().cloned())
            .map(|(name, tool)| Arc::new(McpTool::new(name, tool, Arc::clone(&self.session))))
            .collect();
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = tools.clone();
        Ok(tools)
    }

    /// The tools from the last listing, ready to register in a tool registry.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.mcp_tools()
            .into_iter()
            .map(|tool| tool as Arc<dyn Tool>)
            .collect()
    }

    /// The tools from the last listing, with their MCP details.
    pub fn mcp_tools(&self) -> Vec<Arc<McpTool>> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The tool exposed as `name` (`<server>__<tool>`), or with that name on the server.
    pub fn tool(&self, name: &str) -> Option<Arc<McpTool>> {
        let tools = self.tools.read().unwrap_or_else(PoisonError::into_inner);
        tools
            .iter()
            .find(|tool| tool.name() == name)
            .or_else(|| tools.iter().find(|tool| tool.remote_name() == name))
            .cloned()
    }

    fn tools_len(&self) -> usize {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Calls the tool exposed as `name` (or named so on the server) with `args`
    /// (a JSON object), like [`Tool::execute`] on it.
    ///
    /// # Errors
    /// [`ToolError::NotFound`] when no listed tool has that name; otherwise as
    /// [`McpTool`]'s `execute`.
    pub async fn call_tool(
        &self,
        name: &str,
        args: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self
            .tool(name)
            .ok_or_else(|| ToolError::NotFound(name.to_owned()))?;
        tool.execute(args, ctx).await
    }

    /// Ends the session: closes the transport and, for stdio, waits for the
    /// child to exit (stdin closed, then `SIGTERM` after 3 s, then `SIGKILL`
    /// after 3 more), reaping it. Tools of this client fail afterwards with
    /// [`ToolError::Mcp`]. Calling it again does nothing.
    ///
    /// # Errors
    /// [`ToolError::Mcp`] when closing takes longer than 10 s (the child is then
    /// killed in the background) or the session task failed.
    pub async fn shutdown(&self) -> Result<(), ToolError> {
        let span = tracing::info_span!("mcp.shutdown", server = %self.config.name);
        self.session.shutdown().instrument(span).await
    }
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClient")
            .field("config", &self.config)
            .field("process_id", &self.process_id)
            .field("tools", &self.tools_len())
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn client_and_tools_cross_threads() {
        assert_send_sync::<McpClient>();
        assert_send_sync::<McpTool>();
    }
}
