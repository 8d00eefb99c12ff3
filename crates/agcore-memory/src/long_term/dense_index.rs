//! [`LongTermDense`], the dense side of long-term memory, and the vector
//! namespace of each scope ([`scope_namespace`]).

use std::sync::Arc;

use super::scope::MemoryScope;
use crate::hybrid::{DenseIndex, HybridConfig};

/// The dense side of long-term memory: the index and how searches rank.
#[derive(Debug, Clone)]
pub struct LongTermDense {
    /// Embedder, vectors and queue.
    pub index: Arc<DenseIndex>,
    /// Ranking settings (its `namespace` is unused: each scope has its own).
    pub config: HybridConfig,
}

/// The vector namespace of a scope: `lt:` + the agent's byte length + `:` +
/// agent + user, so no two scopes share one whatever their names hold.
pub fn scope_namespace(scope: &MemoryScope) -> String {
    format!(
        "lt:{}:{}{}",
        scope.agent().len(),
        scope.agent(),
        scope.user()
    )
}
