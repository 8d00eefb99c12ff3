//! Keeping the window vectors of [`DenseContext`] current: after a write,
//! a background task re-reads the touched sequences and queues the windows
//! that hold a written or removed memory.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

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

/// The window texts `(id, text)` of sequence `group` as `inner` holds it
/// now: those holding one of `ids`, or every window when `ids` is empty.
///
/// # Errors
/// Errors of `inner` listing the sequence.
pub(super) async fn group_windows(
    inner: &dyn MemoryStore,
    context: &DenseContext,
    group: serde_json::Value,
    ids: &[String],
) -> Result<Vec<(String, String)>, crate::MemoryError> {
    let filter = MemoryFilter::default().metadata_eq(context.group_key.clone(), group);
    let members = inner.list(&filter).await?;
    let targets = if ids.is_empty() {
        (0..members.len()).collect()
    } else {
        context.affected(&members, ids)
    };
    Ok(context.window_texts(&members, targets))
}

/// Counts the window tasks in flight so `flush` can wait for them (any
/// number of concurrent waiters, no missed wake-ups).
#[derive(Clone, Default)]
pub(super) struct InFlight(Arc<(AtomicUsize, Notify)>);

/// One task in flight; dropping it ends the task's count.
struct Running(InFlight);

impl Drop for Running {
    fn drop(&mut self) {
        let (count, notify) = &*(self.0).0;
        if count.fetch_sub(1, Ordering::AcqRel) == 1 {
            notify.notify_waiters();
        }
    }
}

impl InFlight {
    fn start(&self) -> Running {
        self.0.0.fetch_add(1, Ordering::AcqRel);
        Running(self.clone())
    }

    /// Returns once no task is in flight.
    pub(super) async fn idle(&self) {
        let (count, notify) = &*self.0;
        loop {
            // Registered before the check, so a task ending in between wakes it.
            let ended = notify.notified();
            if count.load(Ordering::Acquire) == 0 {
                return;
            }
            ended.await;
        }
    }
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
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no Tokio runtime: window vectors are not updated");
            return;
        };
        let (dense, context) = (Arc::clone(dense), context.clone());
        let inner: Arc<dyn MemoryStore> = Arc::clone(&self.inner);
        let namespace = window_namespace(&self.config.namespace);
        let running = self.tasks.start();
        runtime.spawn(async move {
            let _running = running;
            for (group, ids) in touched {
                let windows = match group_windows(inner.as_ref(), &context, group, &ids).await {
                    Ok(windows) => windows,
                    Err(error) => {
                        tracing::warn!(%error, "listing a sequence failed; its window vectors stay as they were");
                        continue;
                    }
                };
                for (id, text) in windows {
                    dense.enqueue(&namespace, &id, &text).await;
                }
            }
        });
    }

    /// Waits until no window task is in flight (every write before this
    /// call has queued its window texts).
    pub(super) async fn wait_windows(&self) {
        self.tasks.idle().await;
    }
}
