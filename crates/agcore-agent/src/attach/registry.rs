//! [`MemoryStoreRegistry`]: store types by name (seed 003's
//! `register_memory_store`); what factories get is in `factory`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde_json::Value;

use super::config::{AttachConfig, StoreDeclaration};
use super::factory::{StoreContext, StoreSpec};
use super::interpolate::VarSource;
use super::path::{child, one_of};
use super::store::AttachedStore;
use crate::AgentError;
use crate::attach::ConfigLocation;

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

impl MemoryStoreRegistry {
    /// No types.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers (or replaces) `type_name`: `parser` turns a `config` value
    /// into `C` (usually [`parse_store_config`](super::parse_store_config)), `factory` opens a store
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
