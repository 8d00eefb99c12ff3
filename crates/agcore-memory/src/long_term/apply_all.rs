//! The rules of [`apply`](super::apply) over a whole request, for the
//! backends that load a scope's entries, apply a rule in Rust and store
//! back what changed: the entries a usage record names, and the age pass of
//! maintenance.

use chrono::{DateTime, Utc};

use super::apply::apply_age;
use super::entry::MemoryEntry;
use super::records::{MaintenanceReport, UsageRecord};
use super::weights::WeightRules;

/// The entries `record` names, each once, in ascending id order (the order
/// a backend loads and locks them in).
#[must_use]
pub fn used_ids(record: &UsageRecord) -> Vec<i64> {
    let mut ids = record.ids.clone();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Ages each of `active` (a scope's active entries) to `now` with
/// [`apply_age`], adds the decayed, newly archived and still active ones to
/// `report`, and returns the entries that changed, in their order: those
/// the backend stores back.
pub fn age_entries(
    active: Vec<MemoryEntry>,
    rules: &WeightRules,
    now: DateTime<Utc>,
    report: &mut MaintenanceReport,
) -> Vec<MemoryEntry> {
    let mut changed = Vec::new();
    for mut entry in active {
        let (decayed, archived) = apply_age(&mut entry, rules, now);
        if decayed || archived {
            changed.push(entry);
        }
        report.decayed += usize::from(decayed);
        report.archived += usize::from(archived);
        report.active += usize::from(!archived);
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::long_term::apply::new_entry;
    use crate::long_term::{MemoryScope, MemoryType, NewMemory};

    #[test]
    fn ids_are_used_once_in_order() {
        let record = UsageRecord::new("s", "q", vec![3, 1, 3, 2, 1], true);
        assert_eq!(used_ids(&record), [1, 2, 3]);
    }

    #[test]
    fn only_aged_entries_are_stored_back() -> Result<(), crate::MemoryError> {
        let scope = MemoryScope::new("agent", "user")?;
        let rules = WeightRules::default();
        let created = DateTime::<Utc>::UNIX_EPOCH;
        let entry = |content: &str, weight: f64| {
            let mut entry = new_entry(
                &scope,
                NewMemory::new(MemoryType::User, "n", content),
                &rules,
                created,
            );
            entry.weight = weight;
            entry
        };
        let mut fresh = entry("fresh", 1.0);
        fresh.weight_updated_at = created + chrono::Duration::days(60);
        let old = entry("old", 2.0);
        let faint = entry("faint", 0.35);
        let now = created + chrono::Duration::days(60);
        let mut report = MaintenanceReport::default();
        let changed = age_entries(vec![fresh, old, faint], &rules, now, &mut report);
        let contents: Vec<&str> = changed.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(contents, ["old", "faint"]);
        assert!(changed.iter().all(|e| e.weight_updated_at == now));
        assert_eq!((report.decayed, report.archived, report.active), (2, 1, 2));
        Ok(())
    }
}
