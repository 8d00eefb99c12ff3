//! Data a backend derives from its rows — a full-text index, a table of
//! document frequencies — recorded with what it was built for (an
//! analyzer, derivation settings), written once for every backend: when
//! the record is not the value wanted, [`run`] builds the data afresh and
//! then records that value. A run cut short leaves the old record, so the
//! next one builds again: a rebuild must be safe to repeat.
//!
//! A driver implements [`Rebuild`] with its SQL; [`crate::reindex::run`]
//! is this decision with the re-index loop as the build.

use std::future::Future;

/// One derived component in a driver's SQL.
pub trait Rebuild: Send {
    /// The driver's error.
    type Error: Send;

    /// The backend and component, for the log (`"mysql"`, `"store"`).
    fn names(&self) -> (&'static str, &'static str);

    /// What the component was last built for, if recorded.
    fn recorded(&mut self) -> impl Future<Output = Result<Option<String>, Self::Error>> + Send;

    /// Builds the component afresh from the rows.
    fn rebuild(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Records `wanted` as what the component was built for.
    fn record(&mut self, wanted: &str) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

/// Builds `component` afresh and records `wanted`, unless `wanted` is
/// already recorded; whether it did.
///
/// # Errors
/// The driver's, from any step; `wanted` is then not recorded.
pub async fn run<R: Rebuild>(component: &mut R, wanted: &str) -> Result<bool, R::Error> {
    let found = component.recorded().await?;
    if found.as_deref() == Some(wanted) {
        return Ok(false);
    }
    component.rebuild().await?;
    component.record(wanted).await?;
    let (database, name) = component.names();
    tracing::info!(database, component = name, from = ?found, to = wanted, "rebuilt");
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A component counting its builds.
    #[derive(Default)]
    struct Fake {
        record: Option<String>,
        builds: usize,
    }

    impl Rebuild for Fake {
        type Error = std::convert::Infallible;

        fn names(&self) -> (&'static str, &'static str) {
            ("fake", "terms")
        }

        async fn recorded(&mut self) -> Result<Option<String>, Self::Error> {
            Ok(self.record.clone())
        }

        async fn rebuild(&mut self) -> Result<(), Self::Error> {
            self.builds += 1;
            Ok(())
        }

        async fn record(&mut self, wanted: &str) -> Result<(), Self::Error> {
            self.record = Some(wanted.to_owned());
            Ok(())
        }
    }

    #[tokio::test]
    async fn builds_only_when_the_record_differs() {
        let mut fake = Fake::default();
        assert_eq!(run(&mut fake, "a").await, Ok(true));
        assert_eq!(run(&mut fake, "a").await, Ok(false));
        assert_eq!(run(&mut fake, "b").await, Ok(true));
        assert_eq!((fake.builds, fake.record.as_deref()), (2, Some("b")));
    }
}
