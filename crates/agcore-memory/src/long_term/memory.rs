//! [`LongTermMemory`]: a backend plus weight rules; hands out [`ScopedMemory`]
//! handles, each confined to one (agent, user) scope.

use std::sync::Arc;

use super::normalize::now;

use super::backend::LongTermBackend;
use super::config::LongTermConfig;
use super::dense_index::{LongTermDense, scope_namespace};
use super::maintain::{self, Upkeep};
use super::scope::MemoryScope;
use super::scoped::ScopedMemory;
use super::weights::WeightRules;
use crate::MemoryError;
use crate::hybrid::{DenseIndex, HybridConfig};

/// Long-term memory shared by every agent and user of a process.
///
/// Cheap to clone (`Arc` inside), `Send + Sync`. All reads and writes go
/// through [`LongTermMemory::scope`], so each call is confined to one scope.
///
/// # Examples
/// ```
/// use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory, MemoryType, NewMemory};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore_memory::MemoryError> {
/// let memory = LongTermMemory::new(InMemoryLongTerm::new());
/// let alice = memory.scope("assistant", "alice")?;
/// let saved = alice.save(NewMemory::new(MemoryType::User, "style", "Prefers concise answers")).await?;
/// // Saving the same text again updates the entry instead of copying it.
/// let again = alice.save(NewMemory::new(MemoryType::User, "style", "prefers  CONCISE answers")).await?;
/// assert!(!again.created && again.entry.id == saved.entry.id);
/// // Another user sees nothing.
/// let bob = memory.scope("assistant", "bob")?;
/// assert!(bob.get(saved.entry.id).await?.is_none());
/// assert!(bob.search("concise", 5).await?.is_empty());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct LongTermMemory {
    backend: Arc<dyn LongTermBackend>,
    rules: WeightRules,
    upkeep: Upkeep,
    dense: Option<LongTermDense>,
}

impl LongTermMemory {
    /// Long-term memory on `backend` with the default [`WeightRules`].
    pub fn new(backend: impl LongTermBackend + 'static) -> Self {
        Self::from_arc(Arc::new(backend))
    }

    /// Long-term memory on a shared backend.
    pub fn from_arc(backend: Arc<dyn LongTermBackend>) -> Self {
        Self {
            backend,
            rules: WeightRules::default(),
            upkeep: Upkeep {
                buffer_retention: chrono::Duration::days(7),
                dedupe: Some(super::DEFAULT_DEDUPE_THRESHOLD),
                memo: super::dedupe::DedupeMemo::default(),
            },
            dense: None,
        }
    }

    /// Adds dense retrieval: every saved, updated or imported entry is
    /// embedded in the background into its scope's namespace of `index`,
    /// and searches ([`ScopedMemory::search_with`], prefetch, the
    /// `memory_recall` tool) fuse BM25 with dense similarity as `config`
    /// says. Entries saved before are embedded by
    /// [`LongTermMemory::backfill_vectors`].
    #[must_use]
    pub fn with_dense(mut self, index: Arc<DenseIndex>, config: HybridConfig) -> Self {
        self.dense = Some(LongTermDense { index, config });
        self
    }

    /// The dense index, when configured.
    pub fn dense_index(&self) -> Option<&Arc<DenseIndex>> {
        self.dense.as_ref().map(|d| &d.index)
    }

