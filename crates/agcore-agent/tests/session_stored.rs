//! `AgentSession::from_conversation`: a session kept in a
//! `ConversationMemory` — its turns stored as they commit, a later session
//! created from the stored conversation sending them again.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, SimpleAgent};
use agcore_llm::MockProvider;
use agcore_memory::{ConversationMemory, InMemoryStore, MemoryStore, list_conversations};
use agcore_tools::{FnTool, ToolContext, ToolError};
use agcore_types::Role;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Echo {
    text: String,
}

async fn echo(args: Echo, _ctx: ToolContext) -> Result<String, ToolError> {
    Ok(args.text)
}

fn conversation(store: &Arc<dyn MemoryStore>, config: &AgentConfig) -> ConversationMemory {
    ConversationMemory::new(Arc::clone(store), "c1", config.conversation_config())
        .unwrap()
        .with_owner("helper", "alice")
}

#[tokio::test]
async fn a_session_resumes_from_its_stored_conversation() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    let provider = Arc::new(
        MockProvider::new()
            .push_tool_call("echo", r#"{"text": "喵"}"#)
            .push_text("好名字！")
            .push_text("它叫小花。"),
    );
    let echo = FnTool::new("echo", "Echoes the text.", echo);
    let config = AgentConfig::new("m").with_max_history(50);
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .tool(echo)
        .config(config.clone())
        .build()
        .unwrap();
    let agent = Arc::new(SimpleAgent::new("helper"));

    let mut first = AgentSession::from_conversation(
        conversation(&store, &config),
        agent.clone(),
        Arc::clone(&bundle),
    )
    .await
    .unwrap();
    assert_eq!(first.session_id(), "c1");
    assert!(first.history().is_empty());
    first.submit_turn("我的猫叫小花").await.unwrap();
    assert_eq!(
        first.history().len(),
        4,
        "user, tool call, tool result, answer"
    );
    drop(first);

    let stored = conversation(&store, &config);
    assert_eq!(stored.get_history().await.unwrap().len(), 4);
    let info = stored.info().await.unwrap().unwrap();
    assert_eq!(
        (info.turns, info.first_user_line.as_str()),
        (1, "我的猫叫小花")
    );

    let mut second = AgentSession::from_conversation(stored, agent, bundle)
        .await
        .unwrap();
    assert_eq!(second.turn_index(), 1);
    assert_eq!(second.history().len(), 4);
    second.submit_turn("它叫什么？").await.unwrap();
    let request = provider.requests().pop().unwrap();
    let texts: Vec<(Role, String)> = request
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| (m.role, m.text()))
        .collect();
    assert_eq!(texts.len(), 5, "{texts:?}");
    assert_eq!(texts[0], (Role::User, "我的猫叫小花".to_owned()));
    assert_eq!(texts[2].0, Role::Tool);
    assert_eq!(texts[3], (Role::Assistant, "好名字！".to_owned()));
    assert_eq!(texts[4], (Role::User, "它叫什么？".to_owned()));

    let listed = list_conversations(&store, "helper", "alice").await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].turns, 2);
    assert_eq!(
        second
            .conversation()
            .unwrap()
            .get_history()
            .await
            .unwrap()
            .len(),
        6
    );
}

#[tokio::test]
async fn a_resumed_history_is_cut_to_max_history_at_a_turn_start() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    let full = AgentConfig::new("m");
    let memory =
        ConversationMemory::new(Arc::clone(&store), "c2", full.conversation_config()).unwrap();
    for i in 0..4 {
        memory
            .add_message(agcore_types::ChatMessage::user(format!("q{i}")))
            .await
            .unwrap();
        memory
            .add_message(agcore_types::ChatMessage::assistant(format!("a{i}")))
            .await
            .unwrap();
    }
    let config = AgentConfig::new("m").with_max_history(3);
    let bundle = AgentBuilder::new()
        .provider(Arc::new(MockProvider::new()))
        .config(config)
        .build()
        .unwrap();
    let session = AgentSession::from_conversation(memory, Arc::new(SimpleAgent::new("a")), bundle)
        .await
        .unwrap();
    let texts: Vec<String> = session.history().iter().map(|m| m.text()).collect();
    assert_eq!(texts, ["q3", "a3"]);
    assert_eq!(session.turn_index(), 4);
}
