#![cfg(test)]
//! `decode_sse` on recorded and hand-written streams: event order, tool-call
//! assembly, truncation, keep-alive comments, CRLF, in-stream errors,
//! malformed chunks and transport errors. Folding equivalence is in
//! `sse_fold_equivalence.rs`, byte-split invariance in `sse_byte_splits.rs`.

use crate::sse_support;

use agcore_llm::types::FinishReason;
use agcore_llm::{LlmError, StreamEvent, decode_sse, fold_stream};
use sse_support::{block_on, decode, fixture, fold_bytes};

#[test]
fn text_stream_event_order() {
    let events: Vec<StreamEvent> = decode(&fixture("openai_text.sse"))
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert!(
        matches!(&events[0], StreamEvent::Metadata(m) if m.id == "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG")
    );
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::AssistantTextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        ["Hello", "!", " 你好", "，世界", "。 How can I help 🙂?"]
    );
    let n = events.len();
    assert!(matches!(&events[n - 2], StreamEvent::Usage(u) if u.total_tokens == 31));
    assert_eq!(
        events[n - 1],
        StreamEvent::TurnComplete {
            reason: FinishReason::Stop
        }
    );
}

#[test]
fn tool_call_events_are_assembled_by_index() {
    let events: Vec<StreamEvent> = decode(&fixture("openai_tool_calls.sse"))
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let starts: Vec<(u32, &str)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallStart { index, name, .. } => Some((*index, name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [(0, "get_weather"), (1, "get_local_time")]);
    let mut args = ["".to_owned(), "".to_owned()];
    for e in &events {
        if let StreamEvent::ToolCallArgumentsDelta { index, arguments } = e {
            args[*index as usize].push_str(arguments);
        }
    }
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallEnd { call, .. } => Some(call.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2);
    assert_eq!(ends[0].function.arguments, args[0]);
    assert_eq!(
        ends[1].parse_arguments::<serde_json::Value>().unwrap()["city"],
        "東京"
    );
    // Every end comes before usage and the final event.
    let last_end = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::ToolCallEnd { .. }))
        .unwrap();
    let usage = events
        .iter()
        .position(|e| matches!(e, StreamEvent::Usage(_)))
        .unwrap();
    assert!(last_end < usage);
    assert!(matches!(
        events.last(),
        Some(StreamEvent::TurnComplete {
            reason: FinishReason::ToolCalls
        })
    ));
}

#[test]
fn truncated_stream_is_an_error_not_a_partial_success() {
    let full = fixture("openai_text.sse");
    let text = String::from_utf8(full).unwrap();
    // Cut before the chunk carrying finish_reason.
    let cut = text.find("\"finish_reason\":\"stop\"").unwrap();
    let cut = text[..cut].rfind("data: ").unwrap();
    let items = decode(&text.as_bytes()[..cut]);
    let last = items.last().unwrap();
    assert!(
        matches!(last, Err(e) if e.contains("without a finish reason")),
        "{last:?}"
    );
    assert!(fold_bytes(&text.as_bytes()[..cut]).is_err());
    // `[DONE]` without a finish reason is no better.
    let mut with_done = text.as_bytes()[..cut].to_vec();
    with_done.extend_from_slice(b"data: [DONE]\n\n");
    assert!(matches!(fold_bytes(&with_done), Err(LlmError::Stream(_))));
}

#[test]
fn keep_alive_comments_multi_line_data_and_crlf() {
    let body = concat!(
        ": OPENROUTER PROCESSING\r\n\r\n",
        "event: ping\r\ndata: {}\r\n\r\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"created\":3,\r\n",
        "data:  \"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\nb\"},\"finish_reason\":null}]}\r\n\r\n",
        ":\n\n",
        "data:\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"created\":3,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
        "data: [DONE]\n\n",
        "data: this is never read\n\n",
    );
    let response = fold_bytes(body.as_bytes()).unwrap();
    assert_eq!(response.text(), "a\nb");
    assert_eq!(response.id, "x");
    assert_eq!(response.created, 3);
    assert_eq!(response.finish_reason(), Some(&FinishReason::Length));
}

#[test]
fn error_object_inside_the_stream_is_an_err() {
    let body = concat!(
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"},\"finish_reason\":null}]}\n\n",
        "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n",
    );
    let items = decode(body.as_bytes());
    assert!(matches!(&items[1], Ok(StreamEvent::AssistantTextDelta { text }) if text == "par"));
    assert!(matches!(items.last(), Some(Err(e)) if e.contains("The server had an error")));
    let err = fold_bytes(body.as_bytes()).unwrap_err();
    assert!(err.is_recoverable());

    let event_error = "event: error\ndata: {\"error\":{\"message\":\"maximum context length is 2048 tokens\",\"code\":\"context_length_exceeded\"}}\n\n";
    assert!(matches!(
        fold_bytes(event_error.as_bytes()),
        Err(LlmError::ContextLengthExceeded { .. })
    ));
}

#[test]
fn malformed_chunk_is_a_decode_error() {
    let body = "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}\n\n";
    assert!(matches!(
        fold_bytes(body.as_bytes()),
        Err(LlmError::Decode { .. })
    ));
    let not_utf8 = b"data: {\"id\":\"\xff\xfe\"}\n\n";
    assert!(fold_bytes(not_utf8).is_err());
}

#[test]
fn transport_error_is_passed_through() {
    let parts = vec![
        Ok(b"data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[]}\n\n".to_vec()),
        Err(LlmError::Timeout(std::time::Duration::from_secs(5))),
    ];
    let result = block_on(fold_stream(decode_sse(futures::stream::iter(parts))));
    assert!(matches!(result, Err(LlmError::Timeout(_))));
}
