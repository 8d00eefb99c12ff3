//! [`InMemoryLongTerm`]: a [`LongTermBackend`] in process memory (tests,
//! short-lived agents). Search ranks with the crate's
//! [`Bm25`](crate::retriever::Bm25).

mod data;
mod import;

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use self::data::{BufferedTurn, ScopeData, Stored};
use super::apply::{apply_update, apply_use, merge_duplicate, new_entry};
use super::backend::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    SaveOutcome, ScoredEntry, SearchRequest, UsageLogRow, UsageRecord,
};
use super::entry::{MemoryEntry, MemoryScope, MemoryUpdate, NewMemory};
use super::normalize::content_key;
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
        let mut state = self.lock()?;
        let key = content_key(&new.content);
        let next = state.next_id.saturating_add(1);
        let data = state.scopes.entry(scope.clone()).or_default();
        if let Some(stored) = data.keys.get(&key).and_then(|id| data.entries.get(id)) {
            let mut entry = stored.entry.clone();
            merge_duplicate(&mut entry, new, rules, now);
            data.entries.insert(entry.id, Stored::new(entry.clone()));
            return Ok(SaveOutcome {
                entry,
                created: false,
            });
        }
        let mut entry = new_entry(scope, new, rules, now);
        entry.id = next;
        data.keys.insert(key, next);
        data.entries.insert(next, Stored::new(entry.clone()));
        state.next_id = next;
        Ok(SaveOutcome {
            entry,
            created: true,
        })
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
        let mut state = self.lock()?;
        let not_found = || MemoryError::NotFound(format!("memory {id}"));
        let data = state.scopes.get_mut(scope).ok_or_else(not_found)?;
        let mut entry = data
            .entries
            .get(&id)
            .map(|s| s.entry.clone())
            .ok_or_else(not_found)?;
        let old_key = content_key(&entry.content);
        let old = apply_update(&mut entry, update, rules, now)?;
        let new_key = content_key(&entry.content);
        if new_key != old_key && data.keys.contains_key(&new_key) {
            return Err(MemoryError::AlreadyExists(format!(
                "another memory of this scope already has this content (memory {id} unchanged)"
            )));
        }
        if let Some((name, content)) = old {
            data.history.push(HistoryEntry {
                memory_id: id,
                name,
                content,
                reason,
                recorded_at: now,
            });
        }
        data.keys.remove(&old_key);
        data.keys.insert(new_key, id);
        data.entries.insert(id, Stored::new(entry.clone()));
        Ok(entry)
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError> {
        let mut state = self.lock()?;
        let Some(data) = state.scopes.get_mut(scope) else {
            return Ok(false);
        };
        let Some(stored) = data.entries.remove(&id) else {
            return Ok(false);
        };
        data.keys.remove(&content_key(&stored.entry.content));
        data.usage.retain(|u| u.memory_id != id);
        data.history.push(HistoryEntry {
            memory_id: id,
            name: stored.entry.name,
            content: stored.entry.content,
            reason: HistoryReason::Delete,
            recorded_at: now,
        });
        Ok(true)
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .and_then(|d| d.entries.get(&id))
            .map(|s| s.entry.clone()))
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
        let mut state = self.lock()?;
        let Some(data) = state.scopes.get_mut(scope) else {
            return Ok(0);
        };
        let mut ids = record.ids.clone();
        ids.sort_unstable();
        ids.dedup();
        let mut updated = 0;
        for id in &ids {
            if let Some(stored) = data.entries.get_mut(id) {
                apply_use(&mut stored.entry, record.referenced, rules, now);
                data.usage.push(UsageLogRow {
                    memory_id: *id,
                    session_id: record.session_id.clone(),
                    query: record.query.clone(),
                    was_referenced: record.referenced,
                    used_at: now,
                });
                updated += 1;
            }
        }
        Ok(updated)
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .map(|d| {
                d.usage
                    .iter()
                    .filter(|u| u.memory_id == id)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let mut state = self.lock()?;
        let Some(data) = state.scopes.get_mut(scope) else {
            return Ok(0);
        };
        let mut n = 0;
        for stored in data.entries.values_mut() {
            if !stored.entry.archived && stored.entry.weight < threshold {
                stored.entry.archived = true;
                stored.entry.updated_at = now;
                n += 1;
            }
        }
        Ok(n)
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
        let mut state = self.lock()?;
        let id = state.next_turn.saturating_add(1);
        state.next_turn = id;
        let turn = DialogueTurn {
            id,
            session_id: session_id.to_owned(),
            user_query: user_query.to_owned(),
            assistant_response: assistant_response.to_owned(),
            created_at: now,
        };
        state
            .scopes
            .entry(scope.clone())
            .or_default()
            .buffer
            .push(BufferedTurn {
                turn: turn.clone(),
                applied_at: None,
            });
        Ok(turn)
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .map(|d| {
                d.buffer
                    .iter()
                    .filter(|t| t.applied_at.is_none() && t.turn.session_id == session_id)
                    .take(limit)
                    .map(|t| t.turn.clone())
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let mut state = self.lock()?;
        let Some(data) = state.scopes.get_mut(scope) else {
            return Ok(0);
        };
        let mut n = 0;
        for t in data.buffer.iter_mut().filter(|t| {
            t.applied_at.is_none() && t.turn.session_id == session_id && t.turn.id <= up_to
        }) {
            t.applied_at = Some(now);
            n += 1;
        }
        Ok(n)
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
