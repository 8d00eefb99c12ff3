//! [`LongTermBackend`] for [`SqliteLongTerm`]: the shared
//! [`SqlLongTerm`](agcore_memory::long_term::sql::SqlLongTerm) on the
//! SQLite driver, but for SQLite's own set-based maintenance, dedupe view
//! from the stored terms and supersede in one transaction.

use agcore_memory::MemoryError;
use agcore_memory::long_term::sql::{SqlDriver, WriteIntent, flows, work};
use agcore_memory::long_term::{
    DialogueTurn, Duplicate, HistoryEntry, HistoryReason, ListRequest, LongTermBackend,
    MaintenanceReport, MemoryEntry, MemoryScope, MemoryUpdate, NewMemory, SaveOutcome, ScoredEntry,
    SearchRequest, TermSet, UsageLogRow, UsageRecord, WeightRules,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{SqliteLongTerm, upkeep};

type Outcome<T> = std::result::Result<T, MemoryError>;

#[async_trait]
impl LongTermBackend for SqliteLongTerm {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Outcome<SaveOutcome> {
        self.sql.save(scope, new, rules, now).await
    }

    async fn update(
        &self,
        scope: &MemoryScope,
        id: i64,
        update: MemoryUpdate,
        reason: HistoryReason,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Outcome<MemoryEntry> {
        self.sql.update(scope, id, update, reason, rules, now).await
    }

    async fn delete(&self, scope: &MemoryScope, id: i64, now: DateTime<Utc>) -> Outcome<bool> {
        self.sql.delete(scope, id, now).await
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Outcome<Option<MemoryEntry>> {
        self.sql.get(scope, id).await
    }

    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Outcome<Vec<Option<MemoryEntry>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.sql.get_many(scope, ids).await
    }

    async fn find_by_key(&self, scope: &MemoryScope, key: &str) -> Outcome<Option<MemoryEntry>> {
        self.sql.find_by_key(scope, key).await
    }

    async fn history(&self, scope: &MemoryScope, id: i64) -> Outcome<Vec<HistoryEntry>> {
        self.sql.history(scope, id).await
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Outcome<Vec<ScoredEntry>> {
        self.sql.search(scope, query, request).await
    }

    async fn list(&self, scope: &MemoryScope, request: &ListRequest) -> Outcome<Vec<MemoryEntry>> {
        self.sql.list(scope, request).await
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Outcome<usize> {
        self.sql.record_use(scope, record, rules, now).await
    }

    async fn usage_log(&self, scope: &MemoryScope, id: i64) -> Outcome<Vec<UsageLogRow>> {
        self.sql.usage_log(scope, id).await
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Outcome<usize> {
        self.sql.archive_below(scope, threshold, now).await
    }

    /// Set-based: a few statements for the whole scope (`upkeep`).
    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Outcome<MaintenanceReport> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| upkeep::maintenance(c, &scope, &rules, now, purge_before))
            .await
    }

    /// In one write transaction ([`flows::supersede_duplicates`]).
    async fn supersede_duplicates(
        &self,
        scope: &MemoryScope,
        duplicates: &[Duplicate],
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Outcome<usize> {
        let (scope, rules, duplicates) = (scope.clone(), *rules, duplicates.to_vec());
        let work = work(move |rows| {
            let (scope, duplicates) = (scope.clone(), duplicates.clone());
            Box::pin(async move {
                flows::supersede_duplicates(rows, &scope, &duplicates, &rules, now).await
            })
        });
        self.sql.driver().write(WriteIntent::Other, work).await
    }

    /// From the stored `terms` column: no entry decoded or re-analyzed.
    async fn dedupe_terms(&self, scope: &MemoryScope) -> Outcome<Vec<TermSet>> {
        let scope = scope.clone();
        self.read(move |c| upkeep::dedupe_terms(c, &scope)).await
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Outcome<DialogueTurn> {
        let (query, response) = (user_query, assistant_response);
        self.sql
            .buffer_append(scope, session_id, query, response, now)
            .await
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Outcome<Vec<DialogueTurn>> {
        self.sql.buffer_pending(scope, session_id, limit).await
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Outcome<usize> {
        self.sql
            .buffer_mark_applied(scope, session_id, up_to, now)
            .await
    }

    async fn import_entries(&self, entries: Vec<MemoryEntry>) -> Outcome<Vec<SaveOutcome>> {
        self.sql.import_entries(entries).await
    }

    async fn scopes(&self) -> Outcome<Vec<MemoryScope>> {
        self.sql.scopes().await
    }

    async fn close(&self) -> Outcome<()> {
        self.sql.close().await
    }
}
