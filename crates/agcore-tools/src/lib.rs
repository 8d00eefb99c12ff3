//! Tools for agcore agents.
//!
//! - [`Tool`]: one callable tool (name, description, JSON Schema, async `execute`).
//! - [`TypedTool`] and [`FnTool`]: tools whose argument struct derives
//!   `serde::Deserialize` + `schemars::JsonSchema`, so the schema is generated
//!   ([`parameters_schema`]).
//! - [`ToolContext`]: who is calling (session, agent, user) and a cancellation token.
//! - [`ToolRegistry`]: registered tools, argument validation with JSON
//!   Schema, permission checks, timeouts, concurrent [`ToolRegistry::invoke_all`];
//!   it implements [`agcore_types::ToolExecutor`] for the LLM tool loop.
//! - [`PermissionChecker`]: allow / ask / deny rules by tool-name glob.
//! - [`ToolError`]: every failure, with [`ToolError::is_recoverable`].
//! - `mcp` (feature `mcp`): tools of MCP servers.
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//!
//! use agcore_tools::{
//!     PermissionChecker, PermissionConfig, ToolContext, ToolError, ToolInvocation, ToolRegistry,
//!     TypedTool,
//! };
//! use async_trait::async_trait;
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use serde_json::json;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct WeatherArgs {
//!     /// City name.
//!     city: String,
//! }
//!
//! struct Weather;
//!
//! #[async_trait]
//! impl TypedTool for Weather {
//!     type Args = WeatherArgs;
//!     type Output = serde_json::Value;
//!     fn name(&self) -> &str { "get_weather" }
//!     fn description(&self) -> &str { "Current weather of a city." }
//!     async fn call(&self, args: WeatherArgs, _ctx: &ToolContext) -> Result<serde_json::Value, ToolError> {
//!         Ok(json!({"city": args.city, "condition": "晴", "temp_c": 22}))
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), ToolError> {
//! let registry = ToolRegistry::new()
//!     .with_permissions(PermissionChecker::new(PermissionConfig::allow_list(["get_*"]))?);
//! registry.register(Weather.into_tool())?;
//!
//! let ctx = ToolContext::new().with_user_id("u1");
//! let results = registry
//!     .invoke_all(
//!         [
//!             ToolInvocation::new("get_weather", json!({"city": "北京"})),
//!             ToolInvocation::new("get_weather", json!({})),
//!             ToolInvocation::new("delete_file", json!({})),
//!         ],
//!         &ctx,
//!     )
//!     .await;
//! assert_eq!(results[0].as_ref().unwrap()["temp_c"], 22);
//! assert!(matches!(&results[1], Err(ToolError::InvalidArguments { path, .. }) if path == "/city"));
//! assert!(matches!(&results[2], Err(ToolError::NotFound(_))));
//! # Ok(())
//! # }
//! ```

mod approval;
mod call;
mod context;
mod error;
mod executor;
mod function;
mod into_tool;
mod invoke;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
mod permission;
mod registry;
mod schema;
mod tool;
mod typed;
mod validate;

pub use approval::{Approval, ApprovalRequest, Approver};
pub use context::{ToolContext, ToolResultLog};
pub use error::ToolError;
pub use executor::{ContextToolExecutor, output_text, truncate_result};
pub use function::FnTool;
pub use into_tool::IntoTool;
pub use invoke::{
    DEFAULT_MAX_ARGUMENT_BYTES, DEFAULT_MAX_RESULT_BYTES, InvokeOptions, ToolInvocation,
};
pub use permission::{
    PermissionAction, PermissionChecker, PermissionConfig, PermissionMode, PermissionRule,
};
pub use registry::ToolRegistry;
pub use schema::parameters_schema;
pub use tool::{Tool, ToolOutput};
pub use typed::{TypedTool, TypedToolAdapter};

#[cfg(feature = "mcp")]
pub use mcp::{McpClient, McpServerConfig, McpTool};
