//! The built-in store types: `simple`, `file`, `blackboard`.

pub mod blackboard;
pub mod file;
mod file_config;
pub mod simple;

use std::sync::Arc;

use super::factory::parse_store_config;
use super::registry::MemoryStoreRegistry;
use super::store::AttachedStore;

impl MemoryStoreRegistry {
    /// `simple`, `file` and `blackboard`.
    pub fn with_builtins() -> Self {
        let mut registry = Self::new();
        register_builtins(&mut registry);
        registry
    }
}

/// Registers the built-in types in `registry`.
pub fn register_builtins(registry: &mut MemoryStoreRegistry) {
    registry.register(
        "simple",
        parse_store_config::<simple::SimpleStoreConfig>,
        |spec, config, ctx| async move {
            let store = simple::SimpleStore::open(spec, config, ctx).await?;
            Ok(Arc::new(store) as Arc<dyn AttachedStore>)
        },
        "Turns written by the agent, deduplicated; dense search re-scored by keyword overlap when an embedding is configured, else BM25",
    );
    registry.register(
        "file",
        file::parse_file_config,
        |spec, config, ctx| async move {
            let store = file::FileStore::open(spec, config, ctx).await?;
            Ok(Arc::new(store) as Arc<dyn AttachedStore>)
        },
        "Files and folders cut into chunks and indexed (BM25, vectors with an embedding); re-indexes only changed files; read-only",
    );
    registry.register(
        "blackboard",
        parse_store_config::<blackboard::BlackboardConfig>,
        |spec, config, ctx| async move {
            let store = blackboard::BlackboardStore::open(spec, config, ctx).await?;
            Ok(Arc::new(store) as Arc<dyn AttachedStore>)
        },
        "An append-only log of turns, newest first, trimmed by count and age; no vectors",
    );
}
