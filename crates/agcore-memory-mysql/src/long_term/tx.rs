//! [`MyRows`]: the row operations of long-term memory
//! ([`LongTermRows`]) on one connection or transaction, with MySQL's SQL;
//! the flows that combine them are the shared ones of
//! [`agcore_memory::long_term::sql`]. Entry writes keep the words' document
//! frequencies ([`super::df`]) in the same transaction.

use agcore_memory::long_term::sql::LongTermRows;
use agcore_memory::long_term::{
    ArchivedFilter, DialogueTurn, HistoryEntry, HistoryReason, ListRequest, MemoryEntry,
    MemoryScope, UsageLogRow, UsageRecord,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Value};

use super::buffer;
use super::df;
use super::rows::{self, ENTRY_COLUMNS, entry_from_row};
use super::scopes::{self, scope_params};
use super::seen::Seen;
use crate::error::{MysqlError, Result};
use crate::row::micros;

/// The long-term rows of `conn` (a connection or a transaction), with the
/// rows this handle has seen ([`Seen`]).
pub(crate) struct MyRows<'a, Q> {
    pub(crate) conn: &'a mut Q,
    pub(crate) known: &'a Seen,
}

/// The `archived` condition of `filter` on alias `m`.
pub(crate) fn archived_sql(filter: ArchivedFilter) -> &'static str {
    match filter {
        ArchivedFilter::Include => "TRUE",
        ArchivedFilter::Only => "m.archived",
        _ => "NOT m.archived",
    }
}

/// Runs `sql` with `params`; returns the affected rows and the insert id.
pub(crate) async fn exec_counted(
    conn: &mut impl Queryable,
    sql: &str,
    params: Vec<Value>,
) -> Result<(usize, Option<u64>)> {
    let result = conn.exec_iter(sql, Params::Positional(params)).await?;
    let affected = usize::try_from(result.affected_rows()).unwrap_or(usize::MAX);
    let id = result.last_insert_id();
    result.drop_result().await?;
    Ok((affected, id))
}

