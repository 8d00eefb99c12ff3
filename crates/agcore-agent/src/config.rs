use std::time::Duration;

use agcore_llm::CycleConfig;
use agcore_llm::compact::CompactConfig;
use agcore_memory::ConversationMemoryConfig;
use agcore_memory::long_term::MemorySettings;

/// Recent messages compaction never touches when a memory configuration
/// turns compaction on ([`AgentConfig::with_memory_settings`]): the last
/// five turns of question and answer.
const DEFAULT_KEEP_RECENT: usize = 10;

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
    /// Most messages a session keeps in its history (default `None`: all).
    /// After each turn the oldest whole turns are dropped — a turn starts at
    /// a user message, so tool calls stay with their results; the running
    /// turn is always kept whole. With long-term memory on, dropped turns
    /// remain in short-term memory (the dialogue buffer) until promoted.
    pub max_history: Option<usize>,
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
            max_history: None,
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

    /// Sets `max_history` (`0`: no limit).
    pub fn with_max_history(mut self, messages: usize) -> Self {
        self.max_history = (messages > 0).then_some(messages);
        self
    }

    /// How a stored conversation of these sessions is bounded
    /// ([`AgentSession::from_conversation`](crate::AgentSession::from_conversation)):
    /// everything kept ([`ConversationMemoryConfig::full`]) up to
    /// `max_history` messages (the oldest evicted first; a tool result goes
    /// with its call), old tool results shrunk by the microcompaction of
    /// `compact_config`. So a resumed session sees what the session saw.
    pub fn conversation_config(&self) -> ConversationMemoryConfig {
        let mut config = ConversationMemoryConfig::full();
        if let Some(max) = self.max_history {
            config = config.with_max_messages(max);
        }
        if let Some(compact) = &self.compact_config {
            config = config.with_compaction(compact.clone());
        }
        config
    }

    /// Applies the session keys of a memory configuration file (see
    /// `docs/configuration.md`): `memory.max_history` as
    /// [`AgentConfig::max_history`]; `memory.short_term.compression_threshold`
    /// (tokens, `0` = off) as the microcompaction threshold and
    /// `memory_agent.summarize` (`enabled`, `trigger_tokens`) as the summary
    /// step of [`AgentConfig::compact_config`] — summaries are written by the
    /// `[memory_agent]` model when one is configured (see
    /// [`LongTermOptions::extraction_provider`](crate::turn_memory::LongTermOptions)).
    /// A compaction config already set keeps its window and its own
    /// `keep_recent`; only the thresholds and the summary switch change.
    /// With `memory.enabled = false` nothing is applied.
    #[must_use]
    pub fn with_memory_settings(mut self, settings: &MemorySettings) -> Self {
        let memory = &settings.memory;
        if !memory.enabled {
            return self;
        }
        self = self.with_max_history(memory.max_history);
        let summarize = &settings.memory_agent.summarize;
        let micro = memory.short_term.compression_threshold;
        let summary = summarize.enabled.then_some(summarize.trigger_tokens);
        let base = self
            .compact_config
            .take()
            .unwrap_or_else(|| CompactConfig::new(0, 0, DEFAULT_KEEP_RECENT));
        self.compact_config = match (micro, summary) {
            (0, None) => None,
            (micro, summary) => {
                // Microcompaction starts at `micro` (or, when it is off, at
                // the summary trigger, where it runs first and is free).
                let start = if micro == 0 {
                    summary.unwrap_or(0)
                } else {
                    micro
                };
                let mut config = base;
                config.context_window = start;
                config.reserved_tokens = 0;
                config.summarize = summary.is_some();
                config.summary_threshold = summary;
                config.keep_recent = config.keep_recent.max(1);
                Some(config)
            }
        };
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
        assert!(config.max_history.is_none());
    }

    #[test]
    fn memory_settings_set_history_and_compaction() {
        let defaults = AgentConfig::new("m").with_memory_settings(&MemorySettings::default());
        assert_eq!(defaults.max_history, Some(50));
        let compact = defaults.compact_config.unwrap();
        assert_eq!(compact.threshold(), 4000);
        assert!(!compact.summarize, "summarize.enabled is false by default");

        let settings = MemorySettings::from_toml_str(
            "[memory]\nmax_history = 0\n[memory.short_term]\ncompression_threshold = 0\n\
             [memory_agent.summarize]\nenabled = true\ntrigger_tokens = 900\n",
        )
        .unwrap();
        let config = AgentConfig::new("m").with_memory_settings(&settings);
        assert_eq!(config.max_history, None);
        let compact = config.compact_config.unwrap();
        assert!(compact.summarize);
        assert_eq!((compact.threshold(), compact.summary_trigger()), (900, 900));

        let off = MemorySettings::from_toml_str("[memory.short_term]\ncompression_threshold = 0\n")
            .unwrap();
        assert!(
            AgentConfig::new("m")
                .with_memory_settings(&off)
                .compact_config
                .is_none()
        );
        let disabled = MemorySettings::from_toml_str("[memory]\nenabled = false\n").unwrap();
        let untouched = AgentConfig::new("m").with_memory_settings(&disabled);
        assert!(untouched.max_history.is_none() && untouched.compact_config.is_none());
    }
}
