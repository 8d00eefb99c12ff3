//! The transports a server can be reached by: stdio child process or streamable HTTP.

use std::{collections::BTreeMap, fmt, path::PathBuf};

use serde::{Deserialize, Serialize};

/// How the client reaches an MCP server (MCP specification, "Transports").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "snake_case")]
#[non_exhaustive]
pub enum McpTransport {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio(StdioTransport),
    /// MCP streamable HTTP: JSON-RPC over HTTP POST with SSE responses.
    StreamableHttp(StreamableHttpTransport),
}

impl McpTransport {
    /// `"stdio"` or `"streamable_http"`, as in configuration files and tracing spans.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio(_) => "stdio",
            Self::StreamableHttp(_) => "streamable_http",
        }
    }
}

impl From<StdioTransport> for McpTransport {
    fn from(value: StdioTransport) -> Self {
        Self::Stdio(value)
    }
}

impl From<StreamableHttpTransport> for McpTransport {
    fn from(value: StreamableHttpTransport) -> Self {
        Self::StreamableHttp(value)
    }
}

/// A server started as a child process.
///
/// The child's stdin/stdout carry the protocol; its stderr is read line by line
/// and logged with `tracing` at debug level (the last lines are quoted in
/// errors). The child runs in its own process group, and the whole group is
/// killed when the client shuts down or is dropped.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StdioTransport {
    /// The program: a path, or a name looked up in `PATH`.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to (or replacing in) the inherited environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory; the current one when `None`.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
}

impl StdioTransport {
    /// Runs `command` with no arguments.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// Appends arguments.
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets one environment variable for the child.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Sets the child's working directory.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }
}

impl fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioTransport")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// A server reached over MCP streamable HTTP.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StreamableHttpTransport {
    /// The MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`.
    pub url: String,
    /// Extra headers sent with every request (e.g. `Authorization`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

impl StreamableHttpTransport {
    /// The endpoint `url`, no extra headers.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// Adds a header sent with every request.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// The headers as typed HTTP headers.
    pub(crate) fn header_map(
        &self,
    ) -> Result<std::collections::HashMap<http::HeaderName, http::HeaderValue>, String> {
        self.headers
            .iter()
            .map(|(name, value)| {
                let header = http::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|e| format!("bad header name `{name}`: {e}"))?;
                let value = http::HeaderValue::from_str(value)
                    .map_err(|e| format!("bad value for header `{name}`: {e}"))?;
                Ok((header, value))
            })
            .collect()
    }
}

impl fmt::Debug for StreamableHttpTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamableHttpTransport")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish()
    }
}
