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
//! | `agent` | `agcore-agent` | `agent` |
//! | `embed_local` | `agcore-embed-local` | `local-embeddings` |
//!
//! Default features: `agent`, `openai`, `sqlite`. [`prelude`] holds the items
//! most programs use.
//!
//! # Examples
//!
//! An agent with a typed tool and session memory, on the scripted
//! `MockProvider` (swap in `OpenAiProvider::from_env()` for a real endpoint):
//!
//! ```
//! # #[cfg(feature = "agent")]
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), agcore::agent::AgentError> {
//! use std::sync::Arc;
//!
//! use agcore::prelude::*;
//! use schemars::JsonSchema;
//!
//! #[derive(serde::Deserialize, JsonSchema)]
//! struct AddArgs { a: i64, b: i64 }
//!
//! struct Add;
//!
//! #[async_trait::async_trait]
//! impl TypedTool for Add {
//!     type Args = AddArgs;
//!     type Output = i64;
//!     fn name(&self) -> &str { "add" }
//!     fn description(&self) -> &str { "Adds two integers." }
//!     async fn call(&self, args: AddArgs, _ctx: &ToolContext) -> Result<i64, ToolError> {
//!         Ok(args.a + args.b)
//!     }
//! }
//!
//! // The model asks for `add`, then answers with the result.
//! let provider = Arc::new(
//!     MockProvider::new()
//!         .push_tool_call("add", r#"{"a": 40, "b": 2}"#)
//!         .push_text("40 + 2 = 42"),
//! );
//! let tools = Arc::new(ToolRegistry::new());
//! tools.register(Add.into_tool())?;
//! let bundle = AgentBuilder::new()
//!     .provider(provider)
//!     .tool_registry(tools)
//!     .hook_executor(Arc::new(HookExecutor::new()))
//!     .base_prompt("You are a careful calculator.")
//!     .config(AgentConfig::new("gpt-4o-mini"))
//!     .build()?;
//!
//! let agent = Arc::new(SimpleAgent::new("calculator"));
//! let mut session = AgentSession::new(agent, bundle);
//! session.session_memory().set("units", "none").await?;
//! let answer = session.submit_turn("What is 40 + 2?").await?;
//! assert_eq!(answer.text(), "40 + 2 = 42");
//! assert_eq!(session.history().len(), 4); // user, tool call, tool result, answer
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "agent"))]
//! # fn main() {}
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

pub use agcore_types as types;

#[cfg(feature = "llm")]
#[cfg_attr(docsrs, doc(cfg(feature = "llm")))]
pub use agcore_llm as llm;

#[cfg(feature = "llm")]
#[cfg_attr(docsrs, doc(cfg(feature = "llm")))]
pub mod embedding;

#[cfg(feature = "prompt")]
#[cfg_attr(docsrs, doc(cfg(feature = "prompt")))]
pub use agcore_prompt as prompt;

#[cfg(feature = "tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "tools")))]
pub use agcore_tools as tools;

#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub mod memory;

#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
pub use agcore_agent as agent;

#[cfg(feature = "local-embeddings")]
#[cfg_attr(docsrs, doc(cfg(feature = "local-embeddings")))]
pub use agcore_embed_local as embed_local;

pub mod prelude;
