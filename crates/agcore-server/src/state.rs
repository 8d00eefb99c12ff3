//! [`AppState`]: what every request handler shares, behind an `Arc`.

use std::sync::Arc;

use agcore::memory::Storage;
use agcore::memory::hybrid::DenseIndex;
use agcore::memory::long_term::LongTermMemory;

use crate::agents::AgentStore;
use crate::chat::ChatRuntime;
use crate::keys::KeyStore;

/// Request limits of the server.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Largest request body, in bytes (larger: 413). Default 1 MiB.
    pub body_bytes: usize,
    /// Requests per second each key (or, before authentication, the whole
    /// server) may make on average (more: 429). Default 2,000.
    pub requests_per_second: u32,
    /// Requests a key may make at once above the average. Default 4,000.
    pub burst: u32,
    /// Most memories one listing or search returns. Default 500.
    pub max_page: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            body_bytes: 1 << 20,
            requests_per_second: 2_000,
            burst: 4_000,
            max_page: 500,
        }
    }
}

/// The shared state of the server: the long-term memory (every scope), the
/// keys and the limits. `Send + Sync`; handlers get it as `Arc<AppState>`.
#[derive(Debug)]
pub struct AppState {
    /// Long-term memory over the opened storage.
    pub memory: LongTermMemory,
    /// The opened storage (kind and location for `/v1/stats`).
    pub storage: Option<Storage>,
    /// The dense index, when hybrid search is configured (flushed at shutdown).
    pub dense: Option<Arc<DenseIndex>>,
    /// The API keys.
    pub keys: KeyStore,
    /// The agents and their memory settings.
    pub agents: AgentStore,
    /// The LLM endpoint and conversations of chat turns (`None`: chat answers 503).
    pub chat: Option<ChatRuntime>,
    /// Request limits.
    pub limits: Limits,
    /// `Host` values the MCP endpoint accepts (empty: loopback names only,
    /// against DNS rebinding). Set when binding to another address.
    pub allowed_hosts: Vec<String>,
}

impl AppState {
    /// A state over `memory` with `keys` and default limits.
    pub fn new(memory: LongTermMemory, keys: KeyStore) -> Self {
        Self {
            memory,
            storage: None,
            dense: None,
            keys,
            agents: AgentStore::in_memory(),
            chat: None,
            limits: Limits::default(),
            allowed_hosts: Vec::new(),
        }
    }

    /// Sets the opened storage.
    #[must_use]
    pub fn with_storage(mut self, storage: Storage) -> Self {
        self.storage = Some(storage);
        self
    }

    /// Sets the dense index, flushed when the server stops.
    #[must_use]
    pub fn with_dense(mut self, dense: Option<Arc<DenseIndex>>) -> Self {
        self.dense = dense;
        self
    }

    /// Sets the agent store.
    #[must_use]
    pub fn with_agents(mut self, agents: AgentStore) -> Self {
        self.agents = agents;
        self
    }

    /// Turns chat on with `chat` (its LLM endpoint and settings).
    #[must_use]
    pub fn with_chat(mut self, chat: ChatRuntime) -> Self {
        self.chat = Some(chat);
        self
    }

    /// Sets the limits.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the `Host` values the MCP endpoint accepts.
    #[must_use]
    pub fn with_allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    /// Finishes background memory work (the extraction of open chat
    /// conversations, embeddings queued by saves): called by
    /// [`serve`](crate::serve) after the last request.
    pub async fn finish(&self) {
        if let Some(chat) = &self.chat {
            chat.finish().await;
        }
        if let Some(dense) = &self.dense {
            dense.flush().await;
        }
    }
}
