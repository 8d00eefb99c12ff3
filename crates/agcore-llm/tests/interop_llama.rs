#![cfg(test)]
#![allow(clippy::print_stdout)]
//! Interoperability with a real third-party OpenAI-compatible server: the
//! llama.cpp server of llama-cpp-python with SmolLM2-135M
//! (`scripts/services.sh start` exports the variables).
//!
//! The model is tiny: these tests check the protocol (shapes, streaming,
//! tool-call round trip, usage accounting), never the quality of answers.
#![cfg(feature = "openai")]

use agcore_llm::types::{ChatMessage, ChatRequest, FinishReason, Role, ToolChoice, ToolDefinition};
use agcore_llm::{
    LlmError, LlmProvider, OpenAiConfig, OpenAiProvider, RetryPolicy, StreamEvent, StreamFolder,
    retry,
};
use futures::StreamExt;

/// llama-cpp-python's server interrupts a running stream when another request
/// arrives (`interrupt_requests`, on by default): the interrupted stream ends
/// without a finish reason, which the decoder reports as a recoverable
/// `LlmError::Stream`. The tests here take turns, and streamed calls go
/// through the retry helper in case another process uses the server.
static SERVER_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn policy() -> RetryPolicy {
    RetryPolicy::new(3).with_base_delay(std::time::Duration::from_millis(200))
}

async fn collect(
    provider: &OpenAiProvider,
    request: &ChatRequest,
) -> Result<Vec<StreamEvent>, LlmError> {
    let mut stream = provider.chat_stream(request.clone()).await?;
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event?);
    }
    Ok(events)
}

/// The provider for the test server, or `None` (after printing why) when the
/// variables are unset and services are not required.
fn server() -> Option<OpenAiProvider> {
    let base = std::env::var("AGCORE_TEST_OPENAI_BASE_URL")
        .ok()
        .filter(|v| !v.is_empty());
    let Some(base) = base else {
        if std::env::var("AGCORE_REQUIRE_SERVICES").as_deref() == Ok("1") {
            panic!("AGCORE_TEST_OPENAI_BASE_URL is not set but AGCORE_REQUIRE_SERVICES=1");
        }
        println!("skipped: set AGCORE_TEST_OPENAI_BASE_URL (scripts/services.sh start)");
        return None;
    };
    let model = std::env::var("AGCORE_TEST_OPENAI_MODEL").unwrap_or_else(|_| "smollm2".to_owned());
    let config = OpenAiConfig::new(base)
        .with_default_model(model)
        .with_name("llama.cpp");
    Some(OpenAiProvider::new(config).unwrap())
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition::function(
        "get_weather",
        "Get the current weather for a city",
        serde_json::json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }),
    )
}

#[tokio::test]
async fn plain_chat() {
    let Some(provider) = server() else { return };
    let _turn = SERVER_TURN.lock().await;
    let request = ChatRequest::new(
        "",
        vec![
            ChatMessage::system("You are terse."),
            ChatMessage::user("Name three colours."),
        ],
    )
    .with_temperature(0.0)
    .with_max_tokens(32);
    let response = provider.chat(request).await.unwrap();
    let message = response.message().unwrap();
    assert_eq!(message.role, Role::Assistant);
    assert!(message.content.is_some());
    assert!(matches!(
        response.finish_reason(),
        Some(FinishReason::Stop | FinishReason::Length)
    ));
    let usage = response.usage.clone().unwrap();
    assert!(usage.prompt_tokens > 0 && usage.completion_tokens > 0);
    assert_eq!(
        usage.total_tokens,
        usage.prompt_tokens + usage.completion_tokens
    );
    assert_eq!(response.object, "chat.completion");
    assert!(!response.id.is_empty());
}

