//! The (agent, user) scope and memory database shared by `chat` and `memory`.

use std::sync::Arc;

use agcore::memory::hybrid::{DenseIndex, EmbeddingQueueConfig};
use agcore::memory::{BackendInfo, Storage};

use agcore::memory::long_term::{LongTermMemory, MemoryScope, ScopedMemory};
use clap::Args;

use crate::config::AppConfig;
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
    /// Memory database: a storage URL (sqlite:///path, postgres://…,
    /// memory://) or a SQLite file path (default: `[storage] url` of agcore.toml, else
    /// `memory.long_term.path`, else `memory.db` in the user's data dir, e.g.
    /// ~/.local/share/agcore).
    #[arg(long, global = true, value_name = "URL")]
    pub db: Option<String>,
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

    /// The checked scope of `--agent` and [`ScopeArgs::user`].
    ///
    /// # Errors
    /// [`CliError::Config`] (exit 2) naming the flag (or `$USER`) and what is
    /// wrong with its value (see `MemoryScope` for the rules).
    pub fn scope(&self) -> Result<MemoryScope, CliError> {
        let source = if self.user.is_some() {
            "--user"
        } else {
            "$USER"
        };
        MemoryScope::new(self.agent.clone(), self.user()).map_err(|e| {
            let detail = match e {
                agcore::memory::MemoryError::InvalidInput(detail) => detail,
                other => other.to_string(),
            };
            CliError::Config(format!(
                "invalid memory scope (--agent, {source}): {detail}"
            ))
        })
    }

    /// The storage location of `--agent`: `--db`, the agent's or the file's
    /// own long-term backend, `[storage] url`, `memory.long_term.path`, or
    /// `<data dir>/memory.db` (see [`crate::storage::location`]).
    ///
    /// # Errors
    /// [`CliError::Config`] when no data dir is known.
    pub fn location(&self, config: &AppConfig) -> Result<String, CliError> {
        let config = config.for_agent(&self.agent)?;
        crate::storage::location(self.db.as_deref(), &config, true, "memory.db")
    }
}

/// An opened memory database and the scope handle of the command.
#[derive(Debug, Clone)]
pub struct OpenedMemory {
    /// The whole store (every scope).
    pub memory: LongTermMemory,
    /// The command's scope.
    pub scoped: ScopedMemory,
    /// The opened backend (its kind, version and location in `info()`).
    pub storage: Storage,
    /// The dense index when `[embedding]` is configured.
    pub dense: Option<Arc<DenseIndex>>,
}

impl OpenedMemory {
    /// What the backend is and where (password redacted).
    pub fn info(&self) -> &BackendInfo {
        self.storage.info()
    }

    /// Waits for the background embedding of what the command wrote, so
    /// nothing is left unembedded when the program exits.
    pub async fn finish(&self) {
        if let Some(dense) = &self.dense {
            dense.flush().await;
            let pending = dense.counts().pending;
            if pending > 0 {
                tracing::warn!(
                    pending,
                    "memories could not be embedded now; `agcore memory reembed` catches up"
                );
            }
        }
    }
}

/// The dense index of `[embedding]` over `storage`, `None` when the section is absent.
///
/// # Errors
/// [`CliError::Config`] when the model cannot be opened or the stored
/// vectors belong to another model.
///
/// With `reset`, the stored vectors are deleted first (switching model).
pub async fn open_dense(
    storage: &Storage,
    config: &AppConfig,
    reset: bool,
) -> Result<Option<Arc<DenseIndex>>, CliError> {
    let Some(embedding) = &config.embedding else {
        return Ok(None);
    };
    let embedder = agcore::embedding::open_embedder(embedding)
        .await
        .map_err(|e| CliError::Config(format!("cannot open the embedding model: {e}")))?;
    let vectors = if reset {
        storage.reset_vectors(embedder.space()).await
    } else {
        storage.vectors(embedder.space()).await
    }
    .map_err(|e| match e {
        agcore::memory::MemoryError::EmbeddingMismatch { .. } => CliError::Config(format!(
            "{}: {e}; run `agcore memory reembed --reset` to embed every memory with the configured model",
            storage.info()
        )),
        other => CliError::Config(format!("{}: {other}", storage.info())),
    })?;
    let dense = DenseIndex::new(embedder, vectors, EmbeddingQueueConfig::default())?;
    Ok(Some(dense))
}

/// Opens (creating if needed) the memory database with the weight rules of
/// the configuration, and the scope of `args`.
///
/// # Errors
/// [`CliError::Config`] for an invalid scope, an unsupported URL or a backend
/// without long-term memory; [`CliError::Memory`] when the database cannot be
/// opened; [`CliError::Io`] when a SQLite file's folder cannot be made.
pub async fn open_memory(args: &ScopeArgs, config: &AppConfig) -> Result<OpenedMemory, CliError> {
    open_memory_with(args, config, false).await
}

/// [`open_memory`], deleting the stored vectors first when `reset_vectors`.
///
/// # Errors
/// As [`open_memory`].
pub async fn open_memory_with(
    args: &ScopeArgs,
    config: &AppConfig,
    reset_vectors: bool,
) -> Result<OpenedMemory, CliError> {
    let scope = args.scope()?;
    let location = args.location(config)?;
    // The agent's own memory settings (`max_return`, weights) over `[memory]`.
    let config = &config.for_agent(&args.agent)?;
    let storage = crate::storage::open(&location, "memory database").await?;
    let backend = storage.long_term().map_err(|e| {
        CliError::Config(format!(
            "{} cannot hold long-term memory: {e}",
            storage.info()
        ))
    })?;
    let long_term = &config.settings.memory.long_term;
    let memory = backend.with_config(long_term)?;
    let dense = open_dense(&storage, config, reset_vectors).await?;
    let memory = match &dense {
        Some(index) => memory.with_dense(Arc::clone(index), config.retrieval.clone()),
        None => memory,
    };
    let scoped = memory.scoped(scope);
    Ok(OpenedMemory {
        memory,
        scoped,
        storage,
        dense,
    })
}
