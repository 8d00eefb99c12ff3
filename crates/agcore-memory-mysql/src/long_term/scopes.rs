//! Scope rows (`agcore_lt_scopes`): an agent + user pair's row id, which
//! every entry, buffer and frequency row of the scope refers to.

use agcore_memory::long_term::MemoryScope;
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Value};

use crate::error::Result;

/// The scope's agent and user as parameters.
pub(crate) fn scope_params(scope: &MemoryScope) -> [Value; 2] {
    [
        Value::from(scope.agent().as_bytes()),
        Value::from(scope.user().as_bytes()),
    ]
}

/// The scope's row id, created on first use.
pub(crate) async fn scope_id(conn: &mut impl Queryable, scope: &MemoryScope) -> Result<i64> {
    if let Some(id) = existing_scope_id(conn, scope).await? {
        return Ok(id);
    }
    // LAST_INSERT_ID(id) makes the row's id the statement's insert id
    // whether it was inserted now or by someone else before.
    conn.exec_drop(
        "INSERT INTO agcore_lt_scopes (agent_name, user_id) VALUES (?, ?)
         ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id)",
        Params::Positional(scope_params(scope).to_vec()),
    )
    .await?;
    let id: Option<i64> = conn.query_first("SELECT LAST_INSERT_ID()").await?;
    id.ok_or_else(|| crate::error::storage("mysql: the scope row has no id"))
}

/// The scope's row id, `None` when it never held an entry.
pub(crate) async fn existing_scope_id(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
) -> Result<Option<i64>> {
    Ok(conn
        .exec_first(
            "SELECT id FROM agcore_lt_scopes WHERE agent_name = ? AND user_id = ?",
            Params::Positional(scope_params(scope).to_vec()),
        )
        .await?)
}
