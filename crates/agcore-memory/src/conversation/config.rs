//! [`ConversationMemoryConfig`].

use agcore_llm::compact::CompactConfig;

use crate::MemoryStrategy;

/// How a [`ConversationMemory`](super::ConversationMemory) bounds its history
/// (see `docs/memory.md`, *Conversation history*).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ConversationMemoryConfig {
    /// [`MemoryStrategy::SlidingWindow`] keeps the last `max_turns` user turns
    /// (each user message with the replies and tool messages after it; system
    /// and developer messages are kept); [`MemoryStrategy::Full`] keeps everything.
    pub strategy: MemoryStrategy,
    /// Capacity: at most this many messages are kept, the oldest (lowest
    /// sequence number) deleted first. `None` = unbounded.
    pub max_messages: Option<usize>,
    /// When set, after each write the history is checked with
    /// [`agcore_llm::compact::should_compact`] and, when over the threshold,
    /// old tool results are shrunk with [`agcore_llm::compact::microcompact`]
    /// and written back.
    pub compact_config: Option<CompactConfig>,
}

impl Default for ConversationMemoryConfig {
    /// [`MemoryStrategy::Full`], no capacity, no compaction.
    fn default() -> Self {
        Self {
            strategy: MemoryStrategy::Full,
            max_messages: None,
            compact_config: None,
        }
    }
}

impl ConversationMemoryConfig {
    /// Keep everything.
    pub fn full() -> Self {
        Self::default()
    }

    /// Keep the last `max_turns` user turns.
    pub fn sliding_window(max_turns: usize) -> Self {
        Self {
            strategy: MemoryStrategy::SlidingWindow { max_turns },
            ..Self::default()
        }
    }

    /// Keep at most `max_messages` messages (oldest evicted first).
    pub fn with_max_messages(mut self, max_messages: usize) -> Self {
        self.max_messages = Some(max_messages);
        self
    }

    /// Compacts tool results with `config` when the history grows too large.
    pub fn with_compaction(mut self, config: CompactConfig) -> Self {
        self.compact_config = Some(config);
        self
    }
}
