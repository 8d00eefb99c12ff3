//! MCP client (feature `mcp`): use the tools of Model Context Protocol servers
//! as agcore [`Tool`](crate::Tool)s.
//!
//! Built on `rmcp`, the official Rust SDK of the Model Context Protocol
//! (<https://modelcontextprotocol.io/specification>). A server is described by
//! an [`McpServerConfig`] — a child process speaking stdio, or a streamable
//! HTTP endpoint — and [`McpClient::connect`] starts it, completes the
//! `initialize` handshake and lists its tools. Each tool becomes an
//! [`McpTool`] named `<server>__<tool>` (see [`exposed_tool_names`]) whose
//! errors always name the server.
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use agcore_tools::mcp::{McpClient, McpServerConfig};
//!
//! # async fn run() -> Result<(), agcore_tools::ToolError> {
//! let config = McpServerConfig::streamable_http("docs", "http://127.0.0.1:3001/mcp")
//!     .with_call_timeout(Duration::from_secs(20));
//! let client = McpClient::connect(config).await?;
//! let tools = client.tools(); // Vec<Arc<dyn Tool>>, e.g. "docs__search"
//! # drop(tools);
//! client.shutdown().await?;
//! # Ok(())
//! # }
//! ```

mod client;
mod config;
mod content;
mod errors;
mod handler;
mod launch;
mod naming;
mod session;
mod tool;
mod transport;

pub use client::McpClient;
pub use config::{DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, McpServerConfig};
pub use naming::{MAX_TOOL_NAME_LEN, exposed_tool_names, qualified_tool_name, sanitize};
pub use tool::McpTool;
pub use transport::{McpTransport, StdioTransport, StreamableHttpTransport};

/// What [`McpTool`] makes of a `tools/call` result: the model-facing output of
/// a successful call and the message of an `isError` one. Not a stable API:
/// public for the fuzz targets of `agcore-fuzz`, which have no server to call.
#[doc(hidden)]
pub fn call_result_text(result: &rmcp::model::CallToolResult) -> (crate::ToolOutput, String) {
    (
        content::result_output(result),
        content::error_message(result),
    )
}
