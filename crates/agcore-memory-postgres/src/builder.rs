//! [`PostgresDatabaseBuilder`]: the options of a [`PostgresDatabase`] (pool
//! size, timeouts, schema, eviction, context field) and opening one from a
//! URL.

use std::time::Duration;

use agcore_memory::MemoryError;
use agcore_memory::server::{ServerOptions, not_a_url, take_url_param};
use agcore_memory::server_error::naming_server;
use agcore_memory::storage::redact_url;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use crate::PostgresDatabase;
use crate::error::{PostgresError, storage};

/// Options of [`PostgresDatabase`]: pool size, timeouts, schema, eviction,
/// the store's context field.
#[derive(Debug, Clone)]
#[must_use]
pub struct PostgresDatabaseBuilder {
    options: ServerOptions,
    connect_timeout: Duration,
    schema: Option<String>,
}

impl Default for PostgresDatabaseBuilder {
    fn default() -> Self {
        Self {
            options: ServerOptions::new(Duration::from_secs(10)),
            connect_timeout: Duration::from_secs(5),
            schema: None,
        }
    }
}

/// Whether `name` is a plain lowercase SQL identifier (no quoting needed).
fn valid_schema(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 63
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

impl PostgresDatabaseBuilder {
    agcore_memory::server_builder_methods!(options: pool_size, eviction, context_field);

    /// How long connecting may take before the call fails with
    /// [`MemoryError::Unavailable`] (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long a call waits for a free pooled connection (default 10 s).
    pub fn wait_timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// Keeps agcore's tables in this schema (created if missing; a lowercase
    /// identifier `[a-z_][a-z0-9_]*`, at most 63 bytes), so several stores
    /// share one database. Default: the connection's `search_path` (usually
    /// `public`).
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = Some(schema.into());
        self
    }

    /// Connects to `url` and migrates the schema. Besides libpq's URL
    /// parameters, `?schema=NAME` sets [`schema`](Self::schema).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a malformed URL or schema name;
    /// [`MemoryError::Unavailable`] when the server cannot be reached within
    /// the connect timeout; [`MemoryError::Storage`] when the schema cannot be
    /// migrated or is newer than this library. Errors never show the password.
    pub async fn open(mut self, url: &str) -> Result<PostgresDatabase, MemoryError> {
        let shown = redact_url(url);
        let (url, schema) = take_url_param(url, "schema");
        if let Some(schema) = schema {
            self.schema = Some(schema);
        }
        let form = "postgres://user:password@host:port/database";
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|_| not_a_url(&shown, "PostgreSQL", form))?;
        config.connect_timeout(self.connect_timeout);
        if let Some(schema) = &self.schema {
            if !valid_schema(schema) {
                return Err(MemoryError::InvalidInput(format!(
                    "schema `{schema}` must match [a-z_][a-z0-9_]* (at most 63 bytes)"
                )));
            }
            config.options(format!("-c search_path={schema}"));
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(self.options.pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(self.options.timeout))
            .create_timeout(Some(self.connect_timeout))
            .build()
            .map_err(|e| storage(format!("postgres: cannot build the pool: {e}")))?;
        if let Some(schema) = &self.schema {
            let mut client = pool
                .get()
                .await
                .map_err(|e| with_location(e.into(), &shown))?;
            create_schema(&mut client, schema)
                .await
                .map_err(|e| with_location(e, &shown))?;
        }
        PostgresDatabase::start(pool, shown.clone(), self.options)
            .await
            .map_err(|e| match e {
                MemoryError::Unavailable(m) => MemoryError::Unavailable(format!("{shown}: {m}")),
                other => other,
            })
    }
}

/// `CREATE SCHEMA IF NOT EXISTS` under a transaction-scoped advisory lock on the
/// name: two sessions creating the same schema at once would otherwise race on
/// PostgreSQL's catalog and one of them fail with a unique violation (23505).
async fn create_schema(
    client: &mut deadpool_postgres::Object,
    schema: &str,
) -> Result<(), PostgresError> {
    let tx = client.transaction().await?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('agcore_create_schema:' || $1))",
        &[&schema],
    )
    .await?;
    tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
        .await?;
    tx.commit().await?;
    Ok(())
}

fn with_location(err: PostgresError, shown: &str) -> MemoryError {
    naming_server(err.into(), shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        assert!(valid_schema("agcore_test_1"));
        assert!(valid_schema("_x"));
        for bad in ["", "1abc", "Upper", "a-b", "a;drop", "a b", &"x".repeat(64)] {
            assert!(!valid_schema(bad), "{bad}");
        }
    }

    #[tokio::test]
    async fn malformed_urls_are_invalid_input_without_the_password() {
        let err = PostgresDatabase::open("postgres://u:secret@host:notaport/db")
            .await
            .unwrap_err();
        assert!(matches!(err, MemoryError::InvalidInput(_)), "{err}");
        assert!(!err.to_string().contains("secret"), "{err}");
    }

    #[tokio::test]
    async fn an_unreachable_server_is_unavailable_quickly() {
        // Port 1 on loopback: nothing listens there.
        let err = PostgresDatabase::builder()
            .connect_timeout(Duration::from_secs(2))
            .open("postgres://u:secret@127.0.0.1:1/db")
            .await
            .unwrap_err();
        assert!(matches!(err, MemoryError::Unavailable(_)), "{err}");
        assert!(!err.to_string().contains("secret"), "{err}");
    }
}
