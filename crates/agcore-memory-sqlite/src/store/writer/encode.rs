//! Encoding items for their rows (index terms, metadata JSON), with helper
//! threads working ahead of the writer.
//!
//! Tokenising is most of a batch's CPU time outside SQLite and each item is
//! independent. A large batch is cut into pieces; helper threads claim
//! pieces in order and encode them while the writer thread runs the
//! statements of the pieces before, and the writer encodes a piece itself
//! when no helper has claimed it yet. The writer thus only waits for
//! pieces already being encoded.

use crate::error::Result;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};

use crate::store::query::index_terms;
use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;

/// Items per piece.
const PIECE: usize = 256;

/// Batches from this many items get helper threads.
const PARALLEL_MIN: usize = 2 * PIECE;

/// What an item's row stores beside its own fields.
#[derive(Debug)]
pub(super) struct Encoded {
    /// The `terms` column ([`index_terms`] of the content).
    pub(super) terms: String,
    /// The metadata as JSON text.
    pub(super) metadata: String,
    /// The `grp` column: the item's sequence under the context field.
    pub(super) group: Option<String>,
}

/// A piece's encoding, or the error that stopped it.
type PieceResult = Result<Vec<Encoded>>;

fn encode(items: &[&MemoryItem], context: Option<&ContextField>) -> PieceResult {
    items
        .iter()
        .map(|item| {
            Ok(Encoded {
                terms: index_terms(&item.content),
                metadata: serde_json::to_string(&item.metadata)?,
                group: context.and_then(|c| c.group_of(item)),
            })
        })
        .collect()
}

/// The items encoded so far, in order; [`Encoder::take`] extends them.
pub(super) struct Encoder<'a> {
    items: &'a [&'a MemoryItem],
    context: Option<&'a ContextField>,
    /// The next piece nobody has claimed.
    next: &'a AtomicUsize,
    /// Pieces encoded by helpers.
    rx: Option<Receiver<(usize, PieceResult)>>,
    /// Pieces received before they were needed.
    early: HashMap<usize, PieceResult>,
    done: Vec<Encoded>,
}

impl Encoder<'_> {
    /// The encoded items, in order.
    pub(super) fn encoded(&self) -> &[Encoded] {
        &self.done
    }

    /// Makes sure at least the first `count` items are encoded (whole
    /// pieces): encodes the unclaimed pieces among them here, then waits
    /// for the rest.
    ///
    /// # Errors
    /// [`MemoryError::Serialization`] when an item's metadata cannot be encoded.
    pub(super) fn take(&mut self, count: usize) -> Result<()> {
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
                    self.early
                        .insert(claimed, encode(self.part(claimed), self.context));
                }
                continue;
            }
            // Every needed piece is claimed: receive until this one arrives.
            let received = self.rx.as_ref().and_then(|rx| rx.recv().ok());
            match received {
                Some((n, result)) => {
                    self.early.insert(n, result);
                }
                // Every helper is gone (one panicked): encode it here.
                None => {
                    let result = encode(self.part(piece), self.context);
                    self.early.insert(piece, result);
                }
            }
        }
        Ok(())
    }

    /// Every item encoded, in order (the encoder is left empty).
    ///
    /// # Errors
    /// As [`Self::take`].
    pub(super) fn finish(&mut self) -> Result<Vec<Encoded>> {
        self.take(self.items.len())?;
        Ok(std::mem::take(&mut self.done))
    }

    /// The items of piece `piece`.
    fn part(&self, piece: usize) -> &[&MemoryItem] {
        part(self.items, piece)
    }
}

/// The items of piece `piece` of `items` (empty past the end).
fn part<'a>(items: &'a [&'a MemoryItem], piece: usize) -> &'a [&'a MemoryItem] {
    let start = piece.saturating_mul(PIECE);
    items
        .get(start..start.saturating_add(PIECE).min(items.len()))
        .unwrap_or_default()
}

/// Runs `f` with an [`Encoder`] of `items`, with up to `threads - 1` helper
/// threads for a large batch (none when they cannot start).
///
/// # Errors
/// What `f` returns.
pub(super) fn with_encoder<R>(
    items: &[&MemoryItem],
    context: Option<&ContextField>,
    threads: usize,
    f: impl FnOnce(&mut Encoder<'_>) -> Result<R>,
) -> Result<R> {
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
                    if part.is_empty() || tx.send((piece, encode(part, context))).is_err() {
                        break;
                    }
                }
            };
            match std::thread::Builder::new()
                .name("agcore-sqlite-encode".into())
                .spawn_scoped(scope, helper)
            {
                Ok(handle) => handles.push(handle),
                Err(err) => {
                    tracing::debug!(error = %err, "sqlite memory store: no encoding helper thread");
                    break;
                }
            }
        }
        drop(tx);
        let mut encoder = Encoder {
            items,
            context,
            next: &next,
            rx: (!handles.is_empty()).then_some(rx),
            early: HashMap::new(),
            done: Vec::with_capacity(items.len()),
        };
        let result = f(&mut encoder);
        // Stop the helpers (they finish their current piece) and collect them.
        next.store(pieces, Ordering::Relaxed);
        drop(encoder);
        for handle in handles {
            if handle.join().is_err() {
                tracing::warn!("sqlite memory store: an encoding helper thread panicked");
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_once_in_order_whatever_the_threads() {
        let items: Vec<MemoryItem> = (0..(5 * PIECE + 7))
            .map(|i| MemoryItem::new(format!("k{i}"), format!("word{i} 记忆系统")))
            .collect();
        let refs: Vec<&MemoryItem> = items.iter().collect();
        for threads in [1, 2, 4] {
            let terms = with_encoder(&refs, None, threads, |enc| {
                for upto in [1, PIECE + 1, 3 * PIECE, usize::MAX] {
                    enc.take(upto)?;
                    assert!(enc.encoded().len() >= upto.min(refs.len()));
                }
                Ok(enc
                    .encoded()
                    .iter()
                    .map(|e| e.terms.clone())
                    .collect::<Vec<_>>())
            })
            .unwrap();
            let expected: Vec<String> = refs.iter().map(|i| index_terms(&i.content)).collect();
            assert_eq!(terms, expected);
        }
    }

    #[test]
    fn an_early_return_stops_the_helpers() {
        let items: Vec<MemoryItem> = (0..(8 * PIECE))
            .map(|i| MemoryItem::new(format!("k{i}"), "x y"))
            .collect();
        let refs: Vec<&MemoryItem> = items.iter().collect();
        let err = with_encoder(&refs, None, 3, |enc| -> Result<()> {
            enc.take(1)?;
            Err(crate::error::storage("stop"))
        });
        assert!(matches!(
            err,
            Err(crate::SqliteError::Memory(agcore_memory::MemoryError::Storage(m))) if m == "stop"
        ));
    }
}
