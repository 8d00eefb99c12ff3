//! Agent turns against a third-party OpenAI emulator that injects faults
//! (`llmock` of npm `@copilotkit/aimock`, see `llm_mock_support`): bursts of
//! 500s, 429s with `Retry-After` and dropped connections are retried as the
//! retry policy says; malformed JSON, truncated streams and stalled streams
//! end the turn with a clean error, leave the history as it was and the
//! session usable; a failure after a tool ran leaves its memory whole and a
//! repeated turn does not double it. Every turn runs under a liveness
//! bound, so a stuck session fails the test.
#![cfg(test)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::llm_mock_support;

use std::sync::Arc;
use std::time::Duration;

use agcore_agent::{
    AgentBuilder, AgentConfig, AgentError, AgentSession, LongTermOptions, SimpleAgent,
};
use agcore_llm::{CycleConfig, LlmError, OpenAiConfig, OpenAiProvider, RetryPolicy};
use agcore_memory::long_term::{InMemoryLongTerm, ListRequest, LongTermMemory};
use futures::StreamExt;
use llm_mock_support::LlmMock;
use serde_json::{Value, json};

/// Longest any turn may take before the session counts as stuck.
const LIVENESS: Duration = Duration::from_secs(90);

/// A fixture pair: `memory_save` of `fact`, then a short answer.
fn fact_fixtures(tag: &str, fact: &str) -> Vec<Value> {
    let args = json!({"action": "create", "type": "user", "name": tag, "content": fact});
    vec![
        json!({"match": {"userMessage": format!("[{tag}]"), "hasToolResult": false},
               "response": {"toolCalls": [{"name": "memory_save", "arguments": args.to_string()}]}}),
        json!({"match": {"userMessage": format!("[{tag}]"), "hasToolResult": true},
               "response": {"content": format!("Saved {tag}.")}}),
    ]
}

fn catch_all() -> Value {
    json!({"match": {}, "response": {"content": "Hello! This answer is long enough to come in several streamed chunks."}})
}

fn session(
    mock: &LlmMock,
    memory: &LongTermMemory,
    retry: RetryPolicy,
    idle: Duration,
) -> AgentSession {
    let provider = OpenAiProvider::new(
        OpenAiConfig::new(mock.base_url())
            .with_default_model("gpt-4o")
            .with_request_timeout(Duration::from_secs(20))
            .with_stream_idle_timeout(idle),
    )
    .unwrap();
    let bundle = AgentBuilder::new()
        .provider(Arc::new(provider))
        .config(AgentConfig::new("gpt-4o").with_llm(CycleConfig::new("gpt-4o").with_retry(retry)))
        .long_term_memory(memory.clone(), LongTermOptions::new().extraction(false))
        .build()
        .unwrap();
    AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle)
        .with_user_id("alice")
        .unwrap()
}

async fn turn(session: &mut AgentSession, text: &str) -> Result<String, AgentError> {
    tokio::time::timeout(LIVENESS, session.submit_turn(text.to_owned()))
        .await
        .expect("the turn is stuck")
        .map(|r| r.text())
}

async fn memories(memory: &LongTermMemory) -> Vec<String> {
    let scope = memory.scope("assistant", "alice").unwrap();
    let mut contents: Vec<String> = scope
        .list(&ListRequest::all())
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.content)
        .collect();
    contents.sort();
    contents
}

