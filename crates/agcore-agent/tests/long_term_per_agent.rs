//! Per-agent long-term memory settings: `enabled = false` registers no tools
//! and injects nothing, `tools = false` keeps prefetch without tools or their
//! instructions, `writable_types` limits what `memory_save` and extraction
//! write — two agents with different settings side by side on one memory.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::long_term::{MEMORY_INSTRUCTIONS_EN, WritableTypes};
use agcore_agent::{
    AgentBuilder, AgentError, AgentSession, LongTermOptions, RuntimeBundle, SimpleAgent,
};
use agcore_llm::MockProvider;
use agcore_memory::long_term::{
    InMemoryLongTerm, ListRequest, LongTermMemory, MemoryType, NewMemory,
};
use agcore_types::Role;

async fn memory_with_tea() -> Result<LongTermMemory, agcore_memory::MemoryError> {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    for agent in ["open", "closed", "quiet", "limited"] {
        memory
            .scope(agent, "alice")?
            .save(NewMemory::new(
                MemoryType::User,
                "drink",
                "Alice prefers green tea",
            ))
            .await?;
    }
    Ok(memory)
}

fn bundle(
    chat: &Arc<MockProvider>,
    memory: &LongTermMemory,
    options: LongTermOptions,
) -> Result<Arc<RuntimeBundle>, AgentError> {
    AgentBuilder::new()
        .provider(chat.clone())
        .long_term_memory(memory.clone(), options)
        .build()
}

fn session(bundle: &Arc<RuntimeBundle>, agent: &str) -> AgentSession {
    AgentSession::new(Arc::new(SimpleAgent::new(agent)), Arc::clone(bundle))
        .with_user_id("alice")
        .unwrap()
}

#[tokio::test]
async fn disabled_memory_registers_nothing_and_injects_nothing() {
    let memory = memory_with_tea().await.unwrap();
    let chat = Arc::new(MockProvider::new().push_text("a").push_text("b"));
    let open = bundle(&chat, &memory, LongTermOptions::new()).unwrap();
    let closed = bundle(&chat, &memory, LongTermOptions::new().enabled(false)).unwrap();
    assert!(open.tool_registry.contains("memory_save"));
    assert!(closed.tool_registry.is_empty());
    assert!(closed.long_term.is_none());

    session(&open, "open")
        .submit_turn("Which green tea?")
        .await
        .unwrap();
    session(&closed, "closed")
        .submit_turn("Which green tea?")
        .await
        .unwrap();
    let requests = chat.requests();
    let open_system = requests[0].messages[0].text();
    let closed_first = &requests[1].messages[0];
    assert!(
        open_system.contains("Alice prefers green tea"),
        "{open_system}"
    );
    assert!(open_system.contains(MEMORY_INSTRUCTIONS_EN));
    assert!(
        closed_first.role != Role::System || !closed_first.text().contains("green tea"),
        "a disabled agent injects nothing"
    );
    assert!(requests[1].tools.is_empty());
    // Nothing buffered for the disabled agent.
    let closed_scope = memory.scope("closed", "alice").unwrap();
    assert!(
        closed_scope
            .buffer_pending("any", 10)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn without_tools_prefetch_still_injects() {
    let memory = memory_with_tea().await.unwrap();
    let chat = Arc::new(MockProvider::new().push_text("a"));
    let quiet = bundle(&chat, &memory, LongTermOptions::new().tools(false)).unwrap();
    assert!(quiet.tool_registry.is_empty());
    session(&quiet, "quiet")
        .submit_turn("Which green tea?")
        .await
        .unwrap();
    let system = chat.requests()[0].messages[0].text();
    assert!(system.contains("Alice prefers green tea"), "{system}");
    assert!(
        !system.contains(MEMORY_INSTRUCTIONS_EN),
        "no instructions for absent tools"
    );
}

#[tokio::test]
async fn writable_types_limit_the_tool_and_extraction() {
    let memory = memory_with_tea().await.unwrap();
    let scope = memory.scope("limited", "alice").unwrap();
    let tea = scope.list(&ListRequest::all()).await.unwrap()[0].id;
    let chat = Arc::new(
        MockProvider::new()
            .push_tool_call(
                "memory_save",
                r#"{"action":"create","type":"project","name":"launch","content":"Launch is on Friday"}"#,
            )
            .push_text("I cannot store that.")
            .push_tool_call("memory_save", format!(r#"{{"action":"delete","type":"user","name":"drink","id":{tea}}}"#))
            .push_text("Kept."),
    );
    let facts = r#"{"facts": [
        {"content": "Short answers were right", "type": "feedback", "tags": [], "confidence": 0.9, "replace": null},
        {"content": "Alice works nights", "type": "user", "tags": [], "confidence": 0.9, "replace": null}]}"#;
    let options = LongTermOptions::new()
        .writable_types(WritableTypes::only([MemoryType::Feedback]))
        .extraction_provider(Arc::new(MockProvider::new().push_text(facts)));
    let limited = bundle(&chat, &memory, options).unwrap();
    let mut s = session(&limited, "limited");
    s.submit_turn("Remember the launch date.").await.unwrap();
    s.submit_turn("Forget my tea.").await.unwrap();
    let refusals: Vec<String> = s
        .history()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.text())
        .collect();
    assert_eq!(refusals.len(), 2);
    assert!(
        refusals[0].contains("may not write `project` memories (it may write: feedback)"),
        "{refusals:?}"
    );
    assert!(
        refusals[1].contains("may not write `user` memories"),
        "{refusals:?}"
    );
    let report = s.finish().await.unwrap().expect("extraction ran");
    assert_eq!(report.facts.created.len(), 1);
    assert!(
        report.facts.rejected.iter().any(|r| r.contains("`user`")),
        "{:?}",
        report.facts.rejected
    );
    let mut contents: Vec<String> = scope
        .list(&ListRequest::all())
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.content)
        .collect();
    contents.sort();
    assert_eq!(
        contents,
        ["Alice prefers green tea", "Short answers were right"]
    );
}
