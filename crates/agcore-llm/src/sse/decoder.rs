//! Turns `chat.completion.chunk` objects into [`StreamEvent`]s.

use std::collections::BTreeMap;

use agcore_types::{ChatCompletionChunk, FinishReason, ToolCall};

use crate::error_object::{ApiError, EXCERPT_BYTES, excerpt};
use crate::{LlmError, ResponseMetadata, StreamEvent};

/// A tool call being assembled from its fragments.
#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: Option<String>,
    kind: Option<String>,
    /// All argument text received so far.
    arguments: String,
    /// Bytes of `arguments` already reported in `ToolCallArgumentsDelta` events.
    reported: usize,
    /// Whether `ToolCallStart` was emitted.
    started: bool,
}

/// The state machine behind [`crate::decode_sse`], usable with any transport
/// that yields the SSE `data:` payloads (or parsed chunks) one at a time.
///
/// Rules (OpenAI Chat Completions streaming, plus what compatible servers do):
/// - only choice `0` is read (`n > 1` is not supported when streaming);
/// - `delta.content` gives [`StreamEvent::AssistantTextDelta`],
///   `delta.reasoning_content` (DeepSeek, llama.cpp) or `delta.reasoning`
///   (vLLM, OpenRouter) gives [`StreamEvent::ReasoningDelta`];
/// - `delta.tool_calls[*]` fragments are grouped by `index`; `id`, `name` and
///   `type` are taken from the first fragment that carries them (servers that
///   repeat them or send explicit `null`s are fine);
///   [`StreamEvent::ToolCallStart`] is emitted once id and name are known, argument
///   text received before that is emitted right after it; the legacy
///   `delta.function_call` is read as tool call `0` when `tool_calls` is absent;
/// - `finish_reason` ends every call with [`StreamEvent::ToolCallEnd`] (a call
///   without an id gets `call_<index>`); the turn itself completes at `[DONE]`
///   or the end of input, after the usage chunk, with [`StreamEvent::TurnComplete`];
/// - `{"error": …}` payloads and SSE `event: error` become an `Err`.
#[derive(Debug, Default)]
pub struct ChunkDecoder {
    metadata_sent: bool,
    calls: BTreeMap<u32, PartialCall>,
    finish: Option<FinishReason>,
    done: bool,
}

