//! Connection settings, set once per connection: the writer's journal,
//! durability and cache, the readers' memory map and read-only mode.

use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Result, storage};

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
pub(crate) const WAL_CHECKPOINT_PAGES: i64 = 10_000;

/// Settings of the writer connection: WAL (on-disk databases), durability,
/// busy timeout, foreign keys, a larger page cache, rarer checkpoints.
pub(crate) fn configure_writer(
    conn: &Connection,
    on_disk: bool,
    durability: Durability,
    busy_timeout: Duration,
) -> Result<()> {
    conn.busy_timeout(busy_timeout)?;
    if on_disk {
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(storage(format!(
                "sqlite: could not switch to WAL mode (journal_mode is `{mode}`)"
            )));
        }
    }
    conn.pragma_update(None, "synchronous", durability.pragma_value())?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // 64 MiB page cache (negative = KiB).
    conn.pragma_update(None, "cache_size", -65_536)?;
    // Checkpoint when the log holds WAL_CHECKPOINT_PAGES pages, not SQLite's
    // default 1,000: a batch dirties pages all over the postings tables, and
    // consecutive batches mostly the same ones, so rarer checkpoints copy
    // each page into the database file once for several commits (and sync
    // less often). Commits are durable in the log either way. On-disk
    // databases then replace this automatic checkpoint by a background one
    // (`super::checkpoint`).
    conn.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

/// Settings of a reader connection: busy timeout, read-only, memory map.
pub(crate) fn configure_reader(conn: &Connection, busy_timeout: Duration) -> Result<()> {
    conn.busy_timeout(busy_timeout)?;
    conn.pragma_update(None, "query_only", true)?;
    // A 32 MiB page cache per reader: full-text ranking touches many index
    // pages per query. No memory map: with checkpoints copying the log into
    // the file beside busy readers, a mapped file made both searches and
    // saves several times slower at the tail (measured, 100k memories).
    conn.pragma_update(None, "cache_size", -32_768)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let fk: i64 = conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .unwrap();
        assert_eq!((pages, sync, fk), (WAL_CHECKPOINT_PAGES, 1, 1));
        configure_writer(&conn, true, Durability::PowerLoss, Duration::from_secs(1)).unwrap();
        let sync: i64 = conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2);
    }
}
