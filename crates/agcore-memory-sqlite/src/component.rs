//! What the migration runner ([`crate::migrate`]) and the parts it migrates
//! share: a [`Component`]'s description, the table check and a change made
//! once under the write lock ([`unless_current`]), in a leaf module so the
//! parts never import the runner back.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};

use crate::error::Result;

/// A part of the database with its own schema version.
pub(crate) struct Component {
    /// The name in `agcore_schema`.
    pub(crate) name: &'static str,
    /// The version this library writes.
    pub(crate) latest: i64,
    /// Creates the latest layout (the component is absent).
    pub(crate) create: fn(&Transaction<'_>) -> Result<()>,
    /// Moves the component from `target - 1` to `target`.
    pub(crate) upgrade: fn(&Transaction<'_>, i64) -> Result<()>,
}

/// Whether the database holds a table named `table`.
pub(crate) fn has_table(conn: &Connection, table: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Runs `apply` in an `IMMEDIATE` transaction unless `read` finds `wanted`,
/// read first and again under the write lock (another process may have
/// applied it meanwhile); returns what `read` found when `apply` ran.
///
/// # Errors
/// What `read` or `apply` returns, or a storage error; nothing changes.
pub(crate) fn unless_current<T: PartialEq>(
    conn: &mut Connection,
    wanted: &T,
    read: impl Fn(&Connection) -> Result<T>,
    apply: impl FnOnce(&Transaction<'_>) -> Result<()>,
) -> Result<Option<T>> {
    if read(conn)? == *wanted {
        return Ok(None);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = read(&tx)?;
    if found == *wanted {
        return Ok(None);
    }
    apply(&tx)?;
    tx.commit()?;
    Ok(Some(found))
}
