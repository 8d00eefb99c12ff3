//! Tools for agcore agents.
//!
//! - [`Tool`]: one callable tool (name, description, JSON Schema, async `execute`).
//! - [`ToolContext`]: who is calling (session, agent, user) and a cancellation token.
//! - [`ToolError`]: every failure, with [`ToolError::is_recoverable`].

mod context;
mod error;
mod tool;

pub use context::ToolContext;
pub use error::ToolError;
pub use tool::{Tool, ToolOutput};
