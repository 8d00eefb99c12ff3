//! The database a campaign runs against: a SQLite file or a fresh schema of
//! a PostgreSQL server, opened through `agcore::memory::open` as an
//! application would.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agcore::memory::long_term::LongTermMemory;
use agcore::memory::{MemoryError, Storage};

use crate::error::{HarnessError, ensure};

/// Where the data lives.
#[derive(Debug, Clone)]
pub enum Target {
    /// A SQLite database file (WAL mode, as agcore opens it).
    Sqlite(PathBuf),
    /// A PostgreSQL URL including `schema=…`.
    Postgres(String),
}

impl Target {
    /// `postgres://…` URLs get a fresh schema named after `tag` and this
    /// process; anything else is a SQLite file path.
    pub fn fresh(url_or_path: &str, tag: &str) -> Self {
        if url_or_path.starts_with("postgres://") || url_or_path.starts_with("postgresql://") {
            let schema = format!(
                "rel_{tag}_{}_{}",
                std::process::id(),
                chrono::Utc::now().timestamp_micros()
            );
            let sep = if url_or_path.contains('?') { '&' } else { '?' };
            Self::Postgres(format!("{url_or_path}{sep}schema={schema}"))
        } else {
            Self::Sqlite(PathBuf::from(url_or_path))
        }
    }

    /// Reads back what [`Target::url`] printed.
    pub fn parse(url: &str) -> Self {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Self::Postgres(url.to_owned())
        } else {
            Self::Sqlite(PathBuf::from(url))
        }
    }

    /// The URL or path `agcore::memory::open` takes.
    pub fn url(&self) -> String {
        match self {
            Self::Sqlite(path) => path.display().to_string(),
            Self::Postgres(url) => url.clone(),
        }
    }

    /// `sqlite` or `postgres`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }

    /// Opens the storage.
    ///
    /// # Errors
    /// The backend's errors.
    pub async fn open(&self) -> Result<Storage, MemoryError> {
        agcore::memory::open(&self.url()).await
    }

    /// Opens the long-term memory.
    ///
    /// # Errors
    /// The backend's errors.
    pub async fn long_term(&self) -> Result<LongTermMemory, MemoryError> {
        self.open().await?.long_term()
    }

    /// SQLite: `PRAGMA integrity_check` and the full-text index check must
    /// report nothing. PostgreSQL keeps its own consistency (WAL, MVCC); the
    /// campaigns check its data instead.
    ///
    /// # Errors
    /// [`HarnessError::Invariant`] listing the problems found.
    pub async fn integrity_check(&self) -> Result<(), HarnessError> {
        if let Self::Sqlite(path) = self {
            let problems = sqlite_integrity(path).await?;
            ensure(problems.is_empty(), || {
                format!("{}: integrity check: {problems:?}", path.display())
            })?;
        }
        Ok(())
    }
}

async fn sqlite_integrity(path: &Path) -> Result<Vec<String>, MemoryError> {
    let store = agcore::memory::SqliteStore::open(path).await?;
    store.integrity_check().await
}

impl Target {
    /// Drops what [`Target::fresh`] made on a PostgreSQL server (its
    /// schema); a SQLite file is left to the caller.
    ///
    /// # Errors
    /// The server's errors.
    pub async fn drop_fresh(&self) -> Result<(), HarnessError> {
        let Self::Postgres(url) = self else {
            return Ok(());
        };
        let Some(schema) = url
            .rsplit("schema=")
            .next()
            .filter(|s| s.starts_with("rel_"))
        else {
            return Ok(());
        };
        let (base, _) = url.split_at(url.len() - schema.len() - "schema=".len() - 1);
        let db = agcore::memory::postgres::PostgresDatabase::builder()
            .pool_size(1)
            .open(base)
            .await?;
        let client = db
            .pool()
            .get()
            .await
            .map_err(|e| HarnessError::Child(format!("postgres pool: {e}")))?;
        client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
            .await
            .map_err(|e| HarnessError::Child(format!("dropping schema {schema}: {e}")))?;
        Ok(())
    }
}

/// Runs `op` again while it fails with a recoverable error (a lock held past
/// the busy timeout, a pool that waited too long), as an application would,
/// up to `attempts` times; returns the result and the number of retries.
///
/// # Errors
/// The last error, or the first one that is not recoverable.
pub async fn with_retries<T, F, Fut>(attempts: usize, mut op: F) -> Result<(T, usize), MemoryError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, MemoryError>>,
{
    let mut retries = 0;
    loop {
        match op().await {
            Ok(value) => return Ok((value, retries)),
            Err(err) if err.is_recoverable() && retries + 1 < attempts => {
                retries += 1;
                tokio::time::sleep(Duration::from_millis(20 * retries.min(10) as u64)).await;
            }
            Err(err) => return Err(err),
        }
    }
}
