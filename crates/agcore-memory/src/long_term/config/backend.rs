//! `memory.long_term.backend` (and an agent's `memory.backend`): which
//! storage holds long-term memory, by a word or a storage URL (seed 004
//! §8.1's `backend: 'mysql' | 'sqlite'`).

use serde::{Deserialize, Serialize};

/// Which long-term backend to open.
///
/// Written as `sqlite`, `memory`, `mysql`, `postgres`, or a storage URL
/// (`mysql://user@host/db`, `postgres://…`, `sqlite:///path.db`, any text
/// with `://`). `mysql` and `postgres` name a server without saying where:
/// the `agcore` program takes the server from `[storage] url` (which must
/// have that scheme); [`BackendKind::url`] gives `None` for them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
#[non_exhaustive]
pub enum BackendKind {
    /// A SQLite file at `path` (the default; `agcore_memory_sqlite::SqliteLongTerm`).
    #[default]
    Sqlite,
    /// [`InMemoryLongTerm`](crate::long_term::InMemoryLongTerm): nothing persists.
    Memory,
    /// A MySQL / MariaDB server named elsewhere (`[storage] url`).
    Mysql,
    /// A PostgreSQL server named elsewhere (`[storage] url`).
    Postgres,
    /// The storage at this URL (`mysql://…`, `postgres://…`, `sqlite:///…`).
    Url(String),
}

/// The words [`BackendKind`] accepts besides a URL.
pub const BACKEND_WORDS: [&str; 4] = ["sqlite", "memory", "mysql", "postgres"];

impl BackendKind {
    /// The configuration word, or the URL as written.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Memory => "memory",
            Self::Mysql => "mysql",
            Self::Postgres => "postgres",
            Self::Url(url) => url,
        }
    }

    /// The URL scheme a server word stands for (`mysql`, `postgres`);
    /// `None` for the others.
    pub fn server_scheme(&self) -> Option<&'static str> {
        match self {
            Self::Mysql => Some("mysql"),
            Self::Postgres => Some("postgres"),
            _ => None,
        }
    }

    /// The URL of [`BackendKind::Url`], `memory://` for
    /// [`BackendKind::Memory`]; `None` for a SQLite file (its location is
    /// `path`) and for a server word without a URL.
    pub fn url(&self) -> Option<&str> {
        match self {
            Self::Url(url) => Some(url),
            Self::Memory => Some("memory://"),
            _ => None,
        }
    }
}

impl TryFrom<String> for BackendKind {
    type Error = String;

    /// A word (case-insensitive) or a URL (text holding `://`).
    fn try_from(text: String) -> Result<Self, String> {
        let trimmed = text.trim();
        if trimmed.contains("://") {
            return Ok(Self::Url(trimmed.to_owned()));
        }
        match trimmed.to_ascii_lowercase().as_str() {
            "sqlite" => Ok(Self::Sqlite),
            "memory" => Ok(Self::Memory),
            "mysql" | "mariadb" => Ok(Self::Mysql),
            "postgres" | "postgresql" => Ok(Self::Postgres),
            // serde's wording, so the configuration's messages name the nearest word.
            _ => Err(format!(
                "unknown variant `{trimmed}`, expected one of `sqlite`, `memory`, `mysql`, \
                 `postgres` or a storage URL (`mysql://user@host/db`)"
            )),
        }
    }
}

impl From<BackendKind> for String {
    fn from(kind: BackendKind) -> Self {
        kind.as_str().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_urls_round_trip() {
        for word in BACKEND_WORDS {
            let kind = BackendKind::try_from(word.to_owned()).unwrap();
            assert_eq!(String::from(kind), word);
        }
        let url = BackendKind::try_from(" mysql://u@h/db ".to_owned()).unwrap();
        assert_eq!(url, BackendKind::Url("mysql://u@h/db".into()));
        assert_eq!(url.url(), Some("mysql://u@h/db"));
        assert_eq!(BackendKind::Memory.url(), Some("memory://"));
        assert_eq!(BackendKind::Mysql.url(), None);
        assert_eq!(BackendKind::Mysql.server_scheme(), Some("mysql"));
        assert_eq!(
            BackendKind::try_from("MariaDB".to_owned()).unwrap(),
            BackendKind::Mysql
        );
        let err = BackendKind::try_from("sqlte".to_owned()).unwrap_err();
        assert!(err.starts_with("unknown variant `sqlte`"), "{err}");
    }
}
