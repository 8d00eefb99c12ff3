//! Server-sent events of a streamed chat completion → [`StreamEvent`]s.
//!
//! The byte-level SSE parsing (lines, `data:` joining, comments, UTF-8 split
//! across network chunks) is done by the `eventsource-stream` crate following
//! the WHATWG HTML "Server-sent events" specification
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html>); the chunk
//! semantics follow the OpenAI Chat Completions streaming reference
//! (<https://platform.openai.com/docs/api-reference/chat-streaming>) and are
//! implemented by [`ChunkDecoder`].

mod bom;
mod decoder;

use std::collections::VecDeque;
use std::pin::Pin;

use eventsource_stream::{EventStream, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};

pub use decoder::ChunkDecoder;

use crate::{ChatStream, LlmError, StreamEvent};

/// Decodes the raw body of a streamed chat completion (`text/event-stream`)
/// into [`StreamEvent`]s, independently of the transport.
///
/// `bytes` is the body as it arrives: any chunking is fine (a chunk may end
/// inside a line, inside a `\r\n`, or inside a multi-byte UTF-8 character);
/// the events are the same for every split of the same bytes. Handled:
/// `data: [DONE]`, comment lines (`: keep-alive`), events with several
/// `data:` lines (joined with `\n` before JSON decoding), empty events,
/// `\n`, `\r` and `\r\n` line ends, a leading byte-order mark.
///
/// The returned [`ChatStream`] yields the events described on [`ChunkDecoder`]
/// and ends after [`StreamEvent::TurnComplete`], or yields one `Err` and ends:
/// - the stream ends (or `[DONE]` arrives) without a finish reason →
///   [`LlmError::Stream`] — a truncated answer is never a success;
/// - a `data:` payload that is not a chunk → [`LlmError::Decode`];
/// - an error object (`{"error": {...}}` or `event: error`) → the matching
///   [`LlmError`] (context length, rate limit, invalid request, else `Stream`);
/// - bytes that are not UTF-8 → [`LlmError::Decode`];
/// - a transport error `E` → `E.into()`.
///
/// Bytes after `[DONE]` are not read.
///
/// # Examples
///
/// Scripted bytes, split in the middle of a line and of a character:
///
/// ```
/// use agcore_llm::{StreamEvent, decode_sse, fold_stream};
/// use futures::StreamExt;
///
/// # tokio_test_block_on(async {
/// let body = concat!(
///     "data: {\"id\":\"c1\",\"model\":\"m\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"你好\"},\"finish_reason\":null}]}\n\n",
///     ": keep-alive\n\n",
///     "data: {\"id\":\"c1\",\"model\":\"m\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: [DONE]\n\n",
/// )
/// .as_bytes();
/// let parts: Vec<Result<Vec<u8>, agcore_llm::LlmError>> =
///     vec![Ok(body[..100].to_vec()), Ok(body[100..].to_vec())];
/// let response = fold_stream(decode_sse(futures::stream::iter(parts))).await.unwrap();
/// assert_eq!(response.text(), "你好");
/// assert_eq!(response.id, "c1");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub fn decode_sse<S, B, E>(bytes: S) -> ChatStream
where
    S: Stream<Item = Result<B, E>> + Send + 'static,
    B: AsRef<[u8]>,
    E: Into<LlmError> + 'static,
{
    let state = DecodeState {
        events: Box::pin(bom::StripBom::new(bytes).eventsource()),
        decoder: ChunkDecoder::new(),
        pending: VecDeque::new(),
        scratch: Vec::new(),
        ended: false,
    };
    Box::pin(futures::stream::unfold(state, |mut state| async move {
        let item = state.next_item().await?;
        Some((item, state))
    }))
}

struct DecodeState<S> {
    events: Pin<Box<EventStream<S>>>,
    decoder: ChunkDecoder,
    pending: VecDeque<Result<StreamEvent, LlmError>>,
    scratch: Vec<StreamEvent>,
    /// No more input is read (after `[DONE]`, the end of input, or an error).
    ended: bool,
}

impl<S, B, E> DecodeState<S>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: Into<LlmError>,
{
    async fn next_item(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if self.ended {
                return None;
            }
            let result = match self.events.next().await {
                Some(Ok(event)) => {
                    let result =
                        self.decoder
                            .push_sse(&event.event, &event.data, &mut self.scratch);
                    if self.decoder.is_done() {
                        self.ended = true;
                    }
                    result
                }
                Some(Err(error)) => {
                    self.ended = true;
                    Err(transport_error(error))
                }
                None => {
                    self.ended = true;
                    self.decoder.finish(&mut self.scratch)
                }
            };
            self.pending.extend(self.scratch.drain(..).map(Ok));
            if let Err(error) = result {
                self.ended = true;
                self.pending.push_back(Err(error));
            }
        }
    }
}

fn transport_error<E: Into<LlmError>>(error: EventStreamError<E>) -> LlmError {
    match error {
        EventStreamError::Transport(error) => error.into(),
        EventStreamError::Utf8(error) => LlmError::Decode {
            message: format!("event stream is not UTF-8: {error}"),
        },
        EventStreamError::Parser(error) => LlmError::Decode {
            message: format!("malformed event stream: {error}"),
        },
    }
}
