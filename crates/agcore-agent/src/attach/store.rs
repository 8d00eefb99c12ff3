//! [`AttachedStore`]: what every store type implements (seed 003's `MemoryBase`).

use agcore_types::ChatMessage;
use async_trait::async_trait;

use super::item::AttachedItem;
use crate::AgentError;

/// One retrieved memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    /// The memory.
    pub item: AttachedItem,
    /// Its similarity to the query in `[-1, 1]` (higher is closer); `None`
    /// for stores that do not rank by similarity (`blackboard`), which
    /// `similarity_threshold` then does not filter.
    pub score: Option<f64>,
}

/// What [`AttachedStore::update`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateOutcome {
    /// A new item was written.
    Written {
        /// Its id.
        id: String,
    },
    /// An item with the same summary existed; nothing new was written.
    Duplicate {
        /// The existing item's id.
        id: String,
    },
    /// Nothing worth keeping (empty turn).
    Skipped,
}

/// A named memory store that agents attach. Implementations are
/// `Send + Sync` (and `Debug`, for logs) and shared as `Arc<dyn AttachedStore>`.
#[async_trait]
pub trait AttachedStore: Send + Sync + std::fmt::Debug {
    /// The store's name in the configuration.
    fn name(&self) -> &str;

    /// The registered type (`simple`, `file`, `blackboard`, …).
    fn store_type(&self) -> &str;

    /// Whether [`AttachedStore::update`] can succeed. Default `true`.
    fn writable(&self) -> bool {
        true
    }

    /// Reads what is persisted (and, for `file`, re-indexes changed files).
    /// Called once before the first retrieval.
    ///
    /// # Errors
    /// The store's I/O and backend errors.
    async fn load(&self) -> Result<(), AgentError>;

    /// At most `top_k` memories for `query`, best first.
    ///
    /// # Errors
    /// Backend and embedding errors.
    async fn retrieve(&self, query: &str, top_k: usize) -> Result<Vec<Recalled>, AgentError>;

    /// Records one finished turn.
    ///
    /// # Errors
    /// [`AgentError::ReadOnly`] for stores that cannot be written; backend errors.
    async fn update(
        &self,
        input: &[ChatMessage],
        output: &[ChatMessage],
    ) -> Result<UpdateOutcome, AgentError>;

    /// Persists what `update` wrote and not yet persisted.
    ///
    /// # Errors
    /// The store's I/O and backend errors.
    async fn save(&self) -> Result<(), AgentError>;
}
