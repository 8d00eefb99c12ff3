//! TOML configuration of the memory system: the `[memory]` and
//! `[memory_agent]` sections (see `docs/memory.md`, *Configuration*). Every key has a
//! default; `docs/configuration.md` documents them all, with the example file
//! `config.example.toml` at the repository root.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::dedupe::DEFAULT_DEDUPE_THRESHOLD;
use super::weights::WeightRules;

mod agent;
mod backend;
mod inject;
mod language;
mod per_agent;
mod recall_cue;
/// The configuration helpers of `agcore-config`, at their former path.
pub use agcore_config as suggest;

use crate::MemoryError;
pub use agent::{
    ExtractConfig, MemoryAgentConfig, StructuredOutput, SummarizeConfig, parse_duration,
};
pub use backend::{BACKEND_WORDS, BackendKind};
pub use inject::{InjectConfig, LongTermTrigger};
pub use language::InstructionLanguage;
pub use per_agent::AgentMemoryConfig;
pub use recall_cue::needs_memory;

/// The memory sections of a configuration file. Other top-level sections are
/// ignored (they belong to other components), except misspellings of the
/// memory sections (`[memroy]`); unknown keys inside the memory sections are
/// errors naming the nearest valid key ([`suggest`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct MemorySettings {
    /// `[memory]`.
    pub memory: MemoryConfig,
    /// `[memory_agent]`.
    pub memory_agent: MemoryAgentConfig,
}

impl MemorySettings {
    /// The top-level sections this type reads.
    pub const SECTIONS: [&'static str; 2] = ["memory", "memory_agent"];

    /// Parses and validates a TOML document.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] with TOML's message for syntax errors;
    /// for wrong types and unknown keys or values, the line, the dotted key
    /// path and the nearest valid key (``unknown key
    /// `memory.long_term.max_retrun`; did you mean `max_return`?``); or the
    /// failed check of [`MemorySettings::validate`].
    ///
    /// # Examples
    /// ```
    /// use agcore_memory::long_term::MemorySettings;
    /// let s = MemorySettings::from_toml_str("[memory.inject]\nmin_query_length = 8\n")?;
    /// assert_eq!(s.memory.inject.min_query_length, 8);
    /// assert_eq!(s.memory.long_term.max_return, 5);
    /// # Ok::<(), agcore_memory::MemoryError>(())
    /// ```
    pub fn from_toml_str(text: &str) -> Result<Self, MemoryError> {
        let invalid = |e: String| MemoryError::InvalidInput(format!("memory configuration: {e}"));
        let settings: Self = suggest::from_toml_text(text).map_err(invalid)?;
        let table: toml::Table = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        suggest::check_top_level(&table, &Self::SECTIONS, suggest::Notation::Toml, true)
            .map_err(invalid)?;
        settings.validate()?;
        Ok(settings)
    }

    /// Checks the values: weight rules, `0 ≤ min_confidence ≤ 1`, batch
    /// size and `max_return` ≥ 1, a parsable timeout and maintenance
    /// interval, `0 < dedupe_threshold ≤ 1`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] naming the key.
    pub fn validate(&self) -> Result<(), MemoryError> {
        self.memory.long_term.weight_rules().validate()?;
        let invalid = |m: &str| {
            Err(MemoryError::InvalidInput(format!(
                "memory configuration: {m}"
            )))
        };
        if self.memory.long_term.max_return == 0 {
            return invalid("memory.long_term.max_return must be ≥ 1");
        }
        if self.memory.short_term.max_items == 0 {
            return invalid("memory.short_term.max_items must be ≥ 1");
        }
        let threshold = self.memory.long_term.dedupe_threshold;
        if !(threshold > 0.0 && threshold <= 1.0) {
            return invalid("memory.long_term.dedupe_threshold must be in (0, 1]");
        }
        self.memory.long_term.maintenance_period()?;
        let extract = &self.memory_agent.extract;
        if !(0.0..=1.0).contains(&extract.min_confidence) {
            return invalid("memory_agent.extract.min_confidence must be in [0, 1]");
        }
        if extract.batch_size == 0 || extract.max_facts == 0 {
            return invalid("memory_agent.extract.batch_size and max_facts must be ≥ 1");
        }
        self.memory_agent.timeout()?;
        Ok(())
    }
}

/// `[memory]`: short-term and long-term memory and injection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct MemoryConfig {
    /// Master switch (default `true`).
    pub enabled: bool,
    /// Most messages a session keeps in its history (default 50; 0 = no
    /// limit; applied by `AgentConfig::with_memory_settings`).
    pub max_history: usize,
    /// `[memory.short_term]`.
    pub short_term: ShortTermConfig,
    /// `[memory.long_term]`.
    pub long_term: LongTermConfig,
    /// `[memory.inject]`.
    pub inject: InjectConfig,
    /// Language of the memory instructions and of the `<memory-context>`
    /// preamble and headings: `en` (default), `zh` or `none` (no
    /// instructions; English headings). Applied by `LongTermOptions::from_settings`.
    pub language: InstructionLanguage,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_history: 50,
            short_term: ShortTermConfig::default(),
            long_term: LongTermConfig::default(),
            inject: InjectConfig::default(),
            language: InstructionLanguage::English,
        }
    }
}

