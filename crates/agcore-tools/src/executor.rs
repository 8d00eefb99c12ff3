use std::sync::Arc;

use agcore_types::{ChatMessage, ToolCall, ToolDefinition, ToolExecutionError, ToolExecutor};
use async_trait::async_trait;

use crate::{ToolContext, ToolError, ToolOutput, ToolRegistry};

/// The text a tool result is given to the model as: a JSON string as is,
/// any other value serialized compactly.
pub fn output_text(output: &ToolOutput) -> String {
    match output {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `text` cut to at most `max` bytes at a character boundary, followed by a
/// note saying how many bytes were dropped; unchanged when it fits.
pub fn truncate_result(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let note = |dropped: usize| {
        format!(
            "\n[tool result truncated: {dropped} of {} bytes dropped]",
            text.len()
        )
    };
    let budget = max.saturating_sub(note(text.len()).len());
    let mut cut = budget.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = text.len() - cut;
    let mut out = text.get(..cut).unwrap_or_default().to_owned();
    out.push_str(&note(dropped));
    out
}

/// Runs one model tool call through `registry` with `ctx`.
///
/// Arguments over [`crate::InvokeOptions::max_argument_bytes`] are refused
/// unparsed; results over [`crate::InvokeOptions::max_result_bytes`] are
/// cut ([`truncate_result`]). A successful call is recorded in
/// [`ToolContext::results_seen`]. Arguments that are not JSON, unknown tools and recoverable [`ToolError`]s
/// become recoverable errors (their text goes back to the model, which may
/// correct itself); denied permissions, cancellation, dead MCP servers and
/// other non-recoverable errors end the tool loop.
async fn execute_call(
    registry: &ToolRegistry,
    call: &ToolCall,
    ctx: &ToolContext,
) -> Result<ChatMessage, ToolExecutionError> {
    let name = call.name();
    let limit = registry.options().max_argument_bytes;
    let size = call.function.arguments.len();
    if size > limit {
        return Err(ToolExecutionError::recoverable(
            name,
            format!(
                "the arguments are {size} bytes, over the limit of {limit} bytes; send shorter arguments"
            ),
        ));
    }
    let args = call.arguments_json().map_err(|e| {
        ToolExecutionError::recoverable(name, format!("{e}; send the arguments as a JSON object"))
    })?;
    match registry.invoke(name, args, ctx).await {
        Ok(output) => {
            ctx.results_seen.record(name);
            Ok(ChatMessage::tool(
                call.id.clone(),
                truncate_result(output_text(&output), registry.options().max_result_bytes),
            ))
        }
        Err(ToolError::NotFound(_)) => Err(ToolExecutionError::recoverable(
            name,
            format!(
                "no tool named `{name}`; available tools: {}",
                registry.names().join(", ")
            ),
        )),
        Err(e) if e.is_recoverable() => Err(ToolExecutionError::recoverable(name, e.to_string())),
        Err(e) => Err(ToolExecutionError::fatal(name, e.to_string())),
    }
}

/// Runs calls with an empty [`ToolContext`] (no session or user, never
/// cancelled); use [`ToolRegistry::executor`] to run them on behalf of a
/// session and user with a cancellation token.
#[async_trait]
impl ToolExecutor for ToolRegistry {
    fn definitions(&self) -> Vec<ToolDefinition> {
        ToolRegistry::definitions(self)
    }

    async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError> {
        execute_call(self, call, &ToolContext::new()).await
    }
}

/// A [`ToolRegistry`] bound to one [`ToolContext`], as a
/// [`ToolExecutor`] for the LLM tool loop.
#[derive(Debug, Clone)]
pub struct ContextToolExecutor {
    registry: Arc<ToolRegistry>,
    context: ToolContext,
}

impl ContextToolExecutor {
    /// The context the calls run with.
    pub fn context(&self) -> &ToolContext {
        &self.context
    }

    /// The registry the calls run on.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }
}

#[async_trait]
impl ToolExecutor for ContextToolExecutor {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.registry.definitions()
    }

    async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError> {
        execute_call(&self.registry, call, &self.context).await
    }
}

impl ToolRegistry {
    /// A [`ToolExecutor`] running this registry's tools with `context`
    /// (session, agent, user, cancellation).
    pub fn executor(self: &Arc<Self>, context: ToolContext) -> ContextToolExecutor {
        ContextToolExecutor {
            registry: Arc::clone(self),
            context,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agcore_types::{ToolCall, ToolExecutor};
    use serde_json::{Value, json};

    use super::truncate_result;
    use crate::{FnTool, InvokeOptions, ToolContext, ToolError, ToolRegistry};

    #[test]
    fn short_results_are_kept_and_long_ones_cut_at_a_character_boundary() {
        assert_eq!(truncate_result("short".into(), 100), "short");
        let long = "记忆".repeat(100); // 600 bytes, 3 per character
        let cut = truncate_result(long.clone(), 200);
        assert!(cut.len() <= 200, "{} bytes", cut.len());
        let (kept, note) = cut.split_once("\n[tool result truncated: ").unwrap();
        assert!(long.starts_with(kept) && !kept.is_empty());
        assert_eq!(note, format!("{} of 600 bytes dropped]", 600 - kept.len()));
    }

    async fn echo(args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        Ok(json!("x".repeat(args["n"].as_u64().unwrap_or(0) as usize)))
    }

    #[tokio::test]
    async fn oversized_arguments_are_refused_and_long_results_cut() {
        let registry = ToolRegistry::new().with_options(
            InvokeOptions::new()
                .with_max_argument_bytes(64)
                .with_max_result_bytes(100),
        );
        registry
            .register(Arc::new(FnTool::new("echo", "Echoes n x.", echo)))
            .unwrap();
        let big = format!(r#"{{"n": 1, "pad": "{}"}}"#, "p".repeat(100));
        let err = registry
            .execute(&ToolCall::new("c1", "echo", big))
            .await
            .unwrap_err();
        assert!(err.recoverable);
        assert!(
            err.message.contains("over the limit of 64 bytes"),
            "{}",
            err.message
        );
        let reply = registry
            .execute(&ToolCall::new("c2", "echo", r#"{"n": 500}"#))
            .await
            .unwrap();
        let text = reply.text();
        assert!(
            text.len() <= 100 && text.contains("bytes dropped]"),
            "{text}"
        );
    }
}
