//! [`InMemoryStore`]'s eviction: TTL and capacity, checked every
//! `check_interval` writes (see [`EvictionConfig`](crate::EvictionConfig)).

use chrono::Utc;

use super::InMemoryStore;
use super::index::Index;
use crate::EvictionPolicy;

impl InMemoryStore {
    /// Counts `writes` and evicts when `check_interval` is reached.
    pub(super) fn after_writes(&self, inner: &mut Index, writes: usize) {
        inner.writes_since_check = inner.writes_since_check.saturating_add(writes);
        if inner.writes_since_check >= self.eviction.check_interval.max(1) {
            inner.writes_since_check = 0;
            self.evict(inner);
        }
    }

    /// Drops what the policy selects now; returns how many items went.
    pub(super) fn evict(&self, inner: &mut Index) -> usize {
        let victims = match &self.eviction.policy {
            EvictionPolicy::Ttl { ttl_secs } => {
                let ttl = i64::try_from(*ttl_secs)
                    .ok()
                    .and_then(chrono::Duration::try_seconds);
                match ttl.and_then(|ttl| Utc::now().checked_sub_signed(ttl)) {
                    Some(cutoff) => inner.created_up_to(cutoff),
                    None => Vec::new(),
                }
            }
            EvictionPolicy::Capacity { max_items } => {
                inner.oldest(inner.len().saturating_sub(*max_items))
            }
            _ => Vec::new(),
        };
        for id in &victims {
            inner.remove(id);
        }
        if !victims.is_empty() {
            tracing::debug!(store = "in_memory", evicted = victims.len(), "eviction");
        }
        victims.len()
    }
}
