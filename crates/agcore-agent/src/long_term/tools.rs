//! The `memory_save` and `memory_recall` tools (see `docs/memory.md`, *Tools*).
//!
//! The scope — (agent, user) — comes only from the [`ToolContext`] the
//! session fills in; the arguments cannot name another scope, and an id of
//! another scope behaves as a missing one.

use super::WritableTypes;
use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    LongTermMemory, MemoryEntry, MemoryType, MemoryUpdate, NewMemory, RULE_TAGS, ScopedMemory,
    SearchRequest, rule_tags,
};
use agcore_tools::{ToolContext, ToolError, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Most entries one `memory_recall` call returns.
pub const MAX_RECALL_LIMIT: usize = 50;

/// The provenance of a memory the model saves: `source` names the tool and
/// `tool_results` the other tools whose results the model had read earlier
/// in the turn (what the memory may repeat; see `docs/memory.md`,
/// *Provenance*).
fn provenance(tool: &str, ctx: &ToolContext) -> serde_json::Map<String, Value> {
    let mut provenance = serde_json::Map::new();
    provenance.insert("source".into(), format!("model ({tool} tool)").into());
    let seen: Vec<Value> = ctx
        .results_seen
        .names()
        .into_iter()
        .filter(|name| name != "memory_save" && name != "memory_recall")
        .map(Value::from)
        .collect();
    if !seen.is_empty() {
        provenance.insert("tool_results".into(), Value::Array(seen));
    }
    provenance
}

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

/// `memory_save`: creates, updates or deletes a memory of the calling
/// (agent, user) scope.
///
/// Returns compact JSON: `{"status":"created"|"updated"|"deleted","id":…,…}`;
/// a create whose text matches an existing memory of the scope updates it
/// (`"status":"updated"`).
#[derive(Debug, Clone)]
pub struct MemorySaveTool {
    memory: LongTermMemory,
    writable: WritableTypes,
    auto_tag: bool,
}

impl MemorySaveTool {
    /// The tool over `memory`, allowed to write every type.
    pub fn new(memory: LongTermMemory) -> Self {
        Self {
            memory,
            writable: WritableTypes::all(),
            auto_tag: false,
        }
    }

    /// Gives created memories rule-based tags
    /// ([`rule_tags`](agcore_memory::long_term::rule_tags); `[memory_agent.extract]
    /// auto_tag`, off by default).
    #[must_use]
    pub fn with_auto_tag(mut self, auto_tag: bool) -> Self {
        self.auto_tag = auto_tag;
        self
    }

    /// Refuses (with a tool error naming the allowed types) to create,
    /// change or delete memories of other types than `writable`.
    #[must_use]
    pub fn with_writable_types(mut self, writable: WritableTypes) -> Self {
        self.writable = writable;
        self
    }

    fn check_type(&self, memory_type: MemoryType) -> Result<(), ToolError> {
        match self.writable.refusal(memory_type) {
            Some(why) => Err(failed(self.name(), why)),
            None => Ok(()),
        }
    }
}

#[async_trait]
impl TypedTool for MemorySaveTool {
    type Args = SaveArgs;
    type Output = Value;

    fn name(&self) -> &str {
        "memory_save"
    }

    fn description(&self) -> &str {
        "Store, update or delete a long-term memory. Memories are recalled automatically in future conversations."
    }

    async fn call(&self, args: SaveArgs, ctx: &ToolContext) -> Result<Value, ToolError> {
        let tool = self.name();
        let scoped = scope_of(&self.memory, tool, ctx)?;
        if args.action != SaveAction::Delete {
            self.check_type(args.memory_type)?;
        }
        match args.action {
            SaveAction::Create => {
                let content = args
                    .content
                    .filter(|c| !c.trim().is_empty())
                    .ok_or_else(|| failed(tool, "`content` is required to create a memory"))?;
                let provenance = provenance(tool, ctx);
                let tags = if self.auto_tag {
                    rule_tags(&content, RULE_TAGS)
                } else {
                    Vec::new()
                };
                let mut new = NewMemory::new(args.memory_type, args.name, content)
                    .with_metadata(provenance)
                    .with_tags(tags);
                if let Some(description) = args.description {
                    new = new.with_description(description);
                }
                let outcome = scoped
                    .save(new)
                    .await
                    .map_err(|e| memory_failed(tool, None, e))?;
                let status = if outcome.created {
                    "created"
                } else {
                    "updated"
                };
                Ok(with_status(&outcome.entry, Some(status)))
            }
            SaveAction::Update => {
                let id = args
                    .id
                    .ok_or_else(|| failed(tool, "`id` is required to update a memory"))?;
                let mut update = MemoryUpdate::new()
                    .name(args.name)
                    .memory_type(args.memory_type);
                if let Some(content) = args.content {
                    update = update.content(content);
                }
                if let Some(description) = args.description {
                    update = update.description(description);
                }
                let entry = scoped
                    .update(id, update)
                    .await
                    .map_err(|e| memory_failed(tool, Some(id), e))?;
                Ok(with_status(&entry, Some("updated")))
            }
            SaveAction::Delete => {
                let id = args
                    .id
                    .ok_or_else(|| failed(tool, "`id` is required to delete a memory"))?;
                if let Some(entry) = scoped
                    .get(id)
                    .await
                    .map_err(|e| memory_failed(tool, Some(id), e))?
                {
                    self.check_type(entry.memory_type)?;
                }
                let deleted = scoped
                    .delete(id)
                    .await
                    .map_err(|e| memory_failed(tool, Some(id), e))?;
                if !deleted {
                    return Err(failed(tool, format!("no memory with id {id}")));
                }
                Ok(json!({"status": "deleted", "id": id}))
            }
        }
    }
}

/// `memory_recall`: searches the memories of the calling (agent, user) scope.
///
/// Returns compact JSON `{"memories":[{"id","type","name","content","description"}]}`,
/// best match first.
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
        let hits = scoped
            .search_with(&args.query, &request)
            .await
            .map_err(|e| memory_failed(tool, None, e))?;
        let memories: Vec<Value> = hits.iter().map(|h| brief(&h.entry)).collect();
        Ok(json!({ "memories": memories }))
    }
}
