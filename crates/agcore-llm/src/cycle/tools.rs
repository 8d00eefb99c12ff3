use agcore_types::{ChatMessage, ToolCall, ToolExecutor};

use crate::LlmError;

/// The outcome of running the tool calls of one assistant message.
pub(crate) struct ToolRound {
    /// One entry per call, in call order: the call, its `role = tool`
    /// message, and whether it failed.
    pub results: Vec<(ToolCall, ChatMessage, bool)>,
    /// The first non-recoverable failure, which ends the turn.
    pub fatal: Option<LlmError>,
}

/// Runs `calls` concurrently and collects their results in call order.
///
/// Recoverable failures become `Error: …` tool messages for the model; a
/// non-recoverable failure also gets a tool message (so every call keeps its
/// answer in the conversation) and is reported in [`ToolRound::fatal`].
pub(crate) async fn run_tool_calls(executor: &dyn ToolExecutor, calls: &[ToolCall]) -> ToolRound {
    let outcomes = futures::future::join_all(calls.iter().map(|call| {
        let span = tracing::debug_span!("tool_call", tool = %call.function.name, id = %call.id);
        tracing::Instrument::instrument(executor.execute(call), span)
    }))
    .await;
    let mut fatal = None;
    let results = calls
        .iter()
        .zip(outcomes)
        .map(|(call, outcome)| match outcome {
            Ok(mut message) => {
                if message.tool_call_id.as_deref() != Some(call.id.as_str()) {
                    message.tool_call_id = Some(call.id.clone());
                }
                (call.clone(), message, false)
            }
            Err(error) => {
                tracing::debug!(tool = %error.tool, recoverable = error.recoverable, error = %error.message, "tool failed");
                if !error.is_recoverable() && fatal.is_none() {
                    fatal = Some(LlmError::Tool {
                        tool: error.tool.clone(),
                        message: error.message.clone(),
                    });
                }
                (call.clone(), error.to_tool_message(&call.id), true)
            }
        })
        .collect();
    ToolRound { results, fatal }
}
