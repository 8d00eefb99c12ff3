//! `memory_save` / `memory_recall` through agent sessions: scope isolation
//! against a model passing another user's ids, duplicates, missing user id.
#![cfg(test)]

use agcore_memory_sqlite::SqliteLongTerm;
use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore_llm::{HookExecutor, MockProvider, MockResponse};
use agcore_memory::long_term::{
    InMemoryLongTerm, ListRequest, LongTermMemory, MemoryType, NewMemory,
};
use agcore_tools::ToolRegistry;
use agcore_types::{ChatMessage, ChatResponse, FinishReason, Role, ToolCall};

fn session(
    provider: &Arc<MockProvider>,
    memory: &LongTermMemory,
    agent: &str,
    user: Option<&str>,
) -> AgentSession {
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(HookExecutor::new()))
        .config(AgentConfig::new("m"))
        .long_term_memory(memory.clone(), LongTermOptions::new().extraction(false))
        .build()
        .unwrap();
    let session = AgentSession::new(Arc::new(SimpleAgent::new(agent)), bundle);
    match user {
        Some(user) => session.with_user_id(user).unwrap(),
        None => session,
    }
}

/// The tool messages of the session's history, in order.
fn tool_results(session: &AgentSession) -> Vec<String> {
    session
        .history()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.text())
        .collect()
}

async fn run(session: &mut AgentSession, provider: &Arc<MockProvider>, tool: &str, args: &str) {
    let call = ToolCall::new(provider.call_id(), tool, args);
    let calls = ChatMessage::assistant_tool_calls(vec![call]);
    provider.enqueue(MockResponse::Response(ChatResponse::from_message(
        "m",
        calls,
        FinishReason::ToolCalls,
    )));
    let done = ChatMessage::assistant("done");
    provider.enqueue(MockResponse::Response(ChatResponse::from_message(
        "m",
        done,
        FinishReason::Stop,
    )));
    session.submit_turn("go").await.unwrap();
}

async fn adversarial_scope(memory: LongTermMemory) {
    let provider = Arc::new(MockProvider::new());
    let mut alice = session(&provider, &memory, "assistant", Some("alice"));
    run(
        &mut alice,
        &provider,
        "memory_save",
        r#"{"action":"create","name":"drink","type":"user","content":"Alice prefers green tea"}"#,
    )
    .await;
    let created: serde_json::Value = serde_json::from_str(&tool_results(&alice)[0]).unwrap();
    assert_eq!(created["status"], "created");
    let id = created["id"].as_i64().unwrap();

    let mut bob = session(&provider, &memory, "assistant", Some("bob"));
    // Bob's model passes Alice's id and scope fields; the runtime ignores them.
    let attempts = [
        (
            "memory_recall",
            r#"{"query":"green tea","user_id":"alice","agent_name":"assistant"}"#.to_owned(),
        ),
        (
            "memory_save",
            format!(r#"{{"action":"update","id":{id},"name":"drink","type":"user","content":"Alice hates tea","user_id":"alice"}}"#),
        ),
        (
            "memory_save",
            format!(r#"{{"action":"delete","id":{id},"name":"drink","type":"user","user_id":"alice"}}"#),
        ),
        (
            "memory_save",
            r#"{"action":"create","name":"x","type":"user","content":"written by bob","user_id":"alice"}"#.to_owned(),
        ),
    ];
    for (tool, args) in &attempts {
        run(&mut bob, &provider, tool, args).await;
    }
    let results = tool_results(&bob);
    assert_eq!(results[0], r#"{"memories":[]}"#);
    assert!(
        results[1].contains(&format!("no memory with id {id}")),
        "{}",
        results[1]
    );
    assert!(
        results[2].contains(&format!("no memory with id {id}")),
        "{}",
        results[2]
    );

    // Another agent serving Alice sees nothing either.
    let mut other_agent = session(&provider, &memory, "other-agent", Some("alice"));
    run(
        &mut other_agent,
        &provider,
        "memory_recall",
        r#"{"query":"green tea"}"#,
    )
    .await;
    assert_eq!(tool_results(&other_agent)[0], r#"{"memories":[]}"#);

    // Alice's entry is unchanged and alone; Bob's create landed in Bob's scope.
    let alice_scope = memory.scope("assistant", "alice").unwrap();
    let all = alice_scope.list(&ListRequest::all()).await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].id, id);
    assert_eq!(all[0].content, "Alice prefers green tea");
    assert!(alice_scope.history(id).await.unwrap().is_empty());
    let bob_scope = memory.scope("assistant", "bob").unwrap();
    let bobs = bob_scope.list(&ListRequest::all()).await.unwrap();
    assert_eq!(bobs.len(), 1);
    assert_eq!(bobs[0].content, "written by bob");

    // Alice still recalls her own entry through the tool.
    run(
        &mut alice,
        &provider,
        "memory_recall",
        r#"{"query":"green tea","type":"user"}"#,
    )
    .await;
    let recalled: serde_json::Value = serde_json::from_str(&tool_results(&alice)[1]).unwrap();
    assert_eq!(recalled["memories"][0]["id"], id);
}

#[tokio::test]
async fn another_users_ids_read_and_change_nothing_in_memory() {
    adversarial_scope(LongTermMemory::new(InMemoryLongTerm::new())).await;
}

#[tokio::test]
async fn another_users_ids_read_and_change_nothing_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let backend = SqliteLongTerm::open(dir.path().join("memory.db"))
        .await
        .unwrap();
    adversarial_scope(LongTermMemory::new(backend)).await;
}

#[tokio::test]
async fn duplicate_save_through_the_tool_updates_instead_of_adding() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let provider = Arc::new(MockProvider::new());
    let mut s = session(&provider, &memory, "assistant", Some("alice"));
    let args =
        r#"{"action":"create","name":"style","type":"user","content":"Prefers concise answers"}"#;
    run(&mut s, &provider, "memory_save", args).await;
    let again = r#"{"action":"create","name":"style","type":"feedback","content":"prefers   CONCISE answers","description":"tone"}"#;
    run(&mut s, &provider, "memory_save", again).await;
    let results = tool_results(&s);
    let first: serde_json::Value = serde_json::from_str(&results[0]).unwrap();
    let second: serde_json::Value = serde_json::from_str(&results[1]).unwrap();
    assert_eq!(first["status"], "created");
    assert_eq!(second["status"], "updated");
    assert_eq!(first["id"], second["id"]);
    let scope = memory.scope("assistant", "alice").unwrap();
    let stored = scope.list(&ListRequest::all()).await.unwrap();
    assert_eq!(stored.len(), 1);
    // Provenance: the entry says it was written by the model through the tool.
    assert_eq!(stored[0].metadata["source"], "model (memory_save tool)");
    // auto_tag (on by default): rule-based tags from the content.
    assert!(
        stored[0].tags.contains(&"concise".to_owned()),
        "{:?}",
        stored[0].tags
    );
}

