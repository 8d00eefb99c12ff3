//! Planner statistics after bulk writes: a store asks its server to
//! analyse its tables once the rows it wrote since its last request reach
//! the table's size when last analysed (at least [`MIN_ROWS`]): the table
//! has doubled. A server's own background analysis (PostgreSQL's
//! autovacuum) runs after a tenth, but only on its next round (a minute by
//! default); what matters most is that a table has statistics at all (the
//! planner scales row counts by the table's current size), and a tenth made
//! bulk inserts of 10k rows 18% slower where doubling costs 0–5%. Until
//! then a just-imported table has no statistics, and search plans are made
//! blind: LoCoMo queries on PostgreSQL stores searched right after their
//! ingest took 4.2 ms p50, 1.8 ms once autovacuum had analysed the tables,
//! and take 2.6 ms with this. The request runs on a task of its own, so no
//! write waits for it; one at a time per store; a failure is logged at
//! debug level (the server's own analysis remains).

use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Fewest rows written before a request (autovacuum's base threshold is 50
/// rows; this one keeps small write bursts from paying for it).
pub const MIN_ROWS: usize = 500;

/// One store's count of rows written since its last request. Cheap to
/// clone: clones share the count.
#[derive(Debug, Default, Clone)]
pub struct AutoAnalyze(Arc<State>);

#[derive(Debug, Default)]
struct State {
    written: AtomicUsize,
    /// Rows in the table when last analysed (the server's estimate).
    analysed: AtomicUsize,
    running: AtomicBool,
}

impl AutoAnalyze {
    /// Rows to write before the next request: the table's size as last
    /// analysed, at least [`MIN_ROWS`].
    fn due(&self) -> usize {
        MIN_ROWS.max(self.0.analysed.load(Ordering::Acquire))
    }

    /// Counts `rows` written; when due, runs `analyze()` on a task of its
    /// own (a Tokio runtime's); it returns the table's new row estimate.
    pub fn after_write<F, E>(&self, rows: usize, analyze: impl FnOnce() -> F)
    where
        F: Future<Output = Result<usize, E>> + Send + 'static,
        E: Display,
    {
        let state = &self.0;
        let written = state.written.fetch_add(rows, Ordering::AcqRel) + rows;
        if written < self.due() || state.running.swap(true, Ordering::AcqRel) {
            return;
        }
        state.written.store(0, Ordering::Release);
        let (run, state) = (analyze(), Arc::clone(state));
        tokio::spawn(async move {
            match run.await {
                Ok(rows) => state.analysed.store(rows, Ordering::Release),
                Err(err) => {
                    tracing::debug!(%err, "memory store: ANALYZE after a bulk write failed");
                }
            }
            state.running.store(false, Ordering::Release);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_doubling_is_due_and_at_least_the_minimum() {
        let a = AutoAnalyze::default();
        assert_eq!(a.due(), MIN_ROWS);
        a.0.analysed.store(100_000, Ordering::Release);
        assert_eq!(a.due(), 100_000);
        a.0.analysed.store(100, Ordering::Release);
        assert_eq!(a.due(), MIN_ROWS);
    }

    #[tokio::test]
    async fn a_due_request_runs_once_and_records_the_estimate() {
        let a = AutoAnalyze::default();
        a.after_write(10, || async { Ok::<_, String>(1) });
        assert!(!a.0.running.load(Ordering::Acquire));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        a.after_write(MIN_ROWS, || async move {
            let _ = rx.await;
            Ok::<_, String>(2_000)
        });
        // One at a time: a second due write starts nothing.
        a.after_write(MIN_ROWS, || async { Ok::<_, String>(7) });
        let _ = tx.send(());
        for _ in 0..100 {
            if !a.0.running.load(Ordering::Acquire) {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(a.due(), 2_000);
    }
}
