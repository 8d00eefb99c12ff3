//! Tables of the vector store and their versioned setup, separate from the
//! `agcore_schema` components: `agcore_vectors_meta` holds the layout
//! version and the embedding space, `agcore_vectors` the vectors.

use agcore_memory::MemoryError;
use agcore_memory::vector::{EmbeddingSpace, check_space};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::error::Result;

/// Layout version this library writes.
pub(crate) const VERSION: i64 = 1;

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS agcore_vectors_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agcore_vectors (
    namespace    TEXT NOT NULL,
    id           TEXT NOT NULL,
    vector       BLOB NOT NULL,
    content_hash TEXT NOT NULL,
    PRIMARY KEY (namespace, id)
) WITHOUT ROWID;
";

fn meta(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT value FROM agcore_vectors_meta WHERE key = ?1",
            [key],
            |r| r.get(0),
        )
        .optional()?)
}

/// Creates the tables on first use and records `space`; afterwards checks
/// the layout version and that `space` is the recorded one, in one
/// `IMMEDIATE` transaction (another process may set up concurrently).
/// With `reset`, first deletes every vector and the recorded space in the
/// same transaction, so `space` is recorded afresh.
///
/// # Errors
/// [`MemoryError::EmbeddingMismatch`] for another space; a newer layout
/// version; SQLite errors.
pub(crate) fn setup(conn: &mut Connection, space: &EmbeddingSpace, reset: bool) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(TABLES)?;
    if reset {
        tx.execute_batch("DELETE FROM agcore_vectors; DELETE FROM agcore_vectors_meta;")?;
    }
    match meta(&tx, "version")? {
        None => {
            tx.execute(
                "INSERT INTO agcore_vectors_meta (key, value) VALUES
                 ('version', ?1), ('model', ?2), ('dimensions', ?3)",
                params![
                    VERSION.to_string(),
                    space.model,
                    space.dimensions.to_string()
                ],
            )?;
        }
        Some(version) => {
            let version: i64 = version.parse().unwrap_or(i64::MAX);
            if version > VERSION {
                return Err(MemoryError::Storage(format!(
                    "sqlite vectors: layout version {version} is newer than this library ({VERSION})"
                ))
                .into());
            }
            let model = meta(&tx, "model")?.unwrap_or_default();
            let dimensions = meta(&tx, "dimensions")?
                .and_then(|d| d.parse().ok())
                .unwrap_or(0);
            check_space(&EmbeddingSpace::new(model, dimensions), space)?;
        }
    }
    tx.commit()?;
    Ok(())
}
