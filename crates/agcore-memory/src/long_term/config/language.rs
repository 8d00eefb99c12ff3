//! [`InstructionLanguage`]: the language of the memory-usage instructions
//! (`[memory] language`); the texts themselves are `agcore-agent`'s.

/// Language of the memory-usage instructions appended to the system prompt
/// (see `docs/memory.md`, *Memory instructions*).
/// In a configuration file: `en`, `zh` or `none` (`[memory] language`).
///
/// Exhaustive (not `#[non_exhaustive]`): `agcore-agent` matches on it to pick
/// the instruction texts, and a new language needs texts there anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum InstructionLanguage {
    /// `MEMORY_INSTRUCTIONS_EN` of `agcore_agent::turn_memory` (default).
    #[default]
    #[serde(rename = "en", alias = "english")]
    English,
    /// `MEMORY_INSTRUCTIONS_ZH`, the original text.
    #[serde(rename = "zh", alias = "chinese")]
    Chinese,
    /// No instructions appended.
    #[serde(rename = "none")]
    None,
}
