//! Assembling an agent: `Agent` → `AgentBuilder` → `RuntimeBundle` →
//! `AgentSession`, a turn with a tool call, and session memory.
//!
//! Runs offline on the scripted `MockProvider`:
//! `cargo run -p agcore-examples --example agent_session`

#![allow(clippy::print_stdout)]

use std::sync::Arc;

use agcore_agent::{Agent, AgentBuilder, AgentConfig, AgentError, AgentSession};
use agcore_llm::{HookExecutor, MockProvider};
use agcore_tools::{ToolContext, ToolError, ToolRegistry, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

/// A calculator agent: a name and its layer of the system prompt.
struct CalculatorAgent;

impl Agent for CalculatorAgent {
    fn name(&self) -> &str {
        "calculator"
    }
    fn system_prompt(&self) -> Option<&str> {
        Some("You are a calculator. Use the `add` tool for sums.")
    }
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: f64,
    /// Second addend.
    b: f64,
}

struct Add;

#[async_trait]
impl TypedTool for Add {
    type Args = AddArgs;
    type Output = f64;
    fn name(&self) -> &str {
        "add"
    }
    fn description(&self) -> &str {
        "Adds two numbers."
    }
    async fn call(&self, args: AddArgs, _ctx: &ToolContext) -> Result<f64, ToolError> {
        Ok(args.a + args.b)
    }
}

#[tokio::main]
async fn main() -> Result<(), AgentError> {
    // The scripted model: first it calls `add`, then it answers.
    let provider = Arc::new(
        MockProvider::new()
            .push_tool_call("add", r#"{"a": 1, "b": 1}"#)
            .push_text("1 + 1 = 2")
            .push_text("You asked me about 1 + 1, and the result was 2."),
    );
    let tools = Arc::new(ToolRegistry::new());
    tools.register(Add.into_tool())?;

    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .tool_registry(tools)
        .hook_executor(Arc::new(HookExecutor::new()))
        .base_prompt("Answer briefly.")
        .config(AgentConfig::new("mock-model"))
        .build()?;
    println!("bundle: {bundle:?}\n");

    let mut session = AgentSession::with_id("session-1", Arc::new(CalculatorAgent), bundle);
    let response = session.submit_turn("1+1=?").await?;
    println!("turn 0 answer: {}", response.text());
    println!("history after turn 0:");
    for message in session.history() {
        let calls: Vec<String> = message
            .tool_calls
            .iter()
            .map(|c| format!("{}({})", c.name(), c.function.arguments))
            .collect();
        println!(
            "  {:<9} {} {}",
            message.role.as_str(),
            message.text(),
            calls.join(", ")
        );
    }

    // Session memory: facts every context of this session sees in its system prompt.
    session.session_memory().set("last_result", "2").await?;
    session
        .session_memory()
        .set("user_language", "English")
        .await?;
    println!(
        "\nsession memory snapshot:\n{}\n",
        session.session_memory().snapshot().await?
    );

    let response = session.submit_turn("What did I ask?").await?;
    println!("turn 1 answer: {}", response.text());
    let requests = provider.requests();
    if let Some(system) = requests.last().and_then(|r| r.messages.first()) {
        println!(
            "\nsystem prompt of turn 1 (rebuilt every turn):\n{}",
            system.text()
        );
    }
    println!(
        "\nturns: {}, requests: {}, tokens: {}",
        session.turn_index(),
        requests.len(),
        session.cost_so_far().total_usage().total_tokens
    );
    Ok(())
}
