//! `ChatAgent`, the front door: defaults, one conversation across `chat`
//! calls, streaming, sessions per user, long-term memory wiring, tools, and
//! the errors of a misconfigured builder.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::{AgentError, AgentEvent, ChatAgent, DEFAULT_AGENT_NAME, LongTermOptions};
use agcore_llm::MockProvider;
use agcore_memory::long_term::{ListRequest, LongTermMemory};
use agcore_tools::{FnTool, ToolContext, ToolError};
use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

async fn add(x: Add, _ctx: ToolContext) -> Result<i64, ToolError> {
    Ok(x.a + x.b)
}

fn add_tool() -> impl agcore_tools::IntoTool {
    FnTool::new("add", "Adds two integers.", add)
}

#[tokio::test]
async fn chat_continues_one_conversation_with_the_defaults() {
    let model = Arc::new(MockProvider::new().push_text("Hello.").push_text("Bye."));
    let agent = ChatAgent::builder()
        .shared_provider(model.clone())
        .instructions("Answer in one word.")
        .build()
        .await
        .unwrap();
    assert_eq!(agent.agent().name(), DEFAULT_AGENT_NAME);
    assert_eq!(agent.user_id(), "default");
    assert!(agent.bundle().tool_registry.is_empty());
    assert!(agent.long_term_memory().is_none());

    assert_eq!(agent.chat("Hi").await.unwrap(), "Hello.");
    assert_eq!(agent.chat("Go").await.unwrap(), "Bye.");
    let requests = model.requests();
    // The second request carries the first exchange and the agent's instructions.
    let second = &requests[1];
    assert_eq!(
        second.model, "",
        "no model named: the provider's default is used"
    );
    let texts: Vec<String> = second.messages.iter().map(|m| m.text()).collect();
    assert!(texts[0].contains("Answer in one word."), "{texts:?}");
    assert_eq!(&texts[1..], ["Hi", "Hello.", "Go"]);

    // reset starts afresh.
    agent.reset().await.unwrap();
    assert!(agent.history().await.is_empty());
}

#[tokio::test]
async fn tools_run_and_the_stream_shows_them() {
    let model = MockProvider::new()
        .push_tool_call("add", r#"{"a": 40, "b": 2}"#)
        .push_text("42");
    let agent = ChatAgent::builder()
        .provider(model)
        .model("small-model")
        .tool(add_tool())
        .build()
        .await
        .unwrap();
    let events: Vec<AgentEvent> = agent
        .chat_stream("What is 40 + 2?")
        .map(|e| e.unwrap())
        .collect()
        .await;
    let tool_output = events.iter().find_map(|e| match e {
        AgentEvent::Cycle(agcore_llm::CycleEvent::ToolResult { message, .. }) => {
            Some(message.text())
        }
        _ => None,
    });
    assert_eq!(tool_output.as_deref(), Some("42"));
    match events.last() {
        Some(AgentEvent::TurnCompleted { response, .. }) => {
            assert_eq!(response.text(), "42");
        }
        other => panic!("the stream must end with TurnCompleted, got {other:?}"),
    }
    assert_eq!(agent.history().await.len(), 4);
}

#[tokio::test]
async fn long_term_memory_is_scoped_to_agent_and_user() {
    let model = MockProvider::new()
        .push_tool_call(
            "memory_save",
            r#"{"action":"create","type":"user","name":"home","content":"The user lives in Lyon","description":"where the user lives"}"#,
        )
        .push_text("Noted.");
    let agent = ChatAgent::builder()
        .provider(model)
        .name("travel")
        .user("alice")
        .long_term(LongTermOptions::new().extraction(false))
        .build()
        .await
        .unwrap();
    for tool in ["memory_save", "memory_recall"] {
        assert!(agent.bundle().tool_registry.contains(tool), "{tool}");
    }
    assert_eq!(agent.chat("I live in Lyon.").await.unwrap(), "Noted.");
    agent.finish().await.unwrap();

    let memory = agent.long_term_memory().unwrap();
    let alice = memory.scope("travel", "alice").unwrap();
    let saved = alice.list(&ListRequest::all()).await.unwrap();
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].content, "The user lives in Lyon");
    let bob = memory.scope("travel", "bob").unwrap();
    assert!(bob.search("Lyon", 5).await.unwrap().is_empty());
    assert_eq!(agent.session("bob").unwrap().user_id(), Some("bob"));
    assert!(agent.session("").is_err());
    assert!(agent.session("bob\u{200b}").is_err());
}

