//! Shared fixtures of the agent tests.
#![cfg(test)]
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agcore_agent::{AgentBuilder, AgentConfig, RuntimeBundle};
use agcore_llm::{HookExecutor, MockProvider};
use agcore_tools::{ToolContext, ToolError, ToolRegistry, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    pub a: i64,
    pub b: i64,
}

/// `add(a, b)`: returns the sum as text and counts its calls.
#[derive(Default)]
pub struct AddTool {
    pub calls: Arc<AtomicUsize>,
}

#[async_trait]
impl TypedTool for AddTool {
    type Args = AddArgs;
    type Output = String;
    fn name(&self) -> &str {
        "add"
    }
    fn description(&self) -> &str {
        "Adds two integers."
    }
    async fn call(&self, args: AddArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok((args.a + args.b).to_string())
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct RendezvousArgs {
    pub label: String,
}

/// Waits until `parties` calls are inside it at once (a barrier); a call that
/// waits more than 5 s fails, so tool calls run one after another fail the test.
pub struct RendezvousTool {
    pub barrier: Arc<tokio::sync::Barrier>,
}

#[async_trait]
impl TypedTool for RendezvousTool {
    type Args = RendezvousArgs;
    type Output = String;
    fn name(&self) -> &str {
        "rendezvous"
    }
    fn description(&self) -> &str {
        "Waits for the other parallel calls."
    }
    async fn call(&self, args: RendezvousArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        tokio::time::timeout(Duration::from_secs(5), self.barrier.wait())
            .await
            .map_err(|_| ToolError::ExecutionFailed {
                tool: "rendezvous".into(),
                message: "the other calls never arrived: calls are not concurrent".into(),
            })?;
        Ok(format!("met:{}", args.label))
    }
}

/// Echoes the caller's session and user id from the tool context.
pub struct WhoAmITool;

#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

#[async_trait]
impl TypedTool for WhoAmITool {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &str {
        "whoami"
    }
    fn description(&self) -> &str {
        "Says which session and user call it."
    }
    async fn call(&self, _args: NoArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!(
            "session={} user={} agent={}",
            ctx.session_id.as_deref().unwrap_or("-"),
            ctx.user_id.as_deref().unwrap_or("-"),
            ctx.agent_name.as_deref().unwrap_or("-")
        ))
    }
}

pub fn registry_with_add() -> (Arc<ToolRegistry>, Arc<AtomicUsize>) {
    let registry = Arc::new(ToolRegistry::new());
    let tool = AddTool::default();
    let calls = Arc::clone(&tool.calls);
    registry.register(tool.into_tool()).unwrap();
    (registry, calls)
}

pub fn bundle(
    provider: &Arc<MockProvider>,
    registry: Arc<ToolRegistry>,
    hooks: HookExecutor,
    config: AgentConfig,
) -> Arc<RuntimeBundle> {
    AgentBuilder::new()
        .provider(provider.clone())
        .tool_registry(registry)
        .hook_executor(Arc::new(hooks))
        .base_prompt("BASE PROMPT")
        .config(config)
        .build()
        .unwrap()
}
