//! Running a write transaction again when the database rolled it back for
//! a lock conflict (a deadlock or a serialization failure), the one retry
//! rule of every SQL driver.
//!
//! A database breaks a deadlock by failing one of the transactions in it,
//! which then holds nothing and may simply run again ("applications using
//! this level must be prepared to retry transactions due to serialization
//! failures", PostgreSQL manual, *Transaction Isolation*; InnoDB likewise
//! rolls back a deadlock victim, MySQL manual, *Deadlocks in InnoDB*). The
//! runs are driven by `backon`.

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;

use backon::{ConstantBuilder, Retryable};

/// Most runs of one write transaction, the first included.
pub const WRITE_ATTEMPTS: usize = 5;

/// Runs `op` (one whole transaction) until it succeeds, fails with an error
/// that `is_conflict` does not accept, or [`WRITE_ATTEMPTS`] runs were made.
/// A conflict is run again at once: the transaction that won holds the
/// locks only until it commits. `what` names the write in the debug log.
///
/// # Errors
/// The first error that is not a conflict, or the conflict of the last run.
pub async fn retry_lock_conflicts<T, E, F, Fut>(
    what: &str,
    is_conflict: impl Fn(&E) -> bool,
    op: F,
) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    E: Display,
{
    let runs = ConstantBuilder::default()
        .with_delay(Duration::ZERO)
        .with_max_times(WRITE_ATTEMPTS - 1);
    op.retry(runs)
        .when(|err| is_conflict(err))
        .notify(|err, _| tracing::debug!(%err, "{what}: lock conflict; again"))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    async fn count_runs(fail_with: &'static str) -> (Result<(), String>, usize) {
        let runs = AtomicUsize::new(0);
        let result = retry_lock_conflicts(
            "test",
            |e: &String| e == "deadlock",
            || {
                runs.fetch_add(1, Ordering::Relaxed);
                async move { Err(fail_with.to_owned()) }
            },
        )
        .await;
        (result, runs.load(Ordering::Relaxed))
    }

    #[tokio::test]
    async fn conflicts_run_again_up_to_the_limit_and_others_do_not() {
        assert_eq!(count_runs("deadlock").await.1, WRITE_ATTEMPTS);
        let (result, runs) = count_runs("syntax error").await;
        assert_eq!(result, Err("syntax error".to_owned()));
        assert_eq!(runs, 1);
    }

    #[tokio::test]
    async fn a_run_after_a_conflict_returns_its_value() {
        let runs = AtomicUsize::new(0);
        let result: Result<usize, String> = retry_lock_conflicts(
            "test",
            |e: &String| e == "deadlock",
            || {
                let run = runs.fetch_add(1, Ordering::Relaxed) + 1;
                async move {
                    if run < 3 {
                        Err("deadlock".to_owned())
                    } else {
                        Ok(run)
                    }
                }
            },
        )
        .await;
        assert_eq!(result, Ok(3));
    }
}
