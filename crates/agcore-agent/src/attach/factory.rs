//! What a store factory receives: [`StoreContext`] (paths, embedders,
//! backend URLs, variables), [`StoreSpec`] (the store's name and place),
//! the [`BackendOpener`] of URL-backed stores, and [`parse_store_config`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agcore_memory::{MemoryError, MemoryStore};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::embedding::{DefaultEmbedders, EmbedderFactory};
use super::interpolate::{ProcessEnv, VarSource, interpolate};
use super::keys::parse_config;
use crate::AgentError;
use crate::attach::ConfigLocation;

/// Opens an agcore backend from a storage URL (`sqlite:///…`,
/// `postgres://…`, …) for `simple` stores whose `memory_path` is a URL, and
/// the on-disk lexical index of `file` stores. The `agcore` facade
/// implements it with `agcore::memory::open` and SQLite.
#[async_trait]
pub trait BackendOpener: Send + Sync {
    /// The backend's store.
    ///
    /// # Errors
    /// The backend's connection and configuration errors.
    async fn open(&self, url: &str) -> Result<Arc<dyn MemoryStore>, MemoryError>;

    /// A persistent full-text store in the file `path`, for a `file` store's
    /// chunks: opened again after a restart, it keeps its index, so an
    /// unchanged folder is not indexed again. `None` (the default) when this
    /// opener has no embedded database: the chunks are then indexed in
    /// memory at each start.
    ///
    /// # Errors
    /// The database's errors (a file that is not a database, no space).
    async fn open_index(&self, path: &Path) -> Result<Option<Arc<dyn MemoryStore>>, MemoryError> {
        let _ = path;
        Ok(None)
    }
}

/// What store factories receive: where `auto` paths go, how to open
/// embedders and backend URLs, how `${VAR}` is resolved. Cheap to clone.
#[derive(Clone)]
pub struct StoreContext {
    /// The session directory: `memory_path: auto` is `<dir>/<store>.json`.
    pub session_dir: Option<PathBuf>,
    /// Relative paths are resolved against it (the configuration file's
    /// folder); `None` keeps them relative to the working directory.
    pub base_dir: Option<PathBuf>,
    /// Opens embedding models.
    pub embedders: Arc<dyn EmbedderFactory>,
    /// Opens backend URLs; `None` rejects them.
    pub backends: Option<Arc<dyn BackendOpener>>,
    /// Resolves `${VAR}`.
    pub vars: Arc<dyn VarSource>,
}

impl std::fmt::Debug for StoreContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreContext")
            .field("session_dir", &self.session_dir)
            .field("base_dir", &self.base_dir)
            .field("backends", &self.backends.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for StoreContext {
    fn default() -> Self {
        Self {
            session_dir: None,
            base_dir: None,
            embedders: Arc::new(DefaultEmbedders),
            backends: None,
            vars: Arc::new(ProcessEnv),
        }
    }
}

impl StoreContext {
    /// `path` resolved against [`StoreContext::base_dir`].
    pub fn resolve(&self, path: &Path) -> PathBuf {
        match &self.base_dir {
            Some(base) if path.is_relative() => base.join(path),
            _ => path.to_path_buf(),
        }
    }
}

/// The name and place of the store a factory opens.
#[derive(Debug, Clone)]
pub struct StoreSpec {
    /// The store's name.
    pub name: String,
    /// Its declaration's location (for errors such as an unwritable path).
    pub location: ConfigLocation,
}

/// Parses a store's `config` value into `C`: substitutes `${VAR}` from
/// `vars`, checks the keys against `C`'s schema and deserializes, every
/// message scrubbed of the substituted values. The usual parser passed to
/// [`MemoryStoreRegistry::register`](super::MemoryStoreRegistry::register).
///
/// # Errors
/// As [`parse_config`](super::parse_config), and
/// [`AgentError::MissingVariable`].
pub fn parse_store_config<C: DeserializeOwned + JsonSchema>(
    value: &Value,
    at: &ConfigLocation,
    vars: &dyn VarSource,
) -> Result<C, AgentError> {
    let mut value = value.clone();
    let secrets = interpolate(&mut value, at, vars)?;
    parse_config(&value, at, &secrets)
}
