//! How to reach one MCP server: its name, transport and time limits.

mod duration_secs;
#[cfg(test)]
mod tests;

use std::{fmt, time::Duration};

use serde::{Deserialize, Serialize};

use super::transport::{McpTransport, StdioTransport, StreamableHttpTransport};
use crate::ToolError;

/// Default limit for one `tools/call` or `tools/list` request: 60 s.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// Default limit for starting the server and completing the MCP `initialize` handshake: 30 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// One MCP server to connect to.
///
/// Deserializable, so a configuration file can list servers. The transport's
/// fields sit beside `name`, selected by a `transport` tag (`"stdio"` or
/// `"streamable_http"`); time limits are given in seconds (`call_timeout_secs`,
/// `connect_timeout_secs`, fractions allowed) and default to
/// [`DEFAULT_CALL_TIMEOUT`] and [`DEFAULT_CONNECT_TIMEOUT`]:
///
/// ```
/// use agcore_tools::mcp::{McpServerConfig, McpTransport};
///
/// let config: McpServerConfig = serde_json::from_str(
///     r#"{"name": "everything", "transport": "stdio",
///         "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
///         "call_timeout_secs": 20}"#,
/// )?;
/// assert_eq!(config.name, "everything");
/// assert!(matches!(config.transport, McpTransport::Stdio(_)));
/// assert_eq!(config.call_timeout.as_secs(), 20);
/// # Ok::<(), serde_json::Error>(())
/// ```
///
/// `Debug` output hides environment and header values (they often hold secrets).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpServerConfig {
    /// The server's name: the prefix of its tools' names (`name__tool`) and the
    /// `server` of its errors. Must not be empty.
    pub name: String,
    /// How to reach the server.
    #[serde(flatten)]
    pub transport: McpTransport,
    /// Limit for one tool call or tool-list page; a call running longer fails with
    /// [`ToolError::Timeout`] and the server is sent `notifications/cancelled`.
    #[serde(
        rename = "call_timeout_secs",
        with = "duration_secs",
        default = "default_call_timeout"
    )]
    pub call_timeout: Duration,
    /// Limit for starting the server and completing the MCP `initialize` handshake.
    #[serde(
        rename = "connect_timeout_secs",
        with = "duration_secs",
        default = "default_connect_timeout"
    )]
    pub connect_timeout: Duration,
}

fn default_call_timeout() -> Duration {
    DEFAULT_CALL_TIMEOUT
}

fn default_connect_timeout() -> Duration {
    DEFAULT_CONNECT_TIMEOUT
}

impl McpServerConfig {
    /// A server reached through `transport`, with the default time limits.
    pub fn new(name: impl Into<String>, transport: impl Into<McpTransport>) -> Self {
        Self {
            name: name.into(),
            transport: transport.into(),
            call_timeout: DEFAULT_CALL_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// A server run as a child process speaking MCP over its stdin/stdout.
    pub fn stdio<I, S>(name: impl Into<String>, command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new(name, StdioTransport::new(command).with_args(args))
    }

    /// A server reached over MCP streamable HTTP at `url` (e.g. `http://127.0.0.1:3001/mcp`).
    pub fn streamable_http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::new(name, StreamableHttpTransport::new(url))
    }

    /// Sets the limit for one tool call.
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Sets the limit for start-up and the `initialize` handshake.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Checks the configuration without starting anything.
    ///
    /// # Errors
    /// [`ToolError::Mcp`] naming the server when the name or command is empty,
    /// the URL is not an `http`/`https` URL, a header name or value is invalid,
    /// or a time limit is zero.
    pub fn validate(&self) -> Result<(), ToolError> {
        let invalid = |message: String| ToolError::Mcp {
            server: self.name.clone(),
            message: format!("invalid configuration: {message}"),
        };
        if self.name.trim().is_empty() {
            return Err(invalid("the server name is empty".to_owned()));
        }
        if self.call_timeout.is_zero() || self.connect_timeout.is_zero() {
            return Err(invalid("time limits must be greater than zero".to_owned()));
        }
        match &self.transport {
            McpTransport::Stdio(stdio) => {
                if stdio.command.trim().is_empty() {
                    return Err(invalid("the command is empty".to_owned()));
                }
            }
            McpTransport::StreamableHttp(http) => {
                let uri: http::Uri = http
                    .url
                    .parse()
                    .map_err(|e| invalid(format!("bad URL `{}`: {e}", http.url)))?;
                if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
                    return Err(invalid(format!(
                        "the URL `{}` is not an absolute http(s) URL",
                        http.url
                    )));
                }
                http.header_map().map_err(invalid)?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for McpServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServerConfig")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("call_timeout", &self.call_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}
