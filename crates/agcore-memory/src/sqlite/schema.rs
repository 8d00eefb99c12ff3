//! The database schema, its versioned migrations and the connection settings.
//!
//! The layout follows the SQLite design of the long-term memory spec (§3.3): a
//! plain items table, an external-content FTS5 table over it and three
//! triggers that keep the full-text index in sync on insert, delete and update.

use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use crate::MemoryError;

/// Migration steps: step `n` (0-based) moves the schema from `user_version`
/// `n` to `n + 1`. Append new steps; never edit a released one.
const MIGRATIONS: &[&str] = &[
    // 1: items, the FTS5 index over their pre-tokenised terms, sync triggers.
    // `terms` holds `retriever::extract_keywords(content)` joined by spaces
    // (words lowercased, CJK text as character bigrams), so only whitespace
    // separates tokens: letters, numbers, private-use characters and combining
    // marks are token characters.
    r#"
CREATE TABLE memory_items (
    pk            INTEGER PRIMARY KEY,
    id            TEXT    NOT NULL UNIQUE,
    content       TEXT    NOT NULL,
    metadata      TEXT    NOT NULL,
    created_secs  INTEGER NOT NULL,
    created_nanos INTEGER NOT NULL,
    terms         TEXT    NOT NULL
);
CREATE INDEX memory_items_created ON memory_items (created_secs, created_nanos, id);
CREATE VIRTUAL TABLE memory_fts USING fts5(
    terms,
    content = 'memory_items',
    content_rowid = 'pk',
    tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
);
CREATE TRIGGER memory_items_ai AFTER INSERT ON memory_items BEGIN
    INSERT INTO memory_fts (rowid, terms) VALUES (new.pk, new.terms);
END;
CREATE TRIGGER memory_items_ad AFTER DELETE ON memory_items BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.pk, old.terms);
END;
CREATE TRIGGER memory_items_au AFTER UPDATE ON memory_items
WHEN old.terms IS NOT new.terms OR old.pk IS NOT new.pk BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.pk, old.terms);
    INSERT INTO memory_fts (rowid, terms) VALUES (new.pk, new.terms);
END;
"#,
    // 2: the impact-ordered BM25 index (`super::impact`): postings blocks,
    // document frequencies and collection statistics of scope 0, rebuilt from
    // the existing rows by `backfill_impacts`. The writer keeps it in step in
    // the transactions that write the rows.
    super::impact::TABLES,
];

/// Migration 2's data step: the index of every existing row, in batches.
fn backfill_impacts(tx: &Connection) -> Result<(), MemoryError> {
    const BATCH: i64 = 10_000;
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String)> = tx
            .prepare_cached(
                "SELECT pk, terms FROM memory_items WHERE pk > ?1 ORDER BY pk LIMIT ?2",
            )?
            .query_map([after, BATCH], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let Some(last) = rows.last().map(|r| r.0) else {
            return Ok(());
        };
        let docs: Vec<(i64, &str)> = rows.iter().map(|(pk, t)| (*pk, t.as_str())).collect();
        super::impact::add_docs(tx, super::search::STORE_SCOPE, &docs, 0)?;
        after = last;
    }
}

/// The schema version this library writes (`PRAGMA user_version`).
pub(crate) const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How hard a commit is pushed to disk (SQLite's `synchronous` setting in WAL mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Durability {
    /// `synchronous = NORMAL`: a commit is in the write-ahead log when the call
    /// returns, so it survives the process being killed (SIGKILL, panic,
    /// abort). A power loss or OS crash may roll back the last commits (never
    /// corrupts the database). The default.
    #[default]
    ProcessCrash,
    /// `synchronous = FULL`: the WAL is fsynced on every commit, so commits
    /// also survive power loss and OS crashes. Each commit costs an fsync.
    PowerLoss,
}

impl Durability {
    fn pragma_value(self) -> &'static str {
        match self {
            Self::ProcessCrash => "NORMAL",
            Self::PowerLoss => "FULL",
        }
    }
}

/// Log pages after which a commit checkpoints (about 40 MB at 4 KiB pages).
const WAL_CHECKPOINT_PAGES: i64 = 10_000;

