//! Row encoding: entry columns, scope tokens, the insert and store of one
//! entry with its index rows (stored times are in `super::time`).

use super::time::{format_time, parse_time};
use crate::error::Result;
use rusqlite::{Connection, OptionalExtension, Row, params};

use agcore_memory::long_term::MemoryEntry;
use agcore_memory::long_term::columns::entry_columns;
use agcore_memory::long_term::content_key;
use agcore_memory::long_term::sql::{ENTRY_TYPES, SqlType, SqlValue, entry_from_values};
use agcore_search::index_terms as analyzer_terms;

/// The first columns of `row`, read as `types`.
pub(crate) fn values(row: &Row<'_>, types: &[SqlType]) -> Result<Vec<SqlValue>> {
    let value = |(i, ty): (usize, &SqlType)| -> Result<SqlValue> {
        Ok(match ty {
            SqlType::Int => SqlValue::Int(row.get(i)?),
            SqlType::Float => SqlValue::Float(row.get(i)?),
            SqlType::Bool => SqlValue::Bool(row.get::<_, i64>(i)? != 0),
            SqlType::Text => SqlValue::Text(row.get(i)?),
            SqlType::Time => SqlValue::Time(parse_time(&row.get::<_, String>(i)?)?),
            SqlType::TimeOrNull => match row.get::<_, Option<String>>(i)? {
                Some(text) => SqlValue::Time(parse_time(&text)?),
                None => SqlValue::Null,
            },
        })
    };
    types.iter().enumerate().map(value).collect()
}

/// The shared entry columns ([`agcore_memory::long_term::sql::ENTRY_COLUMNS`],
/// read as [`ENTRY_TYPES`]) in SQLite's names (table alias `m`); rows of
/// the first layout may lack metadata and the weight's time.
pub(crate) const ENTRY_COLUMNS: &str = "m.id, m.agent_name, m.user_id, m.type, m.name, m.content, \
     m.description, COALESCE(m.metadata, '{}'), m.tags, m.weight, m.archived, m.use_count, \
     m.last_used_at, COALESCE(m.weight_updated_at, m.updated_at), m.created_at, m.updated_at";

/// Decodes the [`ENTRY_COLUMNS`] of `row`.
pub(crate) fn entry_from_row(row: &Row<'_>) -> Result<MemoryEntry> {
    Ok(entry_from_values(values(row, &ENTRY_TYPES)?)?)
}

/// The FTS5 term naming a scope: `ltscope` + 16 hex digits of
/// [`scope_hash`]. Indexed with every entry so a search intersects with its
/// scope inside the index; a hash collision only costs speed (rows are still
/// filtered by their scope columns).
pub(crate) fn scope_token(agent: &str, user: &str) -> String {
    format!("ltscope{:016x}", scope_hash(agent, user))
}

