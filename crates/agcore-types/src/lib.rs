//! Plain data shared by every agcore crate.
//!
//! This crate holds the OpenAI chat-completions wire format as Rust types
//! ([`ChatRequest`], [`ChatResponse`], [`ChatCompletionChunk`], [`ChatMessage`],
//! [`ToolCall`], [`ToolDefinition`], [`Usage`]) and the [`ToolExecutor`] trait
//! through which the LLM layer runs tools without depending on `agcore-tools`.
//! It performs no I/O.
//!
//! The types follow the OpenAI Chat Completions API reference
//! (<https://platform.openai.com/docs/api-reference/chat>). Fields the types do
//! not name are kept in an `extra` map on each object, so a payload from any
//! OpenAI-compatible server survives a deserialize/serialize round trip.
//!
//! # Examples
//!
//! ```
//! use agcore_types::{ChatMessage, ChatRequest};
//!
//! let request = ChatRequest::new(
//!     "gpt-4o-mini",
//!     vec![ChatMessage::system("You are terse."), ChatMessage::user("Hello")],
//! )
//! .with_temperature(0.2);
//! let json = serde_json::to_string(&request).unwrap();
//! assert!(json.starts_with(r#"{"model":"gpt-4o-mini","messages":[{"role":"system""#));
//! ```

mod chunk;
mod error;
mod executor;
mod message;
mod request;
mod response;
mod tool;
mod usage;

pub use chunk::{ChatCompletionChunk, ChunkChoice, ChunkDelta, FunctionCallDelta, ToolCallDelta};
pub use error::TypesError;
pub use executor::{ToolExecutionError, ToolExecutor};
pub use message::{ChatMessage, ContentPart, ImageUrl, MessageContent, Role};
pub use request::{ChatRequest, ResponseFormat, StopSequences, StreamOptions, ToolChoice};
pub use response::{ChatResponse, Choice, FinishReason};
pub use tool::{FunctionCall, FunctionDefinition, ToolCall, ToolDefinition};
pub use usage::{CompletionTokensDetails, PromptTokensDetails, Usage};

/// A JSON object with keys kept in insertion order; holds fields a type does not name.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
