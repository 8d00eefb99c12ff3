#![cfg(test)]
//! `decode_sse` and folding on recorded streams: event sequences, equivalence
//! with the non-streamed response, byte-split invariance, SSE edge cases.

use agcore_llm::types::{ChatResponse, FinishReason};
use agcore_llm::{
    LlmError, StreamEvent, StreamFolder, decode_sse, events_from_response, fold_stream,
};
use futures::StreamExt;
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// Splits `bytes` at the given offsets (sorted, deduplicated, in range).
fn split_at(bytes: &[u8], cuts: &[usize]) -> Vec<Result<Vec<u8>, LlmError>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut parts = Vec::new();
    let mut start = 0;
    for cut in cuts {
        parts.push(Ok(bytes[start..cut].to_vec()));
        start = cut;
    }
    parts.push(Ok(bytes[start..].to_vec()));
    parts
}

/// All items of the decoded stream; an `Err` is kept as its text.
fn decode_parts(parts: Vec<Result<Vec<u8>, LlmError>>) -> Vec<Result<StreamEvent, String>> {
    block_on(
        decode_sse(futures::stream::iter(parts))
            .map(|item| item.map_err(|e| e.to_string()))
            .collect(),
    )
}

fn decode(bytes: &[u8]) -> Vec<Result<StreamEvent, String>> {
    decode_parts(vec![Ok(bytes.to_vec())])
}

fn fold_bytes(bytes: &[u8]) -> Result<ChatResponse, LlmError> {
    block_on(fold_stream(decode_sse(futures::stream::iter(vec![Ok::<
        _,
        LlmError,
    >(
        bytes.to_vec(),
    )]))))
}

/// The fields folding must reproduce (message `extra`, such as OpenAI's
/// `refusal`/`annotations`, and choice `logprobs` are not carried by events).
fn essentials(r: &ChatResponse) -> serde_json::Value {
    let choice = &r.choices[0];
    serde_json::json!({
        "id": r.id, "object": r.object, "created": r.created, "model": r.model,
        "system_fingerprint": r.system_fingerprint, "service_tier": r.service_tier,
        "usage": r.usage,
        "choices": r.choices.len(), "index": choice.index,
        "finish_reason": choice.finish_reason,
        "role": choice.message.role, "content": choice.message.content,
        "reasoning_content": choice.message.reasoning_content,
        "tool_calls": choice.message.tool_calls,
    })
}

fn assert_fold_equals_non_streamed(stream: &str, response: &str) {
    let folded = fold_bytes(&fixture(stream)).unwrap();
    let expected: ChatResponse = serde_json::from_slice(&fixture(response)).unwrap();
    assert_eq!(
        essentials(&folded),
        essentials(&expected),
        "{stream} vs {response}"
    );
    // And the inverse: a response turned into events folds back to itself.
    let mut folder = StreamFolder::new();
    for event in events_from_response(&expected) {
        folder.push(&event);
    }
    assert_eq!(essentials(&folder.finish().unwrap()), essentials(&expected));
}

#[test]
fn openai_text_stream_folds_to_the_non_streamed_response() {
    assert_fold_equals_non_streamed("openai_text.sse", "openai_text.json");
}

#[test]
fn openai_tool_call_stream_folds_to_the_non_streamed_response() {
    assert_fold_equals_non_streamed("openai_tool_calls.sse", "openai_tool_calls.json");
}

#[test]
fn deepseek_reasoning_stream_folds_to_the_non_streamed_response() {
    assert_fold_equals_non_streamed("deepseek_reasoning.sse", "deepseek_reasoning.json");
}

