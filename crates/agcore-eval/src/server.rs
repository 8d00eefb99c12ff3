//! Evaluating on a database server (`agcore eval --store URL`): one store per
//! namespace, each apart from the others and from what the server already
//! holds — a PostgreSQL schema, a MySQL / MariaDB database, a Redis key
//! prefix — named `agcore_eval_{process id}_{n}`, with the backend's default
//! settings (context field included; pools of `POOL_SIZE` (4) connections),
//! and removed when the evaluation ends.

use agcore::memory::Storage;
use agcore::memory::mysql::MysqlDatabase;
use agcore::memory::postgres::PostgresDatabase;
use agcore::memory::redis::RedisStore;
use mysql_async::prelude::Queryable;

use crate::EvalError;

/// Connections per namespace's store at most: the evaluation searches one
/// store at a time, and a LoCoMo file holds ten conversations (a server's
/// default limit is about a hundred connections).
const POOL_SIZE: usize = 4;

/// A database server's kind, from its URL's scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerKind {
    /// `postgres://` or `postgresql://`.
    Postgres,
    /// `mysql://` or `mariadb://`.
    Mysql,
    /// `redis://` or `rediss://`.
    Redis,
}

impl ServerKind {
    /// The kind of `url`, `None` for other schemes.
    pub fn of(url: &str) -> Option<Self> {
        let (scheme, _) = url.split_once("://")?;
        match scheme.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => Some(Self::Postgres),
            "mysql" | "mariadb" => Some(Self::Mysql),
            "redis" | "rediss" => Some(Self::Redis),
            _ => None,
        }
    }

    /// Its name in reports.
    pub fn label(self) -> &'static str {
        match self {
            Self::Postgres => "postgres",
            Self::Mysql => "mysql",
            Self::Redis => "redis",
        }
    }
}

/// What one namespace's store was made in, to remove it afterwards.
enum Made {
    Postgres(PostgresDatabase, String),
    Mysql(MysqlDatabase, String),
    Redis(String),
}

/// The stores made on one server.
pub struct ServerStores {
    kind: ServerKind,
    url: String,
    made: Vec<Made>,
}

fn failed(url: &str, what: &str, err: impl std::fmt::Display) -> EvalError {
    EvalError::Config(format!(
        "cannot {what} on {}: {err}",
        agcore::memory::storage::redact_url(url)
    ))
}

/// `url` with its database (the path) replaced by `name`, query kept.
fn with_database(url: &str, name: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    // The host part ends at the first `/` or `?` after any user info.
    let host_start = rest.rfind('@').map_or(0, |at| at + 1);
    let host_end = rest[host_start..]
        .find(['/', '?'])
        .map_or(rest.len(), |i| host_start + i);
    let query = rest[host_end..]
        .find('?')
        .map_or("", |i| &rest[host_end + i..]);
    format!("{scheme}://{}/{name}{query}", &rest[..host_end])
}

impl ServerStores {
    /// Stores on the server at `url`, none made yet.
    pub fn new(kind: ServerKind, url: &str) -> Self {
        Self {
            kind,
            url: url.to_owned(),
            made: Vec::new(),
        }
    }

    /// Makes the empty store of namespace `n`, with its vector storage.
    ///
    /// # Errors
    /// [`EvalError::Config`] when the server refuses (unreachable, no right
    /// to create a schema or database); store errors.
    pub async fn open(&mut self, n: usize) -> Result<Storage, EvalError> {
        let name = format!("agcore_eval_{}_{n}", std::process::id());
        let url = self.url.clone();
        Ok(match self.kind {
            ServerKind::Postgres => {
                let sep = if url.contains('?') { '&' } else { '?' };
                let db = PostgresDatabase::builder()
                    .pool_size(POOL_SIZE)
                    .open(&format!("{url}{sep}schema={name}"))
                    .await?;
                let storage = db.storage();
                self.made.push(Made::Postgres(db, name));
                storage
            }
            ServerKind::Mysql => {
                let admin = match url.split_once("://") {
                    Some((_, rest)) => format!("mysql://{rest}"),
                    None => url.clone(),
                };
                let opts = mysql_async::Opts::from_url(&admin)
                    .map_err(|e| failed(&url, "read the URL", e))?;
                let pool = mysql_async::Pool::new(opts);
                let created = async {
                    let mut conn = pool.get_conn().await?;
                    conn.query_drop(format!("CREATE DATABASE {name}")).await?;
                    drop(conn);
                    pool.disconnect().await
                }
                .await;
                created.map_err(|e| failed(&url, &format!("create database {name}"), e))?;
                let db = MysqlDatabase::builder()
                    .pool_size(POOL_SIZE)
                    .open(&with_database(&url, &name))
                    .await?;
                let storage = db.storage();
                self.made.push(Made::Mysql(db, name));
                storage
            }
            ServerKind::Redis => {
                let prefix = format!("{name}:");
                let store = RedisStore::builder().prefix(&prefix).open(&url).await?;
                self.made.push(Made::Redis(prefix.clone()));
                store.storage(prefix).await
            }
        })
    }