#[tokio::test]
async fn update_and_delete_own_memory_work_and_missing_fields_fail_clearly() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let scope = memory.scope("assistant", "alice").unwrap();
    let id = scope
        .save(NewMemory::new(
            MemoryType::Project,
            "sprint",
            "Sprint ends Friday",
        ))
        .await
        .unwrap()
        .entry
        .id;
    let provider = Arc::new(MockProvider::new());
    let mut s = session(&provider, &memory, "assistant", Some("alice"));
    let update = format!(
        r#"{{"action":"update","id":{id},"name":"sprint","type":"project","content":"Sprint ends Monday"}}"#
    );
    run(&mut s, &provider, "memory_save", &update).await;
    assert_eq!(
        scope.get(id).await.unwrap().unwrap().content,
        "Sprint ends Monday"
    );
    run(
        &mut s,
        &provider,
        "memory_save",
        r#"{"action":"update","name":"n","type":"user"}"#,
    )
    .await;
    run(
        &mut s,
        &provider,
        "memory_save",
        r#"{"action":"create","name":"n","type":"user"}"#,
    )
    .await;
    let delete = format!(r#"{{"action":"delete","id":{id},"name":"sprint","type":"project"}}"#);
    run(&mut s, &provider, "memory_save", &delete).await;
    let results = tool_results(&s);
    assert!(results[1].contains("`id` is required"), "{}", results[1]);
    assert!(
        results[2].contains("`content` is required"),
        "{}",
        results[2]
    );
    let deleted: serde_json::Value = serde_json::from_str(&results[3]).unwrap();
    assert_eq!(deleted, serde_json::json!({"status": "deleted", "id": id}));
    assert!(scope.get(id).await.unwrap().is_none());
}

#[tokio::test]
async fn tools_without_a_user_id_fail_with_a_clear_error() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let provider = Arc::new(MockProvider::new());
    let mut s = session(&provider, &memory, "assistant", None);
    run(&mut s, &provider, "memory_recall", r#"{"query":"tea"}"#).await;
    let args = r#"{"action":"create","name":"x","type":"user","content":"something"}"#;
    run(&mut s, &provider, "memory_save", args).await;
    for result in tool_results(&s) {
        assert!(result.contains("needs a user id"), "{result}");
    }
    assert!(memory.scopes().await.unwrap().is_empty());
}
