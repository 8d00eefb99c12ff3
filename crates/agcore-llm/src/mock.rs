//! [`MockProvider`]: a scripted [`LlmProvider`] for tests and examples.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_types::{ChatMessage, ChatRequest, ChatResponse, FinishReason, ToolCall, Usage};
use async_trait::async_trait;
use bytes::Bytes;

use crate::{
    ChatStream, LlmError, LlmProvider, StreamEvent, decode_sse, events_from_response, fold_stream,
};

/// One scripted answer of a [`MockProvider`].
// Scripts are short lists built once; boxing the response would only make them clumsier.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
#[non_exhaustive]
pub enum MockResponse {
    /// A complete response. `chat` returns it; `chat_stream` yields the
    /// events that fold back into it (see [`events_from_response`]).
    Response(ChatResponse),
    /// A failure, returned by `chat` or by `chat_stream` before any event.
    Error(LlmError),
    /// A raw `text/event-stream` body delivered in exactly these chunks
    /// (boundaries may fall anywhere, even inside a UTF-8 character) and
    /// decoded with [`decode_sse`]; `chat` folds it with [`fold_stream`].
    Sse(Vec<Bytes>),
    /// A ready-made event list (may contain `Err` items); `chat` folds it.
    Events(Vec<Result<StreamEvent, LlmError>>),
    /// A request that never completes (for cancellation and timeout tests).
    Pending,
}

/// A scripted [`LlmProvider`]: answers requests with the scripted
/// [`MockResponse`]s in order and records every [`ChatRequest`].
///
/// `Send + Sync`; share it as `Arc<MockProvider>` (which coerces to
/// `Arc<dyn LlmProvider>`) and keep a clone to inspect [`Self::requests`].
/// A request after the script ran out fails with [`LlmError::Config`] saying
/// so. Tool-call ids made by the helpers are `call_1`, `call_2`, … in push order.
///
/// # Examples
///
/// ```
/// use agcore_llm::{LlmProvider, MockProvider};
/// use agcore_llm::types::{ChatMessage, ChatRequest};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mock = MockProvider::new().push_text("hi");
/// let request = ChatRequest::new("mock-model", vec![ChatMessage::user("hello")]);
/// let response = mock.chat(request).await.unwrap();
/// assert_eq!(response.text(), "hi");
/// assert_eq!(mock.requests()[0].messages[0].text(), "hello");
/// assert!(mock.chat(ChatRequest::new("m", vec![])).await.is_err());
/// # });
/// ```
#[derive(Debug, Default)]
pub struct MockProvider {
    name: String,
    model: Option<String>,
    script: Mutex<VecDeque<MockResponse>>,
    requests: Mutex<Vec<ChatRequest>>,
    next_call_id: AtomicUsize,
}

impl MockProvider {
    /// An empty script named `"mock"`.
    pub fn new() -> Self {
        Self {
            name: "mock".to_owned(),
            ..Self::default()
        }
    }

    /// Sets the provider name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the `model` of scripted responses that name none (default: the
    /// request's model).
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Appends any scripted answer.
    pub fn push(self, response: MockResponse) -> Self {
        self.enqueue(response);
        self
    }

    /// Appends a scripted answer to a provider already shared.
    pub fn enqueue(&self, response: MockResponse) {
        lock(&self.script).push_back(response);
    }

    /// Appends an assistant text answer (`finish_reason: stop`, no usage).
    pub fn push_text(self, text: impl Into<String>) -> Self {
        let response = self.response(ChatMessage::assistant(text.into()), FinishReason::Stop);
        self.push(MockResponse::Response(response))
    }

    /// Appends an assistant text answer reporting `usage`.
    pub fn push_text_with_usage(self, text: impl Into<String>, usage: Usage) -> Self {
        let mut response = self.response(ChatMessage::assistant(text.into()), FinishReason::Stop);
        response.usage = Some(usage);
        self.push(MockResponse::Response(response))
    }

    /// Appends an answer calling one tool with raw JSON `arguments`
    /// (`finish_reason: tool_calls`; the id is `call_N`).
    pub fn push_tool_call(self, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        let call = ToolCall::new(self.call_id(), name, arguments);
        self.push_tool_calls(vec![call])
    }

    /// Appends an answer calling several tools at once (parallel tool calls).
    pub fn push_tool_calls(self, calls: Vec<ToolCall>) -> Self {
        let response = self.response(
            ChatMessage::assistant_tool_calls(calls),
            FinishReason::ToolCalls,
        );
        self.push(MockResponse::Response(response))
    }