#[tokio::test]
async fn streamed_chat_folds_to_a_well_formed_response() {
    let Some(provider) = server() else { return };
    let _turn = SERVER_TURN.lock().await;
    let request = ChatRequest::new("", vec![ChatMessage::user("Count from one to five.")])
        .with_temperature(0.0)
        .with_max_tokens(40);
    let events = retry(&policy(), |_| collect(&provider, &request), |_, _, _| {})
        .await
        .unwrap();
    let mut folder = StreamFolder::new();
    for event in &events {
        folder.push(event);
    }
    assert!(matches!(events.first(), Some(StreamEvent::Metadata(m)) if !m.id.is_empty()));
    let last = events.last().unwrap();
    assert!(matches!(last, StreamEvent::TurnComplete { .. }), "{last:?}");
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, StreamEvent::TurnComplete { .. }))
            .count(),
        1
    );
    let streamed_text: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::AssistantTextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let response = folder.finish().unwrap();
    assert_eq!(response.text(), streamed_text);
    assert!(!streamed_text.is_empty());
    assert_eq!(response.message().unwrap().role, Role::Assistant);
    // Usage is accounted whenever the server sends it (this server may not).
    let usage_events: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Usage(u) => Some(u.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(response.usage, usage_events.last().cloned());
    if let Some(usage) = &response.usage {
        assert!(usage.prompt_tokens > 0);
    }
}

#[tokio::test]
async fn tool_call_round_trip() {
    let Some(provider) = server() else { return };
    let _turn = SERVER_TURN.lock().await;
    let mut messages = vec![ChatMessage::user("What is the weather in Paris?")];
    let request = ChatRequest::new("", messages.clone())
        .with_tools(vec![weather_tool()])
        .with_tool_choice(ToolChoice::function("get_weather"))
        .with_temperature(0.0)
        .with_max_tokens(200);
    // Streamed: exercises the server's repeated-fragment tool-call chunks.
    let response = retry(
        &policy(),
        |_| async { agcore_llm::fold_stream(provider.chat_stream(request.clone()).await?).await },
        |_, _, _| {},
    )
    .await
    .unwrap();
    assert_eq!(response.finish_reason(), Some(&FinishReason::ToolCalls));
    let assistant = response.message().unwrap().clone();
    assert_eq!(assistant.tool_calls.len(), 1);
    let call = &assistant.tool_calls[0];
    assert_eq!(call.name(), "get_weather");
    assert!(!call.id.is_empty());
    let arguments = call.arguments_json().unwrap();
    assert!(arguments.is_object(), "{arguments}");

    // Send the result back; the assistant message has `content: null` here and
    // goes out as `content: ""`, which this server requires.
    assert_eq!(assistant.content, None);
    messages.push(assistant.clone());
    messages.push(ChatMessage::tool(
        call.id.clone(),
        r#"{"temperature_c": 18, "sky": "clear"}"#,
    ));
    let request = ChatRequest::new("", messages)
        .with_temperature(0.0)
        .with_max_tokens(48);
    let final_answer = provider.chat(request).await.unwrap();
    let message = final_answer.message().unwrap();
    assert_eq!(message.role, Role::Assistant);
    assert!(message.tool_calls.is_empty());
    assert!(matches!(
        final_answer.finish_reason(),
        Some(FinishReason::Stop | FinishReason::Length)
    ));
    assert!(final_answer.usage.unwrap().prompt_tokens > 0);
}

#[tokio::test]
async fn unknown_route_is_a_clear_error() {
    let Some(provider) = server() else { return };
    let _turn = SERVER_TURN.lock().await;
    let base = provider
        .config()
        .base_url
        .trim_end_matches("/v1")
        .to_owned();
    let wrong = OpenAiProvider::new(
        OpenAiConfig::new(format!("{base}/no-such-prefix")).with_default_model("smollm2"),
    )
    .unwrap();
    let err = wrong
        .chat(ChatRequest::new("", vec![ChatMessage::user("hi")]))
        .await
        .unwrap_err();
    assert!(!err.is_recoverable(), "{err:?}");
}
