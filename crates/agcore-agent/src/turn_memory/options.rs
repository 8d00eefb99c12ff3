//! [`LongTermOptions`]: how a bundle uses long-term memory.

use std::sync::Arc;
use std::time::Duration;

use agcore_llm::LlmProvider;
use agcore_memory::long_term::{ExtractConfig, InjectConfig, InstructionLanguage, MemorySettings};

use super::WritableTypes;

/// How the sessions of a bundle use long-term memory: prefetch, the dialogue
/// buffer and background fact extraction (`[memory.inject]`,
/// `[memory_agent.extract]`; see `docs/memory.md`, *Configuration*).
///
/// Defaults: prefetch on with [`InjectConfig::default`] (every turn,
/// messages of ≥ 4 characters, 800-token budget) and 5 entries;
/// extraction on every [`ExtractConfig::batch_size`] (5) turns with the
/// bundle's provider and model, a 30 s timeout, facts of confidence ≥ 0.7;
/// English instructions; a reply references a memory when ≥ 0.5 of the
/// memory's keywords occur in it.
#[derive(Clone)]
#[non_exhaustive]
pub struct LongTermOptions {
    /// Long-term memory on for this agent (default `true`). `false`: the
    /// builder registers no memory tools and sessions inject, buffer and
    /// extract nothing, as if no memory were configured.
    pub enabled: bool,
    /// Register the `memory_save` / `memory_recall` tools and append the
    /// memory instructions that describe them (default `true`).
    pub tools: bool,
    /// The memory types this agent may write through `memory_save` and
    /// extraction (default: all four).
    pub writable_types: WritableTypes,
    /// Search memory before each turn and inject the `<memory-context>` block.
    pub prefetch: bool,
    /// Injection rules (first round, minimum length, trigger, token budget).
    pub inject: InjectConfig,
    /// Most entries injected per turn (`[memory.long_term] max_return`, default 5).
    pub prefetch_limit: usize,
    /// Most recent turns of a conversation kept as short-term memory
    /// (`[memory.short_term] max_items`, default 20): with extraction on, an
    /// extraction (promotion to long-term memory) starts once this many
    /// turns await it, even before `extract.batch_size`; with extraction off
    /// older turns leave the dialogue buffer. `inject.short_term_count` of
    /// them, those no longer in the message history, are injected.
    pub short_term_items: usize,
    /// Run fact extraction over the dialogue buffer.
    pub extraction: bool,
    /// Extraction settings; `batch_size` is the number of turns between runs.
    pub extract: ExtractConfig,
    /// Model of the extraction request (`None`: the bundle's model).
    pub extraction_model: Option<String>,
    /// Provider of the extraction request (`None`: the bundle's provider).
    pub extraction_provider: Option<Arc<dyn LlmProvider>>,
    /// Longest wait for the extraction reply.
    pub extraction_timeout: Duration,
    /// Language of the instructions appended to the system prompt.
    pub language: InstructionLanguage,
    /// Share of a memory's keywords a reply must contain to count as
    /// referencing it ([`detect_references`](agcore_memory::long_term::detect_references)).
    pub reference_min_overlap: f64,
    /// The extraction response format the server accepted last.
    pub(crate) format_state: super::structured::FormatState,
    /// The rendered `memory.extraction` override of the bundle's prompts
    /// (`None`: the built-in instructions), set per extraction run.
    pub(crate) extraction_instructions: Option<String>,
    /// Instruction-like lines of the conversation's recent tool results,
    /// set on the copy one extraction run gets (see `screen_facts`).
    pub(crate) tool_lines: Vec<String>,
}

impl std::fmt::Debug for LongTermOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LongTermOptions")
            .field("enabled", &self.enabled)
            .field("tools", &self.tools)
            .field("writable_types", &self.writable_types)
            .field("prefetch", &self.prefetch)
            .field("inject", &self.inject)
            .field("prefetch_limit", &self.prefetch_limit)
            .field("short_term_items", &self.short_term_items)
            .field("extraction", &self.extraction)
            .field("extract", &self.extract)
            .field("extraction_model", &self.extraction_model)
            .field(
                "extraction_provider",
                &self
                    .extraction_provider
                    .as_ref()
                    .map(|p| p.name().to_owned()),
            )
            .field("extraction_timeout", &self.extraction_timeout)
            .field("language", &self.language)
            .field("reference_min_overlap", &self.reference_min_overlap)
            .finish()
    }
}

impl Default for LongTermOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            tools: true,
            writable_types: WritableTypes::all(),
            prefetch: true,
            inject: InjectConfig::default(),
            prefetch_limit: 5,
            short_term_items: 20,
            extraction: true,
            extract: ExtractConfig::default(),
            extraction_model: None,
            extraction_provider: None,
            extraction_timeout: Duration::from_secs(30),
            language: InstructionLanguage::English,
            reference_min_overlap: 0.5,
            format_state: super::structured::FormatState::default(),
            extraction_instructions: None,
            tool_lines: Vec::new(),
        }
    }
}

