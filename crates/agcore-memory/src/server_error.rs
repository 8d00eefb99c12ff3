//! Errors of the database backends: named by the server they came from, so
//! a message read far from the call still says which database failed
//! ([`naming_server`]), and classified into [`MemoryError`] alike
//! ([`classify`], [`driver_error!`](crate::driver_error)).

use crate::MemoryError;

/// `err` with `shown` (the server's URL as shown in messages, password
/// redacted: [`redact_url`](crate::storage::redact_url)) before the message
/// of an [`Unavailable`](MemoryError::Unavailable) or
/// [`Storage`](MemoryError::Storage) error, as `"{shown}: {message}"`;
/// other errors (invalid input, not found, …) are about the request and
/// are returned unchanged.
pub fn naming_server(err: MemoryError, shown: &str) -> MemoryError {
    match err {
        MemoryError::Unavailable(m) => MemoryError::Unavailable(format!("{shown}: {m}")),
        MemoryError::Storage(m) => MemoryError::Storage(format!("{shown}: {m}")),
        other => other,
    }
}

/// A driver's error that is not a [`MemoryError`] already, as one: a value
/// the server refused (`refused`, the words naming it) is
/// [`InvalidInput`](MemoryError::InvalidInput); else an error a retry may
/// fix (`recoverable`) is [`Unavailable`](MemoryError::Unavailable), any
/// other [`Storage`](MemoryError::Storage); the message is `err`'s.
pub fn classify(
    err: &impl std::fmt::Display,
    recoverable: bool,
    refused: Option<&str>,
) -> MemoryError {
    match refused {
        Some(what) => MemoryError::InvalidInput(format!("{what}: {err}")),
        None if recoverable => MemoryError::Unavailable(err.to_string()),
        None => MemoryError::Storage(err.to_string()),
    }
}

/// The glue every driver's error enum `$error` (one `thiserror` enum per
/// crate, with a `$memory(MemoryError)` variant and an `is_recoverable`
/// method) needs: `From<$error> for MemoryError` through [`classify`]
/// (a `$memory` error passes through; `refused: path` names a function
/// `fn(&$error) -> Option<&'static str>` telling a refused value), `From`
/// a `serde_json` error, and the crate's `storage(message)` helper and
/// `Result` alias.
#[macro_export]
macro_rules! driver_error {
    (@refused $err:ident) => {
        None
    };
    (@refused $err:ident, $refused:path) => {
        $refused(&$err)
    };
    ($error:ident :: $memory:ident $(, refused: $refused:path)? $(,)?) => {
        impl From<$error> for $crate::MemoryError {
            fn from(err: $error) -> Self {
                let refused = $crate::driver_error!(@refused err $(, $refused)?);
                let recoverable = err.is_recoverable();
                match err {
                    $error::$memory(err) => err,
                    other => $crate::server_error::classify(&other, recoverable, refused),
                }
            }
        }

        impl From<serde_json::Error> for $error {
            fn from(err: serde_json::Error) -> Self {
                Self::$memory(err.into())
            }
        }

        /// A [`MemoryError::Storage`](agcore_memory::MemoryError::Storage)
        /// with this message, as this crate's error.
        pub(crate) fn storage(message: impl Into<String>) -> $error {
            $error::$memory($crate::MemoryError::Storage(message.into()))
        }

        /// Results of this crate's internals.
        pub(crate) type Result<T, E = $error> = std::result::Result<T, E>;
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_errors_are_classified_by_kind() {
        let err = classify(&"lost", true, None);
        assert!(matches!(&err, MemoryError::Unavailable(m) if m == "lost"));
        let err = classify(&"bad sql", false, None);
        assert!(matches!(&err, MemoryError::Storage(m) if m == "bad sql"));
        let err = classify(&"too long", true, Some("a value it will not store"));
        assert!(
            matches!(&err, MemoryError::InvalidInput(m) if m == "a value it will not store: too long")
        );
    }

    /// A driver's error, glued by the macro under test.
    mod driver {
        use crate::MemoryError;

        #[derive(Debug, thiserror::Error)]
        pub(super) enum FakeError {
            #[error("fake: {0}")]
            Server(&'static str),
            #[error(transparent)]
            Memory(#[from] MemoryError),
        }

        impl FakeError {
            fn is_recoverable(&self) -> bool {
                matches!(self, Self::Server("gone"))
            }
        }

        fn refused(err: &FakeError) -> Option<&'static str> {
            matches!(err, FakeError::Server("too long")).then_some("refused")
        }

        crate::driver_error!(FakeError::Memory, refused: refused);

        pub(super) fn stored() -> Result<()> {
            Err(storage("broken"))
        }
    }

    #[test]
    fn the_driver_glue_classifies_and_passes_memory_errors_through() {
        use driver::FakeError;
        let err: MemoryError = FakeError::Server("gone").into();
        assert!(matches!(&err, MemoryError::Unavailable(m) if m == "fake: gone"));
        let err: MemoryError = FakeError::Server("too long").into();
        assert!(matches!(&err, MemoryError::InvalidInput(m) if m == "refused: fake: too long"));
        let err: MemoryError = FakeError::Server("syntax").into();
        assert!(matches!(&err, MemoryError::Storage(m) if m == "fake: syntax"));
        let err: MemoryError = driver::stored().unwrap_err().into();
        assert!(matches!(&err, MemoryError::Storage(m) if m == "broken"));
        let json = serde_json::from_str::<u8>("x").unwrap_err();
        let err: MemoryError = FakeError::from(json).into();
        assert!(matches!(err, MemoryError::Serialization(_)), "{err}");
    }

    #[test]
    fn server_errors_name_the_server() {
        let shown = "mysql://u:***@db/x";
        let err = naming_server(MemoryError::Unavailable("gone".into()), shown);
        assert!(matches!(&err, MemoryError::Unavailable(m) if m == "mysql://u:***@db/x: gone"));
        let err = naming_server(MemoryError::Storage("bad".into()), shown);
        assert!(matches!(&err, MemoryError::Storage(m) if m == "mysql://u:***@db/x: bad"));
        let err = naming_server(MemoryError::InvalidInput("no".into()), shown);
        assert!(matches!(&err, MemoryError::InvalidInput(m) if m == "no"));
    }
}
