//! The (agent, user) scope and memory database shared by `chat` and `memory`.

use agcore::memory::SqliteLongTerm;
use std::path::{Path, PathBuf};

use agcore::memory::long_term::{LongTermMemory, ScopedMemory};
use clap::Args;

use crate::config::{self, AppConfig};
use crate::error::CliError;

/// Default agent name of the scope.
pub const DEFAULT_AGENT: &str = "assistant";

/// `--agent`, `--user` and `--db`.
#[derive(Debug, Clone, Args)]
pub struct ScopeArgs {
    /// Agent name of the memory scope.
    #[arg(long, global = true, default_value = DEFAULT_AGENT, value_name = "NAME")]
    pub agent: String,
    /// User id of the memory scope (default: $USER, else `default`).
    #[arg(long, global = true, value_name = "ID")]
    pub user: Option<String>,
    /// SQLite memory database (default: `memory.long_term.path` of agcore.toml, else
    /// `memory.db` in the user's data dir, e.g. ~/.local/share/agcore).
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

impl ScopeArgs {
    /// The user id: `--user`, `$USER`, or `default`.
    pub fn user(&self) -> String {
        self.user
            .clone()
            .or_else(|| std::env::var("USER").ok())
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| "default".to_owned())
    }

    /// The database file: `--db`, the config file's path, or `<data dir>/memory.db`.
    ///
    /// # Errors
    /// [`CliError::Config`] when no data dir is known.
    pub fn db_path(&self, config: &AppConfig) -> Result<PathBuf, CliError> {
        match (&self.db, &config.memory_db) {
            (Some(db), _) => Ok(db.clone()),
            (None, Some(db)) => Ok(db.clone()),
            (None, None) => Ok(config::data_dir()?.join("memory.db")),
        }
    }
}

/// An opened memory database and the scope handle of the command.
#[derive(Debug, Clone)]
pub struct OpenedMemory {
    /// The whole store (every scope).
    pub memory: LongTermMemory,
    /// The command's scope.
    pub scoped: ScopedMemory,
    /// The database file.
    pub path: PathBuf,
}

/// Opens (creating if needed) the SQLite memory database with the weight rules
/// of the configuration, and the scope of `args`.
///
/// # Errors
/// [`CliError::Config`] for an invalid scope; [`CliError::Memory`] when the
/// database cannot be opened; [`CliError::Io`] when its folder cannot be made.
pub async fn open_memory(args: &ScopeArgs, config: &AppConfig) -> Result<OpenedMemory, CliError> {
    let path = args.db_path(config)?;
    open_at(&path, args, config).await
}

async fn open_at(
    path: &Path,
    args: &ScopeArgs,
    config: &AppConfig,
) -> Result<OpenedMemory, CliError> {
    config::ensure_parent(path)?;
    let backend = SqliteLongTerm::open(path).await.map_err(|e| {
        CliError::Config(format!(
            "cannot open the memory database {}: {e}",
            path.display()
        ))
    })?;
    let long_term = &config.settings.memory.long_term;
    let memory = LongTermMemory::new(backend)
        .with_rules(long_term.weight_rules())?
        .with_buffer_retention(chrono::Duration::days(i64::from(
            long_term.buffer_retention_days,
        )));
    let scoped = memory
        .scope(args.agent.clone(), args.user())
        .map_err(|e| CliError::Config(format!("invalid --agent/--user: {e}")))?;
    Ok(OpenedMemory {
        memory,
        scoped,
        path: path.to_path_buf(),
    })
}
