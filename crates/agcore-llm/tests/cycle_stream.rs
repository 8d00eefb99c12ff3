//! `LlmCycle::submit_stream`: events, tool loop, and equality with `submit`.
#![cfg(test)]

use crate::cycle_support;

use std::sync::Arc;

use agcore_llm::types::{ChatResponse, FinishReason, ToolCall, Usage};
use agcore_llm::{
    CycleConfig, CycleEvent, LlmCycle, LlmError, MockProvider, RetryPolicy, StreamEvent,
};
use cycle_support::TestTools;
use futures::StreamExt;

fn script() -> MockProvider {
    let mock = MockProvider::new().with_model("m-1");
    let calls = vec![
        ToolCall::new(mock.call_id(), "add", r#"{"a": 1, "b": 2}"#),
        ToolCall::new(mock.call_id(), "fail_soft", "{}"),
    ];
    mock.push_tool_calls(calls)
        .push_text_with_usage("Three, 你好.", Usage::new(50, 7))
}

async fn collect(cycle: &mut LlmCycle, input: &str) -> Vec<Result<CycleEvent, LlmError>> {
    cycle.submit_stream(input).collect().await
}

#[tokio::test]
async fn streamed_cycle_equals_submit_for_the_same_script() {
    let plain_mock = Arc::new(script());
    let mut plain = LlmCycle::new_with_arc(plain_mock.clone(), CycleConfig::new("m"))
        .with_tools(Arc::new(TestTools::new()));
    let expected = plain.submit("add").await.unwrap();

    let stream_mock = Arc::new(script());
    let mut streamed = LlmCycle::new_with_arc(stream_mock.clone(), CycleConfig::new("m"))
        .with_tools(Arc::new(TestTools::new()));
    let events = collect(&mut streamed, "add").await;
    let events: Vec<CycleEvent> = events.into_iter().map(Result::unwrap).collect();

    let responses: Vec<&ChatResponse> = events
        .iter()
        .filter_map(|e| match e {
            CycleEvent::ResponseComplete(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(responses.len(), 2);
    assert_eq!(*responses[1], expected);
    assert_eq!(streamed.messages(), plain.messages());
    assert_eq!(streamed.usage(), plain.usage());

    // Text arrived as deltas; tool results arrived in call order.
    let text: String = events.iter().filter_map(CycleEvent::text_delta).collect();
    assert_eq!(text, "Three, 你好.");
    let results: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match e {
            CycleEvent::ToolResult { call, is_error, .. } => Some((call.id.clone(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        vec![("call_1".to_owned(), false), ("call_2".to_owned(), true)]
    );
    // The ResponseComplete of the final answer is the last event.
    assert!(
        matches!(events.last(), Some(CycleEvent::ResponseComplete(r)) if r.text() == "Three, 你好.")
    );

    // Requests: streamed ones ask for a stream with usage, otherwise identical.
    let a = plain_mock.requests();
    let b = stream_mock.requests();
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(y.stream, Some(true));
        assert_eq!(y.stream_options.as_ref().unwrap().include_usage, Some(true));
        assert_eq!(x.messages, y.messages);
    }
}

const SSE_BODY: &str = concat!(
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
    ": keep-alive\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"你好,\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

#[tokio::test]
async fn raw_sse_scripts_at_any_chunking_give_the_same_answer() {
    let mut answers = Vec::new();
    for chunk_size in [0, 1, 2, 3, 7, 64] {
        let mock = Arc::new(
            MockProvider::new()
                .push_sse(SSE_BODY, chunk_size)
                .push_sse(SSE_BODY, chunk_size),
        );
        let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("m"));
        let streamed: Vec<CycleEvent> = collect(&mut cycle, "hi")
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let Some(CycleEvent::ResponseComplete(folded)) = streamed.last() else {
            panic!("no final response");
        };
        let plain = cycle.submit("again").await.unwrap();
        assert_eq!(*folded, plain, "chunk size {chunk_size}");
        assert_eq!(plain.text(), "你好, world");
        assert_eq!(plain.id, "chatcmpl-1");
        answers.push(plain);
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
}

#[tokio::test]
async fn truncated_stream_is_an_error_not_a_partial_answer() {
    let cut = SSE_BODY.find("\"finish_reason\":\"stop\"").unwrap() - 60;
    let mock = Arc::new(MockProvider::new().push_sse(&SSE_BODY.as_bytes()[..cut], 5));
    let mut cycle = LlmCycle::new_with_arc(
        mock,
        CycleConfig::new("m").with_retry(RetryPolicy::no_retry()),
    );
    let events = collect(&mut cycle, "hi").await;
    assert!(
        matches!(events.last(), Some(Err(LlmError::Stream(_)))),
        "{:?}",
        events.last()
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Ok(CycleEvent::ResponseComplete(_))))
    );
    assert_eq!(cycle.messages().len(), 1, "no partial answer is kept");
}

#[tokio::test]
async fn event_list_scripts_and_stream_open_retries() {
    let mock = Arc::new(
        MockProvider::new()
            .push_error(LlmError::Timeout(std::time::Duration::from_secs(1)))
            .push_events(vec![
                StreamEvent::AssistantTextDelta { text: "a".into() },
                StreamEvent::AssistantTextDelta { text: "b".into() },
                StreamEvent::TurnComplete {
                    reason: FinishReason::Length,
                },
            ]),
    );
    let policy = RetryPolicy::new(2).with_base_delay(std::time::Duration::from_millis(1));
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("m").with_retry(policy));
    let events: Vec<CycleEvent> = collect(&mut cycle, "hi")
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(mock.request_count(), 2);
    let Some(CycleEvent::ResponseComplete(r)) = events.last() else {
        panic!("no final response");
    };
    assert_eq!(r.text(), "ab");
    assert_eq!(r.finish_reason(), Some(&FinishReason::Length));
}
