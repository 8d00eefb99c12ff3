//! Schema versions of the SQL backends: each component of a database (the
//! store, long-term memory, an index) records the version of its tables, and
//! every backend decides alike which of its migration steps still run and
//! refuses a database written by a newer library. [`run_steps`] is the one
//! migration runner of the server drivers: a driver supplies its statements
//! and how it reads and records a version ([`SchemaVersions`]), and takes the
//! lock it migrates under itself.

use std::future::Future;
use std::ops::Range;

use crate::MemoryError;

/// One component's migrations: `steps[i]` takes its tables from version `i`
/// to `i + 1`; a step `S` is what the driver runs (its statement text).
#[derive(Debug)]
pub struct Component<S: 'static> {
    /// The component's name in the version table (`store`, `long_term`, …).
    pub name: &'static str,
    /// Its migration steps, in order.
    pub steps: &'static [S],
}

/// A connection or transaction a driver migrates through, already holding
/// the driver's migration lock.
pub trait SchemaVersions {
    /// One migration step (the driver's statement text).
    type Step: 'static;
    /// The driver's error.
    type Error: From<MemoryError>;
    /// The backend's name in messages and logs (`"mysql"`, `"postgres"`).
    const DATABASE: &'static str;

    /// The version recorded for `component`, 0 when none is.
    fn version(
        &mut self,
        component: &'static str,
    ) -> impl Future<Output = Result<i64, Self::Error>> + Send;

    /// Runs one migration step.
    fn run(
        &mut self,
        step: &'static Self::Step,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Records `version` as `component`'s version.
    fn record(
        &mut self,
        component: &'static str,
        version: i64,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

/// Runs each of `components` (in order) from its recorded version to its
/// latest, recording the version after every step, so a migration cut short
/// resumes at the step that did not finish.
///
/// # Errors
/// As [`pending_steps`] (a component newer than this library: nothing of it
/// is changed); the driver's errors.
pub async fn run_steps<V: SchemaVersions>(
    conn: &mut V,
    components: &[&Component<V::Step>],
) -> Result<(), V::Error> {
    for component in components {
        let current = conn.version(component.name).await?;
        let pending = pending_steps(V::DATABASE, component.name, current, component.steps.len())?;
        for (done, step) in component.steps.iter().enumerate().skip(pending.start) {
            conn.run(step).await?;
            let version = i64::try_from(done + 1).unwrap_or(i64::MAX);
            conn.record(component.name, version).await?;
            tracing::info!(
                component = component.name,
                from = version - 1,
                to = version,
                "{}: migrated",
                V::DATABASE
            );
        }
    }
    Ok(())
}

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

/// The versions a component recorded at `found` is taken to, in order, by a
/// backend that writes version `latest` and creates a component never
/// migrated in its latest layout at once: none when it is current, `latest`
/// alone from version 0, else each version above `found`.
///
/// # Errors
/// As [`pending_steps`].
pub fn step_targets(
    database: &str,
    component: &str,
    found: i64,
    latest: i64,
) -> Result<Vec<i64>, MemoryError> {
    let steps = usize::try_from(latest).unwrap_or(0);
    let pending = pending_steps(database, component, found, steps)?;
    if found == 0 && !pending.is_empty() {
        return Ok(vec![latest]);
    }
    Ok(pending
        .filter_map(|step| i64::try_from(step + 1).ok())
        .collect())
}

/// Whether the step to `target` still runs when the version read again
/// under the migration lock is `now` (another process may have migrated
/// meanwhile).
///
/// # Errors
/// [`newer_schema`] when `now` is above `latest`.
pub fn still_due(
    database: &str,
    component: &str,
    now: i64,
    target: i64,
    latest: i64,
) -> Result<bool, MemoryError> {
    if now > latest {
        return Err(newer_schema(database, component, now, latest));
    }
    Ok(now < target)
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

    /// Versions in a map; the steps run are logged.
    #[derive(Default)]
    struct Fake {
        versions: std::collections::HashMap<&'static str, i64>,
        ran: Vec<&'static str>,
    }

    impl SchemaVersions for Fake {
        type Step = &'static str;
        type Error = MemoryError;
        const DATABASE: &'static str = "fake";
        async fn version(&mut self, component: &'static str) -> Result<i64, MemoryError> {
            Ok(self.versions.get(component).copied().unwrap_or(0))
        }
        async fn run(&mut self, step: &'static &'static str) -> Result<(), MemoryError> {
            self.ran.push(step);
            Ok(())
        }
        async fn record(
            &mut self,
            component: &'static str,
            version: i64,
        ) -> Result<(), MemoryError> {
            self.versions.insert(component, version);
            Ok(())
        }
    }

    const A: Component<&str> = Component {
        name: "a",
        steps: &["a1", "a2", "a3"],
    };
    const B: Component<&str> = Component {
        name: "b",
        steps: &["b1"],
    };

    #[tokio::test]
    async fn run_steps_runs_the_missing_steps_in_order_and_records_them() {
        let mut fake = Fake::default();
        fake.versions.insert("a", 1);
        run_steps(&mut fake, &[&A, &B]).await.unwrap();
        assert_eq!(fake.ran, ["a2", "a3", "b1"]);
        assert_eq!((fake.versions["a"], fake.versions["b"]), (3, 1));
        fake.ran.clear();
        run_steps(&mut fake, &[&A, &B]).await.unwrap();
        assert!(fake.ran.is_empty());
        fake.versions.insert("b", 2);
        let err = run_steps(&mut fake, &[&A, &B]).await.unwrap_err();
        assert!(err.to_string().contains("`b` schema is version 2"), "{err}");
    }

    #[test]
    fn a_new_component_is_created_at_its_latest_version_at_once() {
        assert_eq!(step_targets("db", "c", 0, 3).ok(), Some(vec![3]));
        assert_eq!(step_targets("db", "c", 1, 3).ok(), Some(vec![2, 3]));
        assert_eq!(step_targets("db", "c", 3, 3).ok(), Some(vec![]));
        assert!(step_targets("db", "c", 4, 3).is_err());
        assert_eq!(still_due("db", "c", 1, 2, 3).ok(), Some(true));
        assert_eq!(still_due("db", "c", 2, 2, 3).ok(), Some(false));
        assert!(still_due("db", "c", 4, 2, 3).is_err());
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
