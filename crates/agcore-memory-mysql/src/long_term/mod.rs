//! [`MysqlLongTerm`]: long-term memory (per agent and user: four memory
//! types, weights, usage log, archive, dialogue buffer, history) in MySQL /
//! MariaDB tables; the field rules are the shared ones of
//! [`agcore_memory::long_term::apply`], so every backend behaves alike.

mod buffer;
mod df;
mod ops;
mod retry;
mod rows;
pub(crate) mod schema;
mod scopes;
mod search;
mod seen;
mod upkeep;

pub(crate) use df::sync as sync_df;

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    MemoryEntry, MemoryScope, MemoryUpdate, NewMemory, SaveOutcome, ScoredEntry, SearchRequest,
    UsageLogRow, UsageRecord, WeightRules,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::connections::Connections;
use retry::retry;

/// Long-term memory on MySQL / MariaDB. Cheap to clone; `Send + Sync`. Get
/// one from [`MysqlDatabase::long_term`](crate::MysqlDatabase::long_term)
/// and wrap it in [`LongTermMemory`](agcore_memory::long_term::LongTermMemory).
///
/// Writes are transactions that lock the rows they change, so agents in
/// several processes can share one database: two saves of the same text in
/// a scope at once make one entry (a unique `(scope, content hash)` index).
/// Search is scoped BM25 over a `FULLTEXT` index: only the scope's entries
/// and statistics are read, and only the query words that can change the
/// top results are matched (document frequencies kept by the writers; see
/// the crate README).
#[derive(Clone)]
pub struct MysqlLongTerm {
    conns: Connections,
    known: Arc<seen::Seen>,
    /// See [`MysqlDatabaseBuilder::min_pruned_rows`](crate::MysqlDatabaseBuilder::min_pruned_rows).
    min_pruned_rows: u64,
}

impl std::fmt::Debug for MysqlLongTerm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlLongTerm").finish_non_exhaustive()
    }
}

impl MysqlLongTerm {
    pub(crate) fn new(conns: Connections, min_pruned_rows: u64) -> Self {
        Self {
            conns,
            known: Arc::default(),
            min_pruned_rows,
        }
    }
}

#[async_trait]
impl LongTermBackend for MysqlLongTerm {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, MemoryError> {
        retry(|| {
            let new = new.clone();
            async move {
                let mut conn = self.conns.get().await?;
                ops::save(&mut conn, &self.known, scope, new, rules, now).await
            }
        })
        .await
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
        retry(|| {
            let update = update.clone();
            async move {
                let mut conn = self.conns.get().await?;
                let change = (id, update, reason);
                ops::update(&mut conn, &self.known, scope, change, rules, now).await
            }
        })
        .await
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError> {
        retry(|| async move { ops::delete(&mut self.conns.get().await?, scope, id, now).await })
            .await
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        retry(|| async move { rows::load(&mut self.conns.get().await?, scope, id, false).await })
            .await
    }

    /// One `IN (…)` query per 500 ids, on one pooled connection.
    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        retry(|| async move { rows::load_many(&mut self.conns.get().await?, scope, ids).await })
            .await
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<MemoryEntry>, MemoryError> {
        retry(|| async move {
            let mut conn = self.conns.get().await?;
            match rows::id_by_content(&mut conn, scope, key).await? {
                Some(id) => rows::load(&mut conn, scope, id, false).await,
                None => Ok(None),
            }
        })
        .await
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<HistoryEntry>, MemoryError> {
        retry(|| async move { ops::history(&mut self.conns.get().await?, scope, id).await }).await
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        retry(|| async move {
            let request = (request, self.min_pruned_rows);
            search::search(&mut self.conns.get().await?, scope, query, request).await
        })
        .await
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> Result<Vec<MemoryEntry>, MemoryError> {
        retry(
            || async move { ops::list(&mut self.conns.get().await?, scope, request, false).await },
        )
        .await
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        retry(|| {
            let record = &record;
            async move {
                upkeep::record_use(&mut self.conns.get().await?, scope, record, rules, now).await
            }
        })
        .await
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError> {
        retry(|| async move { buffer::usage_log(&mut self.conns.get().await?, scope, id).await })
            .await
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        retry(|| async move {
            upkeep::archive_below(&mut self.conns.get().await?, scope, threshold, now).await
        })
        .await
    }

    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Result<MaintenanceReport, MemoryError> {
        retry(|| async move {
            upkeep::maintenance(
                &mut self.conns.get().await?,
                scope,
                rules,
                now,
                purge_before,
            )
            .await
        })
        .await
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError> {
        let mut conn = self.conns.get().await?;
        Ok(buffer::append(
            &mut conn,
            scope,
            session_id,
            (user_query, assistant_response),
            now,
        )
        .await?)
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        retry(|| async move {
            buffer::pending(&mut self.conns.get().await?, scope, session_id, limit).await
        })
        .await
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        retry(|| async move {
            buffer::mark_applied(&mut self.conns.get().await?, scope, session_id, up_to, now).await
        })
        .await
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        retry(|| {
            let entries = entries.clone();
            async move { buffer::import_all(&mut self.conns.get().await?, entries).await }
        })
        .await
    }

    async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError> {
        retry(|| async move { buffer::scopes(&mut self.conns.get().await?).await }).await
    }

    async fn close(&self) -> Result<(), MemoryError> {
        self.conns.close();
        Ok(())
    }
}
