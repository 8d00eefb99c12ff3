//! [`LongTermBackend::import_entries`](crate::long_term::LongTermBackend::import_entries)
//! for [`InMemoryLongTerm`]: whole entries restored under new ids.

use super::InMemoryLongTerm;
use super::data::Stored;
use crate::MemoryError;
use crate::long_term::backend::SaveOutcome;
use crate::long_term::entry::MemoryEntry;
use crate::long_term::normalize::content_key;

impl InMemoryLongTerm {
    /// Inserts `entries` under one lock (all or nothing), skipping those whose
    /// content key is already taken in their scope.
    pub(super) fn import_all(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        let scopes = entries
            .iter()
            .map(MemoryEntry::scope)
            .collect::<Result<Vec<_>, _>>()?;
        let mut state = self.lock()?;
        let mut outcomes = Vec::with_capacity(entries.len());
        for (mut entry, scope) in entries.into_iter().zip(scopes) {
            let key = content_key(&entry.content);
            let next = state.next_id.saturating_add(1);
            let data = state.scopes.entry(scope).or_default();
            if let Some(existing) = data.keys.get(&key).and_then(|id| data.entries.get(id)) {
                outcomes.push(SaveOutcome {
                    entry: existing.entry.clone(),
                    created: false,
                });
                continue;
            }
            entry.id = next;
            data.keys.insert(key, next);
            data.entries.insert(next, Stored::new(entry.clone()));
            state.next_id = next;
            outcomes.push(SaveOutcome {
                entry,
                created: true,
            });
        }
        Ok(outcomes)
    }
}
