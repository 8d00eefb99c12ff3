//! `[memory.inject]`: when memories are searched for a turn and how much of
//! them goes into the prompt.

use serde::{Deserialize, Serialize};

/// When long-term memories are searched for a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LongTermTrigger {
    /// Every turn that passes the other rules (default).
    #[default]
    Always,
    /// Only turns whose message contains one of `trigger_keywords`; with
    /// no list, turns the built-in detector picks
    /// ([`needs_memory`](super::needs_memory): the past, names, technical
    /// terms, in English and Chinese).
    Keywords,
}

/// `[memory.inject]`: the rules for putting memories into the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct InjectConfig {
    /// Inject nothing on the first turn of a session (default `false`: every
    /// turn is prefetched, as long-term memory per agent + user expects —
    /// the first turn of a new session is where memories of earlier
    /// sessions matter most).
    pub first_round_empty: bool,
    /// Most recent short-term turns that are no longer in the message
    /// history injected into the `<memory-context>` block (default 3; 0 = none).
    pub short_term_count: usize,
    /// When to search long-term memory (default `always`).
    pub long_term_trigger: LongTermTrigger,
    /// Keywords for `long_term_trigger = "keywords"` (case-insensitive
    /// substrings); empty = the built-in detector
    /// ([`needs_memory`](super::needs_memory)).
    pub trigger_keywords: Vec<String>,
    /// Messages shorter than this many characters (after trimming) inject nothing (default 4).
    pub min_query_length: usize,
    /// Most tokens of injected memory text (default 800).
    pub token_budget: usize,
}

impl Default for InjectConfig {
    fn default() -> Self {
        Self {
            first_round_empty: false,
            short_term_count: 3,
            long_term_trigger: LongTermTrigger::Always,
            trigger_keywords: Vec::new(),
            min_query_length: 4,
            token_budget: 800,
        }
    }
}

impl InjectConfig {
    /// Whether to search long-term memory for `query` when the session already
    /// holds `prior_messages` messages (see `docs/memory.md`, *Prefetch*): not
    /// on the first round when `first_round_empty`,
    /// not for messages shorter than `min_query_length` characters, and with
    /// the `keywords` trigger only when a keyword occurs (with no keywords
    /// listed, when [`needs_memory`](super::needs_memory) says so).
    pub fn should_inject(&self, query: &str, prior_messages: usize) -> bool {
        if self.first_round_empty && prior_messages == 0 {
            return false;
        }
        let query = query.trim();
        if query.chars().count() < self.min_query_length {
            return false;
        }
        match self.long_term_trigger {
            LongTermTrigger::Always => true,
            LongTermTrigger::Keywords => {
                if self.trigger_keywords.iter().all(|k| k.trim().is_empty()) {
                    return super::needs_memory(query);
                }
                let lower = query.to_lowercase();
                self.trigger_keywords
                    .iter()
                    .any(|k| !k.trim().is_empty() && lower.contains(&k.trim().to_lowercase()))
            }
        }
    }
}