/// `[memory.short_term]`: the conversation's working memory — its recent
/// turns, kept in the dialogue buffer until fact extraction promotes them
/// to long-term memory — and the compaction of its message history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ShortTermConfig {
    /// Most recent turns kept as short-term memory per conversation
    /// (default 20, ≥ 1): past it an extraction starts, or with extraction
    /// off the oldest leave the buffer (see `LongTermOptions::short_term_items`).
    pub max_items: usize,
    /// Microcompact the message history (old tool results replaced by a
    /// marker) once it exceeds this many tokens (default 4000; 0 = off;
    /// applied by `AgentConfig::with_memory_settings`).
    pub compression_threshold: usize,
}

impl Default for ShortTermConfig {
    fn default() -> Self {
        Self {
            max_items: 20,
            compression_threshold: 4000,
        }
    }
}

/// `[memory.long_term]`: the store and its weight rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct LongTermConfig {
    /// Long-term memory on (default `true`).
    pub enabled: bool,
    /// Backend (default `sqlite`): a word or a storage URL, see [`BackendKind`].
    pub backend: BackendKind,
    /// SQLite file (default `memory/long_term.db`, relative to the working directory).
    pub path: PathBuf,
    /// Most memories returned by a prefetch or recall (default 5).
    pub max_return: usize,
    /// Maintenance archives entries whose weight is below this (default 0.3).
    pub archive_threshold: f64,
    /// Applied dialogue-buffer turns are purged after this many days (default 7).
    pub buffer_retention_days: u32,
    /// How often maintenance (decay, archiving, dedupe, buffer purge) runs in
    /// the background of a long-running process such as `agcore chat`: a
    /// number with unit `ms`, `s`, `m` or `h` (default `24h`); `0s` or empty
    /// turns the schedule off (`agcore memory maintain` still runs it).
    pub maintenance_interval: String,
    /// Maintenance archives near-duplicate entries as superseded (default `true`).
    pub dedupe: bool,
    /// Jaccard similarity of the indexed term sets (name, content,
    /// description) at or above which two active entries of one type are
    /// near duplicates, in `(0, 1]` (default 0.9).
    pub dedupe_threshold: f64,
    /// `[memory.long_term.weights]`: the weight formulas.
    pub weights: WeightRules,
}

impl Default for LongTermConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            backend: BackendKind::Sqlite,
            path: PathBuf::from("memory/long_term.db"),
            max_return: 5,
            archive_threshold: WeightRules::default().archive_threshold,
            buffer_retention_days: 7,
            maintenance_interval: "24h".into(),
            dedupe: true,
            dedupe_threshold: DEFAULT_DEDUPE_THRESHOLD,
            weights: WeightRules::default(),
        }
    }
}

impl LongTermConfig {
    /// The weight rules with `archive_threshold` taken from this section.
    pub fn weight_rules(&self) -> WeightRules {
        WeightRules {
            archive_threshold: self.archive_threshold,
            ..self.weights
        }
    }

    /// How long applied buffer turns are kept.
    pub fn buffer_retention(&self) -> Duration {
        Duration::from_secs(u64::from(self.buffer_retention_days) * 86_400)
    }

    /// `maintenance_interval` as a duration; `None` when the schedule is off
    /// (`0s`, or empty).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for text that is not `<number><ms|s|m|h>`.
    pub fn maintenance_period(&self) -> Result<Option<Duration>, MemoryError> {
        if self.maintenance_interval.trim().is_empty() {
            return Ok(None);
        }
        let period = parse_duration(&self.maintenance_interval).map_err(|e| {
            MemoryError::InvalidInput(format!("memory.long_term.maintenance_interval: {e}"))
        })?;
        Ok((!period.is_zero()).then_some(period))
    }
}
