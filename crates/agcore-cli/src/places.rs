//! Where the configuration puts memory: relative paths of the file taken
//! from its folder, and the place a long-term `backend` names. A leaf module
//! that the configuration readers and the storage opener both use.

use std::path::Path;

use agcore::memory::long_term::BackendKind;

use crate::error::CliError;

/// Resolves a relative file path of `[storage] url` against the folder of the
/// configuration file; URLs with a scheme are kept as written.
pub fn resolve_config_url(url: &str, config_file: &Path) -> String {
    let is_url = url.contains("://") || url.starts_with("sqlite:");
    let path = Path::new(url);
    if is_url || path.is_absolute() {
        return url.to_owned();
    }
    let folder = config_file.parent().unwrap_or_else(|| Path::new("."));
    folder.join(path).display().to_string()
}

/// Where a long-term `backend` puts memory: the SQLite file `path`,
/// `memory://`, its URL (a relative `sqlite:` path resolved against the
/// file), or for `mysql` / `postgres` the `[storage] url` of that scheme.
///
/// # Errors
/// [`CliError::Config`] naming `what` for a server word without such a URL.
pub fn long_term_location(
    backend: &BackendKind,
    path: &Path,
    storage_url: Option<&str>,
    file: Option<&Path>,
    what: &str,
) -> Result<String, CliError> {
    if let Some(url) = backend.url() {
        return Ok(match file {
            Some(file) => resolve_config_url(url, file),
            None => url.to_owned(),
        });
    }
    let Some(scheme) = backend.server_scheme() else {
        return Ok(path.display().to_string());
    };
    let matches = |url: &&str| {
        let lower = url.to_ascii_lowercase();
        match scheme {
            "mysql" => lower.starts_with("mysql://") || lower.starts_with("mariadb://"),
            _ => lower.starts_with("postgres://") || lower.starts_with("postgresql://"),
        }
    };
    storage_url
        .filter(matches)
        .map(str::to_owned)
        .ok_or_else(|| {
            CliError::Config(format!(
                "{what} = \"{scheme}\" names no server: write its URL there \
             (\"{scheme}://user@host/db\") or set `[storage] url = \"{scheme}://…\"`"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_config_paths_follow_the_file() {
        let file = Path::new("/etc/agcore/agcore.toml");
        assert_eq!(resolve_config_url("mem.db", file), "/etc/agcore/mem.db");
        assert_eq!(
            resolve_config_url("postgres://u@h/db", file),
            "postgres://u@h/db"
        );
        assert_eq!(resolve_config_url("/abs.db", file), "/abs.db");
    }

    #[test]
    fn server_words_need_a_url() {
        let file = Some(Path::new("/etc/a.toml"));
        let path = Path::new("x.db");
        let mysql = BackendKind::Mysql;
        assert!(long_term_location(&mysql, path, None, file, "b").is_err());
        assert!(long_term_location(&mysql, path, Some("postgres://h/d"), file, "b").is_err());
        assert_eq!(
            long_term_location(&mysql, path, Some("mysql://u@h/d"), file, "b").unwrap(),
            "mysql://u@h/d"
        );
        let memory = BackendKind::Memory;
        assert_eq!(
            long_term_location(&memory, path, None, file, "b").unwrap(),
            "memory://"
        );
        assert_eq!(
            long_term_location(&BackendKind::Sqlite, path, None, file, "b").unwrap(),
            "x.db"
        );
    }
}
