//! Use of the entries of [`InMemoryLongTerm`]: recording uses (weights and
//! the usage log), reading the log and archiving entries of low weight.

use chrono::{DateTime, Utc};

use super::InMemoryLongTerm;
use crate::MemoryError;
use crate::long_term::apply::apply_use;
use crate::long_term::backend::{UsageLogRow, UsageRecord};
use crate::long_term::scope::MemoryScope;
use crate::long_term::weights::WeightRules;

impl InMemoryLongTerm {
    /// [`LongTermBackend::record_use`](crate::long_term::LongTermBackend::record_use).
    pub(super) fn apply_usage(
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

    /// [`LongTermBackend::usage_log`](crate::long_term::LongTermBackend::usage_log).
    pub(super) fn usage_rows(
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

    /// [`LongTermBackend::archive_below`](crate::long_term::LongTermBackend::archive_below).
    pub(super) fn archive_weight_below(
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
}
