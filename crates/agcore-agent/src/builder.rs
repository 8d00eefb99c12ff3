use std::sync::Arc;

use agcore_llm::{HookExecutor, LlmProvider};
use agcore_memory::long_term::LongTermMemory;
use agcore_memory::retriever::MemoryRetriever;
use agcore_memory::{InMemoryStore, MemoryStore};
use agcore_prompt::{EnvironmentContext, PromptTemplateRegistry};
use agcore_tools::{IntoTool, Tool, ToolRegistry, TypedTool};

use crate::long_term::{LongTermOptions, LongTermRuntime, MemoryRecallTool, MemorySaveTool};
use crate::retrieve_tool::RetrieveTool;
use crate::session_tools::{SessionMemoryGetTool, SessionMemorySetTool};
use crate::{AgentConfig, AgentError, RuntimeBundle};

/// Builds a [`RuntimeBundle`].
///
/// Only the provider is required. Everything else has a default: an empty
/// tool registry (plus the tools given to [`AgentBuilder::tool`]), no hooks,
/// [`AgentConfig::default`] (set the model with [`AgentBuilder::model`]), no
/// memory.
/// Memory, a retriever (which adds a `retrieve` tool), the base prompt, the
/// environment layer and the session-memory tools are optional.
///
/// For an agent to call directly (`agent.chat("…")`), see
/// [`crate::ChatAgent::builder`], which builds on this one.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
///
/// use agcore_agent::{AgentBuilder, AgentConfig};
/// use agcore_llm::MockProvider;
///
/// let bundle = AgentBuilder::new()
///     .provider(Arc::new(MockProvider::new()))
///     .base_prompt("You are helpful.")
///     .config(AgentConfig::new("mock-model"))
///     .session_memory_tools(true)
///     .build()
///     .unwrap();
/// assert!(bundle.tool_registry.contains("session_memory_set"));
///
/// let missing = AgentBuilder::new().build();
/// assert!(matches!(missing, Err(agcore_agent::AgentError::Config(_))));
/// ```
#[derive(Default)]
#[must_use]
pub struct AgentBuilder {
    provider: Option<Arc<dyn LlmProvider>>,
    tool_registry: Option<Arc<ToolRegistry>>,
    tools: Vec<Arc<dyn Tool>>,
    hook_executor: Option<Arc<HookExecutor>>,
    retriever: Option<Arc<MemoryRetriever>>,
    session_memory_backend: Option<Arc<dyn MemoryStore>>,
    base_prompt: Option<String>,
    environment: Option<EnvironmentContext>,
    config: AgentConfig,
    session_memory_tools: bool,
    long_term: Option<LongTermRuntime>,
    attachments: Option<Arc<crate::attach::MemoryManager>>,
    prompts: Option<PromptTemplateRegistry>,
}

