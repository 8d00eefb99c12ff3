//! The chat endpoint: flags over environment over `agcore.toml`, and the
//! one-sentence messages for an endpoint that is missing or does not answer.

use std::sync::Arc;
use std::time::Duration;

use agcore::agent::AgentError;
use agcore::llm::{LlmError, LlmProvider, OpenAiConfig, OpenAiProvider};

use crate::config::AppConfig;
use crate::error::CliError;

/// Base URL used when only an API key is configured.
const OPENAI_URL: &str = "https://api.openai.com/v1";
/// Time allowed until the response headers of a turn arrive.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// Default time allowed to connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A resolved endpoint.
#[derive(Clone)]
pub(crate) struct Endpoint {
    /// OpenAI-compatible base URL.
    pub base_url: String,
    /// Model id.
    pub model: String,
    api_key: Option<String>,
    connect_timeout: Duration,
    /// The configuration file named in messages.
    config_path: String,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("has_api_key", &self.api_key.is_some())
            .finish_non_exhaustive()
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn non_empty(value: Option<&String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty()).cloned()
}

impl Endpoint {
    /// Resolves the endpoint: `--base-url` / `--model`, then `OPENAI_BASE_URL`,
    /// `OPENAI_API_KEY`, `AGCORE_MODEL`, then `[llm]` of the file (an agent's
    /// own `provider` / `model`, [`AppConfig::agent_endpoint`], come before
    /// the variables). With only an API key the OpenAI API is used.
    ///
    /// # Errors
    /// [`CliError::Config`] (exit 2) with one sentence naming what to set.
    pub(crate) fn resolve(
        base_url: Option<&String>,
        model: Option<&String>,
        config: &AppConfig,
    ) -> Result<Self, CliError> {
        let config_path = config.describe_path();
        // An agent's own `provider` / `model` come before the environment.
        let ordered = |env_value: Option<String>, file: Option<&String>| {
            if config.agent_endpoint {
                non_empty(file).or(env_value)
            } else {
                env_value.or_else(|| non_empty(file))
            }
        };
        let api_key = ordered(env("OPENAI_API_KEY"), config.llm.api_key.as_ref());
        let base_url = non_empty(base_url)
            .or_else(|| ordered(env("OPENAI_BASE_URL"), config.llm.base_url.as_ref()))
            .or_else(|| api_key.as_ref().map(|_| OPENAI_URL.to_owned()));
        let model =
            non_empty(model).or_else(|| ordered(env("AGCORE_MODEL"), config.llm.model.as_ref()));
        let (base_url, model) = match (base_url, model) {
            (Some(b), Some(m)) => (b, m),
            (None, _) => {
                return Err(CliError::Config(format!(
                    "no LLM endpoint is configured: set OPENAI_BASE_URL and AGCORE_MODEL \
                     (or base_url and model under [llm] in {config_path})"
                )));
            }
            (Some(_), None) => {
                return Err(CliError::Config(format!(
                    "no model is configured: set AGCORE_MODEL, pass --model, or set model \
                     under [llm] in {config_path}"
                )));
            }
        };
        Ok(Self {
            base_url,
            model,
            api_key,
            connect_timeout: config
                .llm
                .connect_timeout_secs
                .map_or(CONNECT_TIMEOUT, Duration::from_secs),
            config_path,
        })
    }

    /// The HTTP provider for this endpoint.
    ///
    /// # Errors
    /// [`CliError::Config`] for a base URL that is not `http(s)://…`.
    pub(crate) fn provider(&self) -> Result<Arc<dyn LlmProvider>, CliError> {
        let mut config = OpenAiConfig::new(self.base_url.clone())
            .with_default_model(self.model.clone())
            .with_connect_timeout(self.connect_timeout)
            .with_request_timeout(REQUEST_TIMEOUT);
        if let Some(key) = &self.api_key {
            config = config.with_api_key(key.clone());
        }
        let provider = OpenAiProvider::new(config).map_err(|e| {
            CliError::Config(format!(
                "the LLM endpoint `{}` is not usable ({e}): set OPENAI_BASE_URL to an http(s) URL",
                self.base_url
            ))
        })?;
        Ok(Arc::new(provider))
    }

    /// The error of the first turn as one sentence saying what to set (exit 2),
    /// or `None` when the failure is not about the endpoint.
    pub(crate) fn first_turn_error(&self, err: &AgentError) -> Option<CliError> {
        let AgentError::Llm(llm) = err else {
            return None;
        };
        let url = &self.base_url;
        let fix = format!(
            "set OPENAI_BASE_URL and AGCORE_MODEL (or [llm] in {})",
            self.config_path
        );
        let message = match llm {
            LlmError::Connection(_) => {
                format!(
                    "cannot reach the LLM endpoint {url} (connection failed): start the server or {fix}"
                )
            }
            LlmError::Timeout(_) => {
                format!("the LLM endpoint {url} did not answer in time: start the server or {fix}")
            }
            LlmError::Authentication { .. } => format!(
                "the LLM endpoint {url} refused the API key: set OPENAI_API_KEY (or api_key under [llm] in {})",
                self.config_path
            ),
            LlmError::InvalidRequest { .. } | LlmError::Http { .. } | LlmError::Server { .. } => {
                format!(
                    "the LLM endpoint {url} rejected the request for model `{}` ({llm}): check AGCORE_MODEL or --model, or {fix}",
                    self.model
                )
            }
            _ => return None,
        };
        Some(CliError::Endpoint(one_line(&message)))
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
