//! The long-term memory schema component (`long_term` in `agcore_schema`,
//! see [`crate::migrate`]). A database without long-term memory gets the
//! latest layout at once; older files are upgraded step by step. Versions 1–3
//! were kept in `PRAGMA user_version` by earlier releases.
//!
//! - Version 1 is the original layout (`docs/memory.md`, *Tables*): the
//!   `memory` table, a trigram FTS5 table over name, content and description,
//!   and three sync triggers. Databases written by that layout open and are
//!   upgraded in place.
//! - Version 2 adds the weight and usage columns (weight, tags, archived,
//!   use count, last use), a de-duplication key with a unique index per
//!   scope, the `memory_history`, `memory_usage_log` and `dialogue_buffer`
//!   tables, and replaces the trigram index (each entry's terms start with a
//!   token naming its scope, so searches intersect with the scope in the index) by the crate's CJK scheme: a
//!   `terms` column of pre-tokenised keywords (CJK as character bigrams,
//!   `retriever::extract_keywords`; stemmed since version 5) indexed with
//!   `unicode61`, as `SqliteStore` does.
//! - Version 3 adds the impact-ordered BM25 index shared with `SqliteStore`
//!   (`crate::impact`): the `bm25_blocks` / `bm25_terms` /
//!   `bm25_stats` tables keyed by scope (the hash of agent and user), rebuilt
//!   from the existing rows; every write keeps it in step in its transaction.
//! - Version 4 drops the FTS5 table and its triggers (maintained on every
//!   write, never read: searches use the impact-ordered index), so the store
//!   and long-term memory can share one database file.
//! - Version 5 re-tokenises every entry with the stemming analyzer
//!   (`retriever::index_terms`), rebuilds the postings and records the
//!   analyzer ([`crate::analysis`]).

use crate::error::{Result, storage};
use rusqlite::{Transaction, params};

use crate::migrate::Component;

use super::rows::{SCOPE_TOKENS, format_time, index_terms, parse_time, scope_id};
use agcore_memory::long_term::content_key;

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

/// Version 3: the impact-ordered index of every existing row (in batches,
/// grouped by scope; the tables come with the `bm25` component).
fn v3(tx: &Transaction<'_>) -> Result<()> {
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
fn v2(tx: &Transaction<'_>) -> Result<()> {
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

/// Version 4: the FTS5 table of versions 1–3, maintained and never read
/// (searches use the impact-ordered index), is dropped with its triggers.
const V4: &str = "
DROP TRIGGER IF EXISTS memory_ai;
DROP TRIGGER IF EXISTS memory_ad;
DROP TRIGGER IF EXISTS memory_au;
DROP TABLE IF EXISTS memory_fts;
";

/// The latest layout, created at once in a database without long-term memory.
const LATEST_LAYOUT: &str = r"
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
    updated_at TEXT DEFAULT (datetime('now')),
    weight REAL NOT NULL DEFAULT 1.0,
    tags TEXT NOT NULL DEFAULT '[]',
    archived INTEGER NOT NULL DEFAULT 0,
    use_count INTEGER NOT NULL DEFAULT 0,
    last_used_at TEXT,
    weight_updated_at TEXT,
    content_key TEXT NOT NULL DEFAULT '',
    terms TEXT NOT NULL DEFAULT ''
);
CREATE INDEX idx_agent_user ON memory(agent_name, user_id);
";

/// The long-term component (`long_term` in `agcore_schema`).
pub(crate) const COMPONENT: Component = Component {
    name: "long_term",
    latest: 5,
    create,
    upgrade,
};

/// The last version kept in `PRAGMA user_version` (files of earlier releases).
pub(crate) const LEGACY_LATEST: i64 = 3;

fn create(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(LATEST_LAYOUT)?;
    tx.execute_batch(&tables_without_fts())?;
    crate::analysis::record(tx, "long_term")
}

/// Version 2's tables without its FTS5 table and triggers.
fn tables_without_fts() -> String {
    let start = V2_TABLES
        .find("CREATE VIRTUAL TABLE")
        .unwrap_or(V2_TABLES.len());
    let end = V2_TABLES
        .find("CREATE TABLE memory_history")
        .unwrap_or(V2_TABLES.len());
    let (head, _) = V2_TABLES.split_at(start);
    let (_, tail) = V2_TABLES.split_at(end);
    format!("{head}{tail}")
}

fn upgrade(tx: &Transaction<'_>, target: i64) -> Result<()> {
    match target {
        2 => v2(tx),
        3 => v3(tx),
        4 => Ok(tx.execute_batch(V4)?),
        5 => crate::analysis::reindex(tx, "long_term"),
        other => Err(storage(format!(
            "long-term memory: no upgrade to version {other}"
        ))),
    }
}
