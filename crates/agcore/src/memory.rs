//! Memory: everything of [`agcore_memory`] (stores, long-term memory, the
//! knowledge wiki, retrieval) plus the database backends enabled by features,
//! and [`open`], which opens any of them from a URL.
//!
//! | URL | backend | feature |
//! |---|---|---|
//! | `sqlite:///abs/path.db`, `sqlite://rel/path.db`, a bare path | [`sqlite`] | `sqlite` (default) |
//! | `postgres://user:pass@host:5432/db` (or `postgresql://`) | `memory::postgres` | `postgres` |
//! | `mysql://user:pass@host:3306/db` (or `mariadb://`) | `memory::mysql` | `mysql` |
//! | `redis://host:6379/0` (store only, no long-term memory) | `memory::redis` | `redis` |
//! | `json-file:///abs/path.json`, `json-file://rel/path.json` (store only) | `JsonFileStore` | `json-file` |
//! | `memory://` | in-process, nothing persists | `memory` |

pub use agcore_memory::*;

#[cfg(feature = "mysql")]
#[cfg_attr(docsrs, doc(cfg(feature = "mysql")))]
pub use agcore_memory_mysql as mysql;
#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub use agcore_memory_postgres as postgres;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use agcore_memory_redis as redis;
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use agcore_memory_sqlite as sqlite;
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use agcore_memory_sqlite::{SqliteLongTerm, SqliteStore};

/// One scheme family: the schemes, the backend, the facade feature that
/// enables it and whether it is compiled in.
struct Scheme {
    schemes: &'static [&'static str],
    backend: &'static str,
    feature: &'static str,
    enabled: bool,
}

const SCHEMES: &[Scheme] = &[
    Scheme {
        schemes: &["sqlite"],
        backend: "SQLite",
        feature: "sqlite",
        enabled: cfg!(feature = "sqlite"),
    },
    Scheme {
        schemes: &["postgres", "postgresql"],
        backend: "PostgreSQL",
        feature: "postgres",
        enabled: cfg!(feature = "postgres"),
    },
    Scheme {
        schemes: &["mysql", "mariadb"],
        backend: "MySQL / MariaDB",
        feature: "mysql",
        enabled: cfg!(feature = "mysql"),
    },
    Scheme {
        schemes: &["redis"],
        backend: "Redis, no long-term memory",
        feature: "redis",
        enabled: cfg!(feature = "redis"),
    },
    Scheme {
        schemes: &["json-file"],
        backend: "one JSON file, no long-term memory",
        feature: "json-file",
        enabled: cfg!(feature = "json-file"),
    },
    Scheme {
        schemes: &["memory"],
        backend: "in-process memory",
        feature: "memory",
        enabled: true,
    },
];

/// The text of an unsupported-URL error: what is supported and which feature
/// enables each.
fn supported() -> String {
    let list: Vec<String> = SCHEMES
        .iter()
        .map(|s| {
            let schemes = s
                .schemes
                .iter()
                .map(|x| format!("{x}://"))
                .collect::<Vec<_>>()
                .join(" or ");
            let state = if s.enabled { "enabled" } else { "not enabled" };
            format!(
                "{schemes} ({}, feature `{}`, {state})",
                s.backend, s.feature
            )
        })
        .collect();
    format!("supported: {}; a bare path opens SQLite", list.join(", "))
}

/// Opens the storage backend named by `url`: the [`MemoryStore`] and, where
/// the backend has one, long-term memory, sharing its connections.
///
/// `url` is `scheme://…` (see the [module docs](self) for the schemes) or a
/// bare file path, which opens SQLite. A password in the URL never appears in
/// errors or [`BackendInfo::location`].
///
/// # Errors
/// [`MemoryError::InvalidInput`] for an unknown scheme or one whose feature
/// is not enabled (the message lists the supported schemes and their
/// features); the driver's errors when the database cannot be opened.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore::memory::MemoryError> {
/// use agcore::memory::{MemoryItem, SearchOptions};
///
/// let storage = agcore::memory::open("memory://").await?;
/// let store = storage.store();
/// store.save(MemoryItem::new("note:1", "The user prefers short answers")).await?;
/// assert_eq!(store.search("short answers", &SearchOptions::top_k(3)).await?.len(), 1);
/// let alice = storage.long_term()?.scope("assistant", "alice")?;
/// assert!(alice.search("anything", 3).await?.is_empty());
/// # Ok(()) }
/// ```
pub async fn open(url: &str) -> Result<Storage, MemoryError> {
    let url = url.trim();
    if url.is_empty() {
        return Err(MemoryError::InvalidInput(format!(
            "empty storage URL ({})",
            supported()
        )));
    }
    let scheme = url
        .split_once("://")
        .map(|(scheme, _)| scheme.to_ascii_lowercase())
        .or_else(|| url.starts_with("sqlite:").then(|| "sqlite".to_owned()));
    // Each driver's opening is boxed: its future nests pools, migrations
    // and re-indexing, and boxing keeps callers' futures shallow.
    match scheme.as_deref() {
        None | Some("sqlite") => Box::pin(open_sqlite(url)).await,
        Some("memory") => Ok(Storage::in_memory()),
        #[cfg(feature = "json-file")]
        Some("json-file") => open_json_file(url).await,
        #[cfg(feature = "postgres")]
        Some("postgres" | "postgresql") => Box::pin(agcore_memory_postgres::open(url)).await,
        #[cfg(feature = "mysql")]
        Some("mysql" | "mariadb") => Box::pin(agcore_memory_mysql::open(url)).await,
        #[cfg(feature = "redis")]
        Some("redis") => Box::pin(agcore_memory_redis::open(url)).await,
        Some(other) => {
            let known = SCHEMES.iter().find(|s| s.schemes.contains(&other));
            Err(MemoryError::InvalidInput(match known {
                Some(s) => format!(
                    "`{other}://` URLs need the `{}` feature of agcore ({})",
                    s.feature,
                    supported()
                ),
                None => format!(
                    "unsupported storage URL scheme `{other}` in `{}` ({})",
                    redact_url_text(url),
                    supported()
                ),
            }))
        }
    }
}

