//! Serializable copies of the state of [`InMemoryLongTerm`]: taken per
//! scope and restored as they were (ids, history, usage log, dialogue
//! buffer and id counters kept), so a store that persists records elsewhere
//! can rebuild the in-process state on open and roll a scope back.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::data::{BufferedTurn, ScopeData, Stored};
use super::{InMemoryLongTerm, State};
use crate::MemoryError;
use crate::long_term::backend::{DialogueTurn, HistoryEntry, UsageLogRow};
use crate::long_term::entry::MemoryEntry;
use crate::long_term::normalize::content_key;
use crate::long_term::scope::MemoryScope;

/// One turn of the dialogue buffer with the time it was marked applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnSnapshot {
    /// The turn as appended.
    pub turn: DialogueTurn,
    /// When it was marked applied; `None` while pending.
    pub applied_at: Option<DateTime<Utc>>,
}

/// Everything one scope of an [`InMemoryLongTerm`] holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScopeSnapshot {
    /// The scope.
    pub scope: MemoryScope,
    /// Its entries, by ascending id.
    pub entries: Vec<MemoryEntry>,
    /// Its history rows, oldest first.
    pub history: Vec<HistoryEntry>,
    /// Its usage-log rows, oldest first.
    pub usage: Vec<UsageLogRow>,
    /// Its dialogue buffer, by ascending turn id.
    pub buffer: Vec<TurnSnapshot>,
}

impl ScopeSnapshot {
    /// An empty snapshot of `scope` (restoring it empties the scope).
    pub fn empty(scope: MemoryScope) -> Self {
        Self {
            scope,
            entries: Vec::new(),
            history: Vec::new(),
            usage: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// Whether the scope holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
            && self.history.is_empty()
            && self.usage.is_empty()
            && self.buffer.is_empty()
    }
}

/// The id counters and some (or all) scopes of an [`InMemoryLongTerm`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LongTermSnapshot {
    /// The last entry id handed out (the next entry gets `next_id + 1`).
    pub next_id: i64,
    /// The last dialogue-turn id handed out.
    pub next_turn: i64,
    /// The scopes copied.
    pub scopes: Vec<ScopeSnapshot>,
}

fn scope_snapshot(scope: &MemoryScope, data: Option<&ScopeData>) -> ScopeSnapshot {
    let Some(data) = data else {
        return ScopeSnapshot::empty(scope.clone());
    };
    ScopeSnapshot {
        scope: scope.clone(),
        entries: data.entries.values().map(|s| s.entry.clone()).collect(),
        history: data.history.clone(),
        usage: data.usage.clone(),
        buffer: data
            .buffer
            .iter()
            .map(|t| TurnSnapshot {
                turn: t.turn.clone(),
                applied_at: t.applied_at,
            })
            .collect(),
    }
}

fn scope_data(snapshot: ScopeSnapshot) -> ScopeData {
    let mut data = ScopeData::default();
    for entry in snapshot.entries {
        data.keys.insert(content_key(&entry.content), entry.id);
        data.entries.insert(entry.id, Stored::new(entry));
    }
    data.history = snapshot.history;
    data.usage = snapshot.usage;
    let mut buffer = snapshot.buffer;
    buffer.sort_by_key(|t| t.turn.id);
    data.buffer = buffer
        .into_iter()
        .map(|t| BufferedTurn {
            turn: t.turn,
            applied_at: t.applied_at,
        })
        .collect();
    data
}

impl InMemoryLongTerm {
    /// A store holding `snapshot` (as [`restore`](Self::restore) on an empty store).
    pub fn from_snapshot(snapshot: LongTermSnapshot) -> Self {
        let mut state = State::default();
        restore_into(&mut state, snapshot);
        Self {
            state: std::sync::Mutex::new(state),
        }
    }

