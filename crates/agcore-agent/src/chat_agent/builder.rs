//! [`ChatAgentBuilder`]: the front door — a provider, optionally tools,
//! MCP servers and long-term memory, then `build().await`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use agcore_llm::LlmProvider;
use agcore_llm::embedding::EmbeddingModel;
use agcore_memory::hybrid::{EmbeddingQueueConfig, HybridConfig};
use agcore_memory::long_term::LongTermMemory;
use agcore_memory::retriever::{MemoryRetriever, RetrieverConfig};
use agcore_memory::{KnowledgeStore, MemoryError, Storage};
use agcore_tools::IntoTool;

use super::{ChatAgent, DEFAULT_USER_ID};
use crate::{AgentBuilder, AgentConfig, AgentError, LongTermOptions, SimpleAgent};

/// The name of a [`ChatAgent`] when [`ChatAgentBuilder::name`] was not
/// called (long-term memory is scoped to agent name + user id).
pub const DEFAULT_AGENT_NAME: &str = "assistant";

type OpenStorage = Pin<Box<dyn Future<Output = Result<Storage, MemoryError>> + Send>>;

/// Where long-term memory comes from.
enum MemorySource {
    None,
    Ready(Box<LongTermMemory>),
    Open(OpenStorage),
}

/// Builds a [`ChatAgent`]. Only [`ChatAgentBuilder::provider`] is required;
/// the defaults are an agent named [`DEFAULT_AGENT_NAME`] with no
/// instructions, no tools, no hooks, the provider's default model, user
/// [`DEFAULT_USER_ID`] and no long-term memory.
///
/// Long-term memory comes on with [`ChatAgentBuilder::long_term_memory`]
/// (a memory you opened), [`ChatAgentBuilder::open_storage`] (a backend
/// opened at build time; the `agcore` facade's `.memory(url)` uses it) or
/// [`ChatAgentBuilder::long_term`] alone (in-process memory that lasts as
/// long as the program). It registers `memory_save` / `memory_recall`, and
/// prefetches memories into the system prompt and extracts facts in the
/// background as the [`LongTermOptions`] say (default:
/// [`LongTermOptions::default`]).
#[must_use]
pub struct ChatAgentBuilder {
    inner: AgentBuilder,
    name: String,
    instructions: Option<String>,
    user_id: String,
    memory: MemorySource,
    long_term: Option<LongTermOptions>,
    embedder: Option<(Arc<dyn EmbeddingModel>, HybridConfig)>,
    #[cfg(feature = "mcp")]
    mcp_servers: Vec<agcore_tools::McpServerConfig>,
}