/// Opens long-term memory as a `[memory.long_term]` section says — `backend =
/// "sqlite"` at `path` (parent folders created), `"memory"`, or a storage
/// URL (`mysql://…`, `postgres://…`, through [`open`]) — with its weight
/// rules, archive threshold and buffer retention.
///
/// # Errors
/// [`MemoryError::InvalidInput`] for invalid weight rules, `sqlite`
/// without the feature, or `mysql` / `postgres` without a URL (write the
/// server's URL as the backend); the driver's errors when the database
/// cannot be opened or migrated.
pub async fn open_long_term(
    config: &long_term::LongTermConfig,
) -> Result<long_term::LongTermMemory, MemoryError> {
    let storage = match &config.backend {
        long_term::BackendKind::Memory => Storage::in_memory(),
        long_term::BackendKind::Sqlite => {
            Box::pin(open_sqlite(&config.path.to_string_lossy())).await?
        }
        long_term::BackendKind::Url(url) => Box::pin(open(url)).await?,
        other => {
            return Err(MemoryError::InvalidInput(format!(
                "long-term backend `{}` names no server: write its URL \
                 (`memory.long_term.backend = \"{}://user@host/db\"`)",
                other.as_str(),
                other.server_scheme().unwrap_or("mysql")
            )));
        }
    };
    storage.long_term()?.with_config(config)
}

#[cfg(feature = "json-file")]
async fn open_json_file(url: &str) -> Result<Storage, MemoryError> {
    let path = url.get("json-file://".len()..).unwrap_or_default();
    if path.is_empty() || path.contains('?') {
        return Err(MemoryError::InvalidInput(format!(
            "`{url}` names no JSON file (use json-file:///absolute/path.json or json-file://relative.json)"
        )));
    }
    let store = JsonFileStore::open(path).await?;
    Ok(Storage::new(
        BackendInfo::new("json-file", path, "agcore JSON file v1"),
        std::sync::Arc::new(store),
    ))
}

fn redact_url_text(url: &str) -> String {
    agcore_memory::storage::redact_url(url)
}

#[cfg(feature = "sqlite")]
async fn open_sqlite(url: &str) -> Result<Storage, MemoryError> {
    agcore_memory_sqlite::open(url).await
}

#[cfg(not(feature = "sqlite"))]
async fn open_sqlite(url: &str) -> Result<Storage, MemoryError> {
    Err(MemoryError::InvalidInput(format!(
        "`{}` opens SQLite, which needs the `sqlite` feature of agcore ({})",
        redact_url_text(url),
        supported()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn unknown_schemes_list_what_is_supported() {
        let err = open("ftp://user:pw@host/x").await.unwrap_err().to_string();
        assert!(
            err.contains("unsupported storage URL scheme `ftp`"),
            "{err}"
        );
        assert!(err.contains("sqlite://"), "{err}");
        assert!(!err.contains("pw@"), "the password is redacted: {err}");
        let err = open("  ").await.unwrap_err().to_string();
        assert!(err.contains("empty storage URL"), "{err}");
    }

    #[cfg(feature = "json-file")]
    #[tokio::test]
    async fn json_file_urls_open_a_store_without_long_term_memory() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("json-file://{}/sub/m.json", dir.path().display());
        let storage = open(&url).await.unwrap();
        assert_eq!(storage.info().kind, "json-file");
        storage
            .store()
            .save(MemoryItem::new("a", "green tea"))
            .await
            .unwrap();
        assert!(dir.path().join("sub/m.json").exists());
        let err = storage.long_term().unwrap_err().to_string();
        assert!(err.contains("no long-term memory"), "{err}");
    }

    #[tokio::test]
    async fn memory_urls_open_in_process_storage() {
        let storage = open("memory://").await.unwrap();
        assert_eq!(storage.info().kind, "memory");
        assert!(storage.has_long_term());
    }
}
