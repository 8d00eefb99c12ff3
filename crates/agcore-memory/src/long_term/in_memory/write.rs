//! Writes to the entries of [`InMemoryLongTerm`]: save (merging a
//! duplicate), update (recording the old text in the history) and delete.

use chrono::{DateTime, Utc};

use super::InMemoryLongTerm;
use super::data::Stored;
use crate::MemoryError;
use crate::long_term::apply::{apply_update, merge_duplicate, new_entry};
use crate::long_term::backend::{HistoryEntry, HistoryReason, SaveOutcome};
use crate::long_term::changes::{MemoryUpdate, NewMemory};
use crate::long_term::entry::MemoryEntry;
use crate::long_term::normalize::content_key;
use crate::long_term::scope::MemoryScope;
use crate::long_term::weights::WeightRules;

impl InMemoryLongTerm {
    /// [`LongTermBackend::save`](crate::long_term::LongTermBackend::save).
    pub(super) fn save_entry(
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

    /// [`LongTermBackend::update`](crate::long_term::LongTermBackend::update).
    pub(super) fn update_entry(
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

    /// [`LongTermBackend::delete`](crate::long_term::LongTermBackend::delete).
    pub(super) fn delete_entry(
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
}
