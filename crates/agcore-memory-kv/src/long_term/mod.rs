//! [`KvLongTerm`]: a [`LongTermBackend`] whose records live in a
//! [`KvBackend`] and whose state is served by an [`InMemoryLongTerm`].

mod records;
mod trait_impl;

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::long_term::{InMemoryLongTerm, LongTermSnapshot, MemoryScope};
use tokio::sync::{Mutex, MutexGuard};

use crate::backend::KvBackend;

/// Long-term memory over any [`KvBackend`].
///
/// Entries, history rows (per entry), usage-log rows (per entry), buffered
/// turns and the id counters are JSON records of [`Table::Entries`],
/// [`Table::History`], [`Table::Usage`], [`Table::Turns`] and
/// [`Table::Meta`](crate::Table::Meta). On open they are read into an
/// [`InMemoryLongTerm`] (ids, history, usage log, buffer and counters as
/// stored), which answers every read and search: results and scores are
/// those of the in-memory backend. Each write runs on the in-memory state,
/// then the records it changed (the difference between snapshots of the
/// touched scopes taken before and after) go to the backend in one atomic
/// batch; when that write fails, the scopes are restored from the snapshot
/// taken before, so the state and the backend still agree. Writes are
/// serialised; memory use is O(data), and each write copies its scope.
///
/// [`Table::Entries`]: crate::Table::Entries
/// [`Table::History`]: crate::Table::History
/// [`Table::Usage`]: crate::Table::Usage
/// [`Table::Turns`]: crate::Table::Turns
/// [`LongTermBackend`]: agcore_memory::long_term::LongTermBackend
pub struct KvLongTerm<B> {
    backend: Arc<B>,
    state: InMemoryLongTerm,
    writes: Mutex<()>,
}

impl<B> std::fmt::Debug for KvLongTerm<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvLongTerm").finish_non_exhaustive()
    }
}

/// A write in progress: the write turn and the touched scopes as they were.
struct Turn<'a> {
    _guard: MutexGuard<'a, ()>,
    before: LongTermSnapshot,
}

impl<B: KvBackend> KvLongTerm<B> {
    /// Opens the long-term memory of `backend`, loading every scope.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the backend fails or holds a corrupt record.
    pub async fn open(backend: Arc<B>) -> Result<Self, MemoryError> {
        let snapshot = records::load(backend.as_ref()).await?;
        Ok(Self {
            backend,
            state: InMemoryLongTerm::from_snapshot(snapshot),
            writes: Mutex::new(()),
        })
    }

    /// The backend.
    pub fn backend(&self) -> &Arc<B> {
        &self.backend
    }

    /// A copy of the whole state (id counters and every scope), as the
    /// backend holds it: for export, inspection and tests.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the store is closed.
    pub fn snapshot(&self) -> Result<LongTermSnapshot, MemoryError> {
        self.state.snapshot()
    }

    /// Takes the write turn and a snapshot of `scopes`.
    async fn begin(&self, scopes: &[MemoryScope]) -> Result<Turn<'_>, MemoryError> {
        let guard = self.writes.lock().await;
        let before = self.state.snapshot_scopes(scopes)?;
        Ok(Turn {
            _guard: guard,
            before,
        })
    }

    /// Ends the write of `turn`: persists what changed when `result` is
    /// `Ok`; restores the scopes when it is not or when persisting fails.
    async fn commit<T>(
        &self,
        turn: Turn<'_>,
        result: Result<T, MemoryError>,
    ) -> Result<T, MemoryError> {
        let value = match result {
            Ok(value) => value,
            Err(e) => {
                self.state.restore(turn.before)?;
                return Err(e);
            }
        };
        let scopes: Vec<MemoryScope> = turn.before.scopes.iter().map(|s| s.scope.clone()).collect();
        let after = self.state.snapshot_scopes(&scopes)?;
        let batch = records::changes(&turn.before, &after)?;
        if batch.is_empty() {
            return Ok(value);
        }
        match self.backend.write(batch).await {
            Ok(()) => Ok(value),
            Err(e) => {
                self.state.restore(turn.before)?;
                Err(e.into())
            }
        }
    }
}
