//! [`LongTermBackend`] for [`KvLongTerm`]: reads from the in-memory state,
//! writes through [`KvLongTerm::begin`] and [`KvLongTerm::commit`].

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    DialogueTurn, Duplicate, HistoryEntry, HistoryReason, ListRequest, LongTermBackend,
    MaintenanceReport, MemoryEntry, MemoryScope, MemoryUpdate, NewMemory, SaveOutcome, ScoredEntry,
    SearchRequest, TermSet, UsageLogRow, UsageRecord, WeightRules,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::KvLongTerm;
use crate::backend::KvBackend;

#[async_trait]
impl<B: KvBackend> LongTermBackend for KvLongTerm<B> {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self.state.save(scope, new, rules, now).await;
        self.commit(turn, result).await
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
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self
            .state
            .update(scope, id, update, reason, rules, now)
            .await;
        self.commit(turn, result).await
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self.state.delete(scope, id, now).await;
        self.commit(turn, result).await
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        self.state.get(scope, id).await
    }

    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        self.state.get_many(scope, ids).await
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<MemoryEntry>, MemoryError> {
        self.state.find_by_key(scope, key).await
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<HistoryEntry>, MemoryError> {
        self.state.history(scope, id).await
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        self.state.search(scope, query, request).await
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> Result<Vec<MemoryEntry>, MemoryError> {
        self.state.list(scope, request).await
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self.state.record_use(scope, record, rules, now).await;
        self.commit(turn, result).await
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError> {
        self.state.usage_log(scope, id).await
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self.state.archive_below(scope, threshold, now).await;
        self.commit(turn, result).await
    }

    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Result<MaintenanceReport, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self
            .state
            .maintenance(scope, rules, now, purge_before)
            .await;
        self.commit(turn, result).await
    }

    async fn dedupe_terms(&self, scope: &MemoryScope) -> Result<Vec<TermSet>, MemoryError> {
        self.state.dedupe_terms(scope).await
    }

    async fn supersede_duplicates(
        &self,
        scope: &MemoryScope,
        duplicates: &[Duplicate],
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self
            .state
            .supersede_duplicates(scope, duplicates, rules, now)
            .await;
        self.commit(turn, result).await
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self
            .state
            .buffer_append(scope, session_id, user_query, assistant_response, now)
            .await;
        self.commit(turn, result).await
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        self.state.buffer_pending(scope, session_id, limit).await
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let turn = self.begin(std::slice::from_ref(scope)).await?;
        let result = self
            .state
            .buffer_mark_applied(scope, session_id, up_to, now)
            .await;
        self.commit(turn, result).await
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        let mut scopes: Vec<MemoryScope> = entries.iter().filter_map(|e| e.scope().ok()).collect();
        scopes.sort();
        scopes.dedup();
        let turn = self.begin(&scopes).await?;
        let result = self.state.import_entries(entries).await;
        self.commit(turn, result).await
    }

    async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError> {
        self.state.scopes().await
    }

    async fn close(&self) -> Result<(), MemoryError> {
        let _turn = self.writes.lock().await;
        self.state.close().await?;
        self.backend.close().await?;
        Ok(())
    }
}
