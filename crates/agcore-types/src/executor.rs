use async_trait::async_trait;
use thiserror::Error;

use crate::{ChatMessage, ToolCall, ToolDefinition};

/// Runs tool calls on behalf of the LLM layer.
///
/// `agcore-llm`'s `LlmCycle` uses this to run the tool-call loop without
/// depending on `agcore-tools`; `agcore-tools`' `ToolRegistry` implements it.
#[async_trait]
pub trait ToolExecutor: Send + Sync {
    /// Definitions of the tools this executor offers, sent with each request.
    fn definitions(&self) -> Vec<ToolDefinition>;

    /// Executes one tool call and returns the `role = tool` message answering it
    /// (its `tool_call_id` equal to `call.id`).
    ///
    /// # Errors
    /// A [`ToolExecutionError`]. The caller sends a recoverable error's text back
    /// to the model as the tool result; a non-recoverable one ends the loop.
    async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError>;
}

/// A tool call that could not produce a result.
#[derive(Debug, Clone, Error)]
#[error("tool `{tool}` failed: {message}")]
pub struct ToolExecutionError {
    /// The tool (function) name.
    pub tool: String,
    /// What went wrong, suitable to show the model.
    pub message: String,
    /// Whether the model may try again (bad arguments, timeouts, tool errors) —
    /// `false` for failures that must stop the turn (permission denied, cancelled).
    pub recoverable: bool,
}

impl ToolExecutionError {
    /// A recoverable failure: the message is returned to the model.
    pub fn recoverable(tool: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            tool: tool.into(),
            message: message.into(),
            recoverable: true,
        }
    }

    /// A failure that ends the tool loop.
    pub fn fatal(tool: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            tool: tool.into(),
            message: message.into(),
            recoverable: false,
        }
    }

    /// Whether the model may try again.
    pub fn is_recoverable(&self) -> bool {
        self.recoverable
    }

    /// The tool message telling the model this call failed.
    pub fn to_tool_message(&self, call_id: impl Into<String>) -> ChatMessage {
        ChatMessage::tool(call_id, format!("Error: {}", self.message))
    }
}
