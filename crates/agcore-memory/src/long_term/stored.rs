//! Entry columns every SQL backend stores as JSON text (`metadata`,
//! `tags`), read back alike: a value that does not decode is a storage
//! error naming the column.

use std::fmt::Display;

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
}
