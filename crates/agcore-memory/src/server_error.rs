//! Errors of a database backend named by the server they came from, so a
//! message read far from the call still says which database failed.

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

#[cfg(test)]
mod tests {
    use super::*;

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
