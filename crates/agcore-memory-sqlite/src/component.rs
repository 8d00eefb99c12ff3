//! What the migration runner ([`crate::migrate`]) and the parts it migrates
//! share: a [`Component`]'s description and the table check, in a leaf
//! module so the parts never import the runner back.

use rusqlite::{Connection, OptionalExtension, Transaction};

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
