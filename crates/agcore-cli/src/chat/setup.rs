//! The parts of a chat agent read from the configuration, shared by
//! `agcore chat` and the chat turns of `agcore serve`: the long-term memory
//! options, the agent settings and the base prompt.

use agcore::agent::{AgentConfig, LongTermOptions};
use agcore::llm::CycleConfig;
use agcore::prompt::{PromptTemplateRegistry, TemplateContext};

use super::memory_model::memory_provider;
use crate::config::AppConfig;
use crate::error::CliError;

/// Most turns of one session.
const MAX_TURNS: u32 = 100_000;

/// The long-term options of `config` (`[memory]`, `[memory_agent]`):
/// extraction on unless the file says otherwise, on the `[memory_agent]`
/// endpoint when it names one.
///
/// # Errors
/// [`CliError::Config`] for an unreadable `[memory_agent]` timeout or endpoint.
pub(crate) fn long_term_options(config: &AppConfig) -> Result<LongTermOptions, CliError> {
    let mut options = LongTermOptions::from_settings(&config.settings)
        .map_err(|e| CliError::Config(format!("[memory_agent]: {e}")))?;
    if !config.extraction_configured {
        options = options.extraction(true);
    }
    if let Some(memory_model) = memory_provider(&config.settings.memory_agent)? {
        options = options.extraction_provider(memory_model);
    }
    Ok(options)
}

/// The agent settings of `config` for `model`: the memory settings
/// (history, compaction) and `[llm] max_tokens`.
pub(crate) fn agent_config(config: &AppConfig, model: &str) -> AgentConfig {
    let mut agent_config = AgentConfig::new(model)
        .with_max_turns(MAX_TURNS)
        .with_memory_settings(&config.settings);
    if let Some(max_tokens) = config.llm.max_tokens {
        agent_config = agent_config.with_llm(CycleConfig::new(model).with_max_tokens(max_tokens));
    }
    agent_config
}

/// The base layer of the system prompt: template `template` of `prompts`
/// (the `prompts` folder), else the built-in prompt of that name.
///
/// # Errors
/// [`CliError::Config`] naming the template when it does not render.
pub(crate) fn base_prompt(
    prompts: &PromptTemplateRegistry,
    template: &str,
) -> Result<String, CliError> {
    prompts
        .render_or_builtin(template, &TemplateContext::new())
        .map_err(|e| {
            CliError::Config(format!(
                "prompt `{template}`: {e} (templates are files `<name>.md` in the `{}` \
                 folder beside the configuration file, or built-in prompts)",
                super::prompts::PROMPTS_DIR
            ))
        })
}
