//! [`MysqlDatabaseBuilder`]: the options of a [`MysqlDatabase`] (pool size,
//! acquire timeout, eviction, context field) and opening one from a URL.

use std::time::Duration;

use agcore_memory::MemoryError;
use agcore_memory::server::{ServerOptions, not_a_url};
use agcore_memory::server_error::naming_server;
use agcore_memory::storage::redact_url;
use mysql_async::{Opts, OptsBuilder, Pool, PoolConstraints};

use crate::MysqlDatabase;

/// Options of [`MysqlDatabase`]: pool size, acquire timeout, eviction,
/// context field.
#[derive(Debug, Clone)]
#[must_use]
pub struct MysqlDatabaseBuilder {
    options: ServerOptions,
    min_pruned_rows: u64,
}

impl Default for MysqlDatabaseBuilder {
    fn default() -> Self {
        Self {
            options: ServerOptions::new(Duration::from_secs(10)),
            min_pruned_rows: agcore_search::pruning::MIN_SAVED_ROWS,
        }
    }
}

/// Statements run on every new connection: utf8mb4 on the wire, strict SQL
/// mode (a value that does not fit is an error, never silently cut) and
/// `READ COMMITTED` (no gap locks: concurrent writers of distinct ids never
/// deadlock on each other's inserts).
const SETUP: [&str; 3] = [
    "SET NAMES utf8mb4 COLLATE utf8mb4_bin",
    "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,ONLY_FULL_GROUP_BY'",
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
];

impl MysqlDatabaseBuilder {
    agcore_memory::server_builder_methods!(options: pool_size, eviction, context_field);

    /// How long a call may wait for a connection, connecting included,
    /// before it fails with [`MemoryError::Unavailable`] (default 10 s).
    pub fn acquire_timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// The fewest `FULLTEXT` matches a search must leave out to search in
    /// rounds (default 1,000). Searches match the rarest query words first
    /// and leave out words that cannot change the top results (MaxScore,
    /// see the crate README); each round is a statement, and InnoDB takes
    /// about 3 µs per matching row against 1–2 ms per statement, so when
    /// the words a round would leave out match fewer documents than this
    /// together, every word is matched in one statement. 0 searches in
    /// rounds whenever the bounds allow. The results are the same for any
    /// value; only the number and cost of statements change.
    pub fn min_pruned_rows(mut self, rows: u64) -> Self {
        self.min_pruned_rows = rows;
        self
    }

    /// Connects to `url` (`mysql://user:password@host:port/database`; the
    /// database must exist and be named; `mariadb://` is accepted too) and
    /// migrates the schema. mysql_async's URL parameters apply (see
    /// [`mysql_async::Opts`]).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a malformed URL or one without a
    /// database; [`MemoryError::Unavailable`] when the server cannot be
    /// reached within the acquire timeout; [`MemoryError::Storage`] when the
    /// schema cannot be migrated or is newer than this library. Errors never
    /// show the password.
    pub async fn open(self, url: &str) -> Result<MysqlDatabase, MemoryError> {
        let (opts, shown) = parse_url(url)?;
        // mysql_async closes a returned connection when more than `min` are
        // idle, so `min` is the pool size: connections are made on demand
        // and then kept (a new one per call costs a connect and a login).
        let size = self.options.pool_size;
        let constraints = PoolConstraints::new(size, size)
            .ok_or_else(|| MemoryError::InvalidInput("bad pool size".into()))?;
        // Pooled connections are not reset between uses (a reset costs a
        // round trip and drops the prepared statements); agcore leaves no
        // session state behind, and an unfinished transaction is rolled back
        // when its connection returns to the pool. `setup` runs on every new
        // connection, and again after a reset should one happen.
        let pool_opts = opts
            .pool_opts()
            .clone()
            .with_constraints(constraints)
            .with_reset_connection(false);
        let opts = OptsBuilder::from_opts(opts)
            .setup(SETUP.to_vec())
            .pool_opts(pool_opts);
        let pool = Pool::new(opts);
        MysqlDatabase::start(pool, shown.clone(), self.options, self.min_pruned_rows)
            .await
            .map_err(|e| naming_server(e, &shown))
    }
}

/// The connection options of `url` (`mysql://…` or `mariadb://…`, naming a
/// database) and the URL as shown in messages (password redacted).
///
/// # Errors
/// [`MemoryError::InvalidInput`] for a malformed URL or one without a database.
pub(crate) fn parse_url(url: &str) -> Result<(Opts, String), MemoryError> {
    let shown = redact_url(url);
    let url = match url.strip_prefix("mariadb://") {
        Some(rest) => format!("mysql://{rest}"),
        None => url.to_owned(),
    };
    let form = "mysql://user:password@host:port/database";
    let opts = Opts::from_url(&url).map_err(|_| not_a_url(&shown, "MySQL", form))?;
    if opts.db_name().is_none_or(str::is_empty) {
        return Err(MemoryError::InvalidInput(format!(
            "`{shown}` names no database ({form})"
        )));
    }
    Ok((opts, shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn malformed_urls_are_invalid_input_without_the_password() {
        for url in [
            "mysql://u:secret@host:notaport/db",
            "mysql://u:secret@127.0.0.1:3306",
            "mysql://u:secret@127.0.0.1:3306/",
        ] {
            let err = MysqlDatabase::open(url).await.unwrap_err();
            assert!(matches!(err, MemoryError::InvalidInput(_)), "{url}: {err}");
            assert!(!err.to_string().contains("secret"), "{err}");
        }
    }

    #[tokio::test]
    async fn an_unreachable_server_is_unavailable_quickly() {
        // Port 1 on loopback: nothing listens there.
        let err = MysqlDatabase::builder()
            .acquire_timeout(Duration::from_secs(2))
            .open("mysql://u:secret@127.0.0.1:1/db")
            .await
            .unwrap_err();
        assert!(matches!(err, MemoryError::Unavailable(_)), "{err}");
        assert!(!err.to_string().contains("secret"), "{err}");
    }
}
