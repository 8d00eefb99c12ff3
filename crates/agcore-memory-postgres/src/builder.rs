//! [`PostgresDatabaseBuilder`]: the options of a [`PostgresDatabase`] (pool
//! size, timeouts, schema, eviction, context field) and opening one from a
//! URL.

use std::time::Duration;

use agcore_memory::retriever::ContextField;
use agcore_memory::server_error::naming_server;
use agcore_memory::storage::redact_url;
use agcore_memory::{EvictionConfig, MemoryError};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use crate::PostgresDatabase;
use crate::error::{PostgresError, storage};

/// Options of [`PostgresDatabase`]: pool size, timeouts, schema, eviction,
/// the store's context field.
#[derive(Debug, Clone)]
#[must_use]
pub struct PostgresDatabaseBuilder {
    pool_size: usize,
    connect_timeout: Duration,
    wait_timeout: Duration,
    schema: Option<String>,
    eviction: EvictionConfig,
    context: Option<ContextField>,
}

impl Default for PostgresDatabaseBuilder {
    fn default() -> Self {
        Self {
            pool_size: 16,
            connect_timeout: Duration::from_secs(5),
            wait_timeout: Duration::from_secs(10),
            schema: None,
            eviction: EvictionConfig::none(),
            context: Some(ContextField::default()),
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
    /// Most pooled connections (default 16, at least 1).
    pub fn pool_size(mut self, size: usize) -> Self {
        self.pool_size = size.max(1);
        self
    }

    /// How long connecting may take before the call fails with
    /// [`MemoryError::Unavailable`] (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long a call waits for a free pooled connection (default 10 s).
    pub fn wait_timeout(mut self, timeout: Duration) -> Self {
        self.wait_timeout = timeout;
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

    /// The store's eviction, applied after every `check_interval` saved items
    /// (default none): TTL drops items created at or before now − ttl;
    /// capacity drops the oldest by `created_at`, then id.
    pub fn eviction(mut self, eviction: EvictionConfig) -> Self {
        self.eviction = eviction;
        self
    }

    /// The store's context field of neighbouring items (default
    /// [`ContextField::default`]: metadata `session`, window 1, weight 0.5;
    /// `None`: plain BM25), as
    /// [`InMemoryStore::with_context_field`](agcore_memory::InMemoryStore::with_context_field)
    /// and `SqliteStore`'s `context_field`: the same items get the same hits
    /// and scores. Opening a database whose fields were derived with another
    /// sequence key or window derives them again (in the migration's
    /// transaction, the store's tables locked against writers); every
    /// process sharing a database should use the same setting.
    pub fn context_field(mut self, context: Option<ContextField>) -> Self {
        self.context = context;
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
        let (url, schema) = split_schema(url);
        if let Some(schema) = schema {
            self.schema = Some(schema);
        }
        let mut config: tokio_postgres::Config = url.parse().map_err(|_| {
            MemoryError::InvalidInput(format!(
                "`{shown}` is not a PostgreSQL URL (postgres://user:password@host:port/database)"
            ))
        })?;
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
            .max_size(self.pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(self.wait_timeout))
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
        PostgresDatabase::start(pool, shown.clone(), self.eviction, self.context)
            .await
            .map_err(|e| match e {
                MemoryError::Unavailable(m) => MemoryError::Unavailable(format!("{shown}: {m}")),
                other => other,
            })
    }
}

/// Takes agcore's own `schema=NAME` parameter out of a URL's query string
/// (the other parameters are libpq's).
fn split_schema(url: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_owned(), None);
    };
    let mut schema = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.strip_prefix("schema=") {
            Some(name) => {
                schema = Some(name.to_owned());
                false
            }
            None => !pair.is_empty(),
        })
        .collect();
    if rest.is_empty() {
        (base.to_owned(), schema)
    } else {
        (format!("{base}?{}", rest.join("&")), schema)
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
    fn the_schema_parameter_is_taken_out_of_the_url() {
        assert_eq!(
            split_schema("postgres://h/db?schema=mem&connect_timeout=3"),
            (
                "postgres://h/db?connect_timeout=3".to_owned(),
                Some("mem".to_owned())
            )
        );
        assert_eq!(
            split_schema("postgres://h/db?schema=x"),
            ("postgres://h/db".to_owned(), Some("x".to_owned()))
        );
        assert_eq!(
            split_schema("postgres://h/db"),
            ("postgres://h/db".to_owned(), None)
        );
    }

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
