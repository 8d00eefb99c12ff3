//! Entries read back from a database alike: the columns every SQL backend
//! stores as JSON text (`metadata`, `tags`), where a value that does not
//! decode is a storage error naming the column, and the order of scored
//! entries ([`best_first`]) for a backend whose rows come back unordered.

use std::fmt::Display;

use super::ScoredEntry;
use crate::MemoryError;

/// The error of a stored `what` (a column) that does not decode:
/// [`MemoryError::Storage`], `long-term memory: bad stored {what}: {err}`.
pub fn corrupt(what: &str, err: impl Display) -> MemoryError {
    MemoryError::Storage(format!("long-term memory: bad stored {what}: {err}"))
}

/// An entry's stored `metadata` column (a JSON object).
///
/// # Errors
/// [`corrupt`] `metadata` for text that is not a JSON object.
pub fn metadata_from_json(
    text: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, MemoryError> {
    serde_json::from_str(text).map_err(|e| corrupt("metadata", e))
}

/// An entry's stored `tags` column (a JSON array of strings).
///
/// # Errors
/// [`corrupt`] `tags` for text that is not a JSON array of strings.
pub fn tags_from_json(text: &str) -> Result<Vec<String>, MemoryError> {
    serde_json::from_str(text).map_err(|e| corrupt("tags", e))
}

/// Sorts `hits` best first: score descending, ties by entry id ascending.
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

    #[test]
    fn columns_decode_or_name_themselves() -> Result<(), MemoryError> {
        assert_eq!(metadata_from_json(r#"{"a":1}"#)?.len(), 1);
        assert_eq!(tags_from_json(r#"["x","y"]"#)?, ["x", "y"]);
        let err = tags_from_json("{}").map(|_| ()).unwrap_err();
        assert!(
            err.to_string()
                .contains("long-term memory: bad stored tags: "),
            "{err}"
        );
        assert!(matches!(
            metadata_from_json("[1]"),
            Err(MemoryError::Storage(_))
        ));
        Ok(())
    }

    #[test]
    fn hits_sort_by_score_then_id() -> Result<(), MemoryError> {
        let scope = super::super::MemoryScope::new("agent", "user")?;
        let hit = |id: i64, score: f64| {
            let new = super::super::NewMemory::new(super::super::MemoryType::User, "n", "c");
            let rules = super::super::WeightRules::default();
            let mut entry = super::super::apply::new_entry(&scope, new, &rules, chrono::Utc::now());
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
