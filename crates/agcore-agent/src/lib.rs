//! The agent runtime of agcore.
//!
//! - [`ChatAgent`]: the front door — `ChatAgent::builder().provider(p).build().await?`,
//!   then `agent.chat("…").await?`, a streaming variant and sessions per user.
//! - [`Agent`] / [`SimpleAgent`]: a role with a system prompt and a tool allow-list.
//! - [`AgentBuilder`] → [`RuntimeBundle`]: provider, tools, hooks, memory and
//!   [`AgentConfig`], shared by many sessions.
//! - [`AgentSession`]: one conversation; [`AgentSession::submit_turn`] runs a
//!   whole turn (layered system prompt, hooks, tool loop, limits, cost),
//!   [`AgentSession::submit_turn_stream`] streams it as [`AgentEvent`]s.
//! - [`Plan`], [`Step`], [`StepStatus`], [`PlanParser`], [`JsonPlanParser`],
//!   [`TaskAgent`], [`PlanningAgent`]: plan a goal, then run it step by step.
//! - [`SessionMemory`] and [`ContextManager`]: key–value memory shared by the
//!   isolated contexts of one session.
//! - [`long_term`]: long-term memory per (agent, user) through
//!   [`AgentBuilder::long_term_memory`] — the `memory_save` / `memory_recall`
//!   tools, prefetch into the system prompt, background fact extraction.
//! - [`AgentError`]: every failure, with [`AgentError::is_recoverable`].

mod agent;
pub mod attach;
mod builder;
mod bundle;
mod chat_agent;
mod config;
mod context;
mod error;
pub mod long_term;
mod plan;
mod plan_parser;
mod retrieve_tool;
mod session;
mod session_memory;
mod session_tools;
mod task;
mod tool_filter;
pub mod turn_memory;

pub use agent::{Agent, SimpleAgent};
pub use builder::AgentBuilder;
pub use bundle::RuntimeBundle;
pub use chat_agent::{ChatAgent, ChatAgentBuilder, DEFAULT_AGENT_NAME, DEFAULT_USER_ID};
pub use config::AgentConfig;
pub use context::ContextManager;
pub use error::AgentError;
pub use long_term::{LongTermOptions, LongTermRuntime};
pub use plan::{Plan, Step, StepStatus};
pub use plan_parser::{JsonPlanParser, PlanParser};
pub use retrieve_tool::{RETRIEVE_EXCERPT_CHARS, RetrieveArgs, RetrieveHit, RetrieveTool};
pub use session::{AgentEvent, AgentSession, AgentStream};
pub use session_memory::SessionMemory;
pub use session_tools::{GetArgs, SessionMemoryGetTool, SessionMemorySetTool, SetArgs};
pub use task::{
    DEFAULT_PLANNING_PROMPT, DEFAULT_REVIEW_PROMPT, FailurePolicy, PlanningAgent, TaskAgent,
};