    /// The id counters and every scope.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the store is closed or its lock poisoned.
    pub fn snapshot(&self) -> Result<LongTermSnapshot, MemoryError> {
        let state = self.lock()?;
        let mut scopes: Vec<ScopeSnapshot> = state
            .scopes
            .iter()
            .map(|(scope, data)| scope_snapshot(scope, Some(data)))
            .collect();
        scopes.sort_by(|a, b| a.scope.cmp(&b.scope));
        Ok(LongTermSnapshot {
            next_id: state.next_id,
            next_turn: state.next_turn,
            scopes,
        })
    }

    /// The id counters and the given scopes (an empty snapshot for a scope
    /// that holds nothing), in the order asked.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the store is closed or its lock poisoned.
    pub fn snapshot_scopes(&self, scopes: &[MemoryScope]) -> Result<LongTermSnapshot, MemoryError> {
        let state = self.lock()?;
        Ok(LongTermSnapshot {
            next_id: state.next_id,
            next_turn: state.next_turn,
            scopes: scopes
                .iter()
                .map(|s| scope_snapshot(s, state.scopes.get(s)))
                .collect(),
        })
    }

    /// Sets the id counters of `snapshot` and replaces each scope it holds
    /// with its copy (an empty copy removes the scope); other scopes are
    /// left alone. Content keys and search terms are rebuilt.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the store is closed or its lock poisoned.
    pub fn restore(&self, snapshot: LongTermSnapshot) -> Result<(), MemoryError> {
        let mut state = self.lock()?;
        restore_into(&mut state, snapshot);
        Ok(())
    }
}

fn restore_into(state: &mut State, snapshot: LongTermSnapshot) {
    state.next_id = snapshot.next_id;
    state.next_turn = snapshot.next_turn;
    let mut scopes: HashMap<MemoryScope, ScopeData> = HashMap::new();
    for scope in snapshot.scopes {
        let key = scope.scope.clone();
        if scope.is_empty() {
            state.scopes.remove(&key);
        } else {
            scopes.insert(key, scope_data(scope));
        }
    }
    state.scopes.extend(scopes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::long_term::backend::{HistoryReason, LongTermBackend, UsageRecord};
    use crate::long_term::changes::{MemoryUpdate, NewMemory};
    use crate::long_term::entry::MemoryType;
    use crate::long_term::weights::WeightRules;

    #[tokio::test]
    async fn a_restored_store_answers_as_the_original() {
        let store = InMemoryLongTerm::new();
        let scope = MemoryScope::new("agent", "用户").unwrap();
        let rules = WeightRules::default();
        let now = Utc::now();
        let saved = store
            .save(
                &scope,
                NewMemory::new(MemoryType::User, "", "用户喜欢喝绿茶"),
                &rules,
                now,
            )
            .await
            .unwrap();
        let id = saved.entry.id;
        let update = MemoryUpdate {
            content: Some("用户喜欢喝乌龙茶".into()),
            ..MemoryUpdate::default()
        };
        store
            .update(&scope, id, update, HistoryReason::Update, &rules, now)
            .await
            .unwrap();
        let record = UsageRecord::new("s", "茶", vec![id], true);
        store.record_use(&scope, record, &rules, now).await.unwrap();
        store
            .buffer_append(&scope, "s", "q", "a", now)
            .await
            .unwrap();

        let copy = InMemoryLongTerm::from_snapshot(store.snapshot().unwrap());
        assert_eq!(copy.snapshot().unwrap(), store.snapshot().unwrap());
        let hits = copy
            .search(&scope, "乌龙茶", &Default::default())
            .await
            .unwrap();
        assert_eq!(hits.first().map(|h| h.entry.id), Some(id));
        let again = copy
            .save(
                &scope,
                NewMemory::new(MemoryType::User, "", "another"),
                &rules,
                now,
            )
            .await
            .unwrap();
        assert_eq!(again.entry.id, id + 1, "the id counter survives");

        copy.restore(LongTermSnapshot {
            next_id: 0,
            next_turn: 0,
            scopes: vec![ScopeSnapshot::empty(scope.clone())],
        })
        .unwrap();
        assert!(copy.scopes().await.unwrap().is_empty());
    }
}
