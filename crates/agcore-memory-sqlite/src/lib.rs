//! The SQLite backend of agcore memory: one embedded database file holding a
//! [`MemoryStore`](agcore_memory::MemoryStore) ([`SqliteStore`]) and long-term
//! memory ([`SqliteLongTerm`]), behind one connection layer.

mod analysis;
mod component;
mod connection;
mod database;
mod error;
mod impact;
mod keyset;
pub mod long_term;
mod migrate;
mod multirow;
pub mod store;
mod topk;
mod vectors;

/// Opens this backend's vectors ([`VectorTables::vectors`]); re-exported so
/// callers need no `agcore-memory` import.
pub use agcore_memory::vector::VectorTables;
pub use connection::Durability;
pub use database::{SqliteDatabase, SqliteDatabaseBuilder};
pub use error::SqliteError;
pub use long_term::{SqliteLongTerm, SqliteLongTermDriver};
pub use store::{SqliteStore, SqliteStoreBuilder};
pub use vectors::{SqliteRows, SqliteVectors};

/// Opens the SQLite database named by `url` — `sqlite:///abs/path.db`,
/// `sqlite://rel/path.db`, `sqlite::memory:` or a bare path — creating its
/// parent folders, as a [`Storage`](agcore_memory::Storage) holding the store
/// and long-term memory.
///
/// # Errors
/// [`MemoryError::InvalidInput`](agcore_memory::MemoryError::InvalidInput) for
/// an empty path or a URL with a query string; otherwise as
/// [`SqliteDatabaseBuilder::open`].
pub async fn open(url: &str) -> Result<agcore_memory::Storage, agcore_memory::MemoryError> {
    use agcore_memory::MemoryError;
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    if path.is_empty() {
        return Err(MemoryError::InvalidInput(format!(
            "`{url}` names no SQLite file (use sqlite:///absolute/path.db, sqlite://relative.db or sqlite::memory:)"
        )));
    }
    if path.contains('?') {
        return Err(MemoryError::InvalidInput(format!(
            "`{url}`: SQLite URLs take no query parameters"
        )));
    }
    let db = if path == ":memory:" {
        SqliteDatabase::open_in_memory().await?
    } else {
        if let Some(parent) = std::path::Path::new(path)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            tokio::fs::create_dir_all(parent).await.map_err(|e| {
                MemoryError::Storage(format!("sqlite: cannot create {}: {e}", parent.display()))
            })?;
        }
        SqliteDatabase::open(path).await?
    };
    Ok(db.storage())
}