impl std::fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("has_provider", &self.provider.is_some())
            .field("has_tool_registry", &self.tool_registry.is_some())
            .field("has_hook_executor", &self.hook_executor.is_some())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl AgentBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The model backend (required).
    pub fn provider(mut self, provider: Arc<dyn LlmProvider>) -> Self {
        self.provider = Some(provider);
        self
    }

    /// The tool registry to use (default: a new, empty one). The tools given
    /// to [`AgentBuilder::tool`] and the built-in tools are added to it by
    /// [`AgentBuilder::build`].
    pub fn tool_registry(mut self, registry: Arc<ToolRegistry>) -> Self {
        self.tool_registry = Some(registry);
        self
    }

    /// Adds a tool: a [`TypedTool`], an [`agcore_tools::FnTool`] or an
    /// `Arc<dyn Tool>` (see [`IntoTool`]). Registered by
    /// [`AgentBuilder::build`], which fails when two tools share a name.
    pub fn tool(mut self, tool: impl IntoTool) -> Self {
        self.tools.push(tool.into_dyn_tool());
        self
    }

    /// Adds several tools (see [`AgentBuilder::tool`]).
    pub fn tools<I>(mut self, tools: I) -> Self
    where
        I: IntoIterator,
        I::Item: IntoTool,
    {
        self.tools
            .extend(tools.into_iter().map(IntoTool::into_dyn_tool));
        self
    }

    /// Sets the model id sent with every request (`AgentConfig::llm.model`).
    /// Call it after [`AgentBuilder::config`], which replaces the whole
    /// configuration. An empty id (the default) lets the provider choose:
    /// the OpenAI-compatible provider sends its default model
    /// (`AGCORE_MODEL`).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.config.llm.model = model.into();
        self
    }

    /// The hooks (default: none).
    pub fn hook_executor(mut self, hooks: Arc<HookExecutor>) -> Self {
        self.hook_executor = Some(hooks);
        self
    }

    /// A retriever; when set, a `retrieve` tool that searches it is registered.
    pub fn retriever(mut self, retriever: Arc<MemoryRetriever>) -> Self {
        self.retriever = Some(retriever);
        self
    }

    /// Where session memories are kept (default: an in-memory store shared
    /// by the bundle's sessions).
    pub fn session_memory_backend(mut self, store: Arc<dyn MemoryStore>) -> Self {
        self.session_memory_backend = Some(store);
        self
    }

    /// The base layer of every system prompt.
    pub fn base_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.base_prompt = Some(prompt.into());
        self
    }

    /// Overrides of the built-in prompts (`docs/prompts.md`): a template
    /// registered under a built-in name (`memory.instructions.en`,
    /// `task.planning`, …) replaces that text; other built-in prompts keep
    /// their text.
    pub fn prompts(mut self, prompts: PromptTemplateRegistry) -> Self {
        self.prompts = Some(prompts);
        self
    }

    /// The environment layer (date, platform, working directory).
    pub fn environment(mut self, environment: EnvironmentContext) -> Self {
        self.environment = Some(environment);
        self
    }

    /// Limits and per-turn model settings.
    pub fn config(mut self, config: AgentConfig) -> Self {
        self.config = config;
        self
    }

    /// Registers the `session_memory_set` / `session_memory_get` tools, which
    /// read and write the calling session's [`crate::SessionMemory`].
    pub fn session_memory_tools(mut self, enabled: bool) -> Self {
        self.session_memory_tools = enabled;
        self
    }

    /// Turns on long-term memory per (agent, user) for every session of the
    /// bundle: registers the `memory_save` and `memory_recall` tools, and
    /// makes each session with a user id
    /// ([`crate::AgentSession::with_user_id`]) prefetch memories into its
    /// system prompt, append the memory instructions, record usage, feed
    /// the dialogue buffer and run fact extraction in the background, as
    /// `options` say.
    pub fn long_term_memory(mut self, memory: LongTermMemory, options: LongTermOptions) -> Self {
        self.long_term = Some(LongTermRuntime::new(memory, options));
        self
    }

    /// Attaches configured memory stores to every session of the bundle
    /// (see `docs/memory-attachments.md`): before each turn the attachments
    /// that retrieve at `pre` or `gen` add one block to the memory layer of
    /// the system prompt; after it, those with `write: true` record it.
    pub fn memory_attachments(mut self, manager: Arc<crate::attach::MemoryManager>) -> Self {
        self.attachments = Some(manager);
        self
    }

    /// Builds the bundle.
    ///
    /// # Errors
    /// [`AgentError::Config`] when no provider was given;
    /// [`AgentError::Tool`] when a tool's name is already registered.
    pub fn build(self) -> Result<Arc<RuntimeBundle>, AgentError> {
        let Some(provider) = self.provider else {
            return Err(AgentError::Config(
                "AgentBuilder is missing: provider (for example \
                 `.provider(Arc::new(OpenAiProvider::from_env()?))`)"
                    .to_owned(),
            ));
        };
        let tool_registry = self
            .tool_registry
            .unwrap_or_else(|| Arc::new(ToolRegistry::new()));
        let hook_executor = self
            .hook_executor
            .unwrap_or_else(|| Arc::new(HookExecutor::new()));
        for tool in self.tools {
            tool_registry.register(tool)?;
        }
        let has_backend = self.session_memory_backend.is_some();
        let session_memory_store: Arc<dyn MemoryStore> = self
            .session_memory_backend
            .unwrap_or_else(|| Arc::new(InMemoryStore::new()));
        if self.session_memory_tools {
            tool_registry.register(
                SessionMemorySetTool::new(Arc::clone(&session_memory_store)).into_tool(),
            )?;
            tool_registry.register(
                SessionMemoryGetTool::new(Arc::clone(&session_memory_store)).into_tool(),
            )?;
        }
        if let Some(retriever) = &self.retriever {
            tool_registry.register(RetrieveTool::new(Arc::clone(retriever)).into_tool())?;
        }
        let long_term = self.long_term.filter(|lt| lt.options.enabled);
        if let Some(long_term) = long_term.as_ref().filter(|lt| lt.options.tools) {
            let save = MemorySaveTool::new(long_term.memory.clone())
                .with_writable_types(long_term.options.writable_types.clone())
                .with_auto_tag(long_term.options.extract.auto_tag);
            tool_registry.register(save.into_tool())?;
            tool_registry.register(MemoryRecallTool::new(long_term.memory.clone()).into_tool())?;
        }
        let mut bundle = RuntimeBundle::new(provider, tool_registry, hook_executor);
        bundle.retriever = self.retriever;
        bundle.session_memory_store = session_memory_store;
        bundle.has_session_memory_backend = has_backend;
        bundle.base_prompt = self.base_prompt;
        bundle.environment = self.environment;
        bundle.config = self.config;
        bundle.long_term = long_term;
        bundle.attachments = self.attachments;
        if let Some(prompts) = self.prompts {
            bundle.prompts = Arc::new(prompts);
        }
        Ok(Arc::new(bundle))
    }
}
