//! What the database backends' stores share about writes: a batch applied
//! as one item per id in id order ([`last_per_id`]), the eviction cadence
//! ([`EvictionCounter`]) and TTL cutoff ([`ttl_cutoff`]), and the
//! statistics row a store handle adds its changes to ([`next_shard`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};

use crate::{EvictionConfig, EvictionPolicy, MemoryItem};

/// The items of a batch saved together, as if saved in order: the last of
/// several with one id wins, and the items come in id order (one order of
/// row locks across concurrent writers).
pub fn last_per_id(items: Vec<MemoryItem>) -> Vec<MemoryItem> {
    let mut by_id: BTreeMap<String, MemoryItem> = BTreeMap::new();
    for item in items {
        by_id.insert(item.id.clone(), item);
    }
    by_id.into_values().collect()
}

/// Counts the items a store writes, to tell when its eviction is due: after
/// every `check_interval` items ([`EvictionConfig`]; at least 1), never
/// under [`EvictionPolicy::None`]. Shared by a store's handles (atomic).
#[derive(Debug, Default)]
pub struct EvictionCounter(AtomicUsize);

impl EvictionCounter {
    /// Whether eviction under `eviction` is due after `rows` more written
    /// items; the count starts again when it is.
    pub fn due(&self, eviction: &EvictionConfig, rows: usize) -> bool {
        if matches!(eviction.policy, EvictionPolicy::None) {
            return false;
        }
        let interval = eviction.check_interval.max(1);
        let before = self.0.fetch_add(rows, Ordering::AcqRel);
        if before + rows >= interval {
            self.0.store(0, Ordering::Release);
            true
        } else {
            false
        }
    }
}

/// The creation time at or before which an item has outlived a TTL of
/// `ttl_secs` seconds at `now` ([`EvictionPolicy::Ttl`]): `now − ttl`, the
/// earliest time there is when that is out of range.
pub fn ttl_cutoff(ttl_secs: u64, now: DateTime<Utc>) -> DateTime<Utc> {
    let ttl = chrono::Duration::seconds(i64::try_from(ttl_secs).unwrap_or(i64::MAX / 1_000));
    now.checked_sub_signed(ttl)
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// Store handles made so far in this process (see [`next_shard`]).
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

/// The statistics row (of `shards` rows, at least 1) a new store handle
/// adds its changes to: the handles of a process take the rows in turn,
/// starting from the process id, so concurrent writers seldom lock the same
/// row; readers sum every row.
pub fn next_shard(shards: i16) -> i16 {
    let spread = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) + std::process::id() as usize;
    i16::try_from(spread % usize::from(shards.unsigned_abs().max(1))).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_item_of_an_id_wins_in_id_order() {
        let items = vec![
            MemoryItem::new("b", "first b"),
            MemoryItem::new("a", "a"),
            MemoryItem::new("b", "second b"),
        ];
        let got: Vec<(String, String)> = last_per_id(items)
            .into_iter()
            .map(|item| (item.id, item.content))
            .collect();
        assert_eq!(
            got,
            [
                ("a".to_owned(), "a".to_owned()),
                ("b".to_owned(), "second b".to_owned())
            ]
        );
    }

    #[test]
    fn eviction_is_due_every_interval_and_never_without_a_policy() {
        let counter = EvictionCounter::default();
        let ttl = EvictionConfig::ttl(60, 3);
        assert_eq!(
            [2, 1, 1, 5].map(|rows| counter.due(&ttl, rows)),
            [false, true, false, true]
        );
        assert!(!EvictionCounter::default().due(&EvictionConfig::none(), 100));
    }

    #[test]
    fn shards_are_within_range() {
        for _ in 0..20 {
            assert!((0..4).contains(&next_shard(4)));
        }
        assert_eq!(next_shard(1), 0);
        assert_eq!(next_shard(0), 0);
    }

    #[test]
    fn the_ttl_cutoff_is_now_minus_the_ttl_or_the_earliest_time() {
        let now = DateTime::<Utc>::UNIX_EPOCH + chrono::Duration::days(1);
        assert_eq!(ttl_cutoff(3_600, now), now - chrono::Duration::hours(1));
        assert_eq!(ttl_cutoff(u64::MAX, now), DateTime::<Utc>::MIN_UTC);
    }
}
