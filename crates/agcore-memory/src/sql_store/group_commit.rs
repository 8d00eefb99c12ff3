//! Group commit: the writes queued at a store's writer applied in one
//! transaction, each caller answered only after it committed (many
//! concurrent single saves share one commit); if the group fails, each
//! write is retried alone so only the bad one fails.

use crate::MemoryError;

/// Applies `ops` with `transact` (one transaction over the ops it is
/// given, returning the rows written) as one group; if that fails and there
/// are several, each op again in a transaction of its own so one bad op
/// fails alone. Returns each op's result and the rows written.
///
/// # Errors
/// The error of a group of one op.
pub fn apply_group<O, E>(
    ops: &[O],
    mut transact: impl FnMut(&[O]) -> Result<usize, E>,
) -> Result<(Vec<Result<(), E>>, usize), E>
where
    E: std::fmt::Display,
{
    match transact(ops) {
        Ok(rows) => Ok((ops.iter().map(|_| Ok(())).collect(), rows)),
        Err(err) if ops.len() == 1 => Err(err),
        Err(err) => {
            tracing::debug!(error = %err, "write group failed; retrying ops one by one");
            let mut rows = 0;
            let results = ops
                .iter()
                .map(|op| transact(std::slice::from_ref(op)).map(|n| rows += n))
                .collect();
            Ok((results, rows))
        }
    }
}

/// The same error again, for each caller of a failed group: an
/// [`MemoryError::Unavailable`] stays one (so callers may retry), any
/// other is a [`MemoryError::Storage`] with its message.
#[must_use]
pub fn copy_error(err: &MemoryError) -> MemoryError {
    match err {
        MemoryError::Unavailable(m) => MemoryError::Unavailable(m.clone()),
        other => MemoryError::Storage(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_op_fails_alone_in_its_group() {
        // An op fails when it is 0; a transaction fails when any op does.
        let transact = |ops: &[u32]| -> Result<usize, String> {
            if ops.contains(&0) {
                Err("zero".to_owned())
            } else {
                Ok(ops.iter().map(|&n| n as usize).sum())
            }
        };
        let (results, rows) = apply_group(&[1, 0, 2], transact).unwrap();
        assert_eq!(results, [Ok(()), Err("zero".to_owned()), Ok(())]);
        assert_eq!(rows, 3);
        assert_eq!(apply_group(&[4, 5], transact).unwrap().1, 9);
        assert_eq!(apply_group(&[0], transact), Err("zero".to_owned()));
    }

    #[test]
    fn copies_keep_unavailability() {
        let copy = copy_error(&MemoryError::Unavailable("busy".into()));
        assert!(matches!(copy, MemoryError::Unavailable(m) if m == "busy"));
        let copy = copy_error(&MemoryError::InvalidInput("bad".into()));
        assert!(matches!(copy, MemoryError::Storage(_)));
    }
}
