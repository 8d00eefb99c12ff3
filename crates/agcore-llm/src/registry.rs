//! [`ProviderRegistry`]: providers by name, built from configuration.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{LlmError, LlmProvider};

/// The kind of backend a [`ProviderEntry`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ProviderKind {
    /// An OpenAI-compatible chat-completions endpoint (`"openai"`); needs the
    /// `openai` feature.
    #[serde(rename = "openai")]
    OpenAi,
}

/// One provider in a [`RegistryConfig`]:
/// `{"name": "local", "kind": "openai", "base_url": "http://127.0.0.1:8080/v1",
///   "api_key_env": "LOCAL_KEY", "model": "smollm2", "headers": {"x-team": "a"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProviderEntry {
    /// Name the provider is looked up by.
    pub name: String,
    /// Backend kind.
    pub kind: ProviderKind,
    /// Base URL (before `/chat/completions`); default `https://api.openai.com/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key (the key itself
    /// never appears in configuration); `None` sends no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Default model of this provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extra HTTP headers sent with every request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

impl ProviderEntry {
    /// An OpenAI-compatible entry named `name` for `base_url`.
    pub fn openai(name: impl Into<String>, base_url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: ProviderKind::OpenAi,
            base_url: Some(base_url.into()),
            api_key_env: None,
            model: None,
            headers: BTreeMap::new(),
        }
    }

    /// Sets the environment variable holding the API key.
    pub fn with_api_key_env(mut self, var: impl Into<String>) -> Self {
        self.api_key_env = Some(var.into());
        self
    }

    /// Sets the default model.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Adds an HTTP header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }
}

/// Configuration of a [`ProviderRegistry`]:
/// `{"default": "local", "providers": [ProviderEntry, …]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RegistryConfig {
    /// Name of the default provider; `None` picks the first entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// The providers.
    #[serde(default)]
    pub providers: Vec<ProviderEntry>,
}

impl RegistryConfig {
    /// A config with these providers, the first one default.
    pub fn new(providers: Vec<ProviderEntry>) -> Self {
        Self {
            default: None,
            providers,
        }
    }

    /// Sets the default provider's name.
    pub fn with_default(mut self, name: impl Into<String>) -> Self {
        self.default = Some(name.into());
        self
    }
}

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

#[cfg(feature = "openai")]
fn build(entry: &ProviderEntry) -> Result<Arc<dyn LlmProvider>, LlmError> {
    match entry.kind {
        ProviderKind::OpenAi => {
            let base = entry.base_url.as_deref().unwrap_or(crate::DEFAULT_BASE_URL);
            let mut config = crate::OpenAiConfig::new(base).with_name(entry.name.clone());
            if let Some(var) = &entry.api_key_env {
                let key = std::env::var(var).map_err(|_| {
                    LlmError::Config(format!(
                        "environment variable `{var}` (API key of provider `{}`) is not set",
                        entry.name
                    ))
                })?;
                config = config.with_api_key(key);
            }
            if let Some(model) = &entry.model {
                config = config.with_default_model(model.clone());
            }
            for (name, value) in &entry.headers {
                config = config.with_header(name.clone(), value.clone());
            }
            Ok(Arc::new(crate::OpenAiProvider::new(config)?))
        }
    }
}

#[cfg(not(feature = "openai"))]
fn build(entry: &ProviderEntry) -> Result<Arc<dyn LlmProvider>, LlmError> {
    match entry.kind {
        ProviderKind::OpenAi => Err(LlmError::Config(format!(
            "provider `{}` has kind `openai`, but agcore-llm was built without the `openai` feature",
            entry.name
        ))),
    }
}
