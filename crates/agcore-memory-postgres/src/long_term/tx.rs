//! [`PgRows`]: the row operations of long-term memory
//! ([`LongTermRows`]) on one connection or transaction, with PostgreSQL's
//! SQL; the flows that combine them are the shared ones of
//! [`agcore_memory::long_term::sql`].

use agcore_memory::long_term::sql::LongTermRows;
use agcore_memory::long_term::{
    ArchivedFilter, DialogueTurn, HistoryEntry, HistoryReason, ListRequest, MemoryEntry,
    MemoryScope, UsageLogRow, UsageRecord,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;

use super::buffer;
use super::rows::{self, ENTRY_COLUMNS, entry_from_row};
use crate::error::{PostgresError, Result};

/// The long-term rows of `client` (a connection or a transaction); it
/// remembers the last scope row id it read.
pub(crate) struct PgRows<'a, C> {
    client: &'a C,
    scope_id: Option<(MemoryScope, i64)>,
}

impl<'a, C> PgRows<'a, C> {
    pub(crate) fn new(client: &'a C) -> Self {
        Self {
            client,
            scope_id: None,
        }
    }
}

/// The `archived` condition of `filter` on the rows of `alias` (`m`, an
/// entry, or `p`, a posting: both have the column).
pub(crate) fn archived_sql(filter: ArchivedFilter, alias: &str) -> String {
    match filter {
        ArchivedFilter::Include => "TRUE".to_owned(),
        ArchivedFilter::Only => format!("{alias}.archived"),
        _ => format!("NOT {alias}.archived"),
    }
}

fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[async_trait]
impl<C: GenericClient + Sync> LongTermRows for PgRows<'_, C> {
    type Error = PostgresError;

    async fn scope_id(&mut self, scope: &MemoryScope) -> Result<i64> {
        if let Some((known, id)) = &self.scope_id
            && known == scope
        {
            return Ok(*id);
        }
        let id = rows::scope_id(self.client, scope).await?;
        self.scope_id = Some((scope.clone(), id));
        Ok(id)
    }

    async fn id_by_key(&mut self, scope: &MemoryScope, key: &str) -> Result<Option<i64>> {
        rows::id_by_key(self.client, scope, key).await
    }

    async fn load(
        &mut self,
        scope: &MemoryScope,
        id: i64,
        lock: bool,
    ) -> Result<Option<MemoryEntry>> {
        rows::load(self.client, scope, id, lock).await
    }

    /// One `= ANY($1)` query for every id.
    async fn load_many(
        &mut self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>> {
        rows::load_many(self.client, scope, ids).await
    }

    async fn insert(&mut self, scope_id: i64, entry: &MemoryEntry) -> Result<Option<i64>> {
        rows::insert(self.client, scope_id, entry).await
    }

    async fn store(
        &mut self,
        scope: &MemoryScope,
        entry: &MemoryEntry,
        reindex: bool,
    ) -> Result<()> {
        // The scope row only matters to a re-index (its postings and statistics).
        let scope_id = if reindex {
            self.scope_id(scope).await?
        } else {
            0
        };
        rows::store(self.client, scope_id, entry, reindex).await
    }

    async fn remove(&mut self, id: i64) -> Result<()> {
        let row = self
            .client
            .query_one(
                "DELETE FROM agcore_lt_entries WHERE id = $1 RETURNING scope_id, len",
                &[&id],
            )
            .await?;
        let (scope_id, len): (i64, i32) = (row.try_get(0)?, row.try_get(1)?);
        rows::adjust_scope(self.client, scope_id, -1, -i64::from(len)).await
    }

    async fn add_history(
        &mut self,
        scope: &MemoryScope,
        id: i64,
        (name, content): (&str, &str),
        reason: HistoryReason,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.client
            .execute(
                "INSERT INTO agcore_lt_history (memory_id, agent_name, user_id, name, content, reason, recorded_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[&id, &scope.agent(), &scope.user(), &name, &content, &reason.as_str(), &now],
            )
            .await?;
        Ok(())
    }

    async fn history(&mut self, scope: &MemoryScope, id: i64) -> Result<Vec<HistoryEntry>> {
        buffer::history(self.client, scope, id).await
    }

    async fn log_use(&mut self, id: i64, record: &UsageRecord, now: DateTime<Utc>) -> Result<()> {
        self.client
            .execute(
                "INSERT INTO agcore_lt_usage_log (memory_id, session_id, query, was_referenced, used_at)
                 VALUES ($1, $2, $3, $4, $5)",
                &[&id, &record.session_id, &record.query, &record.referenced, &now],
            )
            .await?;
        Ok(())
    }

    async fn usage_log(&mut self, scope: &MemoryScope, id: i64) -> Result<Vec<UsageLogRow>> {
        buffer::usage_log(self.client, scope, id).await
    }

    async fn list(
        &mut self,
        scope: &MemoryScope,
        request: &ListRequest,
        lock: bool,
    ) -> Result<Vec<MemoryEntry>> {
        let order = request.order.sql_order_by();
        let limit = request.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m WHERE m.agent_name = $1 AND m.user_id = $2
             AND ($3::text IS NULL OR m.memory_type = $3) AND ($4::float8 IS NULL OR m.weight >= $4) AND {}
             ORDER BY {order} LIMIT $5{}",
            archived_sql(request.archived, "m"),
            if lock { " FOR UPDATE" } else { "" }
        );
        let ty = request.memory_type.map(|t| t.as_str());
        let (agent, user, min) = (scope.agent(), scope.user(), request.min_weight);
        let found = self
            .client
            .query(&sql, &[&agent, &user, &ty, &min, &limit])
            .await?;
        found.iter().map(entry_from_row).collect()
    }

    async fn archive_below(
        &mut self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        let n = self
            .client
            .execute(
                "UPDATE agcore_lt_entries SET archived = TRUE, updated_at = $4
                 WHERE agent_name = $1 AND user_id = $2 AND NOT archived AND weight < $3",
                &[&scope.agent(), &scope.user(), &threshold, &now],
            )
            .await?;
        Ok(count(n))
    }

    async fn buffer_append(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        turn: (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn> {
        buffer::append(self.client, scope, session_id, turn, now).await
    }

    async fn buffer_pending(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>> {
        buffer::pending(self.client, scope, session_id, limit).await
    }

    async fn buffer_mark_applied(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        let n = self
            .client
            .execute(
                "UPDATE agcore_lt_buffer SET applied_at = $5 WHERE agent_name = $1 AND user_id = $2
                 AND session_id = $3 AND applied_at IS NULL AND id <= $4",
                &[&scope.agent(), &scope.user(), &session_id, &up_to, &now],
            )
            .await?;
        Ok(count(n))
    }

    async fn purge_buffer(&mut self, scope: &MemoryScope, before: DateTime<Utc>) -> Result<usize> {
        let n = self
            .client
            .execute(
                "DELETE FROM agcore_lt_buffer WHERE agent_name = $1 AND user_id = $2
                 AND applied_at IS NOT NULL AND applied_at < $3",
                &[&scope.agent(), &scope.user(), &before],
            )
            .await?;
        Ok(count(n))
    }

    async fn scopes(&mut self) -> Result<Vec<MemoryScope>> {
        buffer::scopes(self.client).await
    }
}
