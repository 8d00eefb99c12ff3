//! [`MemoryStoreRegistry`]: store types by name (seed 003's
//! `register_memory_store`), and [`StoreContext`], what factories get.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agcore_memory::{MemoryError, MemoryStore};
use async_trait::async_trait;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::config::{AttachConfig, StoreDeclaration};
use super::embedding::{DefaultEmbedders, EmbedderFactory};
use super::interpolate::{ProcessEnv, VarSource, interpolate};
use super::keys::parse_config;
use super::path::{child, one_of};
use super::store::AttachedStore;
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

/// The future a factory returns.
pub type StoreFuture = BoxFuture<'static, Result<Arc<dyn AttachedStore>, AgentError>>;

type Validate =
    dyn Fn(&Value, &ConfigLocation, &dyn VarSource) -> Result<(), AgentError> + Send + Sync;
type Open = dyn Fn(&StoreDeclaration, StoreContext) -> StoreFuture + Send + Sync;

struct Entry {
    summary: String,
    validate: Box<Validate>,
    open: Box<Open>,
    schema: Value,
}

/// Store types by name. [`MemoryStoreRegistry::with_builtins`] has
/// `simple`, `file` and `blackboard`; [`MemoryStoreRegistry::register`]
/// adds a user's own. `Send + Sync`.
#[derive(Default)]
pub struct MemoryStoreRegistry {
    entries: BTreeMap<String, Entry>,
}

impl std::fmt::Debug for MemoryStoreRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, e)| (k, &e.summary)))
            .finish()
    }
}

/// Parses a store's `config` value into `C`: substitutes `${VAR}` from
/// `vars`, checks the keys against `C`'s schema and deserializes, every
/// message scrubbed of the substituted values. The usual parser passed to
/// [`MemoryStoreRegistry::register`].
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

impl MemoryStoreRegistry {
    /// No types.
    pub fn new() -> Self {
        Self::default()
    }

    /// `simple`, `file` and `blackboard`.
    pub fn with_builtins() -> Self {
        let mut registry = Self::new();
        super::stores::register_builtins(&mut registry);
        registry
    }

    /// Registers (or replaces) `type_name`: `parser` turns a `config` value
    /// into `C` (usually [`parse_store_config`]), `factory` opens a store
    /// from it, `summary` describes the type in one line (for UIs and
    /// `agcore config schema`).
    pub fn register<C, P, F, Fut>(
        &mut self,
        type_name: impl Into<String>,
        parser: P,
        factory: F,
        summary: impl Into<String>,
    ) where
        C: JsonSchema + Send + 'static,
        P: Fn(&Value, &ConfigLocation, &dyn VarSource) -> Result<C, AgentError>
            + Send
            + Sync
            + 'static,
        F: Fn(StoreSpec, C, StoreContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Arc<dyn AttachedStore>, AgentError>> + Send + 'static,
    {
        let parser = Arc::new(parser);
        let check = Arc::clone(&parser);
        let open = move |decl: &StoreDeclaration, ctx: StoreContext| -> StoreFuture {
            let at = child(&decl.location, "config");
            let spec = StoreSpec {
                name: decl.name.clone(),
                location: decl.location.clone(),
            };
            match parser(&decl.config, &at, ctx.vars.as_ref()) {
                Ok(config) => Box::pin(factory(spec, config, ctx)),
                Err(err) => Box::pin(async move { Err(err) }),
            }
        };
        let entry = Entry {
            summary: summary.into(),
            validate: Box::new(move |value, at, vars| check(value, at, vars).map(|_| ())),
            open: Box::new(open),
            schema: serde_json::to_value(schemars::schema_for!(C)).unwrap_or(Value::Null),
        };
        self.entries.insert(type_name.into(), entry);
    }

    /// The registered type names, sorted.
    pub fn types(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }

    /// The summary of `type_name`.
    pub fn summary(&self, type_name: &str) -> Option<&str> {
        self.entries.get(type_name).map(|e| e.summary.as_str())
    }

    /// The JSON Schema of `type_name`'s `config`.
    pub fn config_schema(&self, type_name: &str) -> Option<&Value> {
        self.entries.get(type_name).map(|e| &e.schema)
    }

    fn entry(&self, decl: &StoreDeclaration) -> Result<&Entry, AgentError> {
        self.entries.get(&decl.store_type).ok_or_else(|| {
            AgentError::invalid_config(
                child(&decl.location, "type"),
                format!(
                    "unknown memory store type `{}`; registered types: {}",
                    decl.store_type,
                    one_of(&self.types())
                ),
            )
        })
    }

    /// Checks every store of `config`: its type is registered and its
    /// `config` parses (keys, types, required values, `${VAR}`s set).
    ///
    /// # Errors
    /// The first store's error, naming the file and path.
    pub fn validate(&self, config: &AttachConfig, vars: &dyn VarSource) -> Result<(), AgentError> {
        for decl in &config.memory.stores {
            let entry = self.entry(decl)?;
            (entry.validate)(&decl.config, &child(&decl.location, "config"), vars)?;
        }
        Ok(())
    }

    /// Opens the store `decl` declares (not yet loaded).
    ///
    /// # Errors
    /// An unknown type; the type's parser and factory errors.
    pub async fn open(
        &self,
        decl: &StoreDeclaration,
        ctx: &StoreContext,
    ) -> Result<Arc<dyn AttachedStore>, AgentError> {
        let entry = self.entry(decl)?;
        (entry.open)(decl, ctx.clone()).await
    }
}
