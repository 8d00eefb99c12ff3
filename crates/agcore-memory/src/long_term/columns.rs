//! An entry's structured fields as the SQL backends keep them in columns:
//! metadata and tags as JSON text, the use count as a signed 64-bit
//! integer ([`entry_columns`]), read back with [`stored_json`]; search
//! hits read back in one order ([`best_first`]). A backend binds and reads
//! the columns with its own driver types.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ScoredEntry;
use super::entry::MemoryEntry;
use crate::MemoryError;

/// The stored columns of `entry`'s metadata and tags (JSON text) and use
/// count (saturating at `i64::MAX`).
///
/// # Errors
/// [`MemoryError::Serialization`] when the metadata cannot be written as
/// JSON.
pub fn entry_columns(entry: &MemoryEntry) -> Result<(String, String, i64), MemoryError> {
    Ok((
        serde_json::to_string(&entry.metadata)?,
        serde_json::to_string(&entry.tags)?,
        i64::try_from(entry.use_count).unwrap_or(i64::MAX),
    ))
}

/// A metadata column of the original long-term layout (nullable, any
/// JSON: NetaClaw's table, SQLite's version 1) as a JSON object: `NULL` or
/// JSON `null` → `{}`, an object as it is, any other value →
/// `{"value": …}`, text that is not JSON → `{"raw": "<text>"}`.
pub fn legacy_metadata(text: Option<&str>) -> Map<String, Value> {
    let Some(text) = text else {
        return Map::new();
    };
    match serde_json::from_str(text) {
        Ok(Value::Null) => Map::new(),
        Ok(Value::Object(map)) => map,
        Ok(other) => Map::from_iter([("value".to_owned(), other)]),
        Err(_) => Map::from_iter([("raw".to_owned(), Value::String(text.to_owned()))]),
    }
}

/// A JSON column of an entry read back (`what` names it: `metadata`,
/// `tags`).
///
/// # Errors
/// [`MemoryError::Storage`] ("long-term memory: bad stored {what}: …") for
/// text that is not that JSON (a row not written by agcore).
pub fn stored_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, MemoryError> {
    serde_json::from_str(text)
        .map_err(|e| MemoryError::Storage(format!("long-term memory: bad stored {what}: {e}")))
}

/// Sorts `hits` best first: score descending, then id ascending (the order
/// every backend returns long-term search hits in).
pub fn best_first(hits: &mut [ScoredEntry]) {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.entry.id.cmp(&b.entry.id))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::long_term::{MemoryScope, MemoryType, NewMemory, WeightRules, apply::new_entry};

    #[test]
    fn legacy_metadata_becomes_an_object() {
        assert!(legacy_metadata(None).is_empty());
        assert!(legacy_metadata(Some("null")).is_empty());
        assert_eq!(legacy_metadata(Some(r#"{"来源":"微信"}"#))["来源"], "微信");
        let value = legacy_metadata(Some("[1,2]"));
        assert_eq!(value["value"], serde_json::json!([1, 2]));
        assert_eq!(legacy_metadata(Some("not json"))["raw"], "not json");
    }

    #[test]
    fn columns_read_back_and_bad_text_names_the_column() {
        let scope = MemoryScope::new("agent", "user").unwrap();
        let new = NewMemory::new(MemoryType::User, "fact", "a fact").with_tags(["x"]);
        let mut entry = new_entry(&scope, new, &WeightRules::default(), chrono::Utc::now());
        entry.use_count = u64::MAX;
        let (metadata, tags, use_count) = entry_columns(&entry).unwrap();
        assert_eq!(use_count, i64::MAX);
        let tags: Vec<String> = stored_json("tags", &tags).unwrap();
        assert_eq!(tags, entry.tags);
        let metadata: serde_json::Map<String, serde_json::Value> =
            stored_json("metadata", &metadata).unwrap();
        assert_eq!(metadata, entry.metadata);
        let bad = stored_json::<Vec<String>>("tags", "{");
        assert!(
            matches!(bad, Err(MemoryError::Storage(m)) if m.starts_with("long-term memory: bad stored tags: "))
        );
    }

    #[test]
    fn hits_sort_by_score_then_id() -> Result<(), MemoryError> {
        let scope = MemoryScope::new("agent", "user")?;
        let hit = |id: i64, score: f64| {
            let new = NewMemory::new(MemoryType::User, "n", "c");
            let rules = WeightRules::default();
            let mut entry = new_entry(&scope, new, &rules, chrono::Utc::now());
            entry.id = id;
            ScoredEntry { entry, score }
        };
        let mut hits = vec![hit(3, 1.0), hit(2, 2.0), hit(1, 1.0)];
        best_first(&mut hits);
        let order: Vec<i64> = hits.iter().map(|h| h.entry.id).collect();
        assert_eq!(order, [2, 1, 3]);
        Ok(())
    }
}