impl ChunkDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `[DONE]` was seen or [`ChunkDecoder::finish`] ran: no more input is read.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Handles one SSE event: its `event` name (`""` for the default
    /// `message`) and its `data` (multi-line data already joined with `\n`).
    ///
    /// Pushes the resulting events to `out`.
    ///
    /// # Errors
    /// [`LlmError::Decode`] when the data is not a chunk; the mapped server
    /// error for an error payload; [`LlmError::Stream`] when `[DONE]` comes
    /// before any finish reason.
    pub fn push_sse(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        let data = data.trim();
        if event == "error" {
            return Err(stream_error_payload(data));
        }
        if !(event.is_empty() || event == "message") || data.is_empty() {
            // Named events of other protocols and empty keep-alive events.
            return Ok(());
        }
        if data == "[DONE]" {
            return self.finish(out);
        }
        let chunk: ChatCompletionChunk =
            serde_json::from_str(data).map_err(|e| LlmError::Decode {
                message: format!(
                    "stream chunk is not a chat.completion.chunk: {e}; data: {}",
                    excerpt(data, EXCERPT_BYTES)
                ),
            })?;
        self.push_chunk(chunk, out)
    }

    /// Handles one parsed chunk, pushing the resulting events to `out`.
    ///
    /// # Errors
    /// The mapped server error when the chunk is an error object (`{"error": …}`);
    /// [`LlmError::Stream`] when a finished tool call has no function name.
    pub fn push_chunk(
        &mut self,
        mut chunk: ChatCompletionChunk,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        if let Some(error) = chunk.extra.get("error") {
            return Err(ApiError::from_value(error).into_stream_error());
        }
        if !self.metadata_sent && (!chunk.id.is_empty() || !chunk.model.is_empty()) {
            self.metadata_sent = true;
            out.push(StreamEvent::Metadata(ResponseMetadata {
                id: std::mem::take(&mut chunk.id),
                model: std::mem::take(&mut chunk.model),
                created: chunk.created,
                system_fingerprint: chunk.system_fingerprint.take(),
                service_tier: chunk.service_tier.take(),
            }));
        }
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            if self.finish.is_some() {
                break;
            }
            let mut delta = choice.delta;
            let reasoning = delta
                .reasoning()
                .or_else(|| delta.extra.get("reasoning").and_then(|v| v.as_str()))
                .filter(|t| !t.is_empty());
            if let Some(text) = reasoning {
                out.push(StreamEvent::ReasoningDelta {
                    text: text.to_owned(),
                });
            }
            if let Some(text) = delta.text().filter(|t| !t.is_empty()) {
                out.push(StreamEvent::AssistantTextDelta {
                    text: text.to_owned(),
                });
            }
            match delta.tool_calls.take().flatten() {
                Some(calls) if !calls.is_empty() => {
                    for call in calls {
                        let (name, arguments) = match call.function {
                            Some(f) => (f.name, f.arguments),
                            None => (None, None),
                        };
                        self.push_call_fragment(
                            call.index, call.id, name, call.kind, arguments, out,
                        );
                    }
                }
                _ => {
                    if let Some(legacy) = delta.extra.get("function_call").filter(|v| v.is_object())
                    {
                        let field =
                            |k: &str| legacy.get(k).and_then(|v| v.as_str()).map(str::to_owned);
                        self.push_call_fragment(
                            0,
                            None,
                            field("name"),
                            None,
                            field("arguments"),
                            out,
                        );
                    }
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.end_calls(out)?;
                self.finish = Some(reason);
            }
        }
        if let Some(Some(usage)) = chunk.usage {
            out.push(StreamEvent::Usage(usage));
        }
        Ok(())
    }

    /// Ends the stream (at `[DONE]` or the end of input): pushes
    /// [`StreamEvent::TurnComplete`].
    ///
    /// # Errors
    /// [`LlmError::Stream`] when no finish reason was received: the answer is
    /// incomplete and must not be taken as a success.
    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        match self.finish.take() {
            Some(reason) => {
                out.push(StreamEvent::TurnComplete { reason });
                Ok(())
            }
            None => Err(LlmError::Stream(
                "stream ended without a finish reason (truncated answer)".to_owned(),
            )),
        }
    }

    fn push_call_fragment(
        &mut self,
        index: u32,
        id: Option<String>,
        name: Option<String>,
        kind: Option<String>,
        arguments: Option<String>,
        out: &mut Vec<StreamEvent>,
    ) {
        let call = self.calls.entry(index).or_default();
        if call.id.is_none() {
            call.id = id.filter(|s| !s.is_empty());
        }
        if call.name.is_none() {
            call.name = name.filter(|s| !s.is_empty());
        }
        if call.kind.is_none() {
            call.kind = kind.filter(|s| !s.is_empty());
        }
        if let Some(arguments) = arguments {
            call.arguments.push_str(&arguments);
        }
        if let (false, Some(id), Some(name)) = (call.started, &call.id, &call.name) {
            call.started = true;
            out.push(StreamEvent::ToolCallStart {
                index,
                id: id.clone(),
                name: name.clone(),
            });
        }
        if call.started && call.reported < call.arguments.len() {
            let fragment = call.arguments.get(call.reported..).unwrap_or_default();
            out.push(StreamEvent::ToolCallArgumentsDelta {
                index,
                arguments: fragment.to_owned(),
            });
            call.reported = call.arguments.len();
        }
    }

    fn end_calls(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        for (index, mut call) in std::mem::take(&mut self.calls) {
            let name = call.name.take().ok_or_else(|| {
                LlmError::Stream(format!("tool call {index} ended without a function name"))
            })?;
            let id = call.id.take().unwrap_or_else(|| format!("call_{index}"));
            if !call.started {
                out.push(StreamEvent::ToolCallStart {
                    index,
                    id: id.clone(),
                    name: name.clone(),
                });
                if !call.arguments.is_empty() {
                    out.push(StreamEvent::ToolCallArgumentsDelta {
                        index,
                        arguments: call.arguments.clone(),
                    });
                }
            }
            let mut tool_call = ToolCall::new(id, name, call.arguments);
            if let Some(kind) = call.kind {
                tool_call.kind = kind;
            }
            out.push(StreamEvent::ToolCallEnd {
                index,
                call: tool_call,
            });
        }
        Ok(())
    }
}

/// The error for an SSE `event: error` payload.
fn stream_error_payload(data: &str) -> LlmError {
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(value) => {
            let inner = value.get("error").unwrap_or(&value);
            ApiError::from_value(inner).into_stream_error()
        }
        Err(_) => LlmError::Stream(format!(
            "server sent an error event: {}",
            excerpt(data, EXCERPT_BYTES)
        )),
    }
}
