//! `memory_recall`: searches the memories of the calling scope.

use super::{MAX_RECALL_LIMIT, RecallArgs, brief, memory_failed, scope_of};
use agcore_memory::long_term::{ArchivedFilter, LongTermMemory, SearchRequest};
use agcore_prompt::untrusted::json_data;
use agcore_tools::{ToolContext, ToolError, TypedTool};
use async_trait::async_trait;
use serde_json::{Value, json};

/// `memory_recall`: searches the memories of the calling (agent, user) scope.
///
/// Returns JSON `{"memories":[{"id","type","name","content","description"}]}`,
/// best match first; archived memories only with `include_archived`
/// (marked `"archived": true`); as text written by
/// [`json_data`](agcore_prompt::untrusted::json_data): `<`, `>`, `&` and
/// hidden characters of the stored text are `\uXXXX` escapes, so a memory
/// cannot close a block or carry a chat-template marker into the prompt.
#[derive(Debug, Clone)]
pub struct MemoryRecallTool {
    memory: LongTermMemory,
}

impl MemoryRecallTool {
    /// The tool over `memory`.
    pub fn new(memory: LongTermMemory) -> Self {
        Self { memory }
    }
}

#[async_trait]
impl TypedTool for MemoryRecallTool {
    type Args = RecallArgs;
    type Output = Value;

    fn name(&self) -> &str {
        "memory_recall"
    }

    fn description(&self) -> &str {
        "Search long-term memory for relevant information."
    }

    async fn call(&self, args: RecallArgs, ctx: &ToolContext) -> Result<Value, ToolError> {
        let tool = self.name();
        let scoped = scope_of(&self.memory, tool, ctx)?;
        let limit = args.limit.unwrap_or(5).clamp(1, MAX_RECALL_LIMIT);
        let mut request = SearchRequest::top_k(limit);
        if let Some(kind) = args.memory_type {
            request = request.of_type(kind);
        }
        if args.include_archived == Some(true) {
            request = request.archived(ArchivedFilter::Include);
        }
        let hits = scoped
            .search_with(&args.query, &request)
            .await
            .map_err(|e| memory_failed(tool, None, e))?;
        let memories: Vec<Value> = hits
            .iter()
            .map(|h| {
                let mut out = brief(&h.entry);
                if h.entry.archived
                    && let Value::Object(map) = &mut out
                {
                    map.insert("archived".into(), true.into());
                }
                out
            })
            .collect();
        // Stored text: JSON whose strings cannot hold markup or hidden
        // characters (`\u003c` for `<`), sent to the model as it is.
        Ok(Value::String(json_data(&json!({ "memories": memories }))))
    }
}
