//! An agent's own memory settings (seed 004 §8.1's `AgentConfig.memory`):
//! `enabled`, `backend`, `sqlitePath`, `prefetchLimit` and the language of
//! the memory instructions, each overriding the global `[memory]` section
//! for that agent only.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{BackendKind, InstructionLanguage, MemorySettings};
use crate::MemoryError;

/// `memory` of one agent (`[agents.NAME.memory]` in TOML, `agents[].memory`
/// or a DevAll node's `config.memory` in YAML). Every key is optional: an
/// absent key keeps the global section's value. The seed's camelCase
/// spellings (`sqlitePath`, `prefetchLimit`) are accepted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct AgentMemoryConfig {
    /// Long-term memory on or off for this agent (`memory.long_term.enabled`).
    pub enabled: Option<bool>,
    /// Where this agent's long-term memory lives: `sqlite`, `memory`,
    /// `mysql`, `postgres` or a storage URL (`memory.long_term.backend`).
    #[schemars(with = "Option<String>")]
    pub backend: Option<BackendKind>,
    /// The SQLite file of this agent (`memory.long_term.path`); relative
    /// paths are resolved by the reader (the `agcore` program: against the
    /// configuration file's folder).
    #[serde(alias = "sqlitePath")]
    pub sqlite_path: Option<PathBuf>,
    /// Most memories a prefetch or recall returns, ≥ 1 (`memory.long_term.max_return`).
    #[serde(alias = "prefetchLimit")]
    pub prefetch_limit: Option<usize>,
    /// Language of the memory instructions and the `<memory-context>`
    /// preamble: `en`, `zh` or `none` (`memory.language`).
    #[schemars(with = "Option<String>")]
    pub language: Option<InstructionLanguage>,
}

impl AgentMemoryConfig {
    /// `settings` with this agent's keys applied over the global ones.
    /// `sqlite_path` alone (no `backend`) also selects `sqlite`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for `prefetch_limit = 0`.
    pub fn apply(&self, settings: &MemorySettings) -> Result<MemorySettings, MemoryError> {
        let mut out = settings.clone();
        let long_term = &mut out.memory.long_term;
        if let Some(enabled) = self.enabled {
            long_term.enabled = enabled;
        }
        if let Some(path) = &self.sqlite_path {
            long_term.path.clone_from(path);
            long_term.backend = BackendKind::Sqlite;
        }
        if let Some(backend) = &self.backend {
            long_term.backend = backend.clone();
        }
        if let Some(limit) = self.prefetch_limit {
            if limit == 0 {
                return Err(MemoryError::InvalidInput(
                    "an agent's memory.prefetch_limit must be ≥ 1".to_owned(),
                ));
            }
            long_term.max_return = limit;
        }
        if let Some(language) = self.language {
            out.memory.language = language;
        }
        Ok(out)
    }

    /// Whether it sets where long-term memory lives (`backend` or `sqlite_path`).
    pub fn sets_location(&self) -> bool {
        self.backend.is_some() || self.sqlite_path.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_keys_override_the_global_section() {
        let agent: AgentMemoryConfig = serde_json::from_value(serde_json::json!({
            "enabled": false, "sqlitePath": "a.db", "prefetchLimit": 2, "language": "zh"
        }))
        .unwrap();
        let global = MemorySettings::default();
        let applied = agent.apply(&global).unwrap();
        assert!(!applied.memory.long_term.enabled);
        assert_eq!(applied.memory.long_term.path, PathBuf::from("a.db"));
        assert_eq!(applied.memory.long_term.max_return, 2);
        assert_eq!(applied.memory.language, InstructionLanguage::Chinese);
        assert!(agent.sets_location());
        let empty = AgentMemoryConfig::default();
        assert_eq!(empty.apply(&global).unwrap(), global);
        assert!(!empty.sets_location());
        let zero = AgentMemoryConfig {
            prefetch_limit: Some(0),
            ..AgentMemoryConfig::default()
        };
        assert!(zero.apply(&global).is_err());
        let bad = serde_json::from_value::<AgentMemoryConfig>(serde_json::json!({"prefetch": 1}));
        assert!(bad.is_err());
    }
}
