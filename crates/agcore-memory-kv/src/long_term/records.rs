//! The long-term records in the backend: what changed between two
//! snapshots of a scope ([`changes`]) and the snapshot of every scope read
//! back on open ([`load`]).

use std::collections::BTreeMap;

use agcore_memory::long_term::{
    HistoryEntry, LongTermSnapshot, MemoryEntry, MemoryScope, ScopeSnapshot, TurnSnapshot,
    UsageLogRow,
};
use serde::{Deserialize, Serialize};

use crate::backend::{KvBackend, KvError, Table, WriteBatch};
use crate::codec::{decode, encode, scope_key};

/// The key of the id counters in [`Table::Meta`].
const COUNTERS: &[u8] = b"long_term.counters";

/// The rows of one entry id (history or usage log) with their scope.
#[derive(Serialize, Deserialize)]
struct Rows<T> {
    scope: MemoryScope,
    rows: Vec<T>,
}

/// A buffered turn with its scope.
#[derive(Serialize, Deserialize)]
struct Turn {
    scope: MemoryScope,
    turn: TurnSnapshot,
}

/// An entry with the exact bits of its weight (JSON numbers may come back
/// one unit in the last place off).
#[derive(PartialEq, Serialize, Deserialize)]
struct Entry {
    entry: MemoryEntry,
    weight_bits: u64,
}

impl Entry {
    fn of(entry: &MemoryEntry) -> Self {
        Self {
            entry: entry.clone(),
            weight_bits: entry.weight.to_bits(),
        }
    }

    fn into_entry(self) -> MemoryEntry {
        let mut entry = self.entry;
        entry.weight = f64::from_bits(self.weight_bits);
        entry
    }
}

/// The id counters: the last entry id and the last turn id handed out.
#[derive(Serialize, Deserialize)]
struct Counters {
    next_id: i64,
    next_turn: i64,
}

/// Puts the values of `after` that differ from `before` and deletes the
/// keys of `before` that `after` lacks.
fn diff<T: PartialEq + Serialize>(
    batch: &mut WriteBatch,
    table: Table,
    scope: &MemoryScope,
    before: &BTreeMap<i64, T>,
    after: &BTreeMap<i64, T>,
) -> Result<(), KvError> {
    for (id, value) in after {
        if before.get(id) != Some(value) {
            batch.put(table, scope_key(scope, *id), encode(table, value)?);
        }
    }
    for id in before.keys().filter(|id| !after.contains_key(id)) {
        batch.delete(table, scope_key(scope, *id));
    }
    Ok(())
}

fn grouped<T: Clone>(
    scope: &MemoryScope,
    rows: &[T],
    id: impl Fn(&T) -> i64,
) -> BTreeMap<i64, Rows<T>> {
    let mut out: BTreeMap<i64, Rows<T>> = BTreeMap::new();
    for row in rows {
        out.entry(id(row))
            .or_insert_with(|| Rows {
                scope: scope.clone(),
                rows: Vec::new(),
            })
            .rows
            .push(row.clone());
    }
    out
}

impl<T: PartialEq> PartialEq for Rows<T> {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
    }
}

impl PartialEq for Turn {
    fn eq(&self, other: &Self) -> bool {
        self.turn == other.turn
    }
}

fn scope_changes(
    batch: &mut WriteBatch,
    before: &ScopeSnapshot,
    after: &ScopeSnapshot,
) -> Result<(), KvError> {
    let scope = &after.scope;
    let entries = |s: &ScopeSnapshot| -> BTreeMap<i64, Entry> {
        s.entries.iter().map(|e| (e.id, Entry::of(e))).collect()
    };
    diff(
        batch,
        Table::Entries,
        scope,
        &entries(before),
        &entries(after),
    )?;
    let history = |s: &ScopeSnapshot| grouped(scope, &s.history, |h: &HistoryEntry| h.memory_id);
    diff(
        batch,
        Table::History,
        scope,
        &history(before),
        &history(after),
    )?;
    let usage = |s: &ScopeSnapshot| grouped(scope, &s.usage, |u: &UsageLogRow| u.memory_id);
    diff(batch, Table::Usage, scope, &usage(before), &usage(after))?;
    let turns = |s: &ScopeSnapshot| -> BTreeMap<i64, Turn> {
        s.buffer
            .iter()
            .map(|t| {
                let turn = Turn {
                    scope: scope.clone(),
                    turn: t.clone(),
                };
                (t.turn.id, turn)
            })
            .collect()
    };
    diff(batch, Table::Turns, scope, &turns(before), &turns(after))
}

/// The batch that turns the records of `before` into those of `after`
/// (two snapshots of the same scopes, in the same order).
pub(super) fn changes(
    before: &LongTermSnapshot,
    after: &LongTermSnapshot,
) -> Result<WriteBatch, KvError> {
    let mut batch = WriteBatch::new();
    for (b, a) in before.scopes.iter().zip(&after.scopes) {
        scope_changes(&mut batch, b, a)?;
    }
    if (before.next_id, before.next_turn) != (after.next_id, after.next_turn) {
        let counters = Counters {
            next_id: after.next_id,
            next_turn: after.next_turn,
        };
        batch.put(
            Table::Meta,
            COUNTERS.to_vec(),
            encode(Table::Meta, &counters)?,
        );
    }
    Ok(batch)
}

fn of(scopes: &mut BTreeMap<MemoryScope, ScopeSnapshot>, scope: MemoryScope) -> &mut ScopeSnapshot {
    scopes
        .entry(scope.clone())
        .or_insert_with(|| ScopeSnapshot::empty(scope))
}

/// Every scope stored in `backend`, with the id counters.
pub(super) async fn load<B: KvBackend>(backend: &B) -> Result<LongTermSnapshot, KvError> {
    let mut scopes: BTreeMap<MemoryScope, ScopeSnapshot> = BTreeMap::new();
    let (mut next_id, mut next_turn) = (0, 0);
    for (_, value) in backend.scan(Table::Entries, b"").await? {
        let entry = decode::<Entry>(Table::Entries, &value)?.into_entry();
        let scope = entry.scope().map_err(|e| KvError::Corrupt {
            table: Table::Entries.name(),
            reason: e.to_string(),
        })?;
        next_id = next_id.max(entry.id);
        of(&mut scopes, scope).entries.push(entry);
    }
    for (_, value) in backend.scan(Table::History, b"").await? {
        let rows: Rows<HistoryEntry> = decode(Table::History, &value)?;
        next_id = rows.rows.iter().fold(next_id, |n, h| n.max(h.memory_id));
        of(&mut scopes, rows.scope).history.extend(rows.rows);
    }
    for (_, value) in backend.scan(Table::Usage, b"").await? {
        let rows: Rows<UsageLogRow> = decode(Table::Usage, &value)?;
        of(&mut scopes, rows.scope).usage.extend(rows.rows);
    }
    for (_, value) in backend.scan(Table::Turns, b"").await? {
        let turn: Turn = decode(Table::Turns, &value)?;
        next_turn = next_turn.max(turn.turn.turn.id);
        of(&mut scopes, turn.scope).buffer.push(turn.turn);
    }
    if let Some(value) = backend.get(Table::Meta, COUNTERS).await? {
        let counters: Counters = decode(Table::Meta, &value)?;
        next_id = next_id.max(counters.next_id);
        next_turn = next_turn.max(counters.next_turn);
    }
    Ok(LongTermSnapshot {
        next_id,
        next_turn,
        scopes: scopes.into_values().collect(),
    })
}
