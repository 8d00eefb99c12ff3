//! Use of a scope's entries through [`ScopedMemory`]: usage records,
//! archiving, restoring and maintenance.

use super::{ScopedMemory, validate_session};
use crate::MemoryError;
use crate::long_term::backend::{MaintenanceReport, UsageLogRow, UsageRecord};
use crate::long_term::changes::MemoryUpdate;
use crate::long_term::entry::MemoryEntry;
use crate::long_term::normalize::now;

impl ScopedMemory {
    /// Records that `ids` were used in `session_id` for `query`: one usage-log
    /// row each, use count +1, weight raised when `referenced`, decayed
    /// otherwise ([`WeightRules::after_use`](crate::long_term::WeightRules::after_use)). Ids of other scopes are
    /// ignored; returns how many entries were updated.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn record_use(
        &self,
        session_id: &str,
        query: &str,
        ids: &[i64],
        referenced: bool,
    ) -> Result<usize, MemoryError> {
        validate_session(session_id)?;
        let record = UsageRecord::new(session_id, query, ids.to_vec(), referenced);
        self.backend
            .record_use(&self.scope, record, &self.rules, now())
            .await
    }

    /// Usage-log rows of entry `id`, oldest first.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn usage_log(&self, id: i64) -> Result<Vec<UsageLogRow>, MemoryError> {
        self.backend.usage_log(&self.scope, id).await
    }

    /// Archives active entries with weight below `threshold`; returns how many.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a non-finite threshold; [`MemoryError::Storage`].
    pub async fn archive_below(&self, threshold: f64) -> Result<usize, MemoryError> {
        if !threshold.is_finite() {
            return Err(MemoryError::InvalidInput(format!(
                "archive threshold must be finite, got {threshold}"
            )));
        }
        self.backend
            .archive_below(&self.scope, threshold, now())
            .await
    }

    /// Restores an archived entry; `NotFound` as [`ScopedMemory::update`].
    ///
    /// # Errors
    /// As [`ScopedMemory::update`].
    pub async fn restore(&self, id: i64) -> Result<MemoryEntry, MemoryError> {
        self.update(id, MemoryUpdate::new().archived(false)).await
    }

    /// Maintenance: age decay, archiving below `rules.archive_threshold`,
    /// purge of applied buffer turns older than the retention, then the
    /// dedupe of near duplicates (archived as superseded, never deleted; see
    /// [`near_duplicates`](crate::long_term::near_duplicates)).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn maintenance(&self) -> Result<MaintenanceReport, MemoryError> {
        self.maintenance_at(now()).await
    }

    /// [`ScopedMemory::maintenance`] as if the time were `now` (UTC; for
    /// tests and replays).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn maintenance_at(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<MaintenanceReport, MemoryError> {
        crate::long_term::maintain::run(
            self.backend.as_ref(),
            &self.scope,
            &self.rules,
            &self.upkeep,
            now,
        )
        .await
    }
}
