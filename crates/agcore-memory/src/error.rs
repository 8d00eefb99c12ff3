use thiserror::Error;

/// Errors of the memory layer (the six kinds of the memory design, §3.5).
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
}

impl MemoryError {
    /// Whether the caller can carry on: a missing item or a failed search is
    /// recoverable; storage, serialization and invalid input are not.
    pub fn is_recoverable(&self) -> bool {
        matches!(self, Self::NotFound(_) | Self::RetrievalError(_))
    }
}

impl From<serde_json::Error> for MemoryError {
    fn from(err: serde_json::Error) -> Self {
        Self::Serialization(err.to_string())
    }
}
