//! Builds one provider from its [`ProviderEntry`].

use std::sync::Arc;

use super::{ProviderEntry, ProviderKind};
use crate::{LlmError, LlmProvider};

#[cfg(feature = "openai")]
pub(super) fn build(entry: &ProviderEntry) -> Result<Arc<dyn LlmProvider>, LlmError> {
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
pub(super) fn build(entry: &ProviderEntry) -> Result<Arc<dyn LlmProvider>, LlmError> {
    match entry.kind {
        ProviderKind::OpenAi => Err(LlmError::Config(format!(
            "provider `{}` has kind `openai`, but agcore-llm was built without the `openai` feature",
            entry.name
        ))),
    }
}
