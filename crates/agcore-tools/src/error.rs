use std::time::Duration;

use thiserror::Error;

/// Everything that can go wrong finding, checking or running a tool.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool with this name is registered.
    #[error("tool not found: {0}")]
    NotFound(String),
    /// The tool name is not `^[a-zA-Z0-9_-]{1,64}$`, which the OpenAI API requires.
    #[error("invalid tool name `{0}`: use 1 to 64 ASCII letters, digits, `_` or `-`")]
    InvalidName(String),
    /// A tool with this name is registered already.
    #[error("tool already registered: {0}")]
    AlreadyRegistered(String),
    /// The arguments do not match the tool's JSON Schema (or are not JSON).
    #[error("invalid arguments for `{tool}` at `{path}`: {message}")]
    InvalidArguments {
        /// Tool name.
        tool: String,
        /// JSON Pointer of the failing value (`""` for the whole object, `/city`, …).
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The permission checker denied the call (or the approver said no).
    #[error("permission denied for `{tool}`: {reason}")]
    PermissionDenied {
        /// Tool name.
        tool: String,
        /// Why.
        reason: String,
    },
    /// The call did not finish in time.
    #[error("tool `{tool}` timed out after {timeout:?}")]
    Timeout {
        /// Tool name.
        tool: String,
        /// The limit that was exceeded.
        timeout: Duration,
    },
    /// The tool ran and failed.
    #[error("tool `{tool}` failed: {message}")]
    ExecutionFailed {
        /// Tool name.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// An MCP server failed: protocol error, error result, or the server is gone.
    #[error("MCP server `{server}`: {message}")]
    Mcp {
        /// The server's configured name.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// The call was cancelled through its [`crate::ToolContext`].
    #[error("tool `{0}` was cancelled")]
    Cancelled(String),
    /// A tool's parameter schema is not a valid JSON Schema (found when the
    /// tool is registered).
    #[error("tool `{tool}` has an invalid parameter schema: {message}")]
    InvalidSchema {
        /// Tool name.
        tool: String,
        /// What the schema compiler reported.
        message: String,
    },
    /// A permission rule's tool-name glob does not parse.
    #[error("invalid permission pattern `{pattern}`: {message}")]
    InvalidPattern {
        /// The glob as given.
        pattern: String,
        /// What the glob parser reported.
        message: String,
    },
}

impl ToolError {
    /// Whether the model (or caller) may usefully try again: invalid arguments,
    /// timeouts and execution failures are recoverable; a missing tool, a
    /// denied permission, a dead MCP server, cancellation and configuration
    /// errors (invalid name, schema or permission pattern, duplicate name) are
    /// not.
    pub fn is_recoverable(&self) -> bool {
        matches!(
            self,
            Self::InvalidArguments { .. } | Self::Timeout { .. } | Self::ExecutionFailed { .. }
        )
    }
}
