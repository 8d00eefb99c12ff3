//! agcore: a toolkit for building LLM agents that remember.
//!
//! This facade re-exports the agcore crates behind features (see the crate
//! README for what each pulls in):
//!
//! | module | crate | feature |
//! |---|---|---|
//! | [`types`] | `agcore-types` | always |
//! | `llm` | `agcore-llm` | `llm` (`openai` adds the HTTP provider) |
//! | `prompt` | `agcore-prompt` | `prompt` |
//! | `tools` | `agcore-tools` | `tools` (`mcp` adds the MCP client) |
//! | `memory` | `agcore-memory` | `memory` (`sqlite` adds the SQLite backend) |
//! | `search` | `agcore-search` | `memory` |
//! | `agent` | `agcore-agent` | `agent` |
//! | `attach` | `agcore-agent`'s memory attachments, with every backend and embedder | `agent` |
//! | `embed_local` | `agcore-embed-local` | `local-embeddings` (`local-embeddings-onnx` adds `OnnxEmbedder`) |
//!
//! Default features: `agent`, `openai`, `sqlite`. [`prelude`] holds the items
//! most programs use.
//!
//! # Examples
//!
//! An agent with a tool and long-term memory in SQLite, on the scripted
//! `MockProvider` (use `OpenAiProvider::from_env()?` for a real endpoint:
//! `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `AGCORE_MODEL`):
//!
//! ```
//! # #[cfg(all(feature = "agent", feature = "sqlite"))]
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use agcore::prelude::*;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add { a: i64, b: i64 }
//!
//! async fn add(x: Add, _ctx: ToolContext) -> Result<i64, ToolError> {
//!     Ok(x.a + x.b)
//! }
//!
//! // The model asks for `add`, then answers with the result.
//! let model = MockProvider::new()
//!     .push_tool_call("add", r#"{"a": 40, "b": 2}"#)
//!     .push_text("40 + 2 = 42");
//! let dir = tempfile::tempdir()?;
//! let agent = ChatAgent::builder()
//!     .provider(model)
//!     .instructions("You are a careful calculator.")
//!     .tool(FnTool::new("add", "Adds two integers.", add))
//!     .memory(dir.path().join("memory.db").to_string_lossy())
//!     .build()
//!     .await?;
//! assert_eq!(agent.chat("What is 40 + 2?").await?, "40 + 2 = 42");
//! assert_eq!(agent.history().await.len(), 4); // user, tool call, tool result, answer
//!
//! // One conversation per end user; long-term memory is scoped to agent + user.
//! let alice = agent.session("alice")?;
//! assert_eq!(alice.user_id(), Some("alice"));
//! # Ok(())
//! # }
//! # #[cfg(not(all(feature = "agent", feature = "sqlite")))]
//! # fn main() {}
//! ```
//!
//! Every lower-level type stays available: [`agent::AgentBuilder`] builds the
//! runtime shared by many [`agent::AgentSession`]s, `llm::LlmCycle` runs the
//! tool loop without sessions, `memory` holds the stores.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub use agcore_types as types;

#[cfg(feature = "llm")]
#[cfg_attr(docsrs, doc(cfg(feature = "llm")))]
pub use agcore_llm as llm;

#[cfg(feature = "llm")]
#[cfg_attr(docsrs, doc(cfg(feature = "llm")))]
pub mod embedding;
#[cfg(feature = "llm")]
mod local_engine;

#[cfg(feature = "prompt")]
#[cfg_attr(docsrs, doc(cfg(feature = "prompt")))]
pub use agcore_prompt as prompt;

#[cfg(feature = "tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "tools")))]
pub use agcore_tools as tools;

#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub mod memory;

/// The search engine parts: analyzers, BM25 / BM25F, fusion, RM3, vector
/// indexes, near-duplicate detection (`agcore-search`).
#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub use agcore_search as search;

#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
pub use agcore_agent as agent;

#[cfg(feature = "local-embeddings")]
#[cfg_attr(docsrs, doc(cfg(feature = "local-embeddings")))]
pub use agcore_embed_local as embed_local;

#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
pub mod attach;

#[cfg(feature = "agent")]
mod memory_url;
#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
pub use memory_url::MemoryUrl;

pub mod prelude;

/// The top-level README's Rust code, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
