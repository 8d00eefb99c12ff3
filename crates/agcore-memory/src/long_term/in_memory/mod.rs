//! [`InMemoryLongTerm`]: a [`LongTermBackend`] in process memory (tests,
//! short-lived agents). Search ranks with the crate's
//! [`Bm25`](crate::retriever::Bm25).

mod buffer;
mod data;
mod import;
mod snapshot;
mod usage;
mod write;

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use self::data::ScopeData;
pub use self::snapshot::{LongTermSnapshot, ScopeSnapshot, TurnSnapshot};
use super::backend::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    SaveOutcome, ScoredEntry, SearchRequest, UsageLogRow, UsageRecord,
};
use super::changes::{MemoryUpdate, NewMemory};
use super::entry::MemoryEntry;
use super::scope::MemoryScope;
use super::weights::WeightRules;
use crate::MemoryError;

#[derive(Debug, Default)]
struct State {
    closed: bool,
    next_id: i64,
    next_turn: i64,
    scopes: HashMap<MemoryScope, ScopeData>,
}

/// Long-term memory held in process memory; gone when dropped.
///
/// `Send + Sync`; one mutex guards the state, held only for the duration of
/// one synchronous operation (never across `.await`).
#[derive(Debug, Default)]
pub struct InMemoryLongTerm {
    state: Mutex<State>,
}

impl InMemoryLongTerm {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>, MemoryError> {
        let guard = self
            .state
            .lock()
            .map_err(|_| MemoryError::Storage("long-term memory: state lock poisoned".into()))?;
        if guard.closed {
            return Err(MemoryError::Storage(
                "long-term memory: store is closed".into(),
            ));
        }
        Ok(guard)
    }
}

#[async_trait]
impl LongTermBackend for InMemoryLongTerm {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, MemoryError> {
        self.save_entry(scope, new, rules, now)
    }

    async fn update(
        &self,
        scope: &MemoryScope,
        id: i64,
        update: MemoryUpdate,
        reason: HistoryReason,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<MemoryEntry, MemoryError> {
        self.update_entry(scope, id, update, reason, rules, now)
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError> {
        self.delete_entry(scope, id, now)
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .and_then(|d| d.entries.get(&id))
            .map(|s| s.entry.clone()))
    }

    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        let state = self.lock()?;
        let entries = state.scopes.get(scope).map(|d| &d.entries);
        Ok(ids
            .iter()
            .map(|id| entries.and_then(|e| e.get(id)).map(|s| s.entry.clone()))
            .collect())
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<MemoryEntry>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .and_then(|d| d.keys.get(key).and_then(|id| d.entries.get(id)))
            .map(|s| s.entry.clone()))
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<HistoryEntry>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .map(|d| {
                d.history
                    .iter()
                    .filter(|h| h.memory_id == id)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .map(|d| d.search(query, request))
            .unwrap_or_default())
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> Result<Vec<MemoryEntry>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .map(|d| d.list(request))
            .unwrap_or_default())
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        self.apply_usage(scope, record, rules, now)
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError> {
        self.usage_rows(scope, id)
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        self.archive_weight_below(scope, threshold, now)
    }

    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Result<MaintenanceReport, MemoryError> {
        let mut state = self.lock()?;
        Ok(state
            .scopes
            .get_mut(scope)
            .map(|d| d.maintenance(rules, now, purge_before))
            .unwrap_or_default())
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError> {
        self.append_turn(scope, session_id, user_query, assistant_response, now)
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        self.pending_turns(scope, session_id, limit)
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        self.mark_turns_applied(scope, session_id, up_to, now)
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        self.import_all(entries)
    }

    async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError> {
        let state = self.lock()?;
        let mut out: Vec<MemoryScope> = state
            .scopes
            .iter()
            .filter(|(_, d)| !d.entries.is_empty() || !d.buffer.is_empty())
            .map(|(s, _)| s.clone())
            .collect();
        out.sort();
        Ok(out)
    }

    async fn close(&self) -> Result<(), MemoryError> {
        let mut state = self
            .state
            .lock()
            .map_err(|_| MemoryError::Storage("long-term memory: state lock poisoned".into()))?;
        state.closed = true;
        state.scopes.clear();
        Ok(())
    }
}
