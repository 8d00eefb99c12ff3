//! Serializable configuration of a [`ProviderRegistry`](super::ProviderRegistry):
//! [`RegistryConfig`] listing [`ProviderEntry`] values.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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

/// Configuration of a [`ProviderRegistry`](super::ProviderRegistry):
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
