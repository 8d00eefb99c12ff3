#![cfg(test)]
//! Folding recorded streams reproduces the non-streamed response (OpenAI,
//! DeepSeek reasoning, llama.cpp), and llama.cpp's repeated and legacy
//! `function_call` fragments give one call.

use crate::sse_support;

use agcore_llm::types::ChatResponse;
use agcore_llm::{StreamEvent, StreamFolder, events_from_response};
use sse_support::{decode, fixture, fold_bytes};

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
