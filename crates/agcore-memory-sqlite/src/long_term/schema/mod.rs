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
//! - Version 6 replaces the indexes `(agent, user, archived, weight)` and
//!   `(agent, user)` by one on `(agent, user, archived)`: a maintenance run
//!   rewrites the weight of every active entry, and keeping weights in an
//!   index made that run about seven times slower. Listing by weight (the
//!   extraction's known memories, `agcore memory list --sort weight`) sorts
//!   the scope's active rows instead.

mod backfill;

use crate::error::{Result, storage};
use rusqlite::Transaction;

use crate::component::Component;

use backfill::{v2, v3};

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

/// Version 4: the FTS5 table of versions 1–3, maintained and never read
/// (searches use the impact-ordered index), is dropped with its triggers.
const V4: &str = "
DROP TRIGGER IF EXISTS memory_ai;
DROP TRIGGER IF EXISTS memory_ad;
DROP TRIGGER IF EXISTS memory_au;
DROP TABLE IF EXISTS memory_fts;
";

/// Version 6: the scope index no longer holds the weight (see the module
/// documentation).
const V6: &str = "
DROP INDEX IF EXISTS memory_scope_weight;
DROP INDEX IF EXISTS idx_agent_user;
CREATE INDEX IF NOT EXISTS memory_scope_active ON memory(agent_name, user_id, archived);
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
    latest: 6,
    create,
    upgrade,
};

/// The last version kept in `PRAGMA user_version` (files of earlier releases).
pub(crate) const LEGACY_LATEST: i64 = 3;

fn create(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(LATEST_LAYOUT)?;
    tx.execute_batch(&tables_without_fts())?;
    tx.execute_batch(V6)?;
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
        6 => Ok(tx.execute_batch(V6)?),
        other => Err(storage(format!(
            "long-term memory: no upgrade to version {other}"
        ))),
    }
}
