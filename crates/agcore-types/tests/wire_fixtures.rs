#![cfg(test)]
//! Real chat-completions payloads survive deserialize → serialize.
//!
//! Payloads whose keys are in the API's own order (OpenAI, DeepSeek) must come
//! back byte for byte; payloads from servers that order keys differently
//! (llama-cpp-python) must come back as the same JSON value.

use agcore_types::{
    ChatCompletionChunk, ChatRequest, ChatResponse, ContentPart, FinishReason, MessageContent,
    ResponseFormat, Role, StopSequences, ToolChoice,
};
use serde::{Serialize, de::DeserializeOwned};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Parses `json` as `T` and checks that writing it back gives the same bytes.
fn byte_exact<T: DeserializeOwned + Serialize>(json: &str) -> T {
    let json = json.trim_end();
    let value: T = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(serde_json::to_string(&value).unwrap(), json);
    value
}

/// Parses `json` as `T` and checks that writing it back gives the same JSON value.
fn value_equal<T: DeserializeOwned + Serialize>(json: &str) -> T {
    let value: T = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let original: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_value(&value).unwrap(), original, "{json}");
    value
}

#[test]
fn openai_response_round_trips_byte_for_byte() {
    let response: ChatResponse = byte_exact(&fixture("openai_response.json"));
    assert_eq!(response.text(), "Hello! 你好，世界。 How can I help 🙂?");
    assert_eq!(response.finish_reason(), Some(&FinishReason::Stop));
    let usage = response.usage.unwrap();
    assert_eq!(
        (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens
        ),
        (19, 12, 31)
    );
    assert_eq!(usage.cached_tokens(), 0);
    assert_eq!(
        response.system_fingerprint,
        Some(Some("fp_eb9dce56a8".to_owned()))
    );
    // `refusal: null` and `annotations: []` are kept in `extra`.
    let message = &response.choices[0].message;
    assert!(message.extra.contains_key("refusal") && message.extra.contains_key("annotations"));
}

#[test]
fn openai_response_with_tool_calls_round_trips_byte_for_byte() {
    let response: ChatResponse = byte_exact(&fixture("openai_response_tool_calls.json"));
    let message = response.message().unwrap();
    assert_eq!(message.content, None);
    assert_eq!(message.tool_calls.len(), 2);
    let args: serde_json::Value = message.tool_calls[1].parse_arguments().unwrap();
    assert_eq!(args["city"], "東京");
    assert_eq!(response.finish_reason(), Some(&FinishReason::ToolCalls));
}

#[test]
fn openai_request_with_tools_parts_and_response_format_round_trips_byte_for_byte() {
    let request: ChatRequest = byte_exact(&fixture("openai_request.json"));
    assert_eq!(request.messages[0].role, Role::Developer);
    match &request.messages[1].content {
        Some(MessageContent::Parts(parts)) => {
            assert!(
                matches!(&parts[1], ContentPart::ImageUrl { image_url } if image_url.detail.as_deref() == Some("high"))
            );
        }
        other => panic!("expected parts, got {other:?}"),
    }
    assert_eq!(request.messages[1].name.as_deref(), Some("alice"));
    assert_eq!(request.messages[2].content, None);
    assert_eq!(
        request.messages[3].tool_call_id.as_deref(),
        Some("call_DdmO9pD3xa9XTPNJ32zg2hcA")
    );
    assert_eq!(request.tools[0].function.strict, Some(true));
    assert_eq!(
        request.tool_choice,
        Some(ToolChoice::function("get_weather"))
    );
    assert!(matches!(
        request.response_format,
        Some(ResponseFormat::JsonSchema { .. })
    ));
    assert_eq!(
        request.stop,
        Some(StopSequences::Many(vec!["\n\nUser:".to_owned()]))
    );
    assert_eq!(request.max_completion_tokens, Some(512));
    assert_eq!(
        request.stream_options.as_ref().unwrap().include_usage,
        Some(true)
    );
}

#[test]
fn simple_request_keeps_unknown_fields_in_extra() {
    let request: ChatRequest = byte_exact(&fixture("openai_request_simple.json"));
    assert_eq!(request.tool_choice, Some(ToolChoice::auto()));
    assert_eq!(request.stop, Some(StopSequences::One("END".to_owned())));
    assert_eq!(
        request.response_format,
        Some(ResponseFormat::JsonObject { schema: None })
    );
    assert_eq!(
        request.extra.get("top_logprobs"),
        Some(&serde_json::json!(2))
    );
}

#[test]
fn api_stream_chunks_round_trip_byte_for_byte() {
    let text = fixture("api_chunks.jsonl");
    let chunks: Vec<ChatCompletionChunk> = text.lines().map(byte_exact).collect();
    assert!(chunks.len() > 20);
    // The usage-only chunk has no choices and the totals.
    let usage_chunk = chunks.iter().find(|c| c.choices.is_empty()).unwrap();
    assert_eq!(
        usage_chunk
            .usage
            .as_ref()
            .unwrap()
            .as_ref()
            .unwrap()
            .total_tokens,
        31
    );
    // Ordinary chunks carry `"usage": null` when include_usage is set.
    assert_eq!(chunks[1].usage, Some(None));
    // A tool-call delta carries index, id, type and function name.
    let call = chunks
        .iter()
        .flat_map(|c| &c.choices)
        .map(|c| c.delta.tool_calls())
        .find(|calls| !calls.is_empty())
        .unwrap();
    assert_eq!(call[0].id.as_deref(), Some("call_DdmO9pD3xa9XTPNJ32zg2hcA"));
    assert_eq!(call[0].kind.as_deref(), Some("function"));
    // DeepSeek: reasoning deltas and the usage on the final chunk.
    let reasoning: String = chunks
        .iter()
        .flat_map(|c| &c.choices)
        .filter_map(|c| c.delta.reasoning())
        .collect();
    assert!(reasoning.starts_with("嗯，用户问"));
}

#[test]
fn deepseek_reply_with_reasoning_round_trips_byte_for_byte() {
    let response: ChatResponse = byte_exact(&fixture("deepseek_response_reasoning.json"));
    let message = response.message().unwrap();
    assert_eq!(message.text(), "9.8 更大。");
    assert!(
        message
            .reasoning_content
            .as_deref()
            .unwrap()
            .contains("0.11 < 0.80")
    );
    let usage = response.usage.unwrap();
    assert_eq!(usage.reasoning_tokens(), 45);
    assert_eq!(
        usage.extra.get("prompt_cache_miss_tokens"),
        Some(&serde_json::json!(15))
    );
}

#[test]
fn llama_cpp_payloads_round_trip_as_values() {
    let response: ChatResponse = value_equal(&fixture("llama_response_tool_call.json"));
    let message = response.message().unwrap();
    assert_eq!(message.tool_calls[0].name(), "get_weather");
    assert!(message.extra.contains_key("function_call"));
    for line in fixture("llama_chunks.jsonl").lines() {
        let _: ChatCompletionChunk = value_equal(line);
    }
}
