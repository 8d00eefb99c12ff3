//! The chat turns of `agcore serve`: the LLM endpoint `agcore chat` uses
//! (`OPENAI_BASE_URL`, `AGCORE_MODEL`, `[llm]`), the memory settings of the
//! configuration file and the base prompt `cli.chat.base`.

use agcore::prompt::builtin::names;
use agcore_server::ChatRuntime;

use crate::chat::endpoint::Endpoint;
use crate::chat::{prompts, setup};
use crate::config::AppConfig;
use crate::error::CliError;

/// The chat runtime of `config`, or `None` (chat answers 503) when no
/// endpoint is configured, which is reported on stderr.
///
/// # Errors
/// [`CliError::Config`] for an endpoint or memory settings that are set but
/// unusable, or a base prompt that does not render.
pub(crate) async fn runtime(config: &AppConfig) -> Result<Option<ChatRuntime>, CliError> {
    let endpoint = match Endpoint::resolve(None, None, config) {
        Ok(endpoint) => endpoint,
        Err(err) => {
            eprintln!("agcore serve: chat is off ({err})");
            return Ok(None);
        }
    };
    let provider = endpoint.provider()?;
    let options = setup::long_term_options(config)?;
    let prompts = prompts::load(config).await?;
    let base = setup::base_prompt(&prompts, names::CLI_CHAT_BASE)?;
    tracing::info!(model = %endpoint.model, base_url = %endpoint.base_url, "chat on");
    Ok(Some(
        ChatRuntime::new(provider, endpoint.model.clone())
            .with_long_term(options)
            .with_agent_config(setup::agent_config(config, &endpoint.model))
            .with_base_prompt(base),
    ))
}
