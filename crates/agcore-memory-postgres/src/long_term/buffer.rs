//! The dialogue buffer, the usage log, the scope listing and backup import.

use agcore_memory::long_term::{
    DialogueTurn, MemoryEntry, MemoryScope, SaveOutcome, UsageLogRow, content_key,
};
use chrono::{DateTime, Utc};
use deadpool_postgres::Client;

use super::rows;
use crate::error::Result;

pub(crate) async fn usage_log(
    client: &Client,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<UsageLogRow>> {
    let rows = client
        .query(
            "SELECT u.session_id, u.query, u.was_referenced, u.used_at FROM agcore_lt_usage_log u
             JOIN agcore_lt_entries m ON m.id = u.memory_id
             WHERE u.memory_id = $1 AND m.agent_name = $2 AND m.user_id = $3 ORDER BY u.id",
            &[&id, &scope.agent(), &scope.user()],
        )
        .await?;
    rows.iter()
        .map(|row| {
            Ok(UsageLogRow {
                memory_id: id,
                session_id: row.try_get(0)?,
                query: row.try_get(1)?,
                was_referenced: row.try_get(2)?,
                used_at: row.try_get(3)?,
            })
        })
        .collect()
}

pub(crate) async fn append(
    client: &Client,
    scope: &MemoryScope,
    session_id: &str,
    (user_query, assistant_response): (&str, &str),
    now: DateTime<Utc>,
) -> Result<DialogueTurn> {
    let row = client
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

pub(crate) async fn pending(
    client: &Client,
    scope: &MemoryScope,
    session_id: &str,
    limit: usize,
) -> Result<Vec<DialogueTurn>> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = client
        .query(
            "SELECT id, user_query, assistant_response, created_at FROM agcore_lt_buffer
             WHERE agent_name = $1 AND user_id = $2 AND session_id = $3 AND applied_at IS NULL
             ORDER BY id LIMIT $4",
            &[&scope.agent(), &scope.user(), &session_id, &limit],
        )
        .await?;
    rows.iter()
        .map(|row| {
            Ok(DialogueTurn {
                id: row.try_get(0)?,
                session_id: session_id.to_owned(),
                user_query: row.try_get(1)?,
                assistant_response: row.try_get(2)?,
                created_at: row.try_get(3)?,
            })
        })
        .collect()
}

pub(crate) async fn mark_applied(
    client: &Client,
    scope: &MemoryScope,
    session_id: &str,
    up_to: i64,
    now: DateTime<Utc>,
) -> Result<usize> {
    let n = client
        .execute(
            "UPDATE agcore_lt_buffer SET applied_at = $5 WHERE agent_name = $1 AND user_id = $2
             AND session_id = $3 AND applied_at IS NULL AND id <= $4",
            &[&scope.agent(), &scope.user(), &session_id, &up_to, &now],
        )
        .await?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

pub(crate) async fn scopes(client: &Client) -> Result<Vec<MemoryScope>> {
    let rows = client
        .query(
            "SELECT agent_name, user_id FROM agcore_lt_entries
             UNION SELECT agent_name, user_id FROM agcore_lt_buffer ORDER BY 1, 2",
            &[],
        )
        .await?;
    let pairs = rows
        .iter()
        .map(|row| Ok((row.try_get::<_, String>(0)?, row.try_get::<_, String>(1)?)))
        .collect::<Result<Vec<_>>>()?;
    Ok(MemoryScope::valid_only(pairs))
}

/// Inserts `entries` (ids reassigned, every other column kept) in one
/// transaction; an entry whose content key is taken in its scope is skipped
/// and reported with the stored entry.
pub(crate) async fn import_all(
    client: &mut Client,
    entries: Vec<MemoryEntry>,
) -> Result<Vec<SaveOutcome>> {
    let tx = client.transaction().await?;
    let mut outcomes = Vec::with_capacity(entries.len());
    for mut entry in entries {
        let scope = entry.scope()?;
        let scope_id = rows::scope_id(&tx, &scope).await?;
        let existing = match rows::id_by_key(&tx, &scope, &content_key(&entry.content)).await? {
            Some(id) => rows::load(&tx, &scope, id, false).await?,
            None => None,
        };
        if let Some(existing) = existing {
            outcomes.push(SaveOutcome {
                entry: existing,
                created: false,
            });
            continue;
        }
        match rows::insert(&tx, scope_id, &entry).await? {
            Some(id) => {
                entry.id = id;
                outcomes.push(SaveOutcome {
                    entry,
                    created: true,
                });
            }
            None => {
                return Err(crate::error::storage(
                    "long-term import: an entry was saved concurrently; nothing imported, retry",
                ));
            }
        }
    }
    tx.commit().await?;
    Ok(outcomes)
}