/// Settings of the writer connection: WAL (on-disk databases), durability,
/// busy timeout, a larger page cache, rarer checkpoints.
pub(crate) fn configure_writer(
    conn: &Connection,
    on_disk: bool,
    durability: Durability,
    busy_timeout: Duration,
) -> Result<(), MemoryError> {
    conn.busy_timeout(busy_timeout)?;
    if on_disk {
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(MemoryError::Storage(format!(
                "sqlite: could not switch to WAL mode (journal_mode is `{mode}`)"
            )));
        }
    }
    conn.pragma_update(None, "synchronous", durability.pragma_value())?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // 64 MiB page cache (negative = KiB).
    conn.pragma_update(None, "cache_size", -65_536)?;
    // Checkpoint when the log holds WAL_CHECKPOINT_PAGES pages, not SQLite's
    // default 1,000: a batch dirties pages all over the postings tables, and
    // consecutive batches mostly the same ones, so rarer checkpoints copy
    // each page into the database file once for several commits (and sync
    // less often). Commits are durable in the log either way.
    conn.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

/// Settings of a reader connection: busy timeout, read-only.
pub(crate) fn configure_reader(
    conn: &Connection,
    busy_timeout: Duration,
) -> Result<(), MemoryError> {
    conn.busy_timeout(busy_timeout)?;
    conn.pragma_update(None, "query_only", true)?;
    // Read the file through a shared memory map (up to 1 GiB) plus a 32 MiB
    // page cache: full-text ranking touches many index pages per query, and
    // copying each from the OS cache made large databases disproportionately slow.
    conn.pragma_update(None, "mmap_size", 1_i64 << 30)?;
    conn.pragma_update(None, "cache_size", -32_768)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

/// Brings the schema to [`SCHEMA_VERSION`], one transaction per step.
///
/// # Errors
/// [`MemoryError::Storage`] when a step fails (that step is rolled back and
/// earlier steps stay applied) or when the database was written by a newer
/// version of this library.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), MemoryError> {
    let current: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(MemoryError::Storage(format!(
            "sqlite: database schema version {current} is newer than the supported {SCHEMA_VERSION}"
        )));
    }
    for (index, step) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(current).unwrap_or(0))
    {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Another process may have migrated meanwhile: re-read under the write lock.
        let now: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
        let target = i64::try_from(index + 1).unwrap_or(i64::MAX);
        if now >= target {
            continue;
        }
        tx.execute_batch(step)?;
        if target == 2 {
            backfill_impacts(&tx)?;
        }
        tx.pragma_update(None, "user_version", target)?;
        tx.commit()?;
        tracing::debug!(version = target, "sqlite memory schema migrated");
    }
    Ok(())
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_is_idempotent() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let v: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name LIKE 'memory_items_a%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 3);
    }

    #[test]
    fn the_writer_checkpoints_rarely_and_keeps_its_durability() {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("w.db")).unwrap();
        configure_writer(
            &conn,
            true,
            Durability::ProcessCrash,
            Duration::from_secs(1),
        )
        .unwrap();
        let pages: i64 = conn
            .pragma_query_value(None, "wal_autocheckpoint", |r| r.get(0))
            .unwrap();
        let sync: i64 = conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        assert_eq!((pages, sync), (WAL_CHECKPOINT_PAGES, 1));
        configure_writer(&conn, true, Durability::PowerLoss, Duration::from_secs(1)).unwrap();
        let sync: i64 = conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2);
    }

    #[test]
    fn refuses_a_newer_schema() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        assert!(matches!(migrate(&mut conn), Err(MemoryError::Storage(_))));
    }

    #[test]
    fn triggers_keep_the_index_in_sync() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let hits = |conn: &Connection, term: &str| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1",
                [term],
                |r| r.get(0),
            )
            .unwrap()
        };
        conn.execute(
            "INSERT INTO memory_items (id, content, metadata, created_secs, created_nanos, terms) \
             VALUES ('a', 'x', 'null', 0, 0, 'alpha 记忆')",
            [],
        )
        .unwrap();
        assert_eq!(hits(&conn, "\"alpha\""), 1);
        assert_eq!(hits(&conn, "\"记忆\""), 1);
        conn.execute("UPDATE memory_items SET terms = 'beta' WHERE id = 'a'", [])
            .unwrap();
        assert_eq!(hits(&conn, "\"alpha\""), 0);
        assert_eq!(hits(&conn, "\"beta\""), 1);
        conn.execute("DELETE FROM memory_items WHERE id = 'a'", [])
            .unwrap();
        assert_eq!(hits(&conn, "\"beta\""), 0);
        conn.execute(
            "INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')",
            [],
        )
        .unwrap();
    }
}