#[tokio::test]
async fn finish_extracts_the_turns_left_in_the_buffer() {
    let facts = r#"{"facts": [{"content": "The user lives in Lyon", "type": "user", "tags": [], "confidence": 0.9, "replace": null}]}"#;
    let agent = ChatAgent::builder()
        .provider(MockProvider::new().push_text("Noted."))
        .long_term(
            LongTermOptions::new()
                .extract_every(5)
                .extraction_provider(Arc::new(MockProvider::new().push_text(facts))),
        )
        .build()
        .await
        .unwrap();
    agent.chat("I live in Lyon.").await.unwrap();
    let report = agent
        .finish()
        .await
        .unwrap()
        .expect("the last turn was extracted");
    assert_eq!(report.turns, 1);
    let scope = agent
        .long_term_memory()
        .unwrap()
        .scope(DEFAULT_AGENT_NAME, "default")
        .unwrap();
    assert_eq!(scope.list(&ListRequest::all()).await.unwrap().len(), 1);
}

#[tokio::test]
async fn opened_storage_persists_across_agents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let save = MockProvider::new()
        .push_tool_call(
            "memory_save",
            r#"{"action":"create","type":"user","name":"style","content":"Short answers","description":"reply style"}"#,
        )
        .push_text("Noted.");
    let open = {
        let path = path.clone();
        move || {
            let path = path.clone();
            async move {
                let backend = agcore_memory_sqlite::SqliteLongTerm::open(&path).await?;
                Ok(agcore_memory::Storage::in_memory().with_long_term(Arc::new(backend)))
            }
        }
    };
    let first = ChatAgent::builder()
        .provider(save)
        .open_storage(open())
        .long_term(LongTermOptions::new().extraction(false))
        .build()
        .await
        .unwrap();
    first.chat("Keep it short.").await.unwrap();
    first.finish().await.unwrap();
    first.long_term_memory().unwrap().close().await.unwrap();
    drop(first);

    let second = ChatAgent::builder()
        .provider(MockProvider::new())
        .open_storage(open())
        .build()
        .await
        .unwrap();
    let memory = second.long_term_memory().unwrap();
    let found = memory
        .scope(DEFAULT_AGENT_NAME, "default")
        .unwrap()
        .search("short answers", 5)
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
}

#[tokio::test]
async fn misconfigured_builders_fail_with_clear_errors() {
    let err = ChatAgent::builder().build().await.unwrap_err();
    assert!(
        matches!(&err, AgentError::Config(m) if m.contains("provider")),
        "{err}"
    );

    let err = ChatAgent::builder()
        .provider(MockProvider::new())
        .tool(add_tool())
        .tool(add_tool())
        .build()
        .await
        .unwrap_err();
    assert!(matches!(err, AgentError::Tool(_)), "{err}");

    let ready = LongTermMemory::new(agcore_memory::long_term::InMemoryLongTerm::new());
    let embedder = Arc::new(agcore_llm::embedding::HashingEmbedder::new(64));
    let err = ChatAgent::builder()
        .provider(MockProvider::new())
        .long_term_memory(ready)
        .embedder(embedder, Default::default())
        .build()
        .await
        .unwrap_err();
    assert!(matches!(err, AgentError::Config(_)), "{err}");

    let err = ChatAgent::builder()
        .provider(MockProvider::new())
        .open_storage(async {
            Err(agcore_memory::MemoryError::InvalidInput(
                "no such backend".into(),
            ))
        })
        .build()
        .await
        .unwrap_err();
    assert!(matches!(err, AgentError::Memory(_)), "{err}");
}

#[tokio::test]
async fn an_embedder_makes_recall_hybrid() {
    let embedder = Arc::new(agcore_llm::embedding::HashingEmbedder::new(64));
    let agent = ChatAgent::builder()
        .provider(MockProvider::new())
        .embedder(embedder, Default::default())
        .build()
        .await
        .unwrap();
    let memory = agent.long_term_memory().unwrap();
    assert!(memory.dense_index().is_some());
}

#[cfg(feature = "mcp")]
#[tokio::test]
async fn mcp_server_tools_are_registered_and_called() {
    let Some(command) = agcore_memory_testkit::service_url("AGCORE_TEST_MCP_STDIO_CMD") else {
        return;
    };
    let model = MockProvider::new()
        .push_tool_call("everything__echo", r#"{"message": "ping from the agent"}"#)
        .push_text("done");
    let agent = ChatAgent::builder()
        .provider(model)
        .mcp_server(agcore_tools::McpServerConfig::stdio(
            "everything",
            command,
            Vec::<String>::new(),
        ))
        .build()
        .await
        .unwrap();
    assert_eq!(agent.mcp_clients().len(), 1);
    assert_eq!(agent.chat("Echo something.").await.unwrap(), "done");
    let history = agent.history().await;
    let tool_result = history
        .iter()
        .find(|m| m.role == agcore_types::Role::Tool)
        .map(|m| m.text())
        .unwrap();
    assert!(tool_result.contains("ping from the agent"), "{tool_result}");
}
