//! Tables of the vector store and their versioned setup, apart from the
//! `agcore_schema` components (existing migrations are not touched):
//!
//! - `agcore_vectors_meta (name, value)`: the layout `version`, the
//!   embedding `model` and its `dimensions`.
//! - `agcore_vectors`: one row per `(namespace, id)`, keyed by `key_hash`
//!   (SHA-256 of the namespace, a NUL byte and the id: namespaces hold no
//!   NUL, so keys never collide, and the key fits InnoDB's index limit
//!   whatever the text length); `namespace` and `id` as `utf8mb4_bin` text
//!   (case-sensitive, any Unicode); `vector` its components as
//!   little-endian `f32` (`LONGBLOB`); `content_hash` as given.
//!
//! Setup runs under the named lock `agcore_vectors:{database}` (`GET_LOCK`),
//! so processes opening a database at once create the tables and record the
//! space once.

use agcore_memory::vector::layout::check_layout;
use agcore_memory::vector::{EmbeddingSpace, VectorRecord};
use mysql_async::Conn;
use mysql_async::prelude::Queryable;

use crate::error::Result;

/// Layout version this library writes.
pub(crate) const VERSION: i64 = 1;

const TABLES: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS agcore_vectors_meta (
        name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
        value VARCHAR(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL
    ) ENGINE = InnoDB",
    "CREATE TABLE IF NOT EXISTS agcore_vectors (
        key_hash BINARY(32) NOT NULL PRIMARY KEY,
        namespace VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        id VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        vector LONGBLOB NOT NULL,
        content_hash TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL
    ) ENGINE = InnoDB",
];

/// Creates the tables on first use and records `space`, else checks the
/// layout version and that `space` is the recorded one; with `reset`, first
/// deletes every vector and the recorded space. Returns every stored record
/// (read under the lock). All under the setup lock.
///
/// # Errors
/// [`agcore_memory::MemoryError::EmbeddingMismatch`] for another space; a
/// newer layout version; the lock not had in time; server errors.
pub(crate) async fn setup(
    conn: &mut Conn,
    space: &EmbeddingSpace,
    reset: bool,
) -> Result<Vec<VectorRecord>> {
    let held = "mysql vectors: another process held the setup lock for too long";
    crate::migrate::locked(conn, "agcore_vectors", held, async |conn: &mut Conn| {
        setup_locked(conn, space, reset).await
    })
    .await
}

async fn setup_locked(
    conn: &mut Conn,
    space: &EmbeddingSpace,
    reset: bool,
) -> Result<Vec<VectorRecord>> {
    for table in TABLES {
        conn.query_drop(table).await?;
    }
    if reset {
        conn.query_drop("DELETE FROM agcore_vectors").await?;
        conn.query_drop("DELETE FROM agcore_vectors_meta").await?;
    }
    let meta: Vec<(String, String)> = conn
        .query("SELECT name, value FROM agcore_vectors_meta")
        .await?;
    let get = |name: &str| {
        meta.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    match get("version") {
        None => {
            // Rows without a recorded space (a cut-short reset) are dropped.
            conn.query_drop("DELETE FROM agcore_vectors").await?;
            conn.exec_drop(
                "INSERT INTO agcore_vectors_meta (name, value) VALUES
                 ('version', ?), ('model', ?), ('dimensions', ?)
                 ON DUPLICATE KEY UPDATE value = VALUES(value)",
                (
                    VERSION.to_string(),
                    space.model.as_str(),
                    space.dimensions.to_string(),
                ),
            )
            .await?;
            Ok(Vec::new())
        }
        Some(version) => {
            let recorded = (version, get("model"), get("dimensions"));
            check_layout("mysql", VERSION, recorded, space)?;
            super::rows::load_all(conn).await
        }
    }
}
