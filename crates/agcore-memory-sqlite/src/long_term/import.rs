//! [`LongTermBackend::import_entries`](agcore_memory::long_term::LongTermBackend::import_entries)
//! for [`SqliteLongTerm`](super::SqliteLongTerm): whole entries restored
//! under new ids, in one transaction.

use crate::error::Result;
use rusqlite::{Connection, TransactionBehavior};

use super::rows;
use agcore_memory::long_term::MemoryEntry;
use agcore_memory::long_term::SaveOutcome;
use agcore_memory::long_term::content_key;

/// Inserts `entries` (ids reassigned, every other column kept) in one
/// `IMMEDIATE` transaction; an entry whose content key is already taken in its
/// scope is skipped and reported with the stored entry.
///
/// # Errors
/// [`MemoryError::Storage`]; the transaction is rolled back.
pub(super) fn import_all(
    conn: &mut Connection,
    entries: Vec<MemoryEntry>,
) -> Result<Vec<SaveOutcome>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut outcomes = Vec::with_capacity(entries.len());
    for mut entry in entries {
        let scope = entry.scope()?;
        let existing = match rows::id_by_key(&tx, &scope, &content_key(&entry.content))? {
            Some(id) => rows::load(&tx, &scope, id)?,
            None => None,
        };
        if let Some(existing) = existing {
            outcomes.push(SaveOutcome {
                entry: existing,
                created: false,
            });
            continue;
        }
        entry.id = rows::insert(&tx, &entry)?;
        outcomes.push(SaveOutcome {
            entry,
            created: true,
        });
    }
    tx.commit()?;
    Ok(outcomes)
}
