//! The agent's recall paths with dense retrieval: prefetch into
//! `<memory-context>` and the `memory_recall` tool find a memory that shares
//! no word with the question, through `LongTermMemory::with_dense`.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore_llm::embedding::{EmbeddingBatch, EmbeddingModel, HashingEmbedder, InputKind};
use agcore_llm::{HookExecutor, LlmError, MockProvider, MockResponse};
use agcore_memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig};
use agcore_memory::long_term::{
    InMemoryLongTerm, InjectConfig, LongTermMemory, MemoryType, NewMemory,
};
use agcore_memory::vector::InMemoryVectors;
use agcore_tools::ToolRegistry;
use agcore_types::{ChatMessage, ChatResponse, FinishReason, Role, ToolCall};
use async_trait::async_trait;

const MEMORY: &str = "We drove to Brighton for the weekend";
const QUESTION: &str = "Where was our seaside trip?";

/// Texts mentioning Brighton or the seaside point one way; the rest hash words.
struct Meaning(HashingEmbedder);

#[async_trait]
impl EmbeddingModel for Meaning {
    fn model_id(&self) -> &str {
        "meaning-test"
    }
    fn dimensions(&self) -> usize {
        32
    }
    async fn embed(&self, texts: &[String], _: InputKind) -> Result<EmbeddingBatch, LlmError> {
        let vectors = texts
            .iter()
            .map(|t| {
                if t.contains("Brighton") || t.contains("seaside") {
                    let mut v = vec![0.0; 32];
                    v[7] = 1.0;
                    v
                } else {
                    // Orthogonal to the seaside direction.
                    let mut v = self.0.embed_one(t);
                    v[7] = 0.0;
                    agcore_llm::embedding::l2_normalize(&mut v);
                    v
                }
            })
            .collect();
        Ok(EmbeddingBatch {
            vectors,
            prompt_tokens: 0,
        })
    }
}

async fn memory() -> (LongTermMemory, Arc<DenseIndex>) {
    let model: Arc<dyn EmbeddingModel> = Arc::new(Meaning(HashingEmbedder::new(32)));
    let vectors = Arc::new(InMemoryVectors::new(model.space()));
    let dense = DenseIndex::new(model, vectors, EmbeddingQueueConfig::default()).unwrap();
    let memory = LongTermMemory::new(InMemoryLongTerm::new())
        .with_dense(Arc::clone(&dense), HybridConfig::default());
    let alice = memory.scope("assistant", "alice").unwrap();
    alice
        .save(NewMemory::new(MemoryType::User, "weekend", MEMORY))
        .await
        .unwrap();
    alice
        .save(NewMemory::new(
            MemoryType::User,
            "drink",
            "Alice drinks green tea",
        ))
        .await
        .unwrap();
    dense.flush().await;
    (memory, dense)
}

fn session(provider: &Arc<MockProvider>, memory: &LongTermMemory) -> AgentSession {
    let mut inject = InjectConfig::default();
    inject.first_round_empty = false;
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(HookExecutor::new()))
        .config(AgentConfig::new("m"))
        .long_term_memory(
            memory.clone(),
            LongTermOptions::new().extraction(false).inject(inject),
        )
        .build()
        .unwrap();
    AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle)
        .with_user_id("alice")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefetch_injects_a_memory_found_by_meaning() {
    let (memory, _dense) = memory().await;
    let provider = Arc::new(MockProvider::new().push_text("Brighton."));
    let mut s = session(&provider, &memory);
    s.submit_turn(QUESTION).await.unwrap();
    let system = provider.requests()[0].messages[0].text();
    assert!(system.contains("<memory-context>"), "{system}");
    assert!(
        system.contains(MEMORY),
        "the trip is recalled without a shared word: {system}"
    );
    assert!(
        !system.contains("green tea"),
        "an unrelated memory is not: {system}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_recall_finds_it_too() {
    let (memory, _dense) = memory().await;
    let provider = Arc::new(MockProvider::new());
    let call = ToolCall::new(
        provider.call_id(),
        "memory_recall",
        r#"{"query":"seaside trip"}"#,
    );
    provider.enqueue(MockResponse::Response(ChatResponse::from_message(
        "m",
        ChatMessage::assistant_tool_calls(vec![call]),
        FinishReason::ToolCalls,
    )));
    provider.enqueue(MockResponse::Response(ChatResponse::from_message(
        "m",
        ChatMessage::assistant("done"),
        FinishReason::Stop,
    )));
    let mut s = session(&provider, &memory);
    s.submit_turn("what do you remember?").await.unwrap();
    let results: Vec<String> = s
        .history()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.text())
        .collect();
    assert_eq!(results.len(), 1);
    assert!(results[0].contains("Brighton"), "{}", results[0]);
}
