//! The row backfills of the upgrades to versions 2 and 3: version 2's new
//! columns filled row by row from version-1 rows, and version 3's
//! impact-ordered index built from the existing rows.

use agcore_memory::long_term::columns::legacy_metadata;
use agcore_memory::long_term::{MemoryEntry, content_key};
use rusqlite::{Transaction, params};

use super::V2_TABLES;
use crate::error::Result;
use crate::long_term::rows::{SCOPE_TOKENS, index_terms, scope_id};
use crate::long_term::time::{format_time, parse_time};

/// Version 2's new columns (version 1 is the original layout, created by
/// earlier releases only).
const V2_COLUMNS: &str = r"
ALTER TABLE memory ADD COLUMN weight REAL NOT NULL DEFAULT 1.0;
ALTER TABLE memory ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE memory ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory ADD COLUMN use_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory ADD COLUMN last_used_at TEXT;
ALTER TABLE memory ADD COLUMN weight_updated_at TEXT;
ALTER TABLE memory ADD COLUMN content_key TEXT NOT NULL DEFAULT '';
ALTER TABLE memory ADD COLUMN terms TEXT NOT NULL DEFAULT '';
DROP TRIGGER IF EXISTS memory_ai;
DROP TRIGGER IF EXISTS memory_ad;
DROP TRIGGER IF EXISTS memory_au;
DROP TABLE IF EXISTS memory_fts;
";

/// Version 3: the impact-ordered index of every existing row (in batches,
/// grouped by scope; the tables come with the `bm25` component).
pub(super) fn v3(tx: &Transaction<'_>) -> Result<()> {
    const BATCH: i64 = 10_000;
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String, String, String)> = tx
            .prepare_cached(
                "SELECT id, agent_name, user_id, terms FROM memory WHERE id > ?1 ORDER BY id LIMIT ?2",
            )?
            .query_map([after, BATCH], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<Result<_, _>>()?;
        let Some(last) = rows.last().map(|r| r.0) else {
            return Ok(());
        };
        let mut by_scope: std::collections::BTreeMap<i64, Vec<(i64, &str)>> =
            std::collections::BTreeMap::new();
        for (id, agent, user, terms) in &rows {
            by_scope
                .entry(scope_id(agent, user))
                .or_default()
                .push((*id, terms.as_str()));
        }
        for (scope, docs) in by_scope {
            crate::impact::add_docs(tx, scope, &docs, SCOPE_TOKENS)?;
        }
        after = last;
    }
}

/// A row as version 1 stored it.
struct V1Row {
    id: i64,
    agent: String,
    user: String,
    name: String,
    content: String,
    description: String,
    metadata: Option<String>,
    created: Option<String>,
    updated: Option<String>,
}

/// Version 2: new columns, backfilled row by row, then the new index and tables.
pub(super) fn v2(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(V2_COLUMNS)?;
    let now = format_time(chrono::Utc::now());
    let rows: Vec<V1Row> = {
        let mut stmt = tx.prepare(
            "SELECT id, agent_name, user_id, name, content, description, metadata, created_at, updated_at \
             FROM memory ORDER BY id",
        )?;
        stmt.query_map([], |r| {
            Ok(V1Row {
                id: r.get(0)?,
                agent: r.get(1)?,
                user: r.get(2)?,
                name: r.get(3)?,
                content: r.get(4)?,
                description: r.get(5)?,
                metadata: r.get(6)?,
                created: r.get(7)?,
                updated: r.get(8)?,
            })
        })?
        .collect::<Result<_, _>>()?
    };
    let mut seen = std::collections::HashSet::new();
    let mut stmt = tx.prepare(
        "UPDATE memory SET content_key = ?2, terms = ?3, metadata = ?4, created_at = ?5, \
         updated_at = ?6, weight_updated_at = ?6 WHERE id = ?1",
    )?;
    for V1Row {
        id,
        agent,
        user,
        name,
        content,
        description,
        metadata,
        created,
        updated,
    } in rows
    {
        let mut key = content_key(&content);
        // Old databases may hold duplicates: every row is kept, later copies
        // get a distinct key (they stop de-duplicating, nothing is lost).
        if !seen.insert((agent.clone(), user.clone(), key.clone())) {
            key = format!("{key}\u{0}dup:{id}");
        }
        let terms = index_terms(
            &agent,
            &user,
            &MemoryEntry::search_text_of(&name, &content, &description),
        );
        let created = normalise_time(created.as_deref(), &now);
        let updated = normalise_time(updated.as_deref(), &created);
        stmt.execute(params![
            id,
            key,
            terms,
            serde_json::Value::Object(legacy_metadata(metadata.as_deref())).to_string(),
            created,
            updated
        ])?;
    }
    drop(stmt);
    tx.execute_batch(V2_TABLES)?;
    Ok(())
}

fn normalise_time(text: Option<&str>, fallback: &str) -> String {
    text.and_then(|t| parse_time(t).ok())
        .map_or_else(|| fallback.to_owned(), format_time)
}
