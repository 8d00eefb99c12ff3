//! Mapping rmcp failures to [`ToolError`], always naming the server.

use rmcp::{ServiceError, model::ErrorCode};

use crate::ToolError;

/// What a failed request is about, for the error message.
pub(crate) struct CallSite<'a> {
    /// The server's configured name.
    pub server: &'a str,
    /// The exposed tool name (`server__tool`), or the request (`tools/list`).
    pub tool: &'a str,
    /// The last lines the server wrote to stderr, when it is a child process.
    pub stderr_tail: Option<String>,
}

impl CallSite<'_> {
    /// `ToolError::Mcp` for this server.
    pub(crate) fn mcp(&self, message: impl Into<String>) -> ToolError {
        let mut message = message.into();
        if let Some(tail) = self.stderr_tail.as_deref().filter(|t| !t.is_empty()) {
            message.push_str("; its last stderr output: ");
            message.push_str(tail);
        }
        ToolError::Mcp {
            server: self.server.to_owned(),
            message,
        }
    }

    /// The error for a server whose connection is closed.
    pub(crate) fn gone(&self, detail: &str) -> ToolError {
        self.mcp(format!(
            "the server is gone ({detail}); `{}` cannot be called until it is reconnected",
            self.tool
        ))
    }

    /// Maps an rmcp request failure.
    ///
    /// - JSON-RPC `-32602 invalid params` → [`ToolError::InvalidArguments`]
    ///   (path `""`, the server's message, the server named);
    /// - other JSON-RPC errors → [`ToolError::Mcp`] with code and message;
    /// - closed or failing transport → [`ToolError::Mcp`] saying the server is gone;
    /// - rmcp's own timeout → [`ToolError::Timeout`]; cancellation → [`ToolError::Cancelled`].
    pub(crate) fn service_error(&self, error: ServiceError) -> ToolError {
        match error {
            ServiceError::McpError(data) if data.code == ErrorCode::INVALID_PARAMS => {
                let mut message = format!("{} (from MCP server `{}`)", data.message, self.server);
                if let Some(detail) = data.data {
                    message.push_str(": ");
                    message.push_str(&detail.to_string());
                }
                ToolError::InvalidArguments {
                    tool: self.tool.to_owned(),
                    path: String::new(),
                    message,
                }
            }
            ServiceError::McpError(data) => {
                let mut message = format!(
                    "`{}` failed with JSON-RPC error {}: {}",
                    self.tool, data.code.0, data.message
                );
                if let Some(detail) = data.data {
                    message.push_str(" (");
                    message.push_str(&detail.to_string());
                    message.push(')');
                }
                // A protocol error is the server's answer, not its death: no stderr.
                ToolError::Mcp {
                    server: self.server.to_owned(),
                    message,
                }
            }
            ServiceError::TransportClosed => self.gone("connection closed"),
            ServiceError::TransportSend(e) => {
                self.gone(&format!("cannot send: {}", error_chain(e.error.as_ref())))
            }
            ServiceError::Timeout { timeout } => ToolError::Timeout {
                tool: self.tool.to_owned(),
                timeout,
            },
            ServiceError::Cancelled { .. } => ToolError::Cancelled(self.tool.to_owned()),
            other => self.mcp(format!("`{}` failed: {other}", self.tool)),
        }
    }
}

/// `error` and its sources joined with `: ` (e.g. `error sending request: tcp
/// connect error: Connection refused (os error 111)`), repeated texts skipped.
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current = Some(error);
    while let Some(error) = current {
        let text = error.to_string();
        if !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        current = error.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rmcp::ErrorData;

    use super::*;

    fn site() -> CallSite<'static> {
        CallSite {
            server: "everything",
            tool: "everything__echo",
            stderr_tail: Some("fatal: out of memory".to_owned()),
        }
    }

    #[test]
    fn invalid_params_become_invalid_arguments() {
        let err = site().service_error(ServiceError::McpError(ErrorData::invalid_params(
            "message: expected string",
            None,
        )));
        match err {
            ToolError::InvalidArguments { tool, message, .. } => {
                assert_eq!(tool, "everything__echo");
                assert!(message.contains("expected string") && message.contains("everything"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn other_rpc_errors_name_the_server_and_code() {
        let err = site().service_error(ServiceError::McpError(ErrorData::method_not_found::<
            rmcp::model::CallToolRequestMethod,
        >()));
        match err {
            ToolError::Mcp { server, message } => {
                assert_eq!(server, "everything");
                assert!(message.contains("-32601"), "{message}");
                assert!(!message.contains("out of memory"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn closed_transport_says_gone_with_stderr() {
        let err = site().service_error(ServiceError::TransportClosed);
        assert!(!err.is_recoverable());
        let text = err.to_string();
        assert!(
            text.contains("everything") && text.contains("gone"),
            "{text}"
        );
        assert!(text.contains("out of memory"), "{text}");
    }

    #[test]
    fn error_chain_joins_sources() {
        #[derive(Debug, thiserror::Error)]
        #[error("error sending request")]
        struct Outer(#[source] std::io::Error);
        let error = Outer(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "Connection refused",
        ));
        assert_eq!(
            error_chain(&error),
            "error sending request: Connection refused"
        );
    }

    #[test]
    fn timeout_and_cancel_map_to_their_variants() {
        let timeout = Duration::from_secs(2);
        assert!(matches!(
            site().service_error(ServiceError::Timeout { timeout }),
            ToolError::Timeout { timeout: t, .. } if t == timeout
        ));
        assert!(matches!(
            site().service_error(ServiceError::Cancelled { reason: None }),
            ToolError::Cancelled(_)
        ));
    }
}
