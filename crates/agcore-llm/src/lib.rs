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
//! The HTTP provider (`OpenAiProvider`) needs the default feature `openai`;
//! everything else works without it.
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
mod cost;
mod cycle;
pub mod embedding;
mod error;
mod fold;
mod hooks;
mod mock;
#[cfg(feature = "openai")]
mod openai;
mod provider;
mod registry;
mod retry;
mod sse;
mod stream;
pub mod tokens;

pub use cost::{CostTracker, ModelPrice, ModelUsage, PriceTable};
pub use cycle::{CycleConfig, CycleEvent, CycleStream, LlmCycle};
pub use error::LlmError;
pub use fold::{StreamFolder, events_from_response, fold_stream};
pub use hooks::{FnHook, Hook, HookContext, HookEvent, HookExecutor, HookResult};
pub use mock::{MockProvider, MockResponse};
#[cfg(feature = "openai")]
pub use openai::{DEFAULT_BASE_URL, OpenAiConfig, OpenAiProvider};
pub use provider::{ChatStream, LlmProvider};
pub use registry::{ProviderEntry, ProviderKind, ProviderRegistry, RegistryConfig};
pub use retry::{Jitter, RetryPolicy, retry};
pub use sse::{ChunkDecoder, decode_sse};
pub use stream::{ResponseMetadata, StreamEvent};

pub use agcore_types as types;
