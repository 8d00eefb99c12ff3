//! `MockProvider`: scripts, recording, exhaustion.
#![cfg(test)]

use std::sync::Arc;

use agcore_llm::types::{ChatMessage, ChatRequest, FinishReason};
use agcore_llm::{LlmError, LlmProvider, MockProvider, MockResponse, StreamEvent, fold_stream};
use futures::StreamExt;

fn request(text: &str) -> ChatRequest {
    ChatRequest::new("model-x", vec![ChatMessage::user(text)])
}

#[tokio::test]
async fn answers_in_order_and_records_requests() {
    let mock = MockProvider::new()
        .push_text("one")
        .push_tool_call("lookup", r#"{"k":1}"#)
        .push_error(LlmError::RateLimit {
            retry_after: None,
            message: "slow".into(),
        });
    let first = mock.chat(request("a")).await.unwrap();
    assert_eq!(first.text(), "one");
    assert_eq!(first.model, "model-x");
    let second = mock.chat(request("b")).await.unwrap();
    let call = &second.message().unwrap().tool_calls[0];
    assert_eq!((call.id.as_str(), call.name()), ("call_1", "lookup"));
    assert_eq!(second.finish_reason(), Some(&FinishReason::ToolCalls));
    assert!(matches!(
        mock.chat(request("c")).await,
        Err(LlmError::RateLimit { .. })
    ));

    let err = mock.chat(request("d")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Config(ref m) if m.contains("script exhausted") && m.contains("#4")),
        "{err}"
    );
    let texts: Vec<String> = mock
        .requests()
        .iter()
        .map(|r| r.messages[0].text())
        .collect();
    assert_eq!(texts, vec!["a", "b", "c", "d"]);
    assert_eq!(mock.remaining(), 0);
}

#[tokio::test]
async fn streams_scripted_responses_and_sse() {
    let body = "data: {\"id\":\"x\",\"model\":\"m\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"é\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"x\",\"model\":\"m\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    // Split inside the two-byte "é".
    let split = body.find('é').unwrap() + 1;
    let mock = Arc::new(
        MockProvider::new()
            .push_text("streamed")
            .push_sse_chunks(vec![
                body.as_bytes()[..split].to_vec(),
                body.as_bytes()[split..].to_vec(),
            ])
            .push(MockResponse::Events(vec![
                Ok(StreamEvent::AssistantTextDelta { text: "x".into() }),
                Err(LlmError::Stream("connection reset".into())),
            ])),
    );
    let provider: Arc<dyn LlmProvider> = mock.clone();
    let events: Vec<StreamEvent> = provider
        .chat_stream(request("a"))
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    assert!(events.contains(&StreamEvent::AssistantTextDelta {
        text: "streamed".into()
    }));
    assert!(matches!(
        events.last(),
        Some(StreamEvent::TurnComplete {
            reason: FinishReason::Stop
        })
    ));

    let folded = fold_stream(provider.chat_stream(request("b")).await.unwrap())
        .await
        .unwrap();
    assert_eq!(folded.text(), "é");
    assert_eq!(folded.id, "x");

    let err = fold_stream(provider.chat_stream(request("c")).await.unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Stream(_)));
    assert_eq!(mock.request_count(), 3);
}

#[tokio::test]
async fn shared_provider_can_be_extended_and_is_send_sync() {
    fn assert_send_sync<T: Send + Sync>(_: &T) {}
    let mock = Arc::new(
        MockProvider::new()
            .with_name("scripted")
            .with_model("fixed"),
    );
    assert_send_sync(&mock);
    assert_eq!(mock.name(), "scripted");
    mock.enqueue(MockResponse::Response(
        agcore_llm::types::ChatResponse::from_message(
            "",
            ChatMessage::assistant("late"),
            FinishReason::Stop,
        ),
    ));
    let handle = tokio::spawn({
        let mock = Arc::clone(&mock);
        async move { mock.chat(request("a")).await }
    });
    let response = handle.await.unwrap().unwrap();
    assert_eq!(response.text(), "late");
    assert_eq!(response.model, "fixed");
}
