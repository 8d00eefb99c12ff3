use serde::{Deserialize, Serialize};

/// When a store drops old items (see `docs/memory.md`, *Eviction*).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EvictionConfig {
    /// What to drop.
    pub policy: EvictionPolicy,
    /// Check the policy after every `check_interval` writes (≥ 1; 1 = every write).
    pub check_interval: usize,
}

/// What an [`EvictionConfig`] drops.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EvictionPolicy {
    /// Never drop anything (the default).
    None,
    /// Drop items whose `created_at` is more than `ttl_secs` seconds ago.
    Ttl {
        /// Time to live, in seconds.
        ttl_secs: u64,
    },
    /// Keep at most `max_items`, dropping the oldest by `created_at` (then id).
    Capacity {
        /// Maximum number of items kept.
        max_items: usize,
    },
}

impl Default for EvictionConfig {
    fn default() -> Self {
        Self {
            policy: EvictionPolicy::None,
            check_interval: 1,
        }
    }
}

impl EvictionConfig {
    /// No eviction.
    pub fn none() -> Self {
        Self::default()
    }

    /// Drop items older than `ttl_secs` seconds, checked every `check_interval` writes.
    pub fn ttl(ttl_secs: u64, check_interval: usize) -> Self {
        Self {
            policy: EvictionPolicy::Ttl { ttl_secs },
            check_interval: check_interval.max(1),
        }
    }

    /// Keep at most `max_items`, checked every `check_interval` writes.
    pub fn capacity(max_items: usize, check_interval: usize) -> Self {
        Self {
            policy: EvictionPolicy::Capacity { max_items },
            check_interval: check_interval.max(1),
        }
    }
}
