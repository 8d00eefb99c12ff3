//! The recorded layout of a database's vector table: the SQL backends keep
//! its layout version, embedding model and dimensions as text values of a
//! meta table, and open an existing table alike ([`check_layout`]).

use super::{EmbeddingSpace, check_space};
use crate::MemoryError;

/// Checks an existing vector table whose meta values are `version`,
/// `model` and `dimensions` (text as recorded; a value that does not parse
/// counts as newer, an absent model as empty, absent or unparsable
/// dimensions as 0) against this library's layout version `latest` and the
/// `requested` space; `database` names the backend (`"postgres"`,
/// `"mysql"`) at the start of a message.
///
/// # Errors
/// [`MemoryError::Storage`] for a layout newer than `latest`;
/// [`MemoryError::EmbeddingMismatch`] ([`check_space`]) for another model
/// or dimensions.
pub fn check_layout(
    database: &str,
    latest: i64,
    (version, model, dimensions): (&str, Option<&str>, Option<&str>),
    requested: &EmbeddingSpace,
) -> Result<(), MemoryError> {
    let version: i64 = version.parse().unwrap_or(i64::MAX);
    if version > latest {
        return Err(MemoryError::Storage(format!(
            "{database} vectors: layout version {version} is newer than this library ({latest})"
        )));
    }
    let stored = EmbeddingSpace::new(
        model.unwrap_or_default(),
        dimensions.and_then(|d| d.parse().ok()).unwrap_or(0),
    );
    check_space(&stored, requested)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_layout_or_another_space_is_refused() {
        let space = EmbeddingSpace::new("m", 3);
        assert!(check_layout("postgres", 1, ("1", Some("m"), Some("3")), &space).is_ok());
        let newer = check_layout("mysql", 1, ("2", Some("m"), Some("3")), &space);
        assert!(matches!(&newer, Err(MemoryError::Storage(m))
            if m == "mysql vectors: layout version 2 is newer than this library (1)"));
        let garbled = check_layout("postgres", 1, ("x", Some("m"), Some("3")), &space);
        assert!(matches!(garbled, Err(MemoryError::Storage(_))));
        let other = check_layout("postgres", 1, ("1", Some("m"), None), &space);
        assert!(matches!(other, Err(MemoryError::EmbeddingMismatch { .. })));
    }
}