    /// A fresh tool-call id (`call_1`, `call_2`, …), for building [`ToolCall`]s.
    pub fn call_id(&self) -> String {
        format!(
            "call_{}",
            self.next_call_id.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    /// Appends a complete response.
    pub fn push_response(self, response: ChatResponse) -> Self {
        self.push(MockResponse::Response(response))
    }

    /// Appends a failure.
    pub fn push_error(self, error: LlmError) -> Self {
        self.push(MockResponse::Error(error))
    }

    /// Appends a raw SSE body delivered in the given chunks.
    pub fn push_sse_chunks<I, B>(self, chunks: I) -> Self
    where
        I: IntoIterator<Item = B>,
        B: Into<Bytes>,
    {
        self.push(MockResponse::Sse(
            chunks.into_iter().map(Into::into).collect(),
        ))
    }

    /// Appends a raw SSE body cut into chunks of `chunk_size` bytes (the last
    /// may be shorter; cuts may fall inside UTF-8 characters; 0 means one chunk).
    pub fn push_sse(self, body: impl Into<Bytes>, chunk_size: usize) -> Self {
        let body: Bytes = body.into();
        let size = if chunk_size == 0 {
            body.len().max(1)
        } else {
            chunk_size
        };
        let mut chunks = Vec::new();
        let mut start = 0;
        while start < body.len() {
            let end = (start + size).min(body.len());
            chunks.push(body.slice(start..end));
            start = end;
        }
        self.push(MockResponse::Sse(chunks))
    }

    /// Appends a ready-made list of stream events.
    pub fn push_events(self, events: Vec<StreamEvent>) -> Self {
        self.push(MockResponse::Events(events.into_iter().map(Ok).collect()))
    }

    /// Appends a request that never completes.
    pub fn push_pending(self) -> Self {
        self.push(MockResponse::Pending)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        lock(&self.requests).clone()
    }

    /// Number of requests received.
    pub fn request_count(&self) -> usize {
        lock(&self.requests).len()
    }

    /// Number of scripted answers not used yet.
    pub fn remaining(&self) -> usize {
        lock(&self.script).len()
    }

    fn response(&self, message: ChatMessage, reason: FinishReason) -> ChatResponse {
        ChatResponse::from_message("", message, reason)
    }

    fn next(&self, request: ChatRequest) -> Result<(MockResponse, String), LlmError> {
        let model = request.model.clone();
        let n = {
            let mut requests = lock(&self.requests);
            requests.push(request);
            requests.len()
        };
        match lock(&self.script).pop_front() {
            Some(response) => Ok((response, model)),
            None => Err(LlmError::Config(format!(
                "MockProvider `{}`: script exhausted, request #{n} has no scripted response",
                self.name
            ))),
        }
    }

    /// Gives a response without a model this provider's model, else the request's.
    fn fill_model(&self, response: &mut ChatResponse, model: String) {
        if response.model.is_empty() {
            response.model = self.model.clone().unwrap_or(model);
        }
    }
}

#[async_trait]
impl LlmProvider for MockProvider {
    fn name(&self) -> &str {
        &self.name
    }

    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let (scripted, model) = self.next(request)?;
        let mut response = match scripted {
            MockResponse::Response(response) => response,
            MockResponse::Error(error) => return Err(error),
            MockResponse::Sse(chunks) => fold_stream(sse_stream(chunks)).await?,
            MockResponse::Events(events) => {
                fold_stream(Box::pin(futures::stream::iter(events))).await?
            }
            MockResponse::Pending => futures::future::pending().await,
        };
        self.fill_model(&mut response, model);
        Ok(response)
    }

    async fn chat_stream(&self, request: ChatRequest) -> Result<ChatStream, LlmError> {
        let (scripted, model) = self.next(request)?;
        match scripted {
            MockResponse::Response(mut response) => {
                self.fill_model(&mut response, model);
                let events = events_from_response(&response);
                Ok(Box::pin(futures::stream::iter(events.into_iter().map(Ok))))
            }
            MockResponse::Error(error) => Err(error),
            MockResponse::Sse(chunks) => Ok(sse_stream(chunks)),
            MockResponse::Events(events) => Ok(Box::pin(futures::stream::iter(events))),
            MockResponse::Pending => futures::future::pending().await,
        }
    }
}

fn sse_stream(chunks: Vec<Bytes>) -> ChatStream {
    decode_sse(futures::stream::iter(
        chunks.into_iter().map(Ok::<Bytes, LlmError>),
    ))
}

/// Locks a mutex, recovering the data when a panicking thread poisoned it
/// (the script and request log stay usable).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