#[async_trait]
impl<Q: Queryable + Send> LongTermRows for MyRows<'_, Q> {
    type Error = MysqlError;

    /// The id [`Seen`] remembers, else the scope row's (created on first
    /// use; not remembered, as a transaction creating it may roll back).
    async fn scope_id(&mut self, scope: &MemoryScope) -> Result<i64> {
        match self.known.known_scope_id(scope) {
            Some(id) => Ok(id),
            None => scopes::scope_id(self.conn, scope).await,
        }
    }

    async fn id_by_key(&mut self, scope: &MemoryScope, key: &str) -> Result<Option<i64>> {
        rows::id_by_content(self.conn, scope, key).await
    }

    async fn load(
        &mut self,
        scope: &MemoryScope,
        id: i64,
        lock: bool,
    ) -> Result<Option<MemoryEntry>> {
        rows::load(self.conn, scope, id, lock).await
    }

    /// One `IN (…)` query per 500 ids.
    async fn load_many(
        &mut self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>> {
        rows::load_many(self.conn, scope, ids).await
    }

    async fn insert(&mut self, scope_id: i64, entry: &MemoryEntry) -> Result<Option<i64>> {
        rows::insert(self.conn, scope_id, entry).await
    }

    /// Re-indexes whenever the `terms` column changes (`reindex` unused).
    async fn store(&mut self, _: &MemoryScope, entry: &MemoryEntry, _: bool) -> Result<()> {
        rows::store(self.conn, entry).await
    }

    async fn remove(&mut self, id: i64) -> Result<()> {
        let old: Option<(i64, i64, String)> = self
            .conn
            .exec_first(
                "SELECT scope_id, len, terms FROM agcore_lt_entries WHERE id = ?",
                (id,),
            )
            .await?;
        self.conn
            .exec_drop("DELETE FROM agcore_lt_entries WHERE id = ?", (id,))
            .await?;
        if let Some((scope_id, len, terms)) = old {
            df::account(self.conn, scope_id, (-1, -len), (&terms, "")).await?;
        }
        Ok(())
    }

    async fn add_history(
        &mut self,
        scope: &MemoryScope,
        id: i64,
        (name, content): (&str, &str),
        reason: HistoryReason,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let [agent, user] = scope_params(scope);
        self.conn.exec_drop(
            "INSERT INTO agcore_lt_history (memory_id, agent_name, user_id, name, content, reason, recorded_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
            Params::Positional(vec![
                Value::Int(id),
                agent,
                user,
                Value::from(name.as_bytes()),
                Value::from(content.as_bytes()),
                Value::from(reason.as_str()),
                Value::Int(micros(now)),
            ]),
        )
        .await?;
        Ok(())
    }

    async fn history(&mut self, scope: &MemoryScope, id: i64) -> Result<Vec<HistoryEntry>> {
        buffer::history(self.conn, scope, id).await
    }

    async fn log_use(&mut self, id: i64, record: &UsageRecord, now: DateTime<Utc>) -> Result<()> {
        self.conn.exec_drop(
            "INSERT INTO agcore_lt_usage_log (memory_id, session_id, query, was_referenced, used_at)
             VALUES (?, ?, ?, ?, ?)",
            Params::Positional(vec![
                Value::Int(id),
                Value::from(record.session_id.as_bytes()),
                Value::from(record.query.as_bytes()),
                Value::Int(i64::from(record.referenced)),
                Value::Int(micros(now)),
            ]),
        )
        .await?;
        Ok(())
    }

    async fn usage_log(&mut self, scope: &MemoryScope, id: i64) -> Result<Vec<UsageLogRow>> {
        buffer::usage_log(self.conn, scope, id).await
    }

    async fn list(
        &mut self,
        scope: &MemoryScope,
        request: &ListRequest,
        lock: bool,
    ) -> Result<Vec<MemoryEntry>> {
        let order = request.order.sql_order_by();
        let limit = request
            .limit
            .map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m WHERE m.agent_name = ? AND m.user_id = ?
             AND (? IS NULL OR m.memory_type = ?) AND (? IS NULL OR m.weight >= ?) AND {}
             ORDER BY {order} LIMIT ?{}",
            archived_sql(request.archived),
            if lock { " FOR UPDATE" } else { "" }
        );
        let ty = request
            .memory_type
            .map_or(Value::NULL, |t| Value::from(t.as_str()));
        let min = request.min_weight.map_or(Value::NULL, Value::Double);
        let [agent, user] = scope_params(scope);
        let params = vec![
            agent,
            user,
            ty.clone(),
            ty,
            min.clone(),
            min,
            Value::Int(limit),
        ];
        let found: Vec<Row> = self.conn.exec(sql, Params::Positional(params)).await?;
        found
            .into_iter()
            .map(|mut row| entry_from_row(&mut row))
            .collect()
    }

    async fn archive_below(
        &mut self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        let [agent, user] = scope_params(scope);
        let params = vec![
            Value::Int(micros(now)),
            agent,
            user,
            Value::Double(threshold),
        ];
        let sql = "UPDATE agcore_lt_entries SET archived = TRUE, updated_at = ?
             WHERE agent_name = ? AND user_id = ? AND NOT archived AND weight < ?";
        Ok(exec_counted(self.conn, sql, params).await?.0)
    }

    async fn buffer_append(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        turn: (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn> {
        buffer::append(self.conn, scope, session_id, turn, now).await
    }

    async fn buffer_pending(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>> {
        buffer::pending(self.conn, scope, session_id, limit).await
    }

    async fn buffer_mark_applied(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        let [agent, user] = scope_params(scope);
        let session = Value::from(session_id.as_bytes());
        let params = vec![
            Value::Int(micros(now)),
            agent,
            user,
            session,
            Value::Int(up_to),
        ];
        let sql = "UPDATE agcore_lt_buffer SET applied_at = ? WHERE agent_name = ? AND user_id = ?
             AND session_id = ? AND applied_at IS NULL AND id <= ?";
        Ok(exec_counted(self.conn, sql, params).await?.0)
    }

    async fn purge_buffer(&mut self, scope: &MemoryScope, before: DateTime<Utc>) -> Result<usize> {
        let [agent, user] = scope_params(scope);
        let params = vec![agent, user, Value::Int(micros(before))];
        let sql = "DELETE FROM agcore_lt_buffer WHERE agent_name = ? AND user_id = ?
             AND applied_at IS NOT NULL AND applied_at < ?";
        Ok(exec_counted(self.conn, sql, params).await?.0)
    }

    async fn scopes(&mut self) -> Result<Vec<MemoryScope>> {
        buffer::scopes(self.conn).await
    }
}
