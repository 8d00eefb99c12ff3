//! [`PgRows`]: the row operations of long-term memory
//! ([`LongTermRows`]) on one connection or transaction, with PostgreSQL's
//! SQL; the flows that combine them are the shared ones of
//! [`agcore_memory::long_term::sql`].

use agcore_memory::long_term::columns::entry_columns;
use agcore_memory::long_term::sql::{
    ENTRY_COLUMNS, LongTermRows, SqlConn, SqlParam, SqlType, SqlValue,
};
use agcore_memory::long_term::{DialogueTurn, MemoryEntry, MemoryScope, content_key};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use tokio_postgres::types::ToSql;

use super::rows::{self, adjust_scope, entry_from_row, values, write_postings};
use crate::error::{PostgresError, Result};
use crate::reindex::analyze;

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

/// `sql` with its `?` placeholders numbered (`$1`, `$2`, …).
fn numbered(sql: &str) -> String {
    let mut parts = sql.split('?');
    let mut out = parts.next().unwrap_or_default().to_owned();
    for (n, part) in parts.enumerate() {
        out.push_str(&format!("${}{part}", n + 1));
    }
    out
}

/// The parameters as the driver binds them.
fn bound<'p>(params: &'p [SqlParam<'_>]) -> Vec<&'p (dyn ToSql + Sync)> {
    let one = |p: &'p SqlParam<'_>| -> &'p (dyn ToSql + Sync) {
        match p {
            SqlParam::Int(v) => v,
            SqlParam::Float(v) => v,
            SqlParam::Bool(v) => v,
            SqlParam::Text(v) => v,
            SqlParam::Time(v) => v,
        }
    };
    params.iter().map(one).collect()
}

#[async_trait]
impl<C: GenericClient + Sync> SqlConn for PgRows<'_, C> {
    type Error = PostgresError;

    async fn execute(&mut self, sql: &str, params: &[SqlParam<'_>]) -> Result<usize> {
        let n = self.client.execute(&numbered(sql), &bound(params)).await?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    async fn query(
        &mut self,
        sql: &str,
        params: &[SqlParam<'_>],
        columns: &[SqlType],
    ) -> Result<Vec<Vec<SqlValue>>> {
        let found = self.client.query(&numbered(sql), &bound(params)).await?;
        found.iter().map(|row| values(row, columns)).collect()
    }
}

#[async_trait]
impl<C: GenericClient + Sync> LongTermRows for PgRows<'_, C> {
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
        let row = self
            .client
            .query_opt(
                // Through the scope row, so the unique (scope_id, content_key)
                // index finds the entry.
                "SELECT m.id FROM agcore_lt_scopes s
                 JOIN agcore_lt_entries m ON m.scope_id = s.id AND m.content_key = $3
                 WHERE s.agent_name = $1 AND s.user_id = $2",
                &[&scope.agent(), &scope.user(), &key],
            )
            .await?;
        Ok(row.map(|r| r.try_get(0)).transpose()?)
    }

    /// One `= ANY($1)` query for every id.
    async fn load_many(
        &mut self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m
             WHERE m.id = ANY($1) AND m.agent_name = $2 AND m.user_id = $3"
        );
        let rows = self
            .client
            .query(&sql, &[&ids, &scope.agent(), &scope.user()])
            .await?;
        let found = rows
            .iter()
            .map(entry_from_row)
            .collect::<Result<Vec<_>>>()?;
        Ok(agcore_memory::long_term::entries_in_order(ids, found))
    }

    async fn insert(&mut self, scope_id: i64, entry: &MemoryEntry) -> Result<Option<i64>> {
        let (metadata, tags, use_count) = entry_columns(entry)?;
        let (tfs, len) = analyze(&entry.search_text());
        let key = content_key(&entry.content);
        let row = self.client
            .query_opt(
                "INSERT INTO agcore_lt_entries (scope_id, agent_name, user_id, memory_type, name, content,
                     description, metadata, tags, weight, archived, use_count, last_used_at,
                     weight_updated_at, created_at, updated_at, content_key, len)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
                 ON CONFLICT (scope_id, content_key) DO NOTHING RETURNING id",
                &[
                    &scope_id, &entry.agent_name, &entry.user_id, &entry.memory_type.as_str(),
                    &entry.name, &entry.content, &entry.description, &metadata, &tags, &entry.weight,
                    &entry.archived, &use_count, &entry.last_used_at, &entry.weight_updated_at,
                    &entry.created_at, &entry.updated_at, &key, &len,
                ],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let id: i64 = row.try_get(0)?;
        write_postings(self.client, scope_id, id, &tfs).await?;
        adjust_scope(self.client, scope_id, 1, i64::from(len)).await?;
        Ok(Some(id))
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

    async fn buffer_append(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        (user_query, assistant_response): (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn> {
        let row = self.client
            .query_one(
                "INSERT INTO agcore_lt_buffer (agent_name, user_id, session_id, user_query, assistant_response, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                &[&scope.agent(), &scope.user(), &session_id, &user_query, &assistant_response, &now],
            )
            .await?;
        Ok(DialogueTurn {
            id: row.try_get(0)?,
            session_id: session_id.to_owned(),
            user_query: user_query.to_owned(),
            assistant_response: assistant_response.to_owned(),
            created_at: now,
        })
    }
}
