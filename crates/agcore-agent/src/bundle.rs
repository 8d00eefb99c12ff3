use std::sync::Arc;

use agcore_llm::{HookExecutor, LlmProvider};
use agcore_memory::retriever::MemoryRetriever;
use agcore_memory::{InMemoryStore, MemoryStore};
use agcore_prompt::{EnvironmentContext, PromptTemplateRegistry};
use agcore_tools::ToolRegistry;

use crate::AgentConfig;
use crate::long_term::LongTermRuntime;

/// Everything a session needs at run time, built once by
/// [`crate::AgentBuilder`] and shared by many sessions as `Arc<RuntimeBundle>`.
#[derive(Clone)]
#[non_exhaustive]
pub struct RuntimeBundle {
    /// The model backend.
    pub provider: Arc<dyn LlmProvider>,
    /// The tools (agents may narrow them with an allow-list).
    pub tool_registry: Arc<ToolRegistry>,
    /// Hooks fired around requests and turns.
    pub hook_executor: Arc<HookExecutor>,
    /// The retriever behind the `retrieve` tool, when one was given.
    pub retriever: Option<Arc<MemoryRetriever>>,
    /// Where session memories live: the configured backend, or one in-memory
    /// store shared by this bundle's sessions (each in its own namespace).
    pub session_memory_store: Arc<dyn MemoryStore>,
    /// Whether a session memory backend was configured (`false`: the in-memory fallback).
    pub has_session_memory_backend: bool,
    /// The base layer of every system prompt.
    pub base_prompt: Option<String>,
    /// The environment layer (date, platform, working directory); `None` leaves it out.
    pub environment: Option<EnvironmentContext>,
    /// Limits and per-turn model settings.
    pub config: AgentConfig,
    /// Long-term memory per (agent, user), when turned on
    /// ([`crate::AgentBuilder::long_term_memory`]).
    pub long_term: Option<LongTermRuntime>,
    /// Configured memory attachments, when given
    /// ([`crate::AgentBuilder::memory_attachments`]).
    pub attachments: Option<Arc<crate::attach::MemoryManager>>,
    /// Overrides of the built-in prompts by name (`docs/prompts.md`; default
    /// empty: every built-in text), rendered with
    /// [`PromptTemplateRegistry::render_or_builtin`].
    pub prompts: Arc<PromptTemplateRegistry>,
}

impl std::fmt::Debug for RuntimeBundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeBundle")
            .field("provider", &self.provider.name())
            .field("tools", &self.tool_registry.names())
            .field("has_retriever", &self.retriever.is_some())
            .field(
                "has_session_memory_backend",
                &self.has_session_memory_backend,
            )
            .field("config", &self.config)
            .field("has_long_term", &self.long_term.is_some())
            .field("attachments", &self.attachments)
            .finish_non_exhaustive()
    }
}

impl RuntimeBundle {
    /// A bundle from its required parts, with no memory, no base prompt and
    /// the default config (prefer [`crate::AgentBuilder`]).
    pub fn new(
        provider: Arc<dyn LlmProvider>,
        tool_registry: Arc<ToolRegistry>,
        hook_executor: Arc<HookExecutor>,
    ) -> Self {
        Self {
            provider,
            tool_registry,
            hook_executor,
            retriever: None,
            session_memory_store: Arc::new(InMemoryStore::new()),
            has_session_memory_backend: false,
            base_prompt: None,
            environment: None,
            config: AgentConfig::default(),
            long_term: None,
            attachments: None,
            prompts: Arc::new(PromptTemplateRegistry::new()),
        }
    }
}