/// Recorded from llama-cpp-python 0.3.36 (SmolLM2-135M, temperature 0): the
/// streamed and the non-streamed answer to the same request. Ids differ
/// between the two calls; the content must not.
#[test]
fn llama_cpp_streams_fold_to_its_non_streamed_answers() {
    for (stream, json) in [
        ("llama_text.sse", "llama_text.json"),
        ("llama_tool_call.sse", "llama_tool_call.json"),
    ] {
        let folded = fold_bytes(&fixture(stream)).unwrap();
        let expected: ChatResponse = serde_json::from_slice(&fixture(json)).unwrap();
        let (got, want) = (folded.message().unwrap(), expected.message().unwrap());
        assert_eq!(got.role, want.role, "{stream}");
        assert_eq!(got.content, want.content, "{stream}");
        let calls = |m: &agcore_llm::types::ChatMessage| {
            m.tool_calls
                .iter()
                .map(|c| {
                    (
                        c.kind.clone(),
                        c.function.name.clone(),
                        c.function.arguments.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(calls(got), calls(want), "{stream}");
        assert_eq!(folded.finish_reason(), expected.finish_reason(), "{stream}");
        assert_eq!(folded.model, expected.model);
        assert!(folded.id.starts_with("chatcmpl-") && folded.created > 0);
    }
}

/// llama.cpp repeats id, name and type in every fragment and mirrors each
/// fragment in the legacy `function_call` field: one call, arguments once.
#[test]
fn repeated_fragments_and_legacy_function_call_give_one_call() {
    let events: Vec<StreamEvent> = decode(&fixture("llama_tool_call.sse"))
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let starts = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallStart { .. }))
        .count();
    assert_eq!(starts, 1);
    let args: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallArgumentsDelta { arguments, .. } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    let end = events.iter().find_map(|e| match e {
        StreamEvent::ToolCallEnd { call, .. } => Some(call.clone()),
        _ => None,
    });
    let end = end.unwrap();
    assert_eq!(end.function.arguments, args);
    assert_eq!(end.arguments_json().unwrap()["city"], "Paris");
}

#[test]
fn legacy_function_call_alone_and_arguments_before_the_id() {
    let legacy = concat!(
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"function_call\":{\"name\":\"lookup\",\"arguments\":\"\"}},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"function_call\":{\"arguments\":\"{\\\"q\\\":1}\"}},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"function_call\"}]}\n\n",
    );
    let response = fold_bytes(legacy.as_bytes()).unwrap();
    let call = &response.message().unwrap().tool_calls[0];
    assert_eq!(
        (
            call.id.as_str(),
            call.name(),
            call.function.arguments.as_str()
        ),
        ("call_0", "lookup", "{\"q\":1}")
    );
    assert_eq!(response.message().unwrap().content, None);

    // Arguments that arrive before the id are reported right after the start.
    let late_id = concat!(
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":null,\"type\":null,\"function\":{\"name\":null,\"arguments\":\"{\\\"a\\\"\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c9\",\"function\":{\"name\":\"f\",\"arguments\":\":2}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
    );
    let events: Vec<StreamEvent> = decode(late_id.as_bytes())
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert!(
        matches!(&events[1], StreamEvent::ToolCallStart { id, name, .. } if id == "c9" && name == "f")
    );
    assert!(
        matches!(&events[2], StreamEvent::ToolCallArgumentsDelta { arguments, .. } if arguments == "{\"a\":2}")
    );
    assert!(
        matches!(&events[3], StreamEvent::ToolCallEnd { call, .. } if call.function.arguments == "{\"a\":2}")
    );
}

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any split of the bytes (inside lines, `\r\n`, multi-byte characters)
    /// gives exactly the events of the unsplit stream.
    #[test]
    fn random_splits_give_identical_events(
        which in 0usize..4,
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        let name = ["openai_text.sse", "openai_tool_calls.sse", "deepseek_reasoning.sse", "llama_tool_call.sse"][which];
        let bytes = fixture(name);
        let whole = decode(&bytes);
        prop_assert!(whole.iter().all(Result::is_ok));
        prop_assert_eq!(decode_parts(split_at(&bytes, &cuts)), whole);
    }
}

#[test]
fn every_single_byte_boundary_gives_identical_events() {
    for name in ["openai_text.sse", "deepseek_reasoning.sse"] {
        let bytes = fixture(name);
        let whole = decode(&bytes);
        for cut in 0..=bytes.len() {
            assert_eq!(
                decode_parts(split_at(&bytes, &[cut])),
                whole,
                "{name} split at {cut}"
            );
        }
        // One byte per network chunk.
        let bytewise: Vec<Result<Vec<u8>, LlmError>> = bytes.iter().map(|b| Ok(vec![*b])).collect();
        assert_eq!(decode_parts(bytewise), whole, "{name} byte by byte");
    }
}
