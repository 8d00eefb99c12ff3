//! [`ProviderRegistry`]: providers by name, built from configuration.

mod build;
mod config;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::{LlmError, LlmProvider};

use build::build;
pub use config::{ProviderEntry, ProviderKind, RegistryConfig};

#[derive(Clone)]
struct Registered {
    provider: Arc<dyn LlmProvider>,
    model: Option<String>,
}

/// Providers by name, with a default; cheap to clone, `Send + Sync`.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use agcore_llm::{MockProvider, ProviderRegistry};
///
/// let mut registry = ProviderRegistry::new();
/// registry.register("mock", Arc::new(MockProvider::new()), Some("mock-model".into()));
/// assert_eq!(registry.default_name(), Some("mock"));
/// assert_eq!(registry.model("mock"), Some("mock-model"));
/// assert!(registry.get("missing").is_err());
/// ```
#[derive(Clone, Default)]
pub struct ProviderRegistry {
    providers: BTreeMap<String, Registered>,
    default: Option<String>,
}

impl std::fmt::Debug for ProviderRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderRegistry")
            .field("providers", &self.providers.keys().collect::<Vec<_>>())
            .field("default", &self.default)
            .finish()
    }
}

impl ProviderRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds every provider of `config`.
    ///
    /// # Errors
    /// [`LlmError::Config`] for a duplicate name, an unknown default, an
    /// `api_key_env` variable that is not set, a provider that cannot be
    /// built (bad URL or header), or an `openai` entry when the crate was
    /// built without the `openai` feature.
    pub fn from_config(config: &RegistryConfig) -> Result<Self, LlmError> {
        let mut names = std::collections::BTreeSet::new();
        for entry in &config.providers {
            if !names.insert(entry.name.as_str()) {
                return Err(LlmError::Config(format!(
                    "provider `{}` is configured twice",
                    entry.name
                )));
            }
        }
        if let Some(default) = config.default.as_deref().filter(|d| !names.contains(d)) {
            return Err(LlmError::Config(format!(
                "default provider `{default}` is not among the configured providers"
            )));
        }
        let mut registry = Self::new();
        for entry in &config.providers {
            let provider = build(entry)?;
            registry.register(entry.name.clone(), provider, entry.model.clone());
        }
        if let Some(default) = &config.default {
            registry.set_default(default)?;
        }
        Ok(registry)
    }

    /// Adds (or replaces) `provider` under `name` with an optional default
    /// model. The first provider registered becomes the default.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        provider: Arc<dyn LlmProvider>,
        model: Option<String>,
    ) {
        let name = name.into();
        if self.default.is_none() {
            self.default = Some(name.clone());
        }
        self.providers.insert(name, Registered { provider, model });
    }

    /// Makes `name` the default.
    ///
    /// # Errors
    /// [`LlmError::Config`] when no provider is named `name`.
    pub fn set_default(&mut self, name: &str) -> Result<(), LlmError> {
        if !self.providers.contains_key(name) {
            return Err(unknown(name, self));
        }
        self.default = Some(name.to_owned());
        Ok(())
    }

    /// The provider named `name`.
    ///
    /// # Errors
    /// [`LlmError::Config`] naming the known providers when `name` is unknown.
    pub fn get(&self, name: &str) -> Result<Arc<dyn LlmProvider>, LlmError> {
        self.providers
            .get(name)
            .map(|r| Arc::clone(&r.provider))
            .ok_or_else(|| unknown(name, self))
    }

    /// The default provider.
    ///
    /// # Errors
    /// [`LlmError::Config`] when the registry is empty.
    pub fn default_provider(&self) -> Result<Arc<dyn LlmProvider>, LlmError> {
        match &self.default {
            Some(name) => self.get(name),
            None => Err(LlmError::Config("no provider is registered".to_owned())),
        }
    }

    /// The default provider's name.
    pub fn default_name(&self) -> Option<&str> {
        self.default.as_deref()
    }

    /// The default model configured for `name`.
    pub fn model(&self, name: &str) -> Option<&str> {
        self.providers.get(name).and_then(|r| r.model.as_deref())
    }

    /// Registered names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.providers.keys().map(String::as_str)
    }

    /// Number of providers.
    pub fn len(&self) -> usize {
        self.providers.len()
    }

    /// Whether no provider is registered.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }
}

fn unknown(name: &str, registry: &ProviderRegistry) -> LlmError {
    let known: Vec<&str> = registry.names().collect();
    LlmError::Config(format!(
        "unknown provider `{name}` (known: {})",
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        }
    ))
}