impl LongTermOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Options from parsed `[memory]` / `[memory_agent]` settings: prefetch
    /// when `memory.enabled` and `memory.long_term.enabled`, the inject
    /// rules, `long_term.max_return` as the prefetch limit, the extract
    /// settings, extraction when `memory_agent.enabled`, its model (when not
    /// empty) and timeout, and `memory.language`.
    ///
    /// # Errors
    /// [`agcore_memory::MemoryError::InvalidInput`] for an unreadable `timeout`.
    pub fn from_settings(settings: &MemorySettings) -> Result<Self, agcore_memory::MemoryError> {
        let agent = &settings.memory_agent;
        let enabled = settings.memory.enabled && settings.memory.long_term.enabled;
        Ok(Self {
            enabled,
            prefetch: enabled,
            inject: settings.memory.inject.clone(),
            prefetch_limit: settings.memory.long_term.max_return,
            short_term_items: settings.memory.short_term.max_items,
            extraction: agent.enabled,
            extract: agent.extract.clone(),
            extraction_model: (!agent.model.trim().is_empty()).then(|| agent.model.clone()),
            extraction_timeout: agent.timeout()?,
            language: settings.memory.language,
            ..Self::default()
        })
    }

    /// Turns long-term memory on or off for this agent (off: no tools, no
    /// prefetch, no buffer, no extraction).
    #[must_use]
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Registers the memory tools (and their instructions) or not.
    #[must_use]
    pub fn tools(mut self, enabled: bool) -> Self {
        self.tools = enabled;
        self
    }

    /// Restricts the memory types this agent may write.
    #[must_use]
    pub fn writable_types(mut self, types: WritableTypes) -> Self {
        self.writable_types = types;
        self
    }

    /// Turns prefetch on or off.
    #[must_use]
    pub fn prefetch(mut self, enabled: bool) -> Self {
        self.prefetch = enabled;
        self
    }

    /// Sets the injection rules.
    #[must_use]
    pub fn inject(mut self, inject: InjectConfig) -> Self {
        self.inject = inject;
        self
    }

    /// Sets the most entries injected per turn.
    #[must_use]
    pub fn prefetch_limit(mut self, limit: usize) -> Self {
        self.prefetch_limit = limit;
        self
    }

    /// Sets the most turns kept as short-term memory (at least 1).
    #[must_use]
    pub fn short_term_items(mut self, turns: usize) -> Self {
        self.short_term_items = turns.max(1);
        self
    }

    /// Turns fact extraction on or off.
    #[must_use]
    pub fn extraction(mut self, enabled: bool) -> Self {
        self.extraction = enabled;
        self
    }

    /// Sets the extraction settings.
    #[must_use]
    pub fn extract(mut self, extract: ExtractConfig) -> Self {
        self.extract = extract;
        self
    }

    /// Runs extraction every `turns` turns (sets `extract.batch_size`; 0 acts as 1).
    #[must_use]
    pub fn extract_every(mut self, turns: usize) -> Self {
        self.extract.batch_size = turns;
        self
    }

    /// Sets the extraction model.
    #[must_use]
    pub fn extraction_model(mut self, model: impl Into<String>) -> Self {
        self.extraction_model = Some(model.into());
        self
    }

    /// Sets a provider for extraction other than the bundle's.
    #[must_use]
    pub fn extraction_provider(mut self, provider: Arc<dyn LlmProvider>) -> Self {
        self.extraction_provider = Some(provider);
        self
    }

    /// Sets the extraction timeout.
    #[must_use]
    pub fn extraction_timeout(mut self, timeout: Duration) -> Self {
        self.extraction_timeout = timeout;
        self
    }

    /// Sets the instruction language.
    #[must_use]
    pub fn language(mut self, language: InstructionLanguage) -> Self {
        self.language = language;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_map_onto_options() {
        let toml = "[memory.inject]\nmin_query_length = 8\n\n[memory.long_term]\nmax_return = 3\n\n\
                    [memory_agent]\nenabled = true\nmodel = \"small\"\ntimeout = \"5s\"\n\n\
                    [memory_agent.extract]\nbatch_size = 4\nmin_confidence = 0.8\n";
        let settings = MemorySettings::from_toml_str(toml).unwrap();
        let options = LongTermOptions::from_settings(&settings).unwrap();
        assert_eq!(options.inject.min_query_length, 8);
        assert_eq!(options.prefetch_limit, 3);
        assert!(options.extraction);
        assert_eq!(options.extraction_model.as_deref(), Some("small"));
        assert_eq!(options.extraction_timeout, Duration::from_secs(5));
        assert_eq!(options.extract.batch_size, 4);
        assert!((options.extract.min_confidence - 0.8).abs() < f64::EPSILON);
        let defaults = LongTermOptions::from_settings(&MemorySettings::default()).unwrap();
        assert!(!defaults.extraction);
        assert_eq!(defaults.extraction_model, None);
    }
}
