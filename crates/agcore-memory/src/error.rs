use thiserror::Error;

/// Errors of the memory layer (see `docs/memory.md`, *Errors*).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// No item or page with this id.
    #[error("Item not found: {0}")]
    NotFound(String),
    /// An item or page with this id exists already (strict inserts such as
    /// `KnowledgeStore::add_page`).
    #[error("Item already exists: {0}")]
    AlreadyExists(String),
    /// The backend failed (I/O, SQL, a poisoned lock, a task that panicked).
    #[error("Storage error: {0}")]
    Storage(String),
    /// Data could not be (de)serialized.
    #[error("Serialization error: {0}")]
    Serialization(String),
    /// The caller's input is invalid (empty or oversized id, bad filter, …); nothing was changed.
    #[error("Invalid input: {0}")]
    InvalidInput(String),
    /// Searching failed.
    #[error("Retrieval error: {0}")]
    RetrievalError(String),
    /// The backend cannot be reached right now (connection refused or lost,
    /// pool timeout, server shutting down, database busy or locked); the
    /// operation was not applied and may be retried.
    #[error("Backend unavailable: {0}")]
    Unavailable(String),
    /// The vectors stored here were made by another embedding model (or with
    /// another length) than the one given; nothing was changed. Re-embed
    /// (`agcore memory reembed`) or open with the stored model.
    #[error("Embedding model mismatch: the store holds vectors of {stored}, not {requested}")]
    EmbeddingMismatch {
        /// The space the stored vectors belong to (model id and dimensions).
        stored: String,
        /// The space that was asked for.
        requested: String,
    },
    /// The embedding model failed (server down, bad answer); the text is
    /// still stored and searchable by words.
    #[error("Embedding error: {0}")]
    Embedding(String),
    /// The chat model asked for memory work (fact extraction) failed; the
    /// dialogue buffer is kept for a later run.
    #[error("Model error: {0}")]
    Llm(#[from] agcore_llm::LlmError),
    /// Memory work got no answer within its limit (the extraction timeout);
    /// nothing was applied.
    #[error("Timed out: {0}")]
    Timeout(String),
}

impl MemoryError {
    /// Whether the caller can carry on: a missing item, a failed search or
    /// an unavailable backend, a failed embedding call or a timeout (retry
    /// later) is recoverable, a model error as the model's error says;
    /// storage, serialization, invalid input and an embedding model mismatch
    /// are not.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Llm(err) => err.is_recoverable(),
            other => matches!(
                other,
                Self::NotFound(_)
                    | Self::RetrievalError(_)
                    | Self::Unavailable(_)
                    | Self::Embedding(_)
                    | Self::Timeout(_)
            ),
        }
    }
}

impl From<serde_json::Error> for MemoryError {
    fn from(err: serde_json::Error) -> Self {
        Self::Serialization(err.to_string())
    }
}
