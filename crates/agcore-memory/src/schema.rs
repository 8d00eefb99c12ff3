//! Schema versions of the SQL backends: each component of a database (the
//! store, long-term memory, an index) records the version of its tables, and
//! every backend decides alike which of its migration steps still run and
//! refuses a database written by a newer library.

use std::ops::Range;

use crate::MemoryError;

/// The refusal of a database whose `component` schema is at version `found`,
/// newer than the version `latest` this library knows; `database` names the
/// backend (`"postgres"`, `"mysql"`, `"sqlite"`) at the start of the message.
pub fn newer_schema(database: &str, component: &str, found: i64, latest: i64) -> MemoryError {
    MemoryError::Storage(format!(
        "{database}: the database's `{component}` schema is version {found}, newer than \
         the version {latest} this library supports (open it with a newer agcore)"
    ))
}

/// The migration steps a component recorded at version `found` still needs,
/// as indexes into its steps (step `i` takes the tables from version `i` to
/// `i + 1`), when this library knows `steps` of them: `found..steps`, empty
/// when it is current. A component that was never migrated is at version 0.
///
/// # Errors
/// [`MemoryError::Storage`]: [`newer_schema`] when `found` is above `steps`,
/// or a message naming a negative recorded version.
pub fn pending_steps(
    database: &str,
    component: &str,
    found: i64,
    steps: usize,
) -> Result<Range<usize>, MemoryError> {
    let latest = i64::try_from(steps).unwrap_or(i64::MAX);
    if found > latest {
        return Err(newer_schema(database, component, found, latest));
    }
    let from = usize::try_from(found).map_err(|_| {
        MemoryError::Storage(format!(
            "{database}: the database's `{component}` schema records version {found}, \
             which no release writes"
        ))
    })?;
    Ok(from..steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_steps_run_from_the_recorded_version_to_the_latest() {
        assert_eq!(pending_steps("db", "store", 0, 3).ok(), Some(0..3));
        assert_eq!(pending_steps("db", "store", 2, 3).ok(), Some(2..3));
        assert_eq!(pending_steps("db", "store", 3, 3).ok(), Some(3..3));
    }

    #[test]
    fn a_newer_or_negative_version_is_refused_by_name() {
        let newer = pending_steps("postgres", "store", 4, 3);
        assert!(matches!(
            &newer,
            Err(MemoryError::Storage(m))
                if m.starts_with("postgres: ") && m.contains("`store` schema is version 4")
                    && m.contains("version 3 this library supports")
        ));
        let negative = pending_steps("mysql", "long_term", -1, 3);
        assert!(matches!(
            &negative,
            Err(MemoryError::Storage(m)) if m.contains("`long_term`") && m.contains("-1")
        ));
    }
}
