//! [`PostgresLongTerm`]: long-term memory (per agent and user: four memory
//! types, weights, usage log, archive, dialogue buffer, history) in
//! PostgreSQL tables; the field rules are the shared ones of
//! [`agcore_memory::long_term::apply`], so every backend behaves alike.

mod buffer;
mod ops;
mod rows;
pub(crate) mod schema;
mod search;

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    MemoryEntry, MemoryScope, MemoryUpdate, NewMemory, SaveOutcome, ScoredEntry, SearchRequest,
    UsageLogRow, UsageRecord, WeightRules,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::{Client, Pool};

use crate::error::Result;
use crate::retry::retry;

/// Long-term memory on PostgreSQL. Cheap to clone; `Send + Sync`. Get one
/// from [`PostgresDatabase::long_term`](crate::PostgresDatabase::long_term)
/// and wrap it in [`LongTermMemory`](agcore_memory::long_term::LongTermMemory).
///
/// Writes are transactions that lock the rows they change, so agents in
/// several processes can share one database: two saves of the same text in
/// a scope at once make one entry (a unique `(scope, content_key)` index).
/// Search is scoped BM25: only the scope's postings and statistics are read.
/// A write the server rolls back for a deadlock or serialization failure
/// runs again (up to 5 runs), as on MySQL / MariaDB.
#[derive(Clone)]
pub struct PostgresLongTerm {
    pool: Pool,
}

impl std::fmt::Debug for PostgresLongTerm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresLongTerm").finish_non_exhaustive()
    }
}

impl PostgresLongTerm {
    pub(crate) fn new(pool: Pool) -> Self {
        Self { pool }
    }

    async fn client(&self) -> Result<Client> {
        if self.pool.is_closed() {
            return Err(crate::error::storage(
                "postgres: long-term memory is closed",
            ));
        }
        Ok(self.pool.get().await?)
    }
}

fn out<T>(result: Result<T>) -> Result<T, MemoryError> {
    result.map_err(MemoryError::from)
}

#[async_trait]
impl LongTermBackend for PostgresLongTerm {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, MemoryError> {
        out(retry("long-term save", || {
            let new = new.clone();
            async move { ops::save(&mut self.client().await?, scope, new, rules, now).await }
        })
        .await)
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
        out(retry("long-term update", || {
            let update = update.clone();
            async move {
                let mut client = self.client().await?;
                ops::update(&mut client, scope, id, update, reason, rules, now).await
            }
        })
        .await)
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError> {
        out(retry("long-term delete", || async {
            ops::delete(&mut self.client().await?, scope, id, now).await
        })
        .await)
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        out(async { rows::load(&self.client().await?, scope, id, false).await }.await)
    }

    /// One `= ANY($1)` query for every id.
    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        out(async { rows::load_many(&self.client().await?, scope, ids).await }.await)
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<MemoryEntry>, MemoryError> {
        out(async {
            let client = self.client().await?;
            match rows::id_by_key(&client, scope, key).await? {
                Some(id) => rows::load(&client, scope, id, false).await,
                None => Ok(None),
            }
        }
        .await)
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<HistoryEntry>, MemoryError> {
        out(async { ops::history(&self.client().await?, scope, id).await }.await)
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        out(async { search::search(&self.client().await?, scope, query, request).await }.await)
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> Result<Vec<MemoryEntry>, MemoryError> {
        out(async { ops::list(&self.client().await?, scope, request, false).await }.await)
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        out(retry("long-term use", || async {
            ops::record_use(&mut self.client().await?, scope, &record, rules, now).await
        })
        .await)
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError> {
        out(async { buffer::usage_log(&self.client().await?, scope, id).await }.await)
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        out(retry("long-term archive", || async {
            ops::archive_below(&self.client().await?, scope, threshold, now).await
        })
        .await)
    }

    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Result<MaintenanceReport, MemoryError> {
        out(retry("long-term maintenance", || async {
            ops::maintenance(&mut self.client().await?, scope, rules, now, purge_before).await
        })
        .await)
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError> {
        out(async {
            buffer::append(
                &self.client().await?,
                scope,
                session_id,
                (user_query, assistant_response),
                now,
            )
            .await
        }
        .await)
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        out(async { buffer::pending(&self.client().await?, scope, session_id, limit).await }.await)
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        out(async {
            buffer::mark_applied(&self.client().await?, scope, session_id, up_to, now).await
        }
        .await)
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        out(retry("long-term import", || {
            let entries = entries.clone();
            async move { buffer::import_all(&mut self.client().await?, entries).await }
        })
        .await)
    }

    async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError> {
        out(async { buffer::scopes(&self.client().await?).await }.await)
    }

    async fn close(&self) -> Result<(), MemoryError> {
        self.pool.close();
        Ok(())
    }
}
