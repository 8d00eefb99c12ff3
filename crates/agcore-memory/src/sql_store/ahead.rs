//! Work on a batch's items done ahead of a writer by helper threads (for
//! SQLite: tokenising and encoding items while the writer thread runs the
//! statements of the items before).
//!
//! The batch is cut into pieces of [`PIECE`] items; helper threads claim
//! pieces in order and work on them while the writer consumes the pieces
//! before, and the writer works on a piece itself when no helper has
//! claimed it yet. The writer thus only waits for pieces already being
//! worked on. Each item's result is the same whichever thread made it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};

/// Items per piece.
pub const PIECE: usize = 256;

/// Batches from this many items get helper threads.
pub const PARALLEL_MIN: usize = 2 * PIECE;

/// A piece's results, or the error that stopped it.
type PieceResult<R, E> = Result<Vec<R>, E>;

/// The work on one piece: a result per item, in order.
pub type Work<'a, T, R, E> = dyn Fn(&[T]) -> PieceResult<R, E> + Sync + 'a;

/// The results of the items worked on so far, in order; [`Ahead::take`]
/// extends them.
pub struct Ahead<'a, T, R, E> {
    items: &'a [T],
    work: &'a Work<'a, T, R, E>,
    /// The next piece nobody has claimed.
    next: &'a AtomicUsize,
    /// Pieces worked on by helpers.
    rx: Option<Receiver<(usize, PieceResult<R, E>)>>,
    /// Pieces received before they were needed.
    early: HashMap<usize, PieceResult<R, E>>,
    done: Vec<R>,
}

impl<T, R, E> Ahead<'_, T, R, E> {
    /// The results so far, one per item, in item order.
    pub fn done(&self) -> &[R] {
        &self.done
    }

    /// Makes sure at least the first `count` items are worked on (whole
    /// pieces): works on the unclaimed pieces among them here, then waits
    /// for the rest.
    ///
    /// # Errors
    /// The first error of the work on a piece up to `count`.
    pub fn take(&mut self, count: usize) -> Result<(), E> {
        let count = count.min(self.items.len());
        let needed = count.div_ceil(PIECE);
        while self.done.len() < count {
            let piece = self.done.len() / PIECE;
            if let Some(result) = self.early.remove(&piece) {
                self.done.extend(result?);
                continue;
            }
            let claimed = self.next.load(Ordering::Relaxed);
            if claimed < needed {
                if self
                    .next
                    .compare_exchange(claimed, claimed + 1, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                {
                    let result = (self.work)(part(self.items, claimed));
                    self.early.insert(claimed, result);
                }
                continue;
            }
            // Every needed piece is claimed: receive until this one arrives.
            let received = self.rx.as_ref().and_then(|rx| rx.recv().ok());
            match received {
                Some((n, result)) => {
                    self.early.insert(n, result);
                }
                // Every helper is gone (one panicked): work on it here.
                None => {
                    let result = (self.work)(part(self.items, piece));
                    self.early.insert(piece, result);
                }
            }
        }
        Ok(())
    }

    /// Every item's result, in order (the results are left empty).
    ///
    /// # Errors
    /// As [`Self::take`].
    pub fn finish(&mut self) -> Result<Vec<R>, E> {
        self.take(self.items.len())?;
        Ok(std::mem::take(&mut self.done))
    }
}

/// The items of piece `piece` of `items` (empty past the end).
fn part<T>(items: &[T], piece: usize) -> &[T] {
    let start = piece.saturating_mul(PIECE);
    items
        .get(start..start.saturating_add(PIECE).min(items.len()))
        .unwrap_or_default()
}

/// Runs `f` with an [`Ahead`] doing `work` on `items`, with up to
/// `threads - 1` helper threads named `name` for a batch of at least
/// [`PARALLEL_MIN`] items (none when they cannot start). When `f` returns,
/// the helpers stop after their current piece and are joined.
///
/// # Errors
/// What `f` returns.
pub fn work_ahead<T: Sync, R: Send, E: Send, O>(
    items: &[T],
    (threads, name): (usize, &str),
    work: &Work<'_, T, R, E>,
    f: impl FnOnce(&mut Ahead<'_, T, R, E>) -> Result<O, E>,
) -> Result<O, E> {
    let next = AtomicUsize::new(0);
    let pieces = items.len().div_ceil(PIECE);
    let helpers = if items.len() < PARALLEL_MIN {
        0
    } else {
        threads.saturating_sub(1).min(pieces - 1)
    };
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        let mut handles = Vec::with_capacity(helpers);
        for _ in 0..helpers {
            let (tx, next) = (tx.clone(), &next);
            let helper = move || {
                loop {
                    let piece = next.fetch_add(1, Ordering::Relaxed);
                    let part = part(items, piece);
                    if part.is_empty() || tx.send((piece, work(part))).is_err() {
                        break;
                    }
                }
            };
            match std::thread::Builder::new()
                .name(name.to_owned())
                .spawn_scoped(scope, helper)
            {
                Ok(handle) => handles.push(handle),
                Err(err) => {
                    tracing::debug!(error = %err, thread = name, "no helper thread");
                    break;
                }
            }
        }
        drop(tx);
        let mut ahead = Ahead {
            items,
            work,
            next: &next,
            rx: (!handles.is_empty()).then_some(rx),
            early: HashMap::new(),
            done: Vec::with_capacity(items.len()),
        };
        let result = f(&mut ahead);
        // Stop the helpers (they finish their current piece) and collect them.
        next.store(pieces, Ordering::Relaxed);
        drop(ahead);
        for handle in handles {
            if handle.join().is_err() {
                tracing::warn!(thread = name, "a helper thread panicked");
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(items: &[u64]) -> Result<Vec<u64>, String> {
        Ok(items.iter().map(|n| n * n).collect())
    }

    #[test]
    fn every_piece_once_in_order_whatever_the_threads() {
        let items: Vec<u64> = (0..(5 * PIECE as u64 + 7)).collect();
        for threads in [1, 2, 4] {
            let done = work_ahead(&items, (threads, "test-ahead"), &square, |ahead| {
                for upto in [1, PIECE + 1, 3 * PIECE, usize::MAX] {
                    ahead.take(upto)?;
                    assert!(ahead.done().len() >= upto.min(items.len()));
                }
                Ok(ahead.done().to_vec())
            })
            .unwrap();
            let expected: Vec<u64> = items.iter().map(|n| n * n).collect();
            assert_eq!(done, expected);
        }
    }

    #[test]
    fn an_early_return_stops_the_helpers() {
        let items: Vec<u64> = (0..(8 * PIECE as u64)).collect();
        let err = work_ahead(
            &items,
            (3, "test-ahead"),
            &square,
            |ahead| -> Result<(), _> {
                ahead.take(1)?;
                Err("stop".to_owned())
            },
        );
        assert_eq!(err, Err("stop".to_owned()));
    }

    #[test]
    fn a_failing_piece_fails_the_take() {
        let items: Vec<u64> = (0..(3 * PIECE as u64)).collect();
        let fail = |part: &[u64]| -> Result<Vec<u64>, String> {
            if part.contains(&(PIECE as u64)) {
                Err("piece 1".to_owned())
            } else {
                Ok(part.to_vec())
            }
        };
        let err = work_ahead(&items, (2, "test-ahead"), &fail, |ahead| ahead.finish());
        assert_eq!(err, Err("piece 1".to_owned()));
    }
}
