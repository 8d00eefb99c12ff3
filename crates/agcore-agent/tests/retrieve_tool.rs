//! The `retrieve` tool: registered when the bundle has a retriever, it
//! searches knowledge pages and memories and returns scored hits.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, SimpleAgent};
use agcore_llm::{HookExecutor, MockProvider};
use agcore_memory::retriever::{MemoryRetriever, RetrieverConfig};
use agcore_memory::{InMemoryStore, KnowledgePage, KnowledgeStore, MemoryItem, MemoryStore};
use agcore_tools::ToolRegistry;

#[tokio::test]
async fn retrieve_tool_returns_scored_pages_and_memories() {
    let knowledge = Arc::new(KnowledgeStore::new(Arc::new(InMemoryStore::new())));
    knowledge
        .add_page(KnowledgePage::new(
            "postgres-tenancy",
            "PostgreSQL multi-tenancy",
            "One schema per tenant",
            "Each tenant gets its own PostgreSQL schema; migrations run per schema.",
        ))
        .await
        .unwrap();
    knowledge
        .add_page(KnowledgePage::new(
            "redis-cache",
            "Redis caching",
            "TTL keys",
            "Cache sessions in Redis with a TTL.",
        ))
        .await
        .unwrap();
    let memories: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    memories
        .save(MemoryItem::new("m1", "用户偏好使用 PostgreSQL 数据库"))
        .await
        .unwrap();
    let retriever = Arc::new(
        MemoryRetriever::new(RetrieverConfig::default())
            .with_knowledge_store(knowledge)
            .with_memory_store(Arc::clone(&memories)),
    );
    let provider = Arc::new(
        MockProvider::new()
            .push_tool_call("retrieve", r#"{"query": "PostgreSQL tenant schema"}"#)
            .push_tool_call("retrieve", r#"{"query": "PostgreSQL 数据库"}"#)
            .push_text("Use a schema per tenant."),
    );
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(HookExecutor::new()))
        .retriever(retriever)
        .config(AgentConfig::new("m"))
        .build()
        .unwrap();
    assert!(bundle.tool_registry.contains("retrieve"));
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("a")), bundle);
    session
        .submit_turn("How should tenants be stored?")
        .await
        .unwrap();

    let hits: serde_json::Value = serde_json::from_str(&session.history()[2].text()).unwrap();
    let hits = hits.as_array().unwrap();
    assert_eq!(hits[0]["id"], "postgres-tenancy", "{hits:?}");
    assert_eq!(hits[0]["kind"], "page");
    assert!(hits[0]["score"].as_f64().unwrap() > 0.0);
    assert!(
        hits.iter().all(|h| h["id"] != "redis-cache"),
        "unrelated page filtered: {hits:?}"
    );
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {scores:?}"
    );

    let chinese: serde_json::Value = serde_json::from_str(&session.history()[4].text()).unwrap();
    assert!(
        chinese
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == "m1" && h["kind"] == "memory"),
        "{chinese:?}"
    );
    let requests = provider.requests();
    assert!(requests[0].tools.iter().any(|t| t.name() == "retrieve"));
}
