//! Where the program's memory lives: `--db URL`, `[storage] url` of
//! agcore.toml, `memory.long_term.path`, or a file in the user's data dir,
//! opened through [`agcore::memory::open`] (SQLite files, PostgreSQL,
//! MySQL/MariaDB, Redis, a JSON file, in-process memory; this program
//! builds them all in).

use std::path::PathBuf;

use agcore::memory::Storage;

use crate::config::{self, AppConfig};
use crate::error::CliError;

/// The storage to open: a URL or a SQLite file path.
///
/// Chosen in this order: `--db`; for long-term memory the place the
/// configuration names itself (`memory.long_term.backend` other than
/// `sqlite`, or the agent's `memory.backend` / `sqlite_path`, see
/// [`AppConfig::for_agent`]); `[storage] url` of the configuration file
/// (a relative file path there is taken from the file's folder); for long-term
/// memory `memory.long_term.path`; else `default_file` in the user's data dir.
///
/// # Errors
/// [`CliError::Config`] when the default is needed and no data dir is known.
pub fn location(
    db: Option<&str>,
    config: &AppConfig,
    long_term: bool,
    default_file: &str,
) -> Result<String, CliError> {
    if let Some(db) = db.map(str::trim).filter(|d| !d.is_empty()) {
        return Ok(db.to_owned());
    }
    if long_term && let Some(place) = &config.long_term_location {
        return Ok(place.clone());
    }
    if let Some(url) = &config.storage_url {
        return Ok(url.clone());
    }
    if long_term && let Some(path) = &config.memory_db {
        return Ok(path.display().to_string());
    }
    Ok(config::data_dir()?.join(default_file).display().to_string())
}

/// The SQLite file a location names, when it names one (for file sizes and
/// parent folders): a bare path or `sqlite://` / `sqlite:` URL.
pub fn sqlite_file(location: &str) -> Option<PathBuf> {
    let rest = match location.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("sqlite") => rest,
        Some(_) => return None,
        None => location.strip_prefix("sqlite:").unwrap_or(location),
    };
    let rest = rest.split('?').next().unwrap_or(rest);
    (!rest.is_empty() && rest != ":memory:").then(|| PathBuf::from(rest))
}

/// Opens the storage at `location`, naming it (password redacted) in errors.
///
/// # Errors
/// [`CliError::Config`] for an unsupported URL or a backend that cannot be
/// opened; [`CliError::Io`] when a SQLite file's folder cannot be made.
pub async fn open(location: &str, what: &str) -> Result<Storage, CliError> {
    if let Some(file) = sqlite_file(location) {
        config::ensure_parent(&file)?;
    }
    agcore::memory::open(location).await.map_err(|e| {
        CliError::Config(format!(
            "cannot open the {what} {}: {e}",
            agcore::memory::storage::redact_url(location)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_files_are_recognised() {
        assert_eq!(sqlite_file("a/b.db"), Some(PathBuf::from("a/b.db")));
        assert_eq!(
            sqlite_file("sqlite:///tmp/x.db?mode=rwc"),
            Some(PathBuf::from("/tmp/x.db"))
        );
        assert_eq!(sqlite_file("sqlite:x.db"), Some(PathBuf::from("x.db")));
        assert_eq!(sqlite_file("postgres://u@h/db"), None);
        assert_eq!(sqlite_file("memory://"), None);
        assert_eq!(sqlite_file("sqlite::memory:"), None);
    }
}
