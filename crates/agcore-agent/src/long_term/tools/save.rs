//! `memory_save`: creates, updates or deletes a memory of the calling scope.

use super::{SaveAction, SaveArgs, failed, memory_failed, scope_of, with_status};
use crate::long_term::WritableTypes;
use agcore_memory::long_term::{
    LongTermMemory, MemoryType, MemoryUpdate, NewMemory, RULE_TAGS, rule_tags,
};
use agcore_tools::{ToolContext, ToolError, TypedTool};
use async_trait::async_trait;
use serde_json::{Value, json};

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
