//! The long-term memory schema and its versioned migrations (`PRAGMA user_version`).
//!
//! - Version 1 is the SQLite layout of the long-term memory spec (§3.3): the
//!   `memory` table, a trigram FTS5 table over name, content and description,
//!   and three sync triggers. Databases written by that layout open and are
//!   upgraded in place.
//! - Version 2 adds the memory-system plan's columns (weight, tags, archived,
//!   use count, last use), a de-duplication key with a unique index per
//!   scope, the `memory_history`, `memory_usage_log` and `dialogue_buffer`
//!   tables, and replaces the trigram index (each entry's terms start with a
//!   token naming its scope, so searches intersect with the scope in the index) by the crate's CJK scheme: a
//!   `terms` column of pre-tokenised keywords (CJK as character bigrams,
//!   `retriever::extract_keywords`) indexed with `unicode61`, as `SqliteStore` does.
//! - Version 3 adds the impact-ordered BM25 index shared with `SqliteStore`
//!   (`crate::sqlite::impact`): the `bm25_blocks` / `bm25_terms` /
//!   `bm25_stats` tables keyed by scope (the hash of agent and user), rebuilt
//!   from the existing rows; every write keeps it in step in its transaction.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::rows::{SCOPE_TOKENS, format_time, index_terms, parse_time, scope_id};
use crate::MemoryError;
use crate::long_term::normalize::content_key;

/// The spec's original layout (version 1).
pub(crate) const V1: &str = r"
CREATE TABLE memory (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    type TEXT NOT NULL CHECK(type IN ('user', 'project', 'feedback', 'reference')),
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    metadata TEXT,
    created_at TEXT DEFAULT (datetime('now')),
    updated_at TEXT DEFAULT (datetime('now'))
);
CREATE INDEX idx_agent_user ON memory(agent_name, user_id);
CREATE VIRTUAL TABLE memory_fts USING fts5(
    name, content, description,
    content='memory', content_rowid='id',
    tokenize='trigram'
);
CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
    INSERT INTO memory_fts(rowid, name, content, description)
    VALUES (new.id, new.name, new.content, new.description);
END;
CREATE TRIGGER memory_ad AFTER DELETE ON memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, name, content, description)
    VALUES ('delete', old.id, old.name, old.content, old.description);
END;
CREATE TRIGGER memory_au AFTER UPDATE ON memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, name, content, description)
    VALUES ('delete', old.id, old.name, old.content, old.description);
    INSERT INTO memory_fts(rowid, name, content, description)
    VALUES (new.id, new.name, new.content, new.description);
END;
";

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

const V2_TABLES: &str = r#"
CREATE UNIQUE INDEX memory_scope_key ON memory(agent_name, user_id, content_key);
CREATE INDEX memory_scope_weight ON memory(agent_name, user_id, archived, weight);
CREATE VIRTUAL TABLE memory_fts USING fts5(
    terms,
    content = 'memory',
    content_rowid = 'id',
    tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
);
INSERT INTO memory_fts(memory_fts) VALUES ('rebuild');
CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
    INSERT INTO memory_fts(rowid, terms) VALUES (new.id, new.terms);
END;
CREATE TRIGGER memory_ad AFTER DELETE ON memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
END;
CREATE TRIGGER memory_au AFTER UPDATE ON memory WHEN old.terms IS NOT new.terms BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
    INSERT INTO memory_fts(rowid, terms) VALUES (new.id, new.terms);
END;
CREATE TABLE memory_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL,
    agent_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    reason TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE INDEX idx_history_memory ON memory_history(agent_name, user_id, memory_id);
CREATE TABLE memory_usage_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    query TEXT NOT NULL,
    was_referenced INTEGER NOT NULL DEFAULT 0,
    used_at TEXT NOT NULL,
    FOREIGN KEY (memory_id) REFERENCES memory(id) ON DELETE CASCADE
);
CREATE INDEX idx_usage_memory ON memory_usage_log(memory_id);
CREATE INDEX idx_usage_session ON memory_usage_log(session_id);
CREATE TABLE dialogue_buffer (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    user_query TEXT NOT NULL,
    assistant_response TEXT NOT NULL,
    created_at TEXT NOT NULL,
    applied_at TEXT
);
CREATE INDEX idx_buffer_session ON dialogue_buffer(agent_name, user_id, session_id, id);
"#;

/// The schema version this library writes.
pub(crate) const SCHEMA_VERSION: i64 = 3;

/// Version 3: the impact-ordered index of every existing row (in batches,
/// grouped by scope).
fn v3(tx: &Transaction<'_>) -> Result<(), MemoryError> {
    const BATCH: i64 = 10_000;
    tx.execute_batch(crate::sqlite::impact::TABLES)?;
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
            crate::sqlite::impact::add_docs(tx, scope, &docs, SCOPE_TOKENS)?;
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
fn v2(tx: &Transaction<'_>) -> Result<(), MemoryError> {
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
        let terms = index_terms(&agent, &user, &format!("{name} {content} {description}"));
        let created = normalise_time(created.as_deref(), &now);
        let updated = normalise_time(updated.as_deref(), &created);
        stmt.execute(params![
            id,
            key,
            terms,
            upgrade_metadata(metadata.as_deref()),
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

/// Version-1 metadata (nullable, any JSON) as a JSON object: `NULL` → `{}`,
/// a non-object value → `{"value": …}`, invalid JSON → `{"raw": "<text>"}`.
fn upgrade_metadata(text: Option<&str>) -> String {
    let value = match text {
        None => serde_json::Value::Object(serde_json::Map::new()),
        Some(t) => match serde_json::from_str::<serde_json::Value>(t) {
            Ok(serde_json::Value::Object(map)) => serde_json::Value::Object(map),
            Ok(serde_json::Value::Null) => serde_json::Value::Object(serde_json::Map::new()),
            Ok(other) => serde_json::json!({ "value": other }),
            Err(_) => serde_json::json!({ "raw": t }),
        },
    };
    value.to_string()
}

/// Brings the database to [`SCHEMA_VERSION`], one transaction per step.
///
/// # Errors
/// [`MemoryError::Storage`] when a step fails (it is rolled back), when the
/// database has a newer version, or when the file holds another schema
/// (for example a `SqliteStore` database).
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), MemoryError> {
    let current: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(MemoryError::Storage(format!(
            "long-term memory: database schema version {current} is newer than the supported {SCHEMA_VERSION}"
        )));
    }
    let has = |conn: &Connection, table: &str| -> Result<bool, MemoryError> {
        Ok(conn
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    };
    if has(conn, "memory_items")? || (current > 0 && !has(conn, "memory")?) {
        return Err(MemoryError::Storage(
            "long-term memory: this database holds another schema (use a separate file for long-term memory)".into(),
        ));
    }
    for target in (current + 1)..=SCHEMA_VERSION {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let now: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if now >= target {
            continue;
        }
        // A v1 database made by the spec's own DDL (no user_version) is detected by its table.
        if target == 1 && !has(&tx, "memory")? {
            tx.execute_batch(V1)?;
        } else if target == 2 {
            v2(&tx)?;
        } else if target == 3 {
            v3(&tx)?;
        }
        tx.pragma_update(None, "user_version", target)?;
        tx.commit()?;
        tracing::debug!(version = target, "long-term memory schema migrated");
    }
    Ok(())
}
