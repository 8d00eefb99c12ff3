//! The configuration as one agent sees it: its own memory settings (seed
//! 004 §8.1, `[agents.NAME.memory]`) over the global `[memory]` section,
//! where its long-term memory lives, and its endpoint (`provider`, `model`,
//! seed 003's node config) from the named `[providers.NAME]` sections.

use std::path::Path;

use crate::config::{AppConfig, LlmSection};
use crate::error::CliError;
use crate::places::long_term_location;

/// The provider name that means `[llm]` unless `[providers.openai]` exists.
const DEFAULT_PROVIDER: &str = "openai";

impl AppConfig {
    /// This configuration for the agent `name`: its `memory` keys applied
    /// over `[memory]` (with `sqlite_path` resolved against the file's
    /// folder and its backend chosen as its long-term location), and
    /// `[llm]` replaced by its `provider` section with its `model`. An
    /// agent the file does not declare gets the configuration unchanged.
    ///
    /// # Errors
    /// [`CliError::Config`]: a `provider` with no `[providers.NAME]`
    /// section, `prefetch_limit = 0`, a server backend word without a
    /// matching `[storage] url`.
    pub fn for_agent(&self, name: &str) -> Result<Self, CliError> {
        let Some(agent) = self.attach.agent(name) else {
            return Ok(self.clone());
        };
        let mut out = self.clone();
        if let Some(memory) = &agent.memory {
            let bad = |e: agcore::memory::MemoryError| {
                CliError::Config(format!("{}: agent `{name}`: {e}", self.describe_path()))
            };
            out.settings = memory.apply(&self.settings).map_err(bad)?;
            if memory.sets_location() {
                let long_term = &mut out.settings.memory.long_term;
                long_term.path = self.folder().join(&long_term.path);
                out.long_term_location = Some(long_term_location(
                    &long_term.backend,
                    &long_term.path,
                    self.storage_url.as_deref(),
                    self.path.as_deref(),
                    &format!("agent `{name}`'s memory.backend"),
                )?);
            }
        }
        if let Some(provider) = &agent.provider {
            out.llm = self.provider(provider, name)?;
            out.agent_endpoint = true;
        }
        if let Some(model) = agent.model.as_ref().filter(|m| !m.trim().is_empty()) {
            out.llm.model = Some(model.clone());
            out.agent_endpoint = true;
        }
        Ok(out)
    }

    /// The `[providers.NAME]` section; `openai` is `[llm]` unless declared.
    fn provider(&self, provider: &str, agent: &str) -> Result<LlmSection, CliError> {
        if let Some(section) = self.providers.get(provider) {
            return Ok(section.clone());
        }
        if provider == DEFAULT_PROVIDER {
            return Ok(self.llm.clone());
        }
        let known: Vec<String> = self.providers.keys().map(|k| format!("`{k}`")).collect();
        Err(CliError::Config(format!(
            "{}: agent `{agent}` names the provider `{provider}`, which has no \
             `providers.{provider}` section (declared: {}; `openai` is `[llm]`)",
            self.describe_path(),
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        )))
    }

    /// The folder of the configuration file (`.` without a file).
    pub fn folder(&self) -> &Path {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or_else(|| Path::new("."))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    const TOML: &str = "[llm]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n\
        [providers.local]\nbase_url = \"http://127.0.0.1:2/v1\"\nmodel = \"small\"\n\
        [memory.long_term]\nmax_return = 4\n\
        [agents.helper]\nprovider = \"local\"\n\
        [agents.helper.memory]\nenabled = false\nsqlitePath = \"helper.db\"\nprefetchLimit = 2\nlanguage = \"zh\"\n\
        [agents.writer]\nmodel = \"big\"\n";

    #[test]
    fn an_agents_own_keys_override_the_global_sections() {
        let config = AppConfig::parse(TOML, Path::new("/etc/agcore/agcore.toml")).unwrap();
        let helper = config.for_agent("helper").unwrap();
        let long_term = &helper.settings.memory.long_term;
        assert!(!long_term.enabled);
        assert_eq!(long_term.max_return, 2);
        assert_eq!(long_term.path, PathBuf::from("/etc/agcore/helper.db"));
        assert_eq!(
            helper.long_term_location.as_deref(),
            Some("/etc/agcore/helper.db")
        );
        assert_eq!(
            helper.settings.memory.language,
            agcore::memory::long_term::InstructionLanguage::Chinese
        );
        assert_eq!(
            helper.llm.base_url.as_deref(),
            Some("http://127.0.0.1:2/v1")
        );
        assert_eq!(helper.llm.model.as_deref(), Some("small"));
        let writer = config.for_agent("writer").unwrap();
        assert_eq!(writer.llm.model.as_deref(), Some("big"));
        assert_eq!(writer.settings.memory.long_term.max_return, 4);
        assert_eq!(writer.long_term_location, None);
        let other = config.for_agent("nobody").unwrap();
        assert_eq!(other.settings, config.settings);
        let bad = "[agents.a]\nprovider = \"nowhere\"\n";
        let err = AppConfig::parse(bad, Path::new("x.toml"))
            .unwrap()
            .for_agent("a")
            .unwrap_err();
        assert!(err.to_string().contains("providers.nowhere"), "{err}");
    }
}