fn patient() -> RetryPolicy {
    RetryPolicy::new(12)
        .with_base_delay(Duration::from_millis(10))
        .with_max_delay(Duration::from_millis(200))
        .with_max_retry_after(Duration::from_secs(2))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bursts_of_500_429_and_dropped_connections_are_retried() {
    let facts: Vec<(String, String)> = (0..16)
        .map(|n| {
            (
                format!("fact-{n:02}"),
                format!("Alice's locker number {n} is on floor {}", n % 4),
            )
        })
        .collect();
    let mut fixtures: Vec<Value> = facts
        .iter()
        .flat_map(|(t, f)| fact_fixtures(t, f))
        .collect();
    fixtures.push(catch_all());
    let Some(mock) = LlmMock::start(
        &json!({"fixtures": fixtures}),
        &[
            "--chaos-drop",
            "0.2",
            "--chaos-ratelimit",
            "0.1",
            "--chaos-disconnect",
            "0.1",
        ],
    ) else {
        return;
    };
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let mut session = session(&mock, &memory, patient(), Duration::from_secs(20));
    for (tag, _) in &facts {
        let answer = turn(&mut session, &format!("Please note this [{tag}]"))
            .await
            .unwrap();
        assert_eq!(answer, format!("Saved {tag}."));
    }
    // Each turn is two requests; the emulator saw more: the retries.
    let requests = mock.chat_requests();
    assert!(
        requests > 2 * facts.len(),
        "{requests} requests: no fault was injected"
    );
    let mut want: Vec<String> = facts.into_iter().map(|(_, f)| f).collect();
    want.sort();
    assert_eq!(
        memories(&memory).await,
        want,
        "every fact exactly once, whole"
    );
    // user, assistant (tool call), tool result, assistant per turn
    assert_eq!(session.history().len(), 16 * 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_is_a_clean_error_and_the_session_goes_on() {
    let fixtures = json!({"fixtures": [
        {"match": {"userMessage": "garbled"}, "response": {"content": "never sent"},
         "chaos": {"malformedRate": 1.0}},
        catch_all(),
    ]});
    let Some(mock) = LlmMock::start(&fixtures, &[]) else {
        return;
    };
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let mut session = session(&mock, &memory, patient(), Duration::from_secs(20));
    turn(&mut session, "hello").await.unwrap();
    let before = session.history().to_vec();
    let err = turn(&mut session, "a garbled answer please")
        .await
        .unwrap_err();
    assert!(
        matches!(err, AgentError::Llm(LlmError::Decode { .. })),
        "{err:?}"
    );
    assert_eq!(
        session.history(),
        before.as_slice(),
        "the failed turn left no trace"
    );
    assert!(
        turn(&mut session, "hello again")
            .await
            .unwrap()
            .starts_with("Hello!")
    );
}

/// Streams one turn; `Ok(text)` when it completed.
async fn stream_turn(session: &mut AgentSession, text: &str) -> Result<String, AgentError> {
    let mut stream = session.submit_turn_stream(text.to_owned());
    let run = async {
        let mut answer = None;
        while let Some(event) = stream.next().await {
            if let agcore_agent::AgentEvent::TurnCompleted { response, .. } = event? {
                answer = Some(response.text());
            }
        }
        answer.ok_or_else(|| AgentError::Other("the stream ended without completing".into()))
    };
    tokio::time::timeout(LIVENESS, run)
        .await
        .expect("the streamed turn is stuck")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_and_stalled_streams_end_the_turn_cleanly() {
    let fixtures = json!({"fixtures": [
        {"match": {"userMessage": "cut short"}, "response": {"content": "This answer is cut after two chunks of the stream, never finished."},
         "truncateAfterChunks": 2},
        {"match": {"userMessage": "slowly"}, "response": {"content": "Slow tokens, one chunk at a time, far apart."},
         "latency": 1500},
        catch_all(),
    ]});
    let Some(mock) = LlmMock::start(&fixtures, &["--chunk-size", "8"]) else {
        return;
    };
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let mut session = session(
        &mock,
        &memory,
        RetryPolicy::no_retry(),
        Duration::from_millis(500),
    );
    assert!(
        stream_turn(&mut session, "hello")
            .await
            .unwrap()
            .starts_with("Hello!")
    );
    let before = session.history().to_vec();
    let cut = stream_turn(&mut session, "cut short please")
        .await
        .unwrap_err();
    assert!(matches!(cut, AgentError::Llm(_)), "{cut:?}");
    assert_eq!(session.history(), before.as_slice());
    let stalled = stream_turn(&mut session, "answer slowly")
        .await
        .unwrap_err();
    assert!(
        matches!(
            stalled,
            AgentError::Llm(LlmError::Timeout(_) | LlmError::Stream(_))
        ),
        "{stalled:?}"
    );
    assert_eq!(session.history(), before.as_slice());
    assert!(
        stream_turn(&mut session, "hello again")
            .await
            .unwrap()
            .starts_with("Hello!")
    );
    // With a patient idle timeout the slow answer arrives whole.
    let mut patient_session = session_with_idle(&mock, &memory, Duration::from_secs(10));
    let slow = stream_turn(&mut patient_session, "answer slowly")
        .await
        .unwrap();
    assert_eq!(slow, "Slow tokens, one chunk at a time, far apart.");
}

fn session_with_idle(mock: &LlmMock, memory: &LongTermMemory, idle: Duration) -> AgentSession {
    session(mock, memory, RetryPolicy::no_retry(), idle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_after_a_tool_ran_leaves_whole_memory_and_no_duplicate() {
    let fact = "Alice's train leaves from platform 9 at 07:40";
    let args = json!({"action": "create", "type": "user", "name": "train", "content": fact});
    let fixtures = json!({"fixtures": [
        {"match": {"userMessage": "[train]", "hasToolResult": false},
         "response": {"toolCalls": [{"name": "memory_save", "arguments": args.to_string()}]}},
        // The first answer after the tool result fails; later ones work.
        {"match": {"userMessage": "[train]", "hasToolResult": true, "sequenceIndex": 0},
         "response": {"content": "never sent"}, "chaos": {"dropRate": 1.0}},
        {"match": {"userMessage": "[train]", "hasToolResult": true},
         "response": {"content": "Saved the train."}},
        catch_all(),
    ]});
    let Some(mock) = LlmMock::start(&fixtures, &[]) else {
        return;
    };
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let mut session = session(
        &mock,
        &memory,
        RetryPolicy::no_retry(),
        Duration::from_secs(20),
    );
    let err = turn(&mut session, "Remember my train [train]")
        .await
        .unwrap_err();
    assert!(
        matches!(err, AgentError::Llm(LlmError::Server { .. })),
        "{err:?}"
    );
    assert!(
        session.history().is_empty(),
        "the failed turn left no trace"
    );
    assert_eq!(
        memories(&memory).await,
        vec![fact.to_owned()],
        "the tool's write is whole"
    );
    // The user repeats the turn: the model saves the same fact again.
    assert_eq!(
        turn(&mut session, "Remember my train [train]")
            .await
            .unwrap(),
        "Saved the train."
    );
    assert_eq!(
        memories(&memory).await,
        vec![fact.to_owned()],
        "not doubled"
    );
}
