//! Keeping the window vectors of [`DenseContext`] current: after a write,
//! a background task re-reads the touched sequences and queues the windows
//! that hold a written or removed memory.

use std::sync::Arc;

use super::window::window_namespace;
use super::{DenseContext, HybridStore};
use crate::{MemoryFilter, MemoryItem, MemoryStore};

/// The sequences touched by a write: each group value with the ids written
/// in it (empty: every window of the group, after a removal).
pub(super) type Touched = Vec<(serde_json::Value, Vec<String>)>;

/// The groups of `items` under `context`, each with its items' ids.
pub(super) fn touched(context: &DenseContext, items: &[MemoryItem]) -> Touched {
    let mut out: Touched = Vec::new();
    for item in items {
        let Some(group) = context.group_value(item) else {
            continue;
        };
        match out.iter_mut().find(|(g, _)| *g == group) {
            Some((_, ids)) => ids.push(item.id.clone()),
            None => out.push((group, vec![item.id.clone()])),
        }
    }
    out
}

impl HybridStore {
    /// Queues, in a background task that [`HybridStore::flush`] waits for,
    /// the window texts of the sequences in `touched`: the windows holding
    /// one of the listed ids, or every window of a group listed without ids.
    /// Windows whose text did not change are skipped by the queue. A store
    /// error is logged: those memories keep their previous window vector.
    pub(super) fn queue_windows(&self, touched: Touched) {
        let (Some(dense), Some(context)) = (&self.dense, &self.config.dense_context) else {
            return;
        };
        if touched.is_empty() {
            return;
        }
        let (dense, context) = (Arc::clone(dense), context.clone());
        let inner: Arc<dyn MemoryStore> = Arc::clone(&self.inner);
        let namespace = window_namespace(&self.config.namespace);
        self.tasks.spawn(async move {
            for (group, ids) in touched {
                let filter = MemoryFilter::default().metadata_eq(context.group_key.clone(), group);
                let members = match inner.list(&filter).await {
                    Ok(members) => members,
                    Err(error) => {
                        tracing::warn!(%error, "listing a sequence failed; its window vectors stay as they were");
                        continue;
                    }
                };
                let targets = if ids.is_empty() {
                    (0..members.len()).collect()
                } else {
                    context.affected(&members, &ids)
                };
                for (id, text) in context.window_texts(&members, targets) {
                    dense.enqueue(&namespace, &id, &text).await;
                }
            }
        });
    }

    /// Waits until the window tasks started before this call have queued
    /// their texts.
    pub(super) async fn wait_windows(&self) {
        self.tasks.close();
        self.tasks.wait().await;
        self.tasks.reopen();
    }
}
