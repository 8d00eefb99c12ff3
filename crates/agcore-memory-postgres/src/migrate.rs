//! The schema of agcore's tables and its migrations, one version per
//! component in `agcore_schema (component, version, migrated_at)`, applied on
//! open inside one transaction that holds an advisory lock, so processes
//! opening a database at once migrate it once. After the schema steps, in
//! the same transaction, components indexed with another analyzer are
//! re-indexed ([`crate::reindex`]) and the store's context fields are
//! derived when they were derived with other settings (or not at all:
//! databases upgraded from version 2) ([`crate::store::context::sync`]).

use agcore_memory::retriever::ContextField;
use agcore_memory::schema::{SchemaVersions, run_steps};
use deadpool_postgres::{Client, Transaction};

use crate::error::{PostgresError, Result};

/// One component's migrations: `steps[i]` takes it from version `i` to `i + 1`.
pub(crate) type Component = agcore_memory::schema::Component<&'static str>;

const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS agcore_schema (
    component TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    migrated_at TIMESTAMPTZ NOT NULL DEFAULT now()
)";

/// Migrates each of `components` (in order) to its latest version, the
/// store's context fields derived with `context`.
///
/// # Errors
/// [`crate::PostgresError`] from the server; a storage error when a component
/// is newer than this library (nothing is changed then).
pub(crate) async fn migrate(
    client: &mut Client,
    components: &[&Component],
    context: Option<&ContextField>,
) -> Result<()> {
    let tx = client.transaction().await?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('agcore_schema:' || current_schema()))",
        &[],
    )
    .await?;
    tx.batch_execute(VERSION_TABLE).await?;
    run_steps(&mut Versions(&tx), components).await?;
    crate::reindex::sync(&tx).await?;
    crate::store::context::sync(&tx, context).await?;
    tx.commit().await?;
    Ok(())
}

/// `agcore_schema` read and written in the migration's transaction.
struct Versions<'a, 't>(&'a Transaction<'t>);

impl SchemaVersions for Versions<'_, '_> {
    type Step = &'static str;
    type Error = PostgresError;
    const DATABASE: &'static str = "postgres";

    async fn version(&mut self, component: &'static str) -> Result<i64> {
        let sql = "SELECT version FROM agcore_schema WHERE component = $1";
        match self.0.query_opt(sql, &[&component]).await? {
            Some(row) => Ok(row.try_get(0)?),
            None => Ok(0),
        }
    }

    async fn run(&mut self, step: &'static &'static str) -> Result<()> {
        Ok(self.0.batch_execute(step).await?)
    }

    async fn record(&mut self, component: &'static str, version: i64) -> Result<()> {
        self.0
            .execute(
                "INSERT INTO agcore_schema (component, version) VALUES ($1, $2)
                 ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()",
                &[&component, &version],
            )
            .await?;
        Ok(())
    }
}

/// `(component, version)` rows of `agcore_schema`, by component.
///
/// # Errors
/// [`crate::PostgresError`] from the server.
pub(crate) async fn versions(client: &Client) -> Result<Vec<(String, i64)>> {
    let rows = client
        .query(
            "SELECT component, version FROM agcore_schema ORDER BY component",
            &[],
        )
        .await?;
    rows.iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect()
}
