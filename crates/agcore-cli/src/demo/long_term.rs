//! The long-term part of `agcore demo`: session 1 saves a preference through the
//! `memory_save` tool, session 2 finds it prefetched into the system prompt, another
//! user sees nothing. The model is scripted (`MockProvider`), the memory is real
//! (SQLite).

use agcore::memory::SqliteLongTerm;
use std::path::Path;
use std::sync::Arc;

use agcore::agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore::llm::{HookExecutor, MockProvider};
use agcore::memory::long_term::{ListRequest, LongTermMemory};
use agcore::tools::ToolRegistry;

use crate::error::CliError;
use crate::output;

const SAVE: &str = r#"{"action":"create","type":"user","name":"answer style","content":"Alice prefers short answers in bullet points","description":"reply format"}"#;

/// Runs the two sessions against a fresh database in `dir` and prints what happened.
///
/// # Errors
/// Memory and agent errors.
pub(super) async fn run(dir: &Path) -> Result<(), CliError> {
    let path = dir.join("memory.db");
    let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await?);
    let chat = Arc::new(
        MockProvider::new()
            .push_tool_call("memory_save", SAVE)
            .push_text("Noted: short bullet points from now on.")
            .push_text("- Parc de la Tête d'Or\n- Vieux Lyon"),
    );
    let options = LongTermOptions::new().extraction(false);
    let bundle = AgentBuilder::new()
        .provider(chat.clone())
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(HookExecutor::new()))
        .base_prompt("You are a travel assistant.")
        .config(AgentConfig::new("scripted"))
        .long_term_memory(memory.clone(), options)
        .build()
        .map_err(CliError::Agent)?;
    let agent = Arc::new(SimpleAgent::new("travel"));

    let mut first = AgentSession::new(agent.clone(), bundle.clone()).with_user_id("alice")?;
    let input = "Please keep your answers short, bullet points.";
    let reply = first.submit_turn(input).await?;
    output::line(&format!(
        "session 1, alice: {input}\n  assistant: {}",
        reply.text()
    ))?;
    for entry in memory
        .scope("travel", "alice")?
        .list(&ListRequest::all())
        .await?
    {
        output::line(&format!(
            "  stored in SQLite: #{} [{}] {}: {}",
            entry.id, entry.memory_type, entry.name, entry.content
        ))?;
    }

    let mut second = AgentSession::new(agent, bundle).with_user_id("alice")?;
    let input = "Which parks in Lyon should I visit? Short answers please.";
    let reply = second.submit_turn(input).await?;
    output::line(&format!(
        "session 2, alice: {input}\n  assistant: {}",
        reply.text().replace('\n', "\n             ")
    ))?;
    let system = chat
        .requests()
        .last()
        .and_then(|r| r.messages.first().map(|m| m.text()))
        .unwrap_or_default();
    if let (Some(start), Some(end)) = (
        system.find("<memory-context>"),
        system.find("</memory-context>"),
    ) {
        let block = system
            .get(start..end + "</memory-context>".len())
            .unwrap_or("");
        output::line(&format!(
            "  prefetched into that turn's system prompt:\n    {}",
            block.replace('\n', "\n    ")
        ))?;
    }
    let bob = memory.scope("travel", "bob")?;
    output::line(&format!(
        "bob searches `bullet points`: {} hits (every call is scoped to agent + user)",
        bob.search("bullet points", 5).await?.len()
    ))?;
    memory.close().await?;
    Ok(())
}
