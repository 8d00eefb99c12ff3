//! What every database [`MemoryStore`](crate::MemoryStore) decides alike
//! around its SQL: the counter row of its statistics ([`counter_shard`]),
//! when its eviction policy is checked ([`EvictionCheck`]),
//! the time before which a TTL policy drops items ([`ttl_cutoff`]),
//! creation times as the `(seconds, nanoseconds)` columns the stores keep
//! them in ([`split_time`], [`join_time`]), the items a batch write stores
//! ([`last_by_id`]), the items a list or count returns ([`Listing`]) and
//! the hits of a search ([`best_hits`]), and a stored item's sequence of the
//! context field ([`stored_group`]); and the work on a batch's items done
//! ahead of a writer by helper threads ([`ahead`]), a writer's group
//! commit ([`group_commit`]), planner statistics after bulk writes
//! ([`AutoAnalyze`]), the id range of a prefix filter
//! ([`prefix_upper_bound`]) and the versions of each id in a batch write
//! ([`Versions`]); and the [`MemoryStore`](crate::MemoryStore) of every
//! SQL driver over its SQL ([`store`]).

pub mod ahead;
mod analyze;
pub mod group_commit;
mod listing;
mod prefix;
pub mod store;
mod versions;

use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, TimeZone, Utc};

use crate::retriever::ContextField;
use crate::{EvictionConfig, EvictionPolicy, MemoryError, MemoryItem};
pub use analyze::{AutoAnalyze, MIN_ROWS as ANALYZE_MIN_ROWS};
pub use listing::{Listing, best_hits, last_by_id};
pub use prefix::prefix_upper_bound;
pub use versions::Versions;

/// The count of items written since a store last checked its eviction
/// policy, shared by the handles of one store (`Send + Sync`).
#[derive(Debug, Default)]
pub struct EvictionCheck {
    written: AtomicUsize,
}

impl EvictionCheck {
    /// Counts `rows` more written items; whether `config`'s policy is due
    /// for a check now: every `check_interval` items (at least 1), never
    /// with [`EvictionPolicy::None`]. A due check starts the count again.
    pub fn due(&self, config: &EvictionConfig, rows: usize) -> bool {
        if matches!(config.policy, EvictionPolicy::None) {
            return false;
        }
        let interval = config.check_interval.max(1);
        let before = self.written.fetch_add(rows, Ordering::AcqRel);
        if before + rows >= interval {
            self.written.store(0, Ordering::Release);
            true
        } else {
            false
        }
    }
}

/// The counter row, of `shards` (at least 1), a new store handle adds its
/// statistics' changes to: the handles of a process take the rows in turn
/// from a place set by the process id, so concurrent writers seldom wait
/// on one row's lock.
pub fn counter_shard(shards: i16) -> i16 {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let spread = NEXT
        .fetch_add(1, Ordering::Relaxed)
        .wrapping_add(std::process::id() as usize);
    i16::try_from(spread % usize::from(shards.unsigned_abs().max(1))).unwrap_or(0)
}

/// The creation time at or before which a TTL policy of `ttl_secs`
/// seconds drops items at `now`; the earliest time there is when the
/// subtraction leaves chrono's range.
pub fn ttl_cutoff(ttl_secs: u64, now: DateTime<Utc>) -> DateTime<Utc> {
    let ttl = chrono::Duration::seconds(i64::try_from(ttl_secs).unwrap_or(i64::MAX / 1_000));
    now.checked_sub_signed(ttl)
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// `(seconds, nanoseconds)` of a time; nanoseconds in `0..1e9` (leap
/// seconds folded).
#[inline]
pub fn split_time(at: DateTime<Utc>) -> (i64, i32) {
    let ns = at.timestamp_subsec_nanos().min(999_999_999);
    (at.timestamp(), i32::try_from(ns).unwrap_or(0))
}

/// The time of `(seconds, nanoseconds)` ([`split_time`]'s parts); `None`
/// when out of range (a row not written by agcore). Negative nanoseconds
/// count as 0.
#[inline]
pub fn join_time(secs: i64, nanos: i32) -> Option<DateTime<Utc>> {
    Utc.timestamp_opt(secs, u32::try_from(nanos).unwrap_or(0))
        .single()
}

/// The sequence ([`ContextField::group_of`]) of a stored item whose
/// metadata is the JSON text `metadata`: what a store derives again for
/// every row when its context field's settings change.
///
/// # Errors
/// [`MemoryError::Serialization`] for text that is not JSON.
pub fn stored_group(context: &ContextField, metadata: &str) -> Result<Option<String>, MemoryError> {
    let metadata = serde_json::from_str(metadata)?;
    Ok(context.group_of(&MemoryItem::new("", "").with_metadata(metadata)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_are_due_every_interval_and_never_without_a_policy() {
        let check = EvictionCheck::default();
        let config = EvictionConfig::capacity(10, 3);
        assert!(!check.due(&config, 1));
        assert!(!check.due(&config, 1));
        assert!(check.due(&config, 1));
        assert!(!check.due(&config, 2));
        assert!(check.due(&config, 5), "a batch past the interval");
        assert!(!check.due(&EvictionConfig::none(), 100));
    }

    #[test]
    fn handles_take_the_counter_rows_in_turn() {
        let (a, b) = (counter_shard(16), counter_shard(16));
        assert!((0..16).contains(&a) && (0..16).contains(&b));
        assert_ne!(a, b);
        assert_eq!(counter_shard(0), 0);
    }

    #[test]
    fn a_ttl_cutoff_is_now_minus_the_ttl_or_the_earliest_time() {
        let now = Utc.timestamp_opt(1_000, 0).unwrap();
        assert_eq!(ttl_cutoff(10, now), Utc.timestamp_opt(990, 0).unwrap());
        assert_eq!(ttl_cutoff(u64::MAX, now), DateTime::<Utc>::MIN_UTC);
    }

    #[test]
    fn stored_groups_are_the_json_text_of_scalars() {
        let field = ContextField::default();
        let group = |m: &str| stored_group(&field, m).unwrap();
        assert_eq!(group(r#"{"session": "s"}"#).as_deref(), Some("\"s\""));
        assert_eq!(group(r#"{"session": 2}"#).as_deref(), Some("2"));
        assert_eq!(group(r#"{"session": null}"#), None);
        assert_eq!(group("null"), None);
        assert!(matches!(
            stored_group(&field, "{"),
            Err(MemoryError::Serialization(_))
        ));
    }

    #[test]
    fn times_split_and_join_exactly() {
        let at = Utc.timestamp_opt(-5, 123_456_789).unwrap();
        assert_eq!(split_time(at), (-5, 123_456_789));
        assert_eq!(join_time(-5, 123_456_789), Some(at));
        assert_eq!(join_time(i64::MAX, 0), None);
    }
}
