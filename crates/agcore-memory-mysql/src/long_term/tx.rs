//! [`MyRows`]: the row operations of long-term memory
//! ([`LongTermRows`]) on one connection or transaction, with MySQL's SQL;
//! the flows that combine them are the shared ones of
//! [`agcore_memory::long_term::sql`]. Entry writes keep the words' document
//! frequencies ([`super::df`]) in the same transaction.

use agcore_memory::long_term::sql::{
    ENTRY_COLUMNS, LongTermRows, SqlConn, SqlParam, SqlType, SqlValue,
};
use agcore_memory::long_term::{DialogueTurn, MemoryEntry, MemoryScope};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Value};

use super::df;
use super::rows::{self, analyze, content_hash, entry_from_row, read, values};
use super::scopes::{self, scope_params};
use super::seen::Seen;
use crate::error::{MysqlError, Result, is_duplicate};
use crate::row::{from_micros, micros};

/// The long-term rows of `conn` (a connection or a transaction), with the
/// rows this handle has seen ([`Seen`]).
pub(crate) struct MyRows<'a, Q> {
    pub(crate) conn: &'a mut Q,
    pub(crate) known: &'a Seen,
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

/// The parameter as the server gets it (times in microseconds).
fn bound(param: &SqlParam<'_>) -> Value {
    match *param {
        SqlParam::Int(v) => Value::Int(v),
        SqlParam::Float(v) => Value::Double(v),
        SqlParam::Bool(v) => Value::Int(i64::from(v)),
        SqlParam::Text(v) => Value::from(v.as_bytes()),
        SqlParam::Time(v) => Value::Int(micros(v)),
    }
}

#[async_trait]
impl<Q: Queryable + Send> SqlConn for MyRows<'_, Q> {
    type Error = MysqlError;

    async fn execute(&mut self, sql: &str, params: &[SqlParam<'_>]) -> Result<usize> {
        let params = params.iter().map(bound).collect();
        Ok(exec_counted(self.conn, sql, params).await?.0)
    }

    async fn query(
        &mut self,
        sql: &str,
        params: &[SqlParam<'_>],
        columns: &[SqlType],
    ) -> Result<Vec<Vec<SqlValue>>> {
        let params: Vec<Value> = params.iter().map(bound).collect();
        let found: Vec<Row> = self.conn.exec(sql, Params::Positional(params)).await?;
        let row = |mut row: Row| read(&mut row, columns);
        found.into_iter().map(row).collect()
    }
}

#[async_trait]
impl<Q: Queryable + Send> LongTermRows for MyRows<'_, Q> {
    /// The id [`Seen`] remembers, else the scope row's (created on first
    /// use; not remembered, as a transaction creating it may roll back).
    async fn scope_id(&mut self, scope: &MemoryScope) -> Result<i64> {
        match self.known.known_scope_id(scope) {
            Some(id) => Ok(id),
            None => scopes::scope_id(self.conn, scope).await,
        }
    }

    async fn id_by_key(&mut self, scope: &MemoryScope, key: &str) -> Result<Option<i64>> {
        let [agent, user] = scope_params(scope);
        Ok(self
            .conn
            .exec_first(
                // Through the scope row, so the unique (scope_id, content_hash)
                // index finds the entry (not a scan of the scope's entries).
                "SELECT m.id FROM agcore_lt_scopes s
                 JOIN agcore_lt_entries m ON m.scope_id = s.id AND m.content_hash = ?
                 WHERE s.agent_name = ? AND s.user_id = ?",
                Params::Positional(vec![Value::from(content_hash(key)), agent, user]),
            )
            .await?)
    }

    /// One `IN (…)` query per 500 ids.
    async fn load_many(
        &mut self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>> {
        let mut found = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let sql = format!(
                "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m
                 WHERE m.id IN ({marks}) AND m.agent_name = ? AND m.user_id = ?"
            );
            let mut params: Vec<Value> = chunk.iter().map(|&id| Value::Int(id)).collect();
            params.extend(scope_params(scope));
            let rows: Vec<Row> = self.conn.exec(sql, Params::Positional(params)).await?;
            for mut row in rows {
                found.push(entry_from_row(&mut row)?);
            }
        }
        Ok(agcore_memory::long_term::entries_in_order(ids, found))
    }

    async fn insert(&mut self, scope_id: i64, entry: &MemoryEntry) -> Result<Option<i64>> {
        let (terms, len) = analyze(entry, scope_id);
        let mut params = vec![
            Value::Int(scope_id),
            Value::from(entry.agent_name.as_bytes()),
            Value::from(entry.user_id.as_bytes()),
            Value::Int(micros(entry.created_at)),
        ];
        params.extend(values(entry, terms.clone(), len)?);
        let inserted = self.conn
            .exec_drop(
                "INSERT INTO agcore_lt_entries (scope_id, agent_name, user_id, created_at, memory_type,
                     name, content, description, metadata, tags, weight, archived, use_count,
                     last_used_at, weight_updated_at, updated_at, content_hash, len, terms)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                Params::Positional(params),
            )
            .await;
        match inserted.map_err(crate::MysqlError::from) {
            Ok(()) => {}
            Err(err) if is_duplicate(&err) => return Ok(None),
            Err(err) => return Err(err),
        }
        let id: Option<i64> = self.conn.query_first("SELECT LAST_INSERT_ID()").await?;
        let id = id.ok_or_else(|| crate::error::storage("mysql: the new entry has no id"))?;
        df::account(self.conn, scope_id, (1, len), ("", &terms)).await?;
        Ok(Some(id))
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

    async fn buffer_append(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        (user_query, assistant_response): (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn> {
        let [agent, user] = scope_params(scope);
        let (_, id) = exec_counted(
            self.conn,
            "INSERT INTO agcore_lt_buffer (agent_name, user_id, session_id, user_query, assistant_response, created_at)
             VALUES (?, ?, ?, ?, ?, ?)",
            vec![
                agent,
                user,
                Value::from(session_id.as_bytes()),
                Value::from(user_query.as_bytes()),
                Value::from(assistant_response.as_bytes()),
                Value::Int(micros(now)),
            ],
        )
        .await?;
        let id = id
            .and_then(|id| i64::try_from(id).ok())
            .ok_or_else(|| crate::error::storage("mysql: the buffered turn has no id"))?;
        Ok(DialogueTurn {
            id,
            session_id: session_id.to_owned(),
            user_query: user_query.to_owned(),
            assistant_response: assistant_response.to_owned(),
            created_at: from_micros(micros(now))?,
        })
    }
}
