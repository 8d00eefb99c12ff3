//! [`SqliteRows`]: the row operations of long-term memory
//! ([`LongTermRows`]) on one SQLite connection, in or outside the writer's
//! transaction, and SQLite's mapping of the shared statements: their table
//! and column names ([`dialect`]), parameters and column types.

use agcore_memory::long_term::sql::{
    ENTRY_COLUMNS, LongTermRows, SqlConn, SqlParam, SqlType, SqlValue, entries,
};
use agcore_memory::long_term::{DialogueTurn, MemoryEntry, MemoryScope};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, OptionalExtension, ToSql, params, params_from_iter};

use super::rows::{self, SCOPE_TOKENS, values};
use super::time::format_time;
use crate::error::{Result, SqliteError};

/// The long-term rows of one connection.
pub(crate) struct SqliteRows<'a> {
    conn: &'a mut Connection,
}

impl<'a> SqliteRows<'a> {
    pub(crate) fn new(conn: &'a mut Connection) -> Self {
        Self { conn }
    }
}

/// The names of the shared statements and SQLite's (entry columns as
/// [`rows::ENTRY_COLUMNS`], tables of `docs/memory.md`, *Tables*; the
/// archive flag compared as the index on `(agent, user, archived)` is
/// used); SQLite has no row locks (the writer's transaction holds the
/// database).
const RENAMES: [(&str, &str); 9] = [
    (ENTRY_COLUMNS, rows::ENTRY_COLUMNS),
    ("agcore_lt_entries", "memory"),
    ("agcore_lt_history", "memory_history"),
    ("agcore_lt_usage_log", "memory_usage_log"),
    ("agcore_lt_buffer", "dialogue_buffer"),
    ("m.memory_type", "m.type"),
    ("NOT m.archived", "m.archived = 0"),
    ("NOT archived", "archived = 0"),
    (" FOR UPDATE", ""),
];

/// A shared statement in SQLite's names.
fn dialect(sql: &str) -> String {
    let mut out = sql.to_owned();
    for (shared, sqlite) in RENAMES {
        if out.contains(shared) {
            out = out.replace(shared, sqlite);
        }
    }
    out
}

/// A parameter as SQLite binds it (flags as integers, times as text).
struct Bind<'p>(&'p SqlParam<'p>);

impl ToSql for Bind<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self.0 {
            SqlParam::Int(v) => ToSqlOutput::Owned(Value::Integer(v)),
            SqlParam::Float(v) => ToSqlOutput::Owned(Value::Real(v)),
            SqlParam::Bool(v) => ToSqlOutput::Owned(Value::Integer(i64::from(v))),
            SqlParam::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            SqlParam::Time(v) => ToSqlOutput::Owned(Value::Text(format_time(v))),
        })
    }
}

#[async_trait]
impl SqlConn for SqliteRows<'_> {
    type Error = SqliteError;

    async fn execute(&mut self, sql: &str, params: &[SqlParam<'_>]) -> Result<usize> {
        let mut stmt = self.conn.prepare_cached(&dialect(sql))?;
        Ok(stmt.execute(params_from_iter(params.iter().map(Bind)))?)
    }

    async fn query(
        &mut self,
        sql: &str,
        params: &[SqlParam<'_>],
        columns: &[SqlType],
    ) -> Result<Vec<Vec<SqlValue>>> {
        let mut stmt = self.conn.prepare_cached(&dialect(sql))?;
        let mut found = stmt.query(params_from_iter(params.iter().map(Bind)))?;
        let mut out = Vec::new();
        while let Some(row) = found.next()? {
            out.push(values(row, columns)?);
        }
        Ok(out)
    }
}

#[async_trait]
impl LongTermRows for SqliteRows<'_> {
    /// The scope's key in the impact-ordered index (no scope table).
    async fn scope_id(&mut self, scope: &MemoryScope) -> Result<i64> {
        Ok(rows::scope_id(scope.agent(), scope.user()))
    }

    async fn id_by_key(&mut self, scope: &MemoryScope, key: &str) -> Result<Option<i64>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT id FROM memory WHERE agent_name = ?1 AND user_id = ?2 AND content_key = ?3",
            )?
            .query_row(params![scope.agent(), scope.user(), key], |r| r.get(0))
            .optional()?)
    }

    async fn load_many(
        &mut self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>> {
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            out.push(entries::load(self, scope, id, false).await?);
        }
        Ok(out)
    }

    /// Never `None`: the writer is the only one, and the save looked the key up.
    async fn insert(&mut self, _scope_id: i64, entry: &MemoryEntry) -> Result<Option<i64>> {
        Ok(Some(rows::insert(self.conn, entry)?))
    }

    async fn store(
        &mut self,
        _scope: &MemoryScope,
        entry: &MemoryEntry,
        reindex: bool,
    ) -> Result<()> {
        if reindex {
            return rows::store(self.conn, entry);
        }
        self.conn
            .prepare_cached(
                "UPDATE memory SET weight = ?4, archived = ?5, use_count = ?6, last_used_at = ?7, \
                 weight_updated_at = ?8, updated_at = ?9 WHERE id = ?1 AND agent_name = ?2 AND user_id = ?3",
            )?
            .execute(params![
                entry.id,
                entry.agent_name,
                entry.user_id,
                entry.weight,
                i64::from(entry.archived),
                i64::try_from(entry.use_count).unwrap_or(i64::MAX),
                entry.last_used_at.map(format_time),
                format_time(entry.weight_updated_at),
                format_time(entry.updated_at),
            ])?;
        Ok(())
    }

    async fn remove(&mut self, id: i64) -> Result<()> {
        let removed: Option<(String, String, String)> = self
            .conn
            .query_row(
                "DELETE FROM memory WHERE id = ?1 RETURNING agent_name, user_id, terms",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        if let Some((agent, user, terms)) = removed {
            let scope = rows::scope_id(&agent, &user);
            crate::impact::remove_docs(self.conn, scope, &[(id, &terms)], SCOPE_TOKENS)?;
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
        self.conn.prepare_cached(
            "INSERT INTO dialogue_buffer (agent_name, user_id, session_id, user_query, assistant_response, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![scope.agent(), scope.user(), session_id, user_query, assistant_response, format_time(now)])?;
        Ok(DialogueTurn {
            id: self.conn.last_insert_rowid(),
            session_id: session_id.to_owned(),
            user_query: user_query.to_owned(),
            assistant_response: assistant_response.to_owned(),
            created_at: now,
        })
    }
}
