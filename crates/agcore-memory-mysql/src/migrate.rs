//! The schema of agcore's tables and its migrations, one version per
//! component in `agcore_schema (component, version, migrated_at)`, applied on
//! open under a named lock (`GET_LOCK`), so processes opening a database at
//! once migrate it once. MySQL commits each DDL statement by itself, so every
//! statement of a step is written to be run again (`IF NOT EXISTS`) should a
//! step be cut short. After the schema steps, still under the lock,
//! components indexed with another analyzer are re-indexed
//! ([`crate::reindex`]), long-term memory's document frequencies are
//! counted when they were not counted for this analyzer, and the store's
//! context fields are derived again when their settings changed.

use mysql_async::Conn;
use mysql_async::prelude::Queryable;

use agcore_memory::schema::{SchemaVersions, run_steps};

use crate::error::{MysqlError, Result, storage};

/// One component's migrations: `steps[i]` (its statements in order) takes it
/// from version `i` to `i + 1`.
pub(crate) type Component = agcore_memory::schema::Component<&'static [&'static str]>;

const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS agcore_schema (
    component VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin PRIMARY KEY,
    version BIGINT NOT NULL,
    migrated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB";

/// How long an opener waits for another process's migration or setup, in
/// seconds.
const LOCK_WAIT_SECS: i64 = 60;

/// Migrates each of `components` (in order) to its latest version, then
/// runs `after` (re-indexing and derived data), all under the lock.
///
/// # Errors
/// [`crate::MysqlError`] from the server; a storage error when a component
/// is newer than this library (nothing is changed then) or the migration
/// lock could not be had.
pub(crate) async fn migrate(
    conn: &mut Conn,
    components: &[&Component],
    after: impl AsyncFnOnce(&mut Conn) -> Result<()>,
) -> Result<()> {
    let held = "mysql: another process held the migration lock for too long";
    locked(conn, "agcore_schema", held, async |conn: &mut Conn| {
        apply(conn, components).await?;
        after(conn).await
    })
    .await
}

/// Runs `f` holding the named lock `{name}:{database}` (`GET_LOCK`, waiting
/// [`LOCK_WAIT_SECS`] at most), released after it whatever its outcome.
///
/// # Errors
/// [`crate::MysqlError`] from the server; a storage error `held` when the
/// lock could not be had in time (`f` does not run then); `f`'s error.
pub(crate) async fn locked<T>(
    conn: &mut Conn,
    name: &str,
    held: &str,
    f: impl AsyncFnOnce(&mut Conn) -> Result<T>,
) -> Result<T> {
    let got: Option<Option<i64>> = conn
        .exec_first(
            format!("SELECT GET_LOCK(CONCAT('{name}:', DATABASE()), ?)"),
            (LOCK_WAIT_SECS,),
        )
        .await?;
    if got.flatten() != Some(1) {
        return Err(storage(held));
    }
    let result = f(conn).await;
    let released = conn
        .query_drop(format!("DO RELEASE_LOCK(CONCAT('{name}:', DATABASE()))"))
        .await;
    let value = result?;
    released?;
    Ok(value)
}

/// Creates the version table and runs each component's missing steps
/// ([`run_steps`]).
async fn apply(conn: &mut Conn, components: &[&Component]) -> Result<()> {
    conn.query_drop(VERSION_TABLE).await?;
    run_steps(&mut Versions(conn), components).await
}

/// `agcore_schema` read and written on a connection holding the lock.
struct Versions<'a>(&'a mut Conn);

impl SchemaVersions for Versions<'_> {
    type Step = &'static [&'static str];
    type Error = MysqlError;
    const DATABASE: &'static str = "mysql";

    async fn version(&mut self, component: &'static str) -> Result<i64> {
        let sql = "SELECT version FROM agcore_schema WHERE component = ?";
        Ok(self.0.exec_first(sql, (component,)).await?.unwrap_or(0))
    }

    async fn run(&mut self, step: &'static Self::Step) -> Result<()> {
        for statement in *step {
            self.0.query_drop(*statement).await?;
        }
        Ok(())
    }

    async fn record(&mut self, component: &'static str, version: i64) -> Result<()> {
        self.0
            .exec_drop(
                "INSERT INTO agcore_schema (component, version) VALUES (?, ?)
                 ON DUPLICATE KEY UPDATE version = VALUES(version), migrated_at = CURRENT_TIMESTAMP(6)",
                (component, version),
            )
            .await?;
        Ok(())
    }
}

/// `(component, version)` rows of `agcore_schema`, by component.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn versions(conn: &mut Conn) -> Result<Vec<(String, i64)>> {
    Ok(conn
        .query("SELECT component, version FROM agcore_schema ORDER BY component")
        .await?)
}
