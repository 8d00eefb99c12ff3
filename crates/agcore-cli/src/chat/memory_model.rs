//! The model for memory work (`[memory_agent]` provider, base_url, api_key,
//! model): fact extraction can run on another endpoint than the chat, such
//! as a small local model.

use std::sync::Arc;

use agcore::llm::{LlmProvider, OpenAiConfig, OpenAiProvider};
use agcore::memory::long_term::MemoryAgentConfig;

use crate::error::CliError;

/// The providers `[memory_agent] provider` accepts.
const PROVIDERS: [&str; 1] = ["openai"];

/// The extraction provider `[memory_agent]` describes, or `None` when it
/// names no `base_url` of its own (extraction then uses the chat endpoint,
/// with `model` when set). The key is `api_key` when set, else the
/// environment variable `api_key_env` (default `OPENAI_API_KEY`), else none
/// (local servers).
///
/// # Errors
/// [`CliError::Config`] for a provider other than `openai` (an
/// OpenAI-compatible endpoint) or a base URL that is not `http(s)://…`.
pub(crate) fn memory_provider(
    config: &MemoryAgentConfig,
) -> Result<Option<Arc<dyn LlmProvider>>, CliError> {
    if !PROVIDERS.contains(&config.provider.trim()) {
        return Err(CliError::Config(format!(
            "[memory_agent] provider `{}` is not supported: use one of {} (any \
             OpenAI-compatible endpoint, with base_url)",
            config.provider,
            PROVIDERS.join(", ")
        )));
    }
    let base_url = config.base_url.trim();
    if base_url.is_empty() {
        return Ok(None);
    }
    let mut openai = OpenAiConfig::new(base_url.to_owned()).with_name("memory_agent");
    if !config.model.trim().is_empty() {
        openai = openai.with_default_model(config.model.trim().to_owned());
    }
    let key = Some(config.api_key.trim().to_owned())
        .filter(|k| !k.is_empty())
        .or_else(|| {
            std::env::var(config.api_key_env.trim())
                .ok()
                .filter(|k| !k.trim().is_empty())
        });
    if let Some(key) = key {
        openai = openai.with_api_key(key);
    }
    let provider = OpenAiProvider::new(openai).map_err(|e| {
        CliError::Config(format!(
            "[memory_agent] base_url `{base_url}` is not usable ({e}): use an http(s) URL"
        ))
    })?;
    Ok(Some(Arc::new(provider)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(toml: &str) -> MemoryAgentConfig {
        agcore::memory::long_term::MemorySettings::from_toml_str(toml)
            .unwrap()
            .memory_agent
    }

    #[test]
    fn a_base_url_makes_a_separate_provider() {
        assert!(memory_provider(&config("")).unwrap().is_none());
        let own = config(
            "[memory_agent]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"small\"\napi_key = \"sk-test\"\n",
        );
        let provider = memory_provider(&own).unwrap().unwrap();
        assert_eq!(provider.name(), "memory_agent");
    }

    #[test]
    fn unknown_providers_and_bad_urls_are_config_errors() {
        let Err(err) = memory_provider(&config("[memory_agent]\nprovider = \"anthropic\"\n"))
        else {
            panic!("an unknown provider must be refused");
        };
        assert!(err.to_string().contains("use one of openai"), "{err}");
        let Err(err) = memory_provider(&config("[memory_agent]\nbase_url = \"ftp://x\"\n")) else {
            panic!("a non-http base URL must be refused");
        };
        assert!(err.to_string().contains("[memory_agent] base_url"), "{err}");
    }
}
