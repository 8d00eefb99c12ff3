//! The built-in store types: `simple`, `file`, `blackboard`.

pub mod blackboard;
pub mod simple;

use std::sync::Arc;

use super::registry::{MemoryStoreRegistry, parse_store_config};
use super::store::AttachedStore;

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
        "blackboard",
        parse_store_config::<blackboard::BlackboardConfig>,
        |spec, config, ctx| async move {
            let store = blackboard::BlackboardStore::open(spec, config, ctx).await?;
            Ok(Arc::new(store) as Arc<dyn AttachedStore>)
        },
        "An append-only log of turns, newest first, trimmed by count and age; no vectors",
    );
}
