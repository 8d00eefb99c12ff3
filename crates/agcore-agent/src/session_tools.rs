//! The optional `session_memory_set` / `session_memory_get` tools.

use std::sync::Arc;

use agcore_memory::MemoryStore;
use agcore_tools::{ToolContext, ToolError, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::SessionMemory;

fn session_of(
    store: &Arc<dyn MemoryStore>,
    tool: &str,
    ctx: &ToolContext,
) -> Result<SessionMemory, ToolError> {
    let session_id = ctx
        .session_id
        .as_deref()
        .ok_or_else(|| ToolError::ExecutionFailed {
            tool: tool.to_owned(),
            message: "no session: this tool only runs inside an agent session".into(),
        })?;
    Ok(SessionMemory::new(Arc::clone(store), session_id))
}

fn failed(tool: &str, err: impl std::fmt::Display) -> ToolError {
    ToolError::ExecutionFailed {
        tool: tool.to_owned(),
        message: err.to_string(),
    }
}

/// Arguments of `session_memory_set`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SetArgs {
    /// Short key naming the fact, e.g. `design_decision`.
    pub key: String,
    /// The value to remember for the rest of the session.
    pub value: String,
}

/// Arguments of `session_memory_get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetArgs {
    /// The key to read.
    pub key: String,
}

/// `session_memory_set`: remembers a key–value pair for the calling session.
/// The session comes from the [`ToolContext`], never from the arguments.
pub struct SessionMemorySetTool {
    store: Arc<dyn MemoryStore>,
}

impl SessionMemorySetTool {
    /// The tool over `store`.
    pub fn new(store: Arc<dyn MemoryStore>) -> Self {
        Self { store }
    }
}

#[async_trait]
impl TypedTool for SessionMemorySetTool {
    type Args = SetArgs;
    type Output = String;

    fn name(&self) -> &str {
        "session_memory_set"
    }

    fn description(&self) -> &str {
        "Remember a key-value fact for the rest of this session; other contexts of the session see it."
    }

    async fn call(&self, args: SetArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        let memory = session_of(&self.store, self.name(), ctx)?;
        memory
            .set(&args.key, &args.value)
            .await
            .map_err(|e| failed(self.name(), e))?;
        Ok(format!("stored `{}`", args.key))
    }
}

/// `session_memory_get`: reads a key of the calling session's memory.
pub struct SessionMemoryGetTool {
    store: Arc<dyn MemoryStore>,
}

impl SessionMemoryGetTool {
    /// The tool over `store`.
    pub fn new(store: Arc<dyn MemoryStore>) -> Self {
        Self { store }
    }
}

#[async_trait]
impl TypedTool for SessionMemoryGetTool {
    type Args = GetArgs;
    type Output = String;

    fn name(&self) -> &str {
        "session_memory_get"
    }

    fn description(&self) -> &str {
        "Read a fact remembered earlier in this session by key."
    }

    async fn call(&self, args: GetArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        let memory = session_of(&self.store, self.name(), ctx)?;
        let value = memory
            .get(&args.key)
            .await
            .map_err(|e| failed(self.name(), e))?;
        Ok(value.unwrap_or_else(|| format!("no value stored for `{}`", args.key)))
    }
}