    /// Queues every entry of every scope for embedding (entries whose vector
    /// is up to date are skipped without a model call); returns how many were
    /// queued. Follow with [`DenseIndex::flush`] to wait for them.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn backfill_vectors(&self) -> Result<usize, MemoryError> {
        let mut total = 0;
        for scope in self.backend.scopes().await? {
            total += self.scoped(scope).backfill_vectors().await?;
        }
        Ok(total)
    }

    /// The vector namespace of `scope` (see [`scope_namespace`]).
    pub fn vector_namespace(scope: &MemoryScope) -> String {
        scope_namespace(scope)
    }

    /// Applies the weight rules, archive threshold, buffer retention and
    /// dedupe settings of `config` (the backend itself is opened by the
    /// caller: a driver crate, or `agcore::memory::open` from a URL; the
    /// schedule, [`LongTermConfig::maintenance_interval`], is started by
    /// [`LongTermMemory::spawn_maintenance`]).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for invalid weight rules or dedupe threshold.
    pub fn with_config(self, config: &LongTermConfig) -> Result<Self, MemoryError> {
        let retention = chrono::Duration::days(i64::from(config.buffer_retention_days));
        self.with_rules(config.weight_rules())?
            .with_buffer_retention(retention)
            .with_dedupe(config.dedupe.then_some(config.dedupe_threshold))
    }

    /// Sets the Jaccard threshold of the near-duplicate dedupe maintenance
    /// runs ([`near_duplicates`](super::near_duplicates); default
    /// [`DEFAULT_DEDUPE_THRESHOLD`](super::DEFAULT_DEDUPE_THRESHOLD));
    /// `None` turns the dedupe off.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a threshold outside `(0, 1]`.
    pub fn with_dedupe(mut self, threshold: Option<f64>) -> Result<Self, MemoryError> {
        if let Some(t) = threshold
            && !(t > 0.0 && t <= 1.0)
        {
            return Err(MemoryError::InvalidInput(format!(
                "dedupe threshold must be in (0, 1], got {t}"
            )));
        }
        self.upkeep.dedupe = threshold;
        Ok(self)
    }

    /// Replaces the weight rules.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when [`WeightRules::validate`] fails.
    pub fn with_rules(mut self, rules: WeightRules) -> Result<Self, MemoryError> {
        rules.validate()?;
        self.rules = rules;
        Ok(self)
    }

    /// How long applied dialogue-buffer turns survive maintenance (default 7 days).
    #[must_use]
    pub fn with_buffer_retention(mut self, retention: chrono::Duration) -> Self {
        self.upkeep.buffer_retention = retention;
        self
    }

    /// The weight rules in use.
    pub fn rules(&self) -> &WeightRules {
        &self.rules
    }

    /// The backend.
    pub fn backend(&self) -> &Arc<dyn LongTermBackend> {
        &self.backend
    }

    /// A handle confined to the memories of `scope`.
    pub fn scoped(&self, scope: MemoryScope) -> ScopedMemory {
        ScopedMemory::new(
            Arc::clone(&self.backend),
            scope,
            self.rules,
            self.upkeep.clone(),
            self.dense.clone(),
        )
    }

    /// A handle confined to the memories of `agent` serving `user`:
    /// [`MemoryScope::new`] then [`LongTermMemory::scoped`].
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when the ids do not form a valid
    /// [`MemoryScope`] (empty, padded, oversized, control or invisible
    /// characters, a reserved separator in the agent name).
    pub fn scope(
        &self,
        agent: impl Into<String>,
        user: impl Into<String>,
    ) -> Result<ScopedMemory, MemoryError> {
        Ok(self.scoped(MemoryScope::new(agent, user)?))
    }

    /// Every scope holding memories or buffered turns.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError> {
        self.backend.scopes().await
    }

    /// Runs [`ScopedMemory::maintenance`] on every scope (age decay,
    /// archiving, dedupe of near duplicates, buffer purge); returns the summed counts.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] (scopes done before the failure stay done).
    pub async fn maintenance_all(&self) -> Result<super::MaintenanceReport, MemoryError> {
        self.maintenance_all_at(now()).await
    }

    /// [`LongTermMemory::maintenance_all`] as if the time were `now` (UTC;
    /// for tests and replays: decay is measured up to `now`).
    ///
    /// # Errors
    /// As [`LongTermMemory::maintenance_all`].
    pub async fn maintenance_all_at(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<super::MaintenanceReport, MemoryError> {
        let mut total = super::MaintenanceReport::default();
        for scope in self.backend.scopes().await? {
            let r = maintain::run(
                self.backend.as_ref(),
                &scope,
                &self.rules,
                &self.upkeep,
                now,
            )
            .await?;
            total.add(&r);
        }
        Ok(total)
    }

    /// What [`LongTermMemory::maintenance_all`] would do now, without
    /// writing anything (`agcore memory maintain --dry-run`): decayed,
    /// archived, deduplicated and active counted on copies of the active
    /// entries; `buffer_purged` is not counted (0).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn maintenance_preview(&self) -> Result<super::MaintenanceReport, MemoryError> {
        let now = now();
        let mut total = super::MaintenanceReport::default();
        for scope in self.backend.scopes().await? {
            let r = maintain::preview(
                self.backend.as_ref(),
                &scope,
                &self.rules,
                &self.upkeep,
                now,
            )
            .await?;
            total.add(&r);
        }
        Ok(total)
    }

    /// Restores whole entries, each into the scope its `agent_name` /
    /// `user_id` name (backup import of several scopes): ids newly assigned,
    /// every other field kept, entries whose text is already in their scope
    /// skipped (`created = false`). Checked before anything is written; then
    /// all or nothing. [`ScopedMemory::import_entries`] imports into one scope.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] naming the position of an entry with an
    /// invalid scope, empty or oversized content or a non-finite weight
    /// (nothing written); [`MemoryError::Storage`].
    pub async fn import_entries(
        &self,
        entries: Vec<super::MemoryEntry>,
    ) -> Result<Vec<super::SaveOutcome>, MemoryError> {
        super::scoped::validate_import(&entries)?;
        let outcomes = self.backend.import_entries(entries).await?;
        if let Some(dense) = &self.dense {
            for o in &outcomes {
                let ns = scope_namespace(&o.entry.scope()?);
                let id = o.entry.id.to_string();
                dense.index.enqueue(&ns, &id, &o.entry.search_text()).await;
            }
        }
        Ok(outcomes)
    }

    /// Closes the backend; later calls fail with [`MemoryError::Storage`].
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when closing fails.
    pub async fn close(&self) -> Result<(), MemoryError> {
        self.backend.close().await
    }
}
