//! The per-entry steps of usage feedback and maintenance as the SQL
//! backends run them over the rows of a scope: which entries a usage
//! record touches, in the order their rows are locked ([`used_ids`]), and
//! one entry's age decay counted in the maintenance report
//! ([`age_counted`]). The backends read and write the rows; the rules are
//! those of [`apply`](super::apply).

use chrono::{DateTime, Utc};

use super::apply::apply_age;
use super::entry::MemoryEntry;
use super::records::{MaintenanceReport, UsageRecord};
use super::weights::WeightRules;

/// The distinct ids of `record`, ascending: each used entry once, its row
/// locked in one order by every writer.
pub fn used_ids(record: &UsageRecord) -> Vec<i64> {
    let mut ids = record.ids.clone();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Ages an active `entry` at `now` under `rules` ([`apply_age`]) and counts
/// it in `report`: decayed, newly archived, or still active. Returns
/// whether it changed (its row is to be written back).
pub fn age_counted(
    entry: &mut MemoryEntry,
    rules: &WeightRules,
    now: DateTime<Utc>,
    report: &mut MaintenanceReport,
) -> bool {
    let (decayed, archived) = apply_age(entry, rules, now);
    report.decayed += usize::from(decayed);
    report.archived += usize::from(archived);
    report.active += usize::from(!archived);
    decayed || archived
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::long_term::{MemoryScope, MemoryType, NewMemory, apply::new_entry};

    #[test]
    fn used_ids_are_distinct_and_ascending() {
        let record = UsageRecord::new("s", "q", vec![3, 1, 3, 2], true);
        assert_eq!(used_ids(&record), [1, 2, 3]);
    }

    #[test]
    fn an_aged_entry_is_counted_as_apply_age_changed_it() {
        let rules = WeightRules::default();
        let scope = MemoryScope::new("agent", "user").unwrap();
        let now = Utc::now();
        let new = NewMemory::new(MemoryType::User, "fact", "a fact");
        let mut entry = new_entry(&scope, new, &rules, now);
        let mut report = MaintenanceReport::default();
        assert!(!age_counted(&mut entry, &rules, now, &mut report));
        assert_eq!((report.decayed, report.archived, report.active), (0, 0, 1));
        let later = now + chrono::Duration::days(3_650);
        let mut expected = entry.clone();
        let (decayed, archived) = apply_age(&mut expected, &rules, later);
        assert!(decayed || archived, "ten years decay a weight");
        assert!(age_counted(&mut entry, &rules, later, &mut report));
        assert_eq!(entry, expected);
        assert_eq!(report.decayed, usize::from(decayed));
        assert_eq!(report.archived, usize::from(archived));
        assert_eq!(report.active, 1 + usize::from(!archived));
    }

    #[test]
    fn only_aged_entries_change() -> Result<(), crate::MemoryError> {
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
        let mut changed = Vec::new();
        for mut e in [fresh, old, faint] {
            if age_counted(&mut e, &rules, now, &mut report) {
                changed.push(e);
            }
        }
        let contents: Vec<&str> = changed.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(contents, ["old", "faint"]);
        assert!(changed.iter().all(|e| e.weight_updated_at == now));
        assert_eq!((report.decayed, report.archived, report.active), (2, 1, 2));
        Ok(())
    }
}