impl std::fmt::Debug for ChatAgentBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatAgentBuilder")
            .field("inner", &self.inner)
            .field("name", &self.name)
            .field("user_id", &self.user_id)
            .field("long_term", &self.long_term.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for ChatAgentBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ChatAgentBuilder {
    /// A builder with every default.
    pub fn new() -> Self {
        Self {
            inner: AgentBuilder::new().model(""),
            name: DEFAULT_AGENT_NAME.to_owned(),
            instructions: None,
            user_id: DEFAULT_USER_ID.to_owned(),
            memory: MemorySource::None,
            long_term: None,
            embedder: None,
            #[cfg(feature = "mcp")]
            mcp_servers: Vec::new(),
        }
    }

    /// The model backend (required), e.g. `OpenAiProvider::from_env()?`.
    pub fn provider(self, provider: impl LlmProvider + 'static) -> Self {
        self.shared_provider(Arc::new(provider))
    }

    /// The model backend, already shared.
    pub fn shared_provider(mut self, provider: Arc<dyn LlmProvider>) -> Self {
        self.inner = self.inner.provider(provider);
        self
    }

    /// The model id sent with every request (default: empty, so the
    /// provider's default model, `AGCORE_MODEL` for the OpenAI-compatible one).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.inner = self.inner.model(model);
        self
    }

    /// The agent's name (default [`DEFAULT_AGENT_NAME`]); tools see it, and
    /// long-term memory is kept per agent name and user.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The agent's instructions: its layer of the system prompt.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The end user of the agent's own conversation ([`ChatAgent::chat`];
    /// default [`DEFAULT_USER_ID`]).
    pub fn user(mut self, user_id: impl Into<String>) -> Self {
        self.user_id = user_id.into();
        self
    }

    /// Adds a tool: a `TypedTool`, an `FnTool` or an `Arc<dyn Tool>`.
    pub fn tool(mut self, tool: impl IntoTool) -> Self {
        self.inner = self.inner.tool(tool);
        self
    }

    /// Adds several tools.
    pub fn tools<I>(mut self, tools: I) -> Self
    where
        I: IntoIterator,
        I::Item: IntoTool,
    {
        self.inner = self.inner.tools(tools);
        self
    }

    /// Adds the tools of an MCP server, connected by
    /// [`ChatAgentBuilder::build`] (feature `mcp`). Tool names are
    /// `<server>__<tool>`.
    #[cfg(feature = "mcp")]
    pub fn mcp_server(mut self, server: agcore_tools::McpServerConfig) -> Self {
        self.mcp_servers.push(server);
        self
    }

    /// Long-term memory you opened yourself (any backend, with or without
    /// dense retrieval).
    pub fn long_term_memory(mut self, memory: LongTermMemory) -> Self {
        self.memory = MemorySource::Ready(Box::new(memory));
        self
    }

    /// Long-term memory in a backend opened by [`ChatAgentBuilder::build`]
    /// (`open` runs then; the `agcore` facade's `.memory(url)` passes
    /// `agcore::memory::open(url)`).
    pub fn open_storage<F>(mut self, open: F) -> Self
    where
        F: Future<Output = Result<Storage, MemoryError>> + Send + 'static,
    {
        self.memory = MemorySource::Open(Box::pin(open));
        self
    }

    /// Turns long-term memory on with these options. Without a memory from
    /// [`ChatAgentBuilder::long_term_memory`] or
    /// [`ChatAgentBuilder::open_storage`], memories are kept in process.
    pub fn long_term(mut self, options: LongTermOptions) -> Self {
        self.long_term = Some(options);
        self
    }

    /// Makes long-term recall hybrid (BM25 fused with dense similarity from
    /// `embedder`, see `HybridConfig`) with vectors kept by the backend of
    /// [`ChatAgentBuilder::open_storage`] (or in process). Not for
    /// [`ChatAgentBuilder::long_term_memory`], which carries its own.
    pub fn embedder(mut self, embedder: Arc<dyn EmbeddingModel>, config: HybridConfig) -> Self {
        self.embedder = Some((embedder, config));
        self
    }

    /// Gives the agent the `retrieve` tool over the wiki `knowledge`: the
    /// model searches its pages (keyword retrieval with the default
    /// [`RetrieverConfig`], see [`MemoryRetriever`]) and gets the best
    /// pages' titles and text as the tool result — untrusted data, escaped
    /// as [`crate::RetrieveTool`] describes. For other retrieval settings or
    /// sources pass a retriever through [`ChatAgentBuilder::configure`]
    /// (`AgentBuilder::retriever`).
    pub fn knowledge(self, knowledge: Arc<KnowledgeStore>) -> Self {
        self.knowledge_with(knowledge, RetrieverConfig::default())
    }

    /// [`ChatAgentBuilder::knowledge`] with the retrieval settings `config`
    /// (candidate pool, `min_score`, `max_results`).
    pub fn knowledge_with(
        mut self,
        knowledge: Arc<KnowledgeStore>,
        config: RetrieverConfig,
    ) -> Self {
        let retriever = MemoryRetriever::over_knowledge(knowledge, config);
        self.inner = self.inner.retriever(Arc::new(retriever));
        self
    }

    /// Limits and per-turn settings (replaces the configuration, model
    /// included: call [`ChatAgentBuilder::model`] after it).
    pub fn config(mut self, config: AgentConfig) -> Self {
        self.inner = self.inner.config(config);
        self
    }

    /// Anything else of the underlying [`AgentBuilder`] (hooks, a shared
    /// tool registry, the environment layer, session-memory tools…).
    pub fn configure(mut self, f: impl FnOnce(AgentBuilder) -> AgentBuilder) -> Self {
        self.inner = f(self.inner);
        self
    }

    /// Opens the memory backend, connects the MCP servers and builds the agent.
    ///
    /// # Errors
    /// [`AgentError::Config`] without a provider, or with an embedder and a
    /// ready-made long-term memory; [`AgentError::Memory`]
    /// (`MemoryError::InvalidInput`) when long-term memory is configured and
    /// the name and user id do not form a valid `MemoryScope`, or when the
    /// backend cannot be opened or has no long-term memory; [`AgentError::Tool`]
    /// when an MCP server cannot be reached or two tools share a name.
    pub async fn build(self) -> Result<ChatAgent, AgentError> {
        let mut inner = self.inner;
        #[cfg(feature = "mcp")]
        let mut mcp_clients = Vec::with_capacity(self.mcp_servers.len());
        #[cfg(feature = "mcp")]
        for server in self.mcp_servers {
            let client = agcore_tools::McpClient::connect(server).await?;
            inner = inner.tools(client.tools());
            mcp_clients.push(client);
        }
        if let Some(memory) =
            open_memory(self.memory, self.long_term.is_some(), self.embedder).await?
        {
            // Refused now rather than logged on every turn.
            agcore_memory::long_term::MemoryScope::new(self.name.as_str(), self.user_id.as_str())?;
            inner = inner.long_term_memory(memory, self.long_term.unwrap_or_default());
        }
        let mut agent = SimpleAgent::new(self.name);
        if let Some(instructions) = self.instructions {
            agent = agent.with_system_prompt(instructions);
        }
        let bundle = inner.build()?;
        let chat = ChatAgent::with_user(Arc::new(agent), bundle, self.user_id)?;
        #[cfg(feature = "mcp")]
        let chat = ChatAgent {
            mcp_clients,
            ..chat
        };
        Ok(chat)
    }
}

/// The long-term memory to use: the one given, the one of the opened
/// backend, an in-process one when only options were given, or none.
async fn open_memory(
    source: MemorySource,
    wanted: bool,
    embedder: Option<(Arc<dyn EmbeddingModel>, HybridConfig)>,
) -> Result<Option<LongTermMemory>, AgentError> {
    let storage = match source {
        MemorySource::Ready(memory) => {
            if embedder.is_some() {
                return Err(AgentError::Config(
                    "an embedder applies to memory the builder opens; attach dense retrieval \
                     to a ready-made LongTermMemory with LongTermMemory::with_dense"
                        .to_owned(),
                ));
            }
            return Ok(Some(*memory));
        }
        MemorySource::Open(open) => open.await?,
        MemorySource::None if wanted || embedder.is_some() => Storage::in_memory(),
        MemorySource::None => return Ok(None),
    };
    let memory = storage.long_term()?;
    Ok(Some(match embedder {
        Some((embedder, config)) => {
            let index = storage
                .dense_index(embedder, EmbeddingQueueConfig::default())
                .await?;
            memory.with_dense(index, config)
        }
        None => memory,
    }))
}
