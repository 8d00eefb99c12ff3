//! The reads of the history, the usage log, the dialogue buffer and the
//! scope listing, and the buffer's insert.

use agcore_memory::long_term::{
    DialogueTurn, HistoryEntry, HistoryReason, MemoryScope, UsageLogRow,
};
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;

use crate::error::Result;

pub(crate) async fn history(
    client: &impl GenericClient,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<HistoryEntry>> {
    let rows = client
        .query(
            "SELECT name, content, reason, recorded_at FROM agcore_lt_history
             WHERE memory_id = $1 AND agent_name = $2 AND user_id = $3 ORDER BY id",
            &[&id, &scope.agent(), &scope.user()],
        )
        .await?;
    rows.iter()
        .map(|row| {
            let reason: String = row.try_get(2)?;
            Ok(HistoryEntry {
                memory_id: id,
                name: row.try_get(0)?,
                content: row.try_get(1)?,
                reason: HistoryReason::parse(&reason)?,
                recorded_at: row.try_get(3)?,
            })
        })
        .collect()
}

pub(crate) async fn usage_log(
    client: &impl GenericClient,
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
    client: &impl GenericClient,
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
    client: &impl GenericClient,
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

pub(crate) async fn scopes(client: &impl GenericClient) -> Result<Vec<MemoryScope>> {
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
