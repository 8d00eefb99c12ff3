//! The hostile corpus through summary compaction and attachments (see
//! `untrusted_paths` for the other paths and the checks).
#![cfg(test)]

use std::path::Path;
use std::sync::Arc;

use agcore_agent::attach::{
    AttachConfig, ConfigFormat, MemoryManager, MemoryStoreRegistry, StoreContext,
};
use agcore_agent::{AgentSession, SimpleAgent};
use agcore_llm::MockProvider;
use agcore_llm::MockResponse;
use agcore_llm::compact::{CompactConfig, summarize};
use agcore_prompt::untrusted::hostile_corpus;
use agcore_types::{ChatMessage, ChatResponse, FinishReason};

use crate::untrusted_paths::{assert_no_hostile_line, builder, quoted};

#[tokio::test]
async fn summary_compaction_quotes_the_transcript() {
    let provider = MockProvider::new().push_text(hostile_corpus().join("\n"));
    let mut messages = vec![ChatMessage::system("BASE")];
    for attack in hostile_corpus() {
        messages.push(ChatMessage::user(attack.clone()));
        messages.push(ChatMessage::assistant(attack));
    }
    messages.push(ChatMessage::user("latest"));
    let mut config = CompactConfig::default();
    config.keep_recent = 1;
    summarize(&provider, "m", &mut messages, &config)
        .await
        .unwrap();
    let request = &provider.requests()[0];
    assert_eq!(request.messages.len(), 2);
    let transcript = request.messages[1].text();
    assert_no_hostile_line("compaction transcript", &transcript);
    assert!(!transcript.contains('<'), "{transcript}");
    assert!(!request.messages[0].text().contains("green tea"));
    // The summary, written by the model from that text, comes back quoted.
    let summary = messages[1].text();
    assert_no_hostile_line("summary message", &summary);
    assert!(!summary.contains('<'), "{summary}");
    assert_eq!(
        quoted(&summary),
        hostile_corpus().join("\n").replace("\r\n", "\n")
    );
}

#[tokio::test]
async fn attachments_quote_stored_turns() {
    let out = tempfile::tempdir().unwrap();
    let yaml = format!(
        "memory:\n  stores:\n    - {{name: chat, type: simple, config: {{memory_path: '{}'}}}}\nagents:\n  - name: assistant\n    memories:\n      - {{name: chat, retrieve_stage: [gen], write: true, top_k: 20}}\n",
        out.path().join("chat.json").display(),
    );
    let config =
        AttachConfig::parse(&yaml, ConfigFormat::Yaml, Some(Path::new("agents.yaml"))).unwrap();
    let manager = Arc::new(
        MemoryManager::from_config(
            &config,
            "assistant",
            &MemoryStoreRegistry::with_builtins(),
            &StoreContext::default(),
        )
        .await
        .unwrap(),
    );
    let provider = Arc::new(MockProvider::new());
    let corpus = hostile_corpus();
    for attack in &corpus {
        provider.enqueue(MockResponse::Response(ChatResponse::from_message(
            "m",
            ChatMessage::assistant(attack.clone()),
            FinishReason::Stop,
        )));
    }
    provider.enqueue(MockResponse::Response(ChatResponse::from_message(
        "m",
        ChatMessage::assistant("ok"),
        FinishReason::Stop,
    )));
    let bundle = builder(&provider)
        .memory_attachments(Arc::clone(&manager))
        .build()
        .unwrap();
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle);
    for attack in &corpus {
        session.submit_turn(attack.as_str()).await.unwrap();
    }
    session.submit_turn("green tea").await.unwrap();
    let requests = provider.requests();
    let system = requests.last().unwrap().messages[0].text();
    assert!(
        system.contains("green tea"),
        "the stored turns are attached: {system}"
    );
    assert_no_hostile_line("attachment block", &system);
    assert_eq!(system.matches("<memory-context>").count(), 1, "{system}");
    assert_eq!(system.matches("</memory-context>").count(), 1, "{system}");
}
