//! One server tool exposed as an agcore [`Tool`].

use std::{fmt, sync::Arc, time::Instant};

use async_trait::async_trait;
use serde_json::{Map, Value};
use tracing::Instrument as _;

use super::session::Session;
use crate::{Tool, ToolContext, ToolError, ToolOutput};

/// A tool of an MCP server, callable as an agcore [`Tool`].
///
/// Named `<server>__<tool>` (see [`super::exposed_tool_names`]); its parameters
/// are the server's `inputSchema`. `execute` sends `tools/call` with the
/// arguments unchanged and returns:
///
/// - the result's `structuredContent` when present, else its content as text
///   (text blocks joined by newlines; images, audio and blobs summarised as
///   `[image image/png, N bytes base64 omitted]`);
/// - [`ToolError::ExecutionFailed`] for an `isError: true` result, with its text;
/// - [`ToolError::InvalidArguments`] for a JSON-RPC invalid-params error;
/// - [`ToolError::Mcp`] naming the server for other protocol errors and when
///   the server is gone (closed transport: the call fails at once, no hang);
/// - [`ToolError::Timeout`] after the server's call timeout and
///   [`ToolError::Cancelled`] when the context's token fires (the server is
///   sent `notifications/cancelled` in both cases).
///
/// Each call runs in a `mcp.tool_call` tracing span with `server`, `tool` and
/// `latency_ms`. The tool keeps the MCP session alive while it exists.
pub struct McpTool {
    name: String,
    remote_name: String,
    title: Option<String>,
    description: String,
    parameters: Value,
    session: Arc<Session>,
}

impl McpTool {
    pub(crate) fn new(name: String, tool: rmcp::model::Tool, session: Arc<Session>) -> Self {
        let title = tool
            .title
            .clone()
            .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()));
        let description = match (&tool.description, &title) {
            (Some(description), _) if !description.trim().is_empty() => description.to_string(),
            (_, Some(title)) => title.clone(),
            _ => format!("Tool `{}` of MCP server `{}`.", tool.name, session.server),
        };
        Self {
            name,
            remote_name: tool.name.to_string(),
            title,
            description,
            parameters: normalize_schema(tool.input_schema.as_ref().clone()),
            session,
        }
    }

    /// The tool's own name on the server (what `tools/call` is sent with).
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The configured name of the server the tool belongs to.
    pub fn server_name(&self) -> &str {
        &self.session.server
    }

    /// The human-readable title the server gave, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

/// Makes the schema acceptable to model APIs: `"type": "object"` added when
/// missing, and an empty `properties` for an object schema without one.
fn normalize_schema(mut schema: Map<String, Value>) -> Value {
    schema
        .entry("type")
        .or_insert_with(|| Value::String("object".to_owned()));
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        schema
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    Value::Object(schema)
}

impl fmt::Debug for McpTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.name)
            .field("remote_name", &self.remote_name)
            .field("server", &self.session.server)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let span = tracing::info_span!(
            "mcp.tool_call",
            server = %self.session.server,
            tool = %self.remote_name,
            latency_ms = tracing::field::Empty,
        );
        let started = Instant::now();
        let result = self
            .session
            .call(&self.name, &self.remote_name, args, ctx)
            .instrument(span.clone())
            .await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        span.record("latency_ms", latency_ms);
        span.in_scope(|| match &result {
            Ok(_) => tracing::debug!("MCP tool call succeeded"),
            Err(error) => tracing::debug!(%error, "MCP tool call failed"),
        });
        result
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schema_gets_object_type_and_properties() {
        let Value::Object(empty) = json!({}) else {
            unreachable!()
        };
        assert_eq!(
            normalize_schema(empty),
            json!({"type": "object", "properties": {}})
        );
        let Value::Object(full) =
            json!({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]})
        else {
            unreachable!()
        };
        assert_eq!(
            normalize_schema(full.clone()),
            Value::Object(full),
            "a complete schema is unchanged"
        );
    }
}