/// The 64-bit FNV-1a hash of `agent \0 user`.
fn scope_hash(agent: &str, user: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut hash = OFFSET;
    for byte in agent.bytes().chain([0]).chain(user.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

/// The scope's key in the impact-ordered BM25 index:
/// [`scope_hash`] as a signed integer. A collision shares statistics between
/// two scopes (rows are still filtered by their scope columns).
pub(crate) fn scope_id(agent: &str, user: &str) -> i64 {
    match i64::from_ne_bytes(scope_hash(agent, user).to_ne_bytes()) {
        // Scope 0 is the store's (`crate::store::search::STORE_SCOPE`).
        0 => 1,
        id => id,
    }
}

/// Tokens at the start of a `terms` value that are not keywords (the scope token).
pub(crate) const SCOPE_TOKENS: usize = 1;

/// The indexed terms of an entry: its scope token, then the analyzer terms
/// of `text` ([`agcore_search::index_terms`]: stemmed words, CJK
/// as bigrams), joined by spaces.
pub(crate) fn index_terms(agent: &str, user: &str, text: &str) -> String {
    let mut terms = scope_token(agent, user);
    for k in analyzer_terms(text) {
        terms.push(' ');
        terms.push_str(&k);
    }
    terms
}

fn encoded(entry: &MemoryEntry) -> Result<(String, String, String, String, i64)> {
    let terms = index_terms(&entry.agent_name, &entry.user_id, &entry.search_text());
    let (metadata, tags, use_count) = entry_columns(entry)?;
    Ok((
        content_key(&entry.content),
        terms,
        metadata,
        tags,
        use_count,
    ))
}

/// Inserts `entry` (its `id` ignored); returns the new id.
///
/// # Errors
/// [`MemoryError::Storage`], including a duplicate content key.
pub(crate) fn insert(conn: &Connection, entry: &MemoryEntry) -> Result<i64> {
    let (key, terms, metadata, tags, use_count) = encoded(entry)?;
    conn.prepare_cached(
        "INSERT INTO memory (agent_name, user_id, type, name, content, description, metadata, tags, \
         weight, archived, use_count, last_used_at, weight_updated_at, created_at, updated_at, content_key, terms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    )?
    .execute(params![
        entry.agent_name,
        entry.user_id,
        entry.memory_type.as_str(),
        entry.name,
        entry.content,
        entry.description,
        metadata,
        tags,
        entry.weight,
        i64::from(entry.archived),
        use_count,
        entry.last_used_at.map(format_time),
        format_time(entry.weight_updated_at),
        format_time(entry.created_at),
        format_time(entry.updated_at),
        key,
        terms,
    ])?;
    let id = conn.last_insert_rowid();
    crate::impact::add_docs(
        conn,
        scope_id(&entry.agent_name, &entry.user_id),
        &[(id, &terms)],
        SCOPE_TOKENS,
    )?;
    Ok(id)
}

/// Writes every mutable column of `entry` to its row (matched by id and scope).
///
/// # Errors
/// [`MemoryError::Storage`], including a duplicate content key.
pub(crate) fn store(conn: &Connection, entry: &MemoryEntry) -> Result<()> {
    let (key, terms, metadata, tags, use_count) = encoded(entry)?;
    let old_terms: Option<String> = conn
        .prepare_cached(
            "SELECT terms FROM memory WHERE id = ?1 AND agent_name = ?2 AND user_id = ?3",
        )?
        .query_row(params![entry.id, entry.agent_name, entry.user_id], |r| {
            r.get(0)
        })
        .optional()?;
    let mut stmt = conn.prepare_cached(
        "UPDATE memory SET type = ?4, name = ?5, content = ?6, description = ?7, metadata = ?8, \
         tags = ?9, weight = ?10, archived = ?11, use_count = ?12, last_used_at = ?13, \
         weight_updated_at = ?14, updated_at = ?15, content_key = ?16, terms = ?17 \
         WHERE id = ?1 AND agent_name = ?2 AND user_id = ?3",
    )?;
    let changed = stmt.execute(params![
        entry.id,
        entry.agent_name,
        entry.user_id,
        entry.memory_type.as_str(),
        entry.name,
        entry.content,
        entry.description,
        metadata,
        tags,
        entry.weight,
        i64::from(entry.archived),
        use_count,
        entry.last_used_at.map(format_time),
        format_time(entry.weight_updated_at),
        format_time(entry.updated_at),
        key,
        terms,
    ])?;
    // Re-index only when the terms change (use counts and weights do not).
    if let Some(old) = old_terms.filter(|old| changed > 0 && *old != terms) {
        let scope = scope_id(&entry.agent_name, &entry.user_id);
        crate::impact::remove_docs(conn, scope, &[(entry.id, &old)], SCOPE_TOKENS)?;
        crate::impact::add_docs(conn, scope, &[(entry.id, &terms)], SCOPE_TOKENS)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_tokens_are_stable_and_distinct() {
        assert_eq!(scope_token("a", "b"), scope_token("a", "b"));
        assert_ne!(scope_token("a", "bc"), scope_token("ab", "c"));
        assert_eq!(scope_token("", "").len(), "ltscope".len() + 16);
        assert_eq!(
            index_terms("a", "b", "Green tea 绿茶"),
            format!("{} green tea 绿茶 绿 茶", scope_token("a", "b"))
        );
    }
}
