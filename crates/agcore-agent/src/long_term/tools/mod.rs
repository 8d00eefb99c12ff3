//! The `memory_save` and `memory_recall` tools (see `docs/memory.md`, *Tools*).
//!
//! The scope — (agent, user) — comes only from the [`ToolContext`] the
//! session fills in; the arguments cannot name another scope, and an id of
//! another scope behaves as a missing one.

mod recall;
mod save;

pub use recall::MemoryRecallTool;
pub use save::MemorySaveTool;

use agcore_memory::MemoryError;
use agcore_memory::long_term::{LongTermMemory, MemoryEntry, MemoryType, ScopedMemory};
use agcore_tools::{ToolContext, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Most entries one `memory_recall` call returns.
pub const MAX_RECALL_LIMIT: usize = 50;

/// What `memory_save` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SaveAction {
    /// Store a new memory (an existing one with the same text is updated).
    Create,
    /// Change memory `id`.
    Update,
    /// Delete memory `id`.
    Delete,
}

/// Arguments of `memory_save` (see `docs/memory.md`, *Tools*).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SaveArgs {
    /// create, update or delete.
    pub action: SaveAction,
    /// Memory title.
    pub name: String,
    /// Memory type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Memory text (required for create).
    #[serde(default)]
    pub content: Option<String>,
    /// One-line description.
    #[serde(default)]
    pub description: Option<String>,
    /// Memory id, for update and delete.
    #[serde(default)]
    pub id: Option<i64>,
}

/// Arguments of `memory_recall` (see `docs/memory.md`, *Tools*).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecallArgs {
    /// Search keywords.
    pub query: String,
    /// Only memories of this type.
    #[serde(default, rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// How many to return (default 5, at most 50).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Search archived memories too (default false); archived hits carry
    /// `"archived": true`.
    #[serde(default)]
    pub include_archived: Option<bool>,
}

fn failed(tool: &str, message: impl Into<String>) -> ToolError {
    ToolError::ExecutionFailed {
        tool: tool.to_owned(),
        message: message.into(),
    }
}

/// The caller's scope from `ctx`; fails without a user id.
fn scope_of(
    memory: &LongTermMemory,
    tool: &str,
    ctx: &ToolContext,
) -> Result<ScopedMemory, ToolError> {
    let user = ctx.user_id.as_deref().ok_or_else(|| {
        failed(
            tool,
            "long-term memory needs a user id: the session has none (AgentSession::with_user_id)",
        )
    })?;
    let agent = ctx.agent_name.as_deref().ok_or_else(|| {
        failed(
            tool,
            "long-term memory needs an agent name: run the tool inside an agent session",
        )
    })?;
    memory
        .scope(agent, user)
        .map_err(|e| failed(tool, e.to_string()))
}

fn brief(entry: &MemoryEntry) -> Value {
    with_status(entry, None)
}

fn with_status(entry: &MemoryEntry, status: Option<&str>) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(status) = status {
        out.insert("status".into(), status.into());
    }
    out.insert("id".into(), entry.id.into());
    out.insert("type".into(), entry.memory_type.as_str().into());
    out.insert("name".into(), entry.name.clone().into());
    out.insert("content".into(), entry.content.clone().into());
    out.insert("description".into(), entry.description.clone().into());
    Value::Object(out)
}

fn memory_failed(tool: &str, id: Option<i64>, err: MemoryError) -> ToolError {
    match (err, id) {
        (MemoryError::NotFound(_), Some(id)) => failed(tool, format!("no memory with id {id}")),
        (err, _) => failed(tool, err.to_string()),
    }
}
