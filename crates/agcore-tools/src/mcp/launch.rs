//! Starting a session: the child process (with its stderr captured) or the
//! HTTP client, then the MCP `initialize` handshake.

use std::{
    collections::VecDeque,
    process::Stdio,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use rmcp::{
    RoleClient, ServiceExt as _,
    service::{ClientInitializeError, RunningService},
    transport::{
        StreamableHttpClientTransport, TokioChildProcess,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::{
    config::McpServerConfig,
    errors::{CallSite, error_chain},
    handler::AgcoreClientHandler,
    transport::{McpTransport, StdioTransport, StreamableHttpTransport},
};
use crate::ToolError;

/// How long a failed start waits for the child's stderr to be read, for the error message.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// How many stderr lines are kept for error messages.
const STDERR_TAIL_LINES: usize = 5;
/// Longest stderr line kept (in characters).
const STDERR_LINE_CHARS: usize = 400;

/// The last lines a child server wrote to stderr.
#[derive(Debug, Default)]
pub(crate) struct StderrTail {
    lines: Mutex<VecDeque<String>>,
}

impl StderrTail {
    fn push(&self, line: &str) {
        let line: String = line.chars().take(STDERR_LINE_CHARS).collect();
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The kept lines joined with ` | `, empty when the server wrote nothing.
    pub(crate) fn snapshot(&self) -> String {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().cloned().collect::<Vec<_>>().join(" | ")
    }
}

/// A started child server: the transport, its pid and its stderr tail.
pub(crate) struct ChildServer {
    pub transport: TokioChildProcess,
    pub pid: Option<u32>,
    pub stderr: Arc<StderrTail>,
    /// The task reading stderr; it ends when the child closes stderr.
    pub stderr_reader: tokio::task::JoinHandle<()>,
}

/// Starts `config.command` in a new process group with piped stdio; a task
/// logs its stderr lines (`tracing` debug, target `agcore_tools::mcp::stderr`)
/// and keeps the last few for error messages.
pub(crate) fn spawn_child(server: &str, config: &StdioTransport) -> std::io::Result<ChildServer> {
    let mut command = tokio::process::Command::new(&config.command);
    command.args(&config.args).envs(&config.env);
    if let Some(cwd) = &config.cwd {
        command.current_dir(cwd);
    }
    // Killed even if the runtime drops the session without running its cleanup.
    command.kill_on_drop(true);
    #[allow(unused_mut)]
    let mut wrapped = process_wrap::tokio::CommandWrap::from(command);
    // Own process group: a wrapper script's children are killed with it.
    #[cfg(unix)]
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    let (transport, stderr) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = transport.id();
    let tail = Arc::new(StderrTail::default());
    let stderr_reader = {
        let tail = Arc::clone(&tail);
        let server = server.to_owned();
        tokio::spawn(async move {
            let Some(stderr) = stderr else { return };
            // Bytes, not `lines()`: invalid UTF-8 must not stop the reader, or
            // the pipe fills up and the child blocks on its next write.
            let mut reader = BufReader::new(stderr);
            let mut buf = Vec::new();
            while matches!(reader.read_until(b'\n', &mut buf).await, Ok(n) if n > 0) {
                let text = String::from_utf8_lossy(&buf);
                let line = text.trim_end_matches(['\n', '\r']);
                tracing::debug!(target: "agcore_tools::mcp::stderr", server = %server, "{line}");
                tail.push(line);
                buf.clear();
            }
        })
    };
    Ok(ChildServer {
        transport,
        pid,
        stderr: tail,
        stderr_reader,
    })
}

/// The streamable HTTP client transport for `config` (reqwest, rustls).
///
/// # Errors
/// A message when a header is invalid.
pub(crate) fn http_transport(
    config: &StreamableHttpTransport,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    let headers = config.header_map()?;
    let transport_config =
        StreamableHttpClientTransportConfig::with_uri(config.url.as_str()).custom_headers(headers);
    Ok(StreamableHttpClientTransport::from_config(transport_config))
}

/// A started, initialised session: the rmcp service, the child's pid and its stderr tail.
pub(crate) struct Started {
    pub running: RunningService<RoleClient, AgcoreClientHandler>,
    pub process_id: Option<u32>,
    pub stderr: Option<Arc<StderrTail>>,
}

/// Starts the transport of `config` and completes the `initialize` handshake
/// within `config.connect_timeout`.
///
/// # Errors
/// [`ToolError::Mcp`] naming the server when the command cannot be started,
/// a header is invalid, or the handshake fails or times out (quoting the
/// child's last stderr lines). A child started for a failed connection is killed.
pub(crate) async fn start(
    config: &McpServerConfig,
    handler: AgcoreClientHandler,
) -> Result<Started, ToolError> {
    let server = &config.name;
    match &config.transport {
        McpTransport::Stdio(stdio) => {
            let child = spawn_child(server, stdio).map_err(|e| ToolError::Mcp {
                server: server.clone(),
                message: format!("cannot start `{}`: {e}", stdio.command),
            })?;
            let ChildServer {
                transport,
                pid,
                stderr,
                stderr_reader,
            } = child;
            let served =
                tokio::time::timeout(config.connect_timeout, handler.serve(transport)).await;
            match handshake(served, config.connect_timeout) {
                Ok(running) => Ok(Started {
                    running,
                    process_id: pid,
                    stderr: Some(stderr),
                }),
                Err(message) => {
                    // Let the reader catch what the child said before it died.
                    let _ = tokio::time::timeout(STDERR_DRAIN, stderr_reader).await;
                    Err(connect_error(config, message, Some(&stderr)))
                }
            }
        }
        McpTransport::StreamableHttp(http) => {
            let transport = http_transport(http).map_err(|message| ToolError::Mcp {
                server: server.clone(),
                message,
            })?;
            let served =
                tokio::time::timeout(config.connect_timeout, handler.serve(transport)).await;
            let running = handshake(served, config.connect_timeout)
                .map_err(|message| connect_error(config, message, None))?;
            Ok(Started {
                running,
                process_id: None,
                stderr: None,
            })
        }
    }
}

/// The running service, or why the handshake failed or timed out.
fn handshake<T>(
    served: Result<Result<T, ClientInitializeError>, tokio::time::error::Elapsed>,
    timeout: Duration,
) -> Result<T, String> {
    match served {
        Ok(Ok(running)) => Ok(running),
        Ok(Err(ClientInitializeError::TransportError { error, context })) => Err(format!(
            "the MCP handshake failed ({context}): {}",
            error_chain(error.error.as_ref())
        )),
        Ok(Err(error)) => Err(format!("the MCP handshake failed: {error}")),
        Err(_) => Err(format!("no MCP handshake within {timeout:?}")),
    }
}

/// [`ToolError::Mcp`] for a failed connection, quoting the child's stderr.
fn connect_error(
    config: &McpServerConfig,
    message: String,
    stderr: Option<&Arc<StderrTail>>,
) -> ToolError {
    CallSite {
        server: &config.name,
        tool: "initialize",
        stderr_tail: stderr.map(|tail| tail.snapshot()),
    }
    .mcp(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines_cut_to_length() {
        let tail = StderrTail::default();
        for i in 0..8 {
            tail.push(&format!("line {i}"));
        }
        assert_eq!(
            tail.snapshot(),
            "line 3 | line 4 | line 5 | line 6 | line 7"
        );
        tail.push(&"错".repeat(1000));
        assert!(tail.snapshot().ends_with(&"错".repeat(STDERR_LINE_CHARS)));
    }

    #[tokio::test]
    async fn handshake_messages_name_the_cause() {
        let elapsed = tokio::time::timeout(Duration::ZERO, std::future::pending::<()>())
            .await
            .unwrap_err();
        let message = handshake::<()>(Err(elapsed), Duration::from_secs(3)).unwrap_err();
        assert_eq!(message, "no MCP handshake within 3s");
        let closed = ClientInitializeError::ConnectionClosed("stdout closed".to_owned());
        let message = handshake::<()>(Ok(Err(closed)), Duration::from_secs(3)).unwrap_err();
        assert!(message.starts_with("the MCP handshake failed"), "{message}");
        assert!(message.contains("stdout closed"), "{message}");
    }
}