    /// Removes every store made: schemas and databases dropped, keys under
    /// the prefixes deleted. Each is tried; the first failure is returned.
    ///
    /// # Errors
    /// [`EvalError::Config`] naming what could not be removed.
    pub async fn remove(self) -> Result<(), EvalError> {
        let mut first = None;
        let url = self.url;
        for made in self.made {
            let result = match made {
                Made::Postgres(db, schema) => async {
                    let client = db.pool().get().await.map_err(|e| e.to_string())?;
                    client
                        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
                        .await
                        .map_err(|e| e.to_string())
                }
                .await
                .map_err(|e| failed(&url, "drop the evaluation schema", e)),
                Made::Mysql(db, name) => async {
                    let mut conn = db.pool().get_conn().await?;
                    conn.query_drop(format!("DROP DATABASE {name}")).await?;
                    drop(conn);
                    db.pool().clone().disconnect().await
                }
                .await
                .map_err(|e| failed(&url, "drop the evaluation database", e)),
                Made::Redis(prefix) => drop_keys(&url, &prefix)
                    .await
                    .map_err(|e| failed(&url, "delete the evaluation keys", e)),
            };
            if let Err(err) = result {
                tracing::warn!(%err, "evaluation store left behind");
                first.get_or_insert(err);
            }
        }
        first.map_or(Ok(()), Err)
    }
}

/// Deletes every key under `prefix` (which holds no glob character).
async fn drop_keys(url: &str, prefix: &str) -> Result<(), redis::RedisError> {
    let client = redis::Client::open(url)?;
    let mut conn = client.get_multiplexed_async_connection().await?;
    let mut cursor: u64 = 0;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(format!("{prefix}*"))
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut conn)
            .await?;
        if !keys.is_empty() {
            redis::cmd("UNLINK")
                .arg(&keys)
                .query_async::<()>(&mut conn)
                .await?;
        }
        if next == 0 {
            return Ok(());
        }
        cursor = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_their_server() {
        assert_eq!(
            ServerKind::of("postgres://u@h/db"),
            Some(ServerKind::Postgres)
        );
        assert_eq!(ServerKind::of("MariaDB://u@h/db"), Some(ServerKind::Mysql));
        assert_eq!(ServerKind::of("redis://h:6379/0"), Some(ServerKind::Redis));
        assert_eq!(ServerKind::of("sqlite:///x.db"), None);
        assert_eq!(ServerKind::of("memory"), None);
    }

    #[test]
    fn store_arguments_parse() {
        use crate::StoreKind;
        assert_eq!(StoreKind::parse("memory"), Ok(StoreKind::Memory));
        assert_eq!(StoreKind::parse(" sqlite "), Ok(StoreKind::Sqlite));
        assert_eq!(
            StoreKind::parse("redis://h/0"),
            Ok(StoreKind::Server(ServerKind::Redis, "redis://h/0".into()))
        );
        let err = StoreKind::parse("ftp://h").unwrap_err();
        assert!(err.contains("postgres://"), "{err}");
    }

    #[test]
    fn the_database_of_a_url_is_replaced() {
        assert_eq!(
            with_database("mysql://u:p@h:3306/agcore", "e"),
            "mysql://u:p@h:3306/e"
        );
        assert_eq!(
            with_database("mysql://u:p@h:3306/agcore?pool_min=1", "e"),
            "mysql://u:p@h:3306/e?pool_min=1"
        );
        assert_eq!(with_database("mysql://h", "e"), "mysql://h/e");
        assert_eq!(with_database("mysql://h?x=1", "e"), "mysql://h/e?x=1");
        assert_eq!(
            with_database("mysql://u:p/q@h/db", "e"),
            "mysql://u:p/q@h/e"
        );
    }
}
