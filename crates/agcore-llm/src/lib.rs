//! The LLM layer of agcore.
//!
//! - [`LlmProvider`]: one chat-completion backend, shared as `Arc<dyn LlmProvider>`.
//! - [`StreamEvent`]: the semantic events a streamed completion yields.
//! - [`LlmError`]: every failure, with [`LlmError::is_recoverable`].
//! - [`LlmCycle`]: a conversation over a provider with the tool-call loop,
//!   [hooks](HookExecutor), [retries](RetryPolicy), cancellation, usage and
//!   [cost](CostTracker), and automatic [compaction](compact).
//! - [`ProviderRegistry`]: providers by name, built from configuration.
//! - [`MockProvider`]: a scripted provider for tests.
//! - [`embedding`]: the [`EmbeddingModel`](embedding::EmbeddingModel) trait for text embedders.
//! - [`tokens`]: token counting (tiktoken for OpenAI models, an estimate otherwise).
//!
//! Features (both on by default):
//! - `chat`: chat completions — [`LlmProvider`], [`LlmCycle`], the SSE
//!   decoder, hooks, cost, the mock provider, summary compaction (which uses
//!   the prompt texts of `agcore-prompt`). Without it the crate holds only
//!   [`embedding`], [`tokens`], [`LlmError`], [`RetryPolicy`] and the pure
//!   parts of [`compact`]: what a memory store needs, with no prompt or
//!   chat-model code.
//! - `openai`: the OpenAI-compatible HTTP clients — `OpenAiProvider` (with
//!   `chat`) and `embedding::OpenAiEmbedder` (`/v1/embeddings`).
//!
//! # Examples
//!
//! A tool-call round trip with a scripted provider:
//!
//! ```
//! use std::sync::Arc;
//!
//! use agcore_llm::types::{ChatMessage, ToolCall, ToolDefinition, ToolExecutionError, ToolExecutor};
//! use agcore_llm::{CycleConfig, LlmCycle, MockProvider};
//!
//! struct Clock;
//!
//! #[async_trait::async_trait]
//! impl ToolExecutor for Clock {
//!     fn definitions(&self) -> Vec<ToolDefinition> {
//!         vec![ToolDefinition::function("now", "Current time", serde_json::json!({"type": "object"}))]
//!     }
//!     async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError> {
//!         Ok(ChatMessage::tool(&call.id, "12:00"))
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let mock = Arc::new(MockProvider::new().push_tool_call("now", "{}").push_text("It is noon."));
//! let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("gpt-4o-mini"))
//!     .with_tools(Arc::new(Clock));
//! let answer = cycle.submit("What time is it?").await.unwrap();
//! assert_eq!(answer.text(), "It is noon.");
//! // user, assistant (tool call), tool result, assistant
//! assert_eq!(cycle.messages().len(), 4);
//! assert_eq!(mock.requests()[1].messages[2].text(), "12:00");
//! # });
//! ```

pub mod compact;
#[cfg(feature = "chat")]
mod cost;
#[cfg(feature = "chat")]
mod cycle;
pub mod embedding;
mod error;
#[cfg(any(feature = "openai", feature = "chat"))]
mod error_object;
#[cfg(feature = "chat")]
mod fold;
#[cfg(feature = "chat")]
mod hooks;
#[cfg(feature = "chat")]
mod mock;
#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "chat")]
mod provider;
#[cfg(feature = "chat")]
mod registry;
mod retry;
#[cfg(feature = "chat")]
mod sse;
#[cfg(feature = "chat")]
mod stream;
pub mod tokens;

#[cfg(feature = "chat")]
pub use cost::{CostTracker, ModelPrice, ModelUsage, PriceTable};
#[cfg(feature = "chat")]
pub use cycle::{CycleConfig, CycleEvent, CycleStream, LlmCycle};
pub use error::LlmError;
#[cfg(feature = "chat")]
pub use fold::{StreamFolder, events_from_response, fold_stream};
#[cfg(feature = "chat")]
pub use hooks::{FnHook, Hook, HookContext, HookEvent, HookExecutor, HookResult};
#[cfg(feature = "chat")]
pub use mock::{MockProvider, MockResponse};
#[cfg(all(feature = "openai", feature = "chat"))]
pub use openai::OpenAiProvider;
#[cfg(feature = "openai")]
pub use openai::{DEFAULT_BASE_URL, OpenAiConfig};
#[cfg(feature = "chat")]
pub use provider::{ChatStream, LlmProvider};
#[cfg(feature = "chat")]
pub use registry::{ProviderEntry, ProviderKind, ProviderRegistry, RegistryConfig};
pub use retry::{Jitter, RetryPolicy, retry};
#[cfg(feature = "chat")]
pub use sse::{ChunkDecoder, decode_sse};
#[cfg(feature = "chat")]
pub use stream::{ResponseMetadata, StreamEvent};

pub use agcore_types as types;
