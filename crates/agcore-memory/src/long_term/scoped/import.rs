//! Backup import into one scope: refused for entries of several scopes
//! unless the caller asks to merge them.

use std::collections::BTreeSet;

use super::super::backend::SaveOutcome;
use super::super::entry::MemoryEntry;
use super::{ScopedMemory, validate_import};
use crate::MemoryError;

/// The distinct scopes the entries name, as `agent/user` labels, sorted.
///
/// Entries name their scope in `agent_name` / `user_id`; an export of
/// several scopes (`agcore memory export --all-scopes`) holds several.
pub fn import_scopes(entries: &[MemoryEntry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| format!("{}/{}", e.agent_name, e.user_id))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

impl ScopedMemory {
    /// Restores whole entries into this scope (backup import): each entry's
    /// `agent_name` / `user_id` are replaced by this scope's, its id is newly
    /// assigned, every other field (timestamps, weight, archive flag, use
    /// count, metadata, tags) is kept. Entries whose text is already in the
    /// scope are skipped (`created = false`, the stored entry returned).
    /// Everything is checked before anything is written; then all or nothing.
    ///
    /// Entries of one scope (any scope) are imported; entries naming
    /// several scopes are refused, since importing them here would give
    /// this scope's user every other user's memories: keep each entry's
    /// scope with [`LongTermMemory::import_entries`](crate::long_term::LongTermMemory::import_entries),
    /// or merge them on purpose with [`ScopedMemory::import_entries_merged`].
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] naming the scopes found when there are
    /// several, or the position of an entry with empty or oversized content
    /// or a non-finite weight (nothing written); [`MemoryError::Storage`].
    pub async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        let scopes = import_scopes(&entries);
        if scopes.len() > 1 {
            return Err(MemoryError::InvalidInput(format!(
                "the entries belong to {} scopes ({}): keep each entry's scope \
                 (LongTermMemory::import_entries) or merge them into {} on purpose \
                 (ScopedMemory::import_entries_merged)",
                scopes.len(),
                scopes.join(", "),
                self.scope
            )));
        }
        self.import_entries_merged(entries).await
    }

    /// [`ScopedMemory::import_entries`] for entries of any number of
    /// scopes: all of them go into this scope (merging users' memories
    /// into one, e.g. after renaming a user).
    ///
    /// # Errors
    /// As [`ScopedMemory::import_entries`], without the scope check.
    pub async fn import_entries_merged(
        &self,
        mut entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        for entry in &mut entries {
            self.scope.agent().clone_into(&mut entry.agent_name);
            self.scope.user().clone_into(&mut entry.user_id);
        }
        validate_import(&entries)?;
        let outcomes = self.backend.import_entries(entries).await?;
        self.embed_outcomes(&outcomes).await;
        Ok(outcomes)
    }
}
