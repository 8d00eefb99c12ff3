//! Grouping a large batch on two threads: each half of the documents is
//! grouped alone ([`group_docs`]) and the two groupings are merged.

use super::group::{Grouped, group_docs};
use super::layout::FieldDoc;

/// Batches from this many documents are grouped in two halves on two threads.
pub const PARALLEL_MIN: usize = 4096;

/// [`group_docs`], on two threads for a large batch when the machine has
/// two cores: each half of the documents (in document order) is grouped
/// alone and the halves are merged.
pub fn group_docs_parallel<'a>(docs: &[FieldDoc<'a>], skip: usize) -> Grouped<'a> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if docs.len() < PARALLEL_MIN || cores < 2 {
        return group_docs(docs, skip);
    }
    let mut sorted = docs.to_vec();
    sorted.sort_by_key(|d| d.doc);
    // Split between two different documents, so each document is in one half.
    let mut mid = sorted.len() / 2;
    while mid < sorted.len() && sorted.get(mid - 1).map(|d| d.doc) == sorted.get(mid).map(|d| d.doc)
    {
        mid += 1;
    }
    let (low, high) = sorted.split_at(mid);
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("agcore-impact-group".into())
            .spawn_scoped(scope, move || group_docs(high, skip));
        let low = group_docs(low, skip);
        let high = match helper.map(std::thread::ScopedJoinHandle::join) {
            Ok(Ok(grouped)) => grouped,
            _ => group_docs(high, skip),
        };
        merge(low, high)
    })
}

/// Merges the groupings of two document sets, every document of `low`
/// before every document of `high`.
pub fn merge<'a>(low: Grouped<'a>, high: Grouped<'a>) -> Grouped<'a> {
    let mut out = Grouped {
        groups: Vec::with_capacity(low.groups.len() + high.groups.len()),
        postings: Vec::with_capacity(low.postings.len() + high.postings.len()),
        terms: Vec::with_capacity(low.terms.len() + high.terms.len()),
        tokens: low.tokens + high.tokens,
        docs: low.docs + high.docs,
        grouped: low.grouped + high.grouped,
        context_tokens: low.context_tokens + high.context_tokens,
    };
    let (mut i, mut j) = (0, 0);
    loop {
        match (low.terms.get(i), high.terms.get(j)) {
            (Some(x), Some(y)) if x.term == y.term => {
                let mut both = *x;
                both.absorb(y);
                out.terms.push(both);
                (i, j) = (i + 1, j + 1);
            }
            (Some(x), Some(y)) if x.term > y.term => {
                out.terms.push(*y);
                j += 1;
            }
            (Some(x), _) => {
                out.terms.push(*x);
                i += 1;
            }
            (None, Some(y)) => {
                out.terms.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    let (mut i, mut j) = (0, 0);
    loop {
        let (key, from_low, from_high) = match (low.groups.get(i), high.groups.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                (i, j) = (i + 1, j + 1);
                (x.0, Some(&x.1), Some(&y.1))
            }
            (Some(x), Some(y)) if x.0 > y.0 => {
                j += 1;
                (y.0, None, Some(&y.1))
            }
            (Some(x), _) => {
                i += 1;
                (x.0, Some(&x.1), None)
            }
            (None, Some(y)) => {
                j += 1;
                (y.0, None, Some(&y.1))
            }
            (None, None) => break,
        };
        let start = out.postings.len();
        for (range, postings) in [(from_low, &low.postings), (from_high, &high.postings)] {
            if let Some(range) = range {
                out.postings
                    .extend_from_slice(postings.get(range.clone()).unwrap_or_default());
            }
        }
        out.groups.push((key, start..out.postings.len()));
    }
    out
}
