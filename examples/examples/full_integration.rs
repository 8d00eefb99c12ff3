//! The whole stack against a real OpenAI-compatible endpoint: an agent with a
//! system prompt and two tools, a knowledge store behind the `retrieve` tool,
//! long-lived memory in SQLite, several turns, session memory bridging two
//! contexts, the conversation written back to `ConversationMemory`, and a
//! run summary.
//!
//! Needs `OPENAI_BASE_URL` (and `OPENAI_API_KEY` for hosted APIs; the model
//! from `AGCORE_MODEL`, default `gpt-4o-mini`). Without it, it says so and
//! exits 0:
//! `OPENAI_BASE_URL=http://127.0.0.1:8080/v1 cargo run -p agcore-examples --example full_integration`

#![allow(clippy::print_stdout)]

use agcore_memory_sqlite::SqliteStore;
use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentError, ContextManager, SimpleAgent};
use agcore_llm::{CycleConfig, HookExecutor, OpenAiConfig, OpenAiProvider};
use agcore_memory::retriever::{MemoryRetriever, RetrieverConfig};
use agcore_memory::{
    ConversationMemory, ConversationMemoryConfig, InMemoryStore, KnowledgePage, KnowledgeStore,
    MemoryStore,
};
use agcore_tools::{ToolContext, ToolError, ToolRegistry, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

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

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

struct Today;

#[async_trait]
impl TypedTool for Today {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &str {
        "today"
    }
    fn description(&self) -> &str {
        "Today's date (UTC), as YYYY-MM-DD."
    }
    async fn call(&self, _args: NoArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        Ok(chrono_free_today())
    }
}

/// Days since the Unix epoch → civil date (Howard Hinnant's algorithm), so
/// the example needs no date crate.
fn chrono_free_today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = i64::try_from(secs / 86_400).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[tokio::main]
async fn main() -> Result<(), AgentError> {
    let Some(base_url) = std::env::var("OPENAI_BASE_URL")
        .ok()
        .filter(|v| !v.is_empty())
    else {
        println!(
            "full_integration talks to a real model: set OPENAI_BASE_URL (e.g. https://api.openai.com/v1 \
             or a local llama.cpp / vLLM / Ollama `/v1` endpoint), OPENAI_API_KEY if it needs one, and \
             AGCORE_MODEL; then run it again. The offline examples are agent_session, task_agent and \
             streaming_events."
        );
        return Ok(());
    };
    let model = std::env::var("AGCORE_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into());
    let mut config = OpenAiConfig::new(base_url).with_default_model(model.clone());
    if let Ok(key) = std::env::var("OPENAI_API_KEY") {
        config = config.with_api_key(key);
    }
    let provider = Arc::new(OpenAiProvider::new(
        config.with_empty_content_for_tool_calls(true),
    )?);

    // Knowledge pages behind the `retrieve` tool, long-lived memory in SQLite.
    let data = tempfile::tempdir().map_err(|e| AgentError::Other(e.to_string()))?;
    let memory: Arc<dyn MemoryStore> =
        Arc::new(SqliteStore::open(data.path().join("memory.db")).await?);
    let knowledge = Arc::new(KnowledgeStore::new(Arc::new(InMemoryStore::new())));
    knowledge
        .add_page(KnowledgePage::new(
            "tenancy",
            "Multi-tenancy",
            "One PostgreSQL schema per tenant",
            "Every tenant gets its own PostgreSQL schema. Migrations run once per schema.",
        ))
        .await?;
    let retriever = Arc::new(
        MemoryRetriever::new(RetrieverConfig::default())
            .with_knowledge_store(knowledge)
            .with_memory_store(Arc::clone(&memory)),
    );

    let tools = Arc::new(ToolRegistry::new());
    tools.register(Add.into_tool())?;
    tools.register(Today.into_tool())?;
    let bundle = AgentBuilder::new()
        .provider(provider)
        .tool_registry(tools)
        .hook_executor(Arc::new(HookExecutor::new()))
        .retriever(retriever)
        .session_memory_backend(Arc::clone(&memory))
        .base_prompt("You are a concise engineering assistant. Use tools when they help.")
        .config(
            AgentConfig::new(model.clone()).with_llm(CycleConfig::new(model).with_max_tokens(300)),
        )
        .build()?;

    let build =
        Arc::new(SimpleAgent::new("build").with_system_prompt("You help build the system."));
    let plan = Arc::new(SimpleAgent::new("plan").with_system_prompt("You write short plans."));
    let mut contexts = ContextManager::new("demo-session", bundle, "build", build);

    let questions = [
        "How should we store tenants? Check the knowledge base.",
        "What is 19.5 + 22.5? Use the add tool.",
        "What is today's date?",
    ];
    for question in questions {
        let session = contexts.active()?;
        let answer = session.submit_turn(question).await?;
        println!("[build] > {question}\n[build] < {}\n", answer.text());
    }
    contexts
        .session_memory()
        .set("tenant_storage", "schema per tenant")
        .await?;
    contexts.create_context("plan", plan)?;
    contexts.bridge("build", "plan")?;
    let planner = contexts.switch_context("plan")?;
    let answer = planner
        .submit_turn("Write a three-step rollout plan.")
        .await?;
    println!("[plan] < {}\n", answer.text());

    // Write the build context's conversation back to conversation memory.
    let conversation = ConversationMemory::new(
        Arc::clone(&memory),
        "demo-session",
        ConversationMemoryConfig::default(),
    )?;
    let build_session = contexts.context_mut("build")?;
    for message in build_session.history() {
        conversation.add_message(message.clone()).await?;
    }
    let tool_calls = build_session
        .history()
        .iter()
        .map(|m| m.tool_calls.len())
        .sum::<usize>();
    println!("summary:");
    println!(
        "  build turns: {}, tool calls: {tool_calls}",
        build_session.turn_index()
    );
    println!(
        "  tokens (build): {}",
        build_session.cost_so_far().total_usage().total_tokens
    );
    println!(
        "  conversation memory: {} messages stored",
        conversation.len().await?
    );
    println!(
        "  session memory:\n{}",
        contexts.session_memory().snapshot().await?
    );
    Ok(())
}
