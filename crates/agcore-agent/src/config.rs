use std::time::Duration;

use agcore_llm::CycleConfig;
use agcore_llm::compact::CompactConfig;

/// Limits and settings shared by every session of a [`crate::RuntimeBundle`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentConfig {
    /// Most user turns one session may run (default 50); the next
    /// `submit_turn` fails with [`crate::AgentError::LimitExceeded`].
    pub max_turns: u32,
    /// How long a session lives from its creation (default `None`: forever);
    /// a turn started after it fails with [`crate::AgentError::LimitExceeded`].
    pub session_ttl: Option<Duration>,
    /// Context compaction before each model request (default `None`: off).
    pub compact_config: Option<CompactConfig>,
    /// Model, sampling, retry, price and tool-loop settings of each turn's
    /// `LlmCycle`, `max_tool_turns` (most model rounds that ask for tools
    /// within one turn, default 10) included.
    pub llm: CycleConfig,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_turns: 50,
            session_ttl: None,
            compact_config: None,
            llm: CycleConfig::default(),
        }
    }
}

impl AgentConfig {
    /// The defaults with `model` as the model id.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            llm: CycleConfig::new(model),
            ..Self::default()
        }
    }

    /// Sets `max_turns`.
    pub fn with_max_turns(mut self, max_turns: u32) -> Self {
        self.max_turns = max_turns;
        self
    }

    /// Sets the cycle's `max_tool_turns` ([`CycleConfig::max_tool_turns`]).
    pub fn with_max_tool_turns(mut self, max_tool_turns: u32) -> Self {
        self.llm.max_tool_turns = max_tool_turns;
        self
    }

    /// Sets `session_ttl`.
    pub fn with_session_ttl(mut self, ttl: Duration) -> Self {
        self.session_ttl = Some(ttl);
        self
    }

    /// Sets `compact_config`.
    pub fn with_compact_config(mut self, config: CompactConfig) -> Self {
        self.compact_config = Some(config);
        self
    }

    /// Replaces the per-turn cycle settings, `max_tool_turns` included (set
    /// it on `llm`, or call [`AgentConfig::with_max_tool_turns`] after).
    pub fn with_llm(mut self, llm: CycleConfig) -> Self {
        self.llm = llm;
        self
    }

    /// The cycle configuration of each turn (the `llm` field).
    pub fn cycle_config(&self) -> &CycleConfig {
        &self.llm
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_design() {
        let config = AgentConfig::default();
        assert_eq!(config.max_turns, 50);
        assert_eq!(config.cycle_config().max_tool_turns, 10);
        assert!(config.session_ttl.is_none());
        assert!(config.compact_config.is_none());
        let config = AgentConfig::new("m").with_max_tool_turns(3);
        let cycle = config.cycle_config();
        assert_eq!((cycle.model.as_str(), cycle.max_tool_turns), ("m", 3));
    }
}
