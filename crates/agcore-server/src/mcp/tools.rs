//! The MCP tools beside the agent's `memory_save` / `memory_recall`:
//! `memory_search` (with the score breakdown), `memory_list` and `memory_delete`.
//! Like the agent's tools, they take the scope only from the [`ToolContext`].

use agcore::memory::long_term::{
    ListOrder, ListRequest, LongTermMemory, MemoryType, ScopedMemory, SearchRequest,
};
use agcore::tools::{ToolContext, ToolError, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Most memories one `memory_search` or `memory_list` call returns.
pub const MAX_TOOL_LIMIT: usize = 50;

fn failed(tool: &str, message: impl Into<String>) -> ToolError {
    ToolError::ExecutionFailed {
        tool: tool.to_owned(),
        message: message.into(),
    }
}

fn scope_of(
    memory: &LongTermMemory,
    tool: &str,
    ctx: &ToolContext,
) -> Result<ScopedMemory, ToolError> {
    let (Some(agent), Some(user)) = (ctx.agent_name.as_deref(), ctx.user_id.as_deref()) else {
        return Err(failed(tool, "the caller has no (agent, user) scope"));
    };
    memory
        .scope(agent, user)
        .map_err(|e| failed(tool, e.to_string()))
}

fn brief(entry: &agcore::memory::long_term::MemoryEntry) -> Value {
    json!({
        "id": entry.id,
        "type": entry.memory_type.as_str(),
        "name": entry.name,
        "content": entry.content,
        "description": entry.description,
        "weight": entry.weight,
        "archived": entry.archived,
    })
}

/// Arguments of `memory_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Search text.
    pub query: String,
    /// Only memories of this type.
    #[serde(default, rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// How many to return (default 5, at most 50).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `memory_search`: the scope's best memories for a query, each with its
/// lexical, dense and fused scores and ranks ("why recalled").
#[derive(Debug, Clone)]
pub struct MemorySearchTool {
    memory: LongTermMemory,
}

impl MemorySearchTool {
    /// The tool over `memory`.
    pub fn new(memory: LongTermMemory) -> Self {
        Self { memory }
    }
}

#[async_trait]
impl TypedTool for MemorySearchTool {
    type Args = SearchArgs;
    type Output = Value;

    fn name(&self) -> &str {
        "memory_search"
    }

    fn description(&self) -> &str {
        "Search long-term memory and show why each memory matched (lexical, dense and fused scores)."
    }

    async fn call(&self, args: SearchArgs, ctx: &ToolContext) -> Result<Value, ToolError> {
        let scoped = scope_of(&self.memory, self.name(), ctx)?;
        let limit = args.limit.unwrap_or(5).clamp(1, MAX_TOOL_LIMIT);
        let mut request = SearchRequest::top_k(limit);
        if let Some(kind) = args.memory_type {
            request = request.of_type(kind);
        }
        let report = scoped
            .search_explained(&args.query, &request)
            .await
            .map_err(|e| failed(self.name(), e.to_string()))?;
        let hits: Vec<Value> = report
            .results()
            .map(|hit| {
                let mut out = brief(&hit.item);
                if let Some(map) = out.as_object_mut() {
                    map.insert("score".into(), json!(hit.breakdown.score));
                    map.insert("why".into(), json!(hit.breakdown));
                }
                out
            })
            .collect();
        Ok(json!({ "memories": hits }))
    }
}

/// Arguments of `memory_list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// Only memories of this type.
    #[serde(default, rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// Memories to skip (default 0).
    #[serde(default)]
    pub offset: Option<usize>,
    /// How many to return (default 20, at most 50).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `memory_list`: the scope's active memories, most recently updated first.
#[derive(Debug, Clone)]
pub struct MemoryListTool {
    memory: LongTermMemory,
}

impl MemoryListTool {
    /// The tool over `memory`.
    pub fn new(memory: LongTermMemory) -> Self {
        Self { memory }
    }
}

#[async_trait]
impl TypedTool for MemoryListTool {
    type Args = ListArgs;
    type Output = Value;

    fn name(&self) -> &str {
        "memory_list"
    }

    fn description(&self) -> &str {
        "List long-term memories, most recently updated first."
    }

    async fn call(&self, args: ListArgs, ctx: &ToolContext) -> Result<Value, ToolError> {
        let scoped = scope_of(&self.memory, self.name(), ctx)?;
        let offset = args.offset.unwrap_or(0);
        let limit = args.limit.unwrap_or(20).clamp(1, MAX_TOOL_LIMIT);
        let mut request = ListRequest::all()
            .order(ListOrder::RecentlyUpdated)
            .limit(offset.saturating_add(limit));
        if let Some(kind) = args.memory_type {
            request = request.of_type(kind);
        }
        let entries = scoped
            .list(&request)
            .await
            .map_err(|e| failed(self.name(), e.to_string()))?;
        let memories: Vec<Value> = entries.iter().skip(offset).map(brief).collect();
        Ok(json!({ "memories": memories }))
    }
}

/// Arguments of `memory_delete`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteArgs {
    /// The memory id.
    pub id: i64,
}

/// `memory_delete`: deletes one memory of the scope.
#[derive(Debug, Clone)]
pub struct MemoryDeleteTool {
    memory: LongTermMemory,
}

impl MemoryDeleteTool {
    /// The tool over `memory`.
    pub fn new(memory: LongTermMemory) -> Self {
        Self { memory }
    }
}

#[async_trait]
impl TypedTool for MemoryDeleteTool {
    type Args = DeleteArgs;
    type Output = Value;

    fn name(&self) -> &str {
        "memory_delete"
    }

    fn description(&self) -> &str {
        "Delete one long-term memory by id."
    }

    async fn call(&self, args: DeleteArgs, ctx: &ToolContext) -> Result<Value, ToolError> {
        let scoped = scope_of(&self.memory, self.name(), ctx)?;
        let deleted = scoped
            .delete(args.id)
            .await
            .map_err(|e| failed(self.name(), e.to_string()))?;
        if !deleted {
            return Err(failed(
                self.name(),
                format!("no memory with id {}", args.id),
            ));
        }
        Ok(json!({ "status": "deleted", "id": args.id }))
    }
}
