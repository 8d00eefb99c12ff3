//! The items most agcore programs use: `use agcore::prelude::*;`.

pub use agcore_types::{
    ChatMessage, ChatRequest, ChatResponse, FinishReason, Role, ToolCall, ToolDefinition, Usage,
};

#[cfg(feature = "llm")]
pub use agcore_llm::{
    CostTracker, CycleConfig, CycleEvent, HookEvent, HookExecutor, HookResult, LlmCycle, LlmError,
    LlmProvider, MockProvider, StreamEvent,
};

#[cfg(feature = "openai")]
pub use agcore_llm::{OpenAiConfig, OpenAiProvider};

#[cfg(feature = "prompt")]
pub use agcore_prompt::{PromptComposer, PromptError, PromptTemplate, PromptTemplateRegistry};

#[cfg(feature = "tools")]
pub use agcore_tools::{FnTool, Tool, ToolContext, ToolError, ToolRegistry, TypedTool};

#[cfg(feature = "mcp")]
pub use agcore_tools::McpServerConfig;

#[cfg(feature = "memory")]
pub use agcore_memory::{
    ConversationMemory, InMemoryStore, KnowledgeStore, MemoryError, MemoryFilter, MemoryItem,
    MemoryStore, SearchOptions,
};

#[cfg(feature = "memory")]
pub use agcore_memory::vector::VectorTables;

#[cfg(feature = "sqlite")]
pub use agcore_memory_sqlite::{SqliteDatabase, SqliteLongTerm, SqliteStore};

#[cfg(feature = "agent")]
pub use agcore_agent::{
    Agent, AgentBuilder, AgentConfig, AgentError, AgentEvent, AgentSession, ChatAgent,
    ContextManager, LongTermOptions, PlanningAgent, SessionMemory, SimpleAgent, TaskAgent,
};

#[cfg(feature = "agent")]
pub use crate::MemoryUrl;
