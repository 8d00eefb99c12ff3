//! JSONL import lines: each line of `agcore memory export` is one
//! [`MemoryEntry`] in JSON, read by `agcore memory import` with
//! `serde_json::from_str::<MemoryEntry>` (the CLI's `jsonl_reader`, a binary
//! crate, adds only the line-length limit and the empty-content check) and
//! stored with [`LongTermMemory::import_entries`]. This target runs that same
//! parse and import on an in-memory store.

use agcore_memory::MemoryError;
use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory, MemoryEntry};

use crate::runtime::block_on;

/// Every line is parsed; parsed entries round-trip through JSON; the ones
/// the CLI accepts (non-empty content) are imported, which either fails
/// with `InvalidInput` or stores every entry.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut accepted = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(entry) = serde_json::from_str::<MemoryEntry>(line) else {
            continue;
        };
        let json = serde_json::to_string(&entry).expect("an entry serializes");
        let mut back: MemoryEntry = serde_json::from_str(&json).expect("an entry reads back");
        // Decimal floats may come back one unit in the last place off.
        let tolerance = 1e-12 * entry.weight.abs().max(1.0);
        assert!((back.weight - entry.weight).abs() <= tolerance, "weight");
        back.weight = entry.weight;
        assert_eq!(back, entry, "JSON round trip of a memory entry");
        if !entry.content.trim().is_empty() {
            accepted.push(entry);
        }
    }
    if accepted.is_empty() {
        return;
    }
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let n = accepted.len();
    match block_on(memory.import_entries(accepted)) {
        Ok(outcomes) => assert_eq!(outcomes.len(), n, "one outcome per entry"),
        Err(MemoryError::InvalidInput(_)) => {}
        Err(other) => panic!("import failed with {other:?}"),
    }
}
