//! The LLM layer of agcore.
//!
//! - [`LlmProvider`]: one chat-completion backend, shared as `Arc<dyn LlmProvider>`.
//! - [`StreamEvent`]: the semantic events a streamed completion yields.
//! - [`LlmError`]: every failure, with [`LlmError::is_recoverable`].

mod error;
mod provider;
mod stream;

pub use error::LlmError;
pub use provider::{ChatStream, LlmProvider};
pub use stream::StreamEvent;

pub use agcore_types as types;
