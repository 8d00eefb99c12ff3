use std::pin::Pin;

use agcore_types::{ChatRequest, ChatResponse};
use async_trait::async_trait;
use futures::Stream;

use crate::{LlmError, StreamEvent};

/// A stream of [`StreamEvent`]s for one streamed chat completion.
///
/// It ends after exactly one [`StreamEvent::TurnComplete`], or yields one
/// `Err` and ends.
pub type ChatStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, LlmError>> + Send>>;

/// One chat-completion backend (an OpenAI-compatible server, a mock, …).
///
/// Implementations are `Send + Sync` and are shared as `Arc<dyn LlmProvider>`.
#[async_trait]
pub trait LlmProvider: Send + Sync {
    /// A short name for logs and the provider registry (e.g. `"openai"`).
    fn name(&self) -> &str;

    /// Sends one chat-completion request and waits for the whole answer.
    ///
    /// # Errors
    /// Any [`LlmError`]; see [`LlmError::is_recoverable`] for which to retry.
    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError>;

    /// Sends one chat-completion request with `stream: true` and returns its events.
    ///
    /// Folding the events with `StreamEvent` folding gives the same
    /// [`ChatResponse`] `chat` returns for the same content.
    ///
    /// # Errors
    /// Errors before the stream starts (connection, HTTP status) are returned
    /// here; errors while streaming are yielded by the stream.
    async fn chat_stream(&self, request: ChatRequest) -> Result<ChatStream, LlmError>;
}
