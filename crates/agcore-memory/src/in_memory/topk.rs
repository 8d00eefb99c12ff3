//! Top-k BM25 retrieval with MaxScore dynamic pruning.
//!
//! MaxScore (Turtle & Flood 1995, "Query evaluation: strategies and
//! optimizations", Information Processing & Management 31(6)) traverses
//! document-ordered posting lists. Each term has an upper bound of its
//! contribution; once `k` results are held, the terms whose bounds sum below
//! the k-th score are *non-essential*: a document holding only those terms
//! cannot enter the results, so candidates come from the essential lists
//! alone and the non-essential lists are only probed (skipping ahead) for the
//! candidates whose score can still reach the threshold. The result is the
//! exact top-k of exhaustive scoring (same scores, same id tie-break).
//!
//! Ties: results tie-break by id, and inside a sealed segment slots follow
//! id order (see `segments`). Once a candidate there ties the k-th result
//! and loses on its id, every later slot of the segment would lose such a
//! tie too, so up to the segment's end only documents scoring *strictly*
//! above the k-th count: a term list whose bound only reaches the k-th score
//! becomes non-essential, and when no essential list is left the search
//! jumps to the next segment. On collections where many documents share the
//! top score (short memories, one matching phrase) this reads a few postings
//! per segment instead of every tied document.

use agcore_search::pruning::PrefixBounds;

use super::doc::Slot;
use super::postings::Cursor;
use super::results::{Offer, TopK};
use super::segments::{Run, Segments};
use crate::retriever::Bm25F;
use crate::{ScoredItem, SearchOptions};

/// The slot table as the search reads it.
pub(super) struct Table<'a> {
    /// Items by slot.
    pub(super) docs: &'a [Slot],
    /// Liveness by slot.
    pub(super) alive: &'a [bool],
    /// Runs of slots in id order.
    pub(super) segments: &'a Segments,
}

/// The exact BM25 top-`options.limit` over `lists` (one cursor per distinct
/// query term, `Cursor::term` numbering them in query order), best first,
/// ties by id, each term weighted by `fields` (BM25F over the own text and
/// the context field; plain BM25 where a document has no context).
pub(super) fn max_score(
    table: &Table<'_>,
    mut lists: Vec<Cursor<'_>>,
    fields: &Bm25F,
    options: &SearchOptions,
) -> Vec<ScoredItem> {
    let k = options.limit;
    let mut top = TopK::new(options);
    if k == 0 {
        return Vec::new();
    }
    lists.sort_by(|a, b| a.upper.total_cmp(&b.upper));
    let uppers: Vec<(usize, f64)> = lists.iter().map(|c| (c.term, c.upper)).collect();
    let bounds = PrefixBounds::new(&uppers);
    let mut parts = vec![0.0; lists.iter().map(|c| c.term + 1).max().unwrap_or(0)];
    let mut run = Run::default();
    // Set when a tie lost on id inside a sorted run: until the run's end,
    // documents tying the k-th score cannot enter. Cleared when the k-th
    // result changes and at a new run.
    let mut ties_lose = false;
    loop {
        let theta = top.threshold();
        let ties_lose_now = ties_lose && top.full_at() == Some(theta);
        let first_essential = bounds.non_essential(theta, ties_lose_now);
        let (non_essential, essential) = lists.split_at_mut(first_essential);
        let next = essential
            .iter()
            .filter_map(|c| c.current().map(|p| p.slot))
            .min();
        let slot = match next {
            Some(slot) if slot < run.end => slot,
            // Nothing left that can reach the k-th score.
            None if !ties_lose_now => break,
            Some(slot) if !ties_lose_now => {
                run = table.segments.run_of(slot);
                ties_lose = false;
                continue;
            }
            // Only ties could still enter, and not before this run ends.
            _ => {
                if run.end == u32::MAX {
                    break;
                }
                run = skip_run(&mut lists, table, run.end);
                ties_lose = false;
                continue;
            }
        };
        // The running sum decides pruning; the reported score adds the
        // parts in query order, as exhaustive scoring does, so equal
        // documents get bit-identical scores and ties fall to the id.
        parts.fill(0.0);
        let score = score_essential(essential, slot, fields, &mut parts);
        if !table.alive.get(slot as usize).copied().unwrap_or(false) {
            continue;
        }
        let slack = bounds.slack();
        if !complete_or_prune(non_essential, slack, slot, score, theta, fields, &mut parts) {
            continue;
        }
        let score = parts.iter().fold(0.0, |sum, part| sum + part);
        if score < theta {
            continue; // decided without reading the item
        }
        let Some(doc) = table.docs.get(slot as usize).and_then(Slot::doc) else {
            continue;
        };
        match top.offer(score, &doc.item) {
            Offer::Entered => ties_lose = false,
            Offer::TieLost => ties_lose |= run.sorted,
            Offer::Rejected => {}
        }
    }
    top.into_hits()
}

/// Moves every list to `start` and returns the run beginning there.
fn skip_run(lists: &mut [Cursor<'_>], table: &Table<'_>, start: u32) -> Run {
    for cursor in lists.iter_mut() {
        cursor.skip_to(start);
    }
    table.segments.run_of(start)
}

/// Scores `slot` on the essential lists (each advanced past it), writing
/// each term's part into `parts`; returns the running sum.
fn score_essential(
    essential: &mut [Cursor<'_>],
    slot: u32,
    fields: &Bm25F,
    parts: &mut [f64],
) -> f64 {
    let mut score = 0.0;
    for cursor in essential.iter_mut() {
        if let Some(p) = cursor.current().filter(|p| p.slot == slot) {
            let part = cursor.idf * p.tf_part(fields);
            score += part;
            if let Some(cell) = parts.get_mut(cursor.term) {
                *cell = part;
            }
            cursor.advance();
        }
    }
    score
}

/// Adds the non-essential lists' parts for `slot`, highest bound first,
/// stopping as soon as `score` plus the remaining bound (`slack`) cannot
/// reach `theta`. Returns `false` when the document was pruned.
fn complete_or_prune(
    non_essential: &mut [Cursor<'_>],
    slack: &[f64],
    slot: u32,
    mut score: f64,
    theta: f64,
    fields: &Bm25F,
    parts: &mut [f64],
) -> bool {
    for (cursor, bound) in non_essential.iter_mut().zip(slack).rev() {
        if score + bound < theta {
            return false;
        }
        if let Some(p) = cursor.seek(slot) {
            let part = cursor.idf * p.tf_part(fields);
            score += part;
            if let Some(cell) = parts.get_mut(cursor.term) {
                *cell = part;
            }
        }
    }
    true
}
