//! Grouping a batch's postings by (term, run code, key length): the pure
//! part of an index write, with no connection, so it can run beside the
//! statements that write the documents.

use std::collections::HashMap;

use super::layout::{FieldDoc, Posting, run_code};

/// A (term, run code, key length) group key (see [`run_code`]).
pub type GroupKey<'a> = (&'a str, u32, u32);

/// Per-term statistics of a batch: documents holding the term (in either
/// field), its largest tf in the own text and in the context field, and the
/// smallest context length of a document holding it in both fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermCounts<'a> {
    /// The term.
    pub term: &'a str,
    /// Documents holding it in either field.
    pub df: i64,
    /// Its largest own tf.
    pub max_tf: u32,
    /// Its largest context tf.
    pub max_ctf: u32,
    /// The smallest context length of a document holding it in both fields.
    pub min_clen: Option<u32>,
}

impl TermCounts<'_> {
    /// Adds `other`'s counts (the same term, other documents).
    pub fn absorb(&mut self, other: &Self) {
        self.df += other.df;
        self.max_tf = self.max_tf.max(other.max_tf);
        self.max_ctf = self.max_ctf.max(other.max_ctf);
        self.min_clen = min_option(self.min_clen, other.min_clen);
    }
}

/// The smaller of two optional values (`None` only when both are).
pub fn min_option(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The postings of a batch of documents, grouped for writing.
#[derive(Debug, Default)]
pub struct Grouped<'a> {
    /// Groups in key order: key and the range of [`Self::postings`] holding
    /// its postings, sorted by document (a document listed twice counts once).
    pub groups: Vec<(GroupKey<'a>, std::ops::Range<usize>)>,
    /// Every group's postings `(key length, doc)`, group after group.
    pub postings: Vec<Posting>,
    /// Per term, in term order.
    pub terms: Vec<TermCounts<'a>>,
    /// The documents' total own length in tokens.
    pub tokens: i64,
    /// How many documents were grouped.
    pub docs: usize,
    /// How many of them belong to a sequence (have a context field).
    pub grouped: i64,
    /// Their total context length in tokens.
    pub context_tokens: i64,
}

impl<'a> Grouped<'a> {
    /// The postings of `self` that `other` does not hold under the same
    /// group key, for block writes only: no term counts, the document count
    /// kept (it decides how blocks join). A re-index writes
    /// `new.without(&old)` and removes `old.without(&new)`, so postings both
    /// hold stay where they are.
    #[must_use]
    pub fn without(&self, other: &Grouped<'_>) -> Grouped<'a> {
        let mut held = std::collections::HashSet::with_capacity(other.postings.len());
        for (key, range) in &other.groups {
            for p in other.postings.get(range.clone()).unwrap_or_default() {
                held.insert((*key, *p));
            }
        }
        let mut out = Grouped {
            docs: self.docs,
            ..Grouped::default()
        };
        for (key, range) in &self.groups {
            let start = out.postings.len();
            for p in self.postings.get(range.clone()).unwrap_or_default() {
                if !held.contains(&(*key, *p)) {
                    out.postings.push(*p);
                }
            }
            if out.postings.len() > start {
                out.groups.push((*key, start..out.postings.len()));
            }
        }
        out
    }
}

/// A term's postings `(code, key length, doc)` in document order and its counts.
type TermList<'a> = (Vec<(u32, u32, i64)>, TermCounts<'a>);

/// Groups the postings of `docs`, skipping each `terms` value's first
/// `skip` tokens (the context field skips none).
///
/// Each token is looked up once, giving its term a dense number; postings
/// are collected per term in document order (the documents are visited in
/// that order), so a term's list needs only a stable sort by (code, key
/// length) — small integer keys — and the term names are sorted once.
pub fn group_docs<'a>(docs: &[FieldDoc<'a>], skip: usize) -> Grouped<'a> {
    let mut ids: HashMap<&'a str, usize, foldhash::fast::RandomState> = HashMap::default();
    let mut lists: Vec<TermList<'a>> = Vec::new();
    let mut order: Vec<usize> = (0..docs.len()).collect();
    if !docs.is_sorted_by_key(|d| d.doc) {
        order.sort_by_key(|&n| docs.get(n).map(|d| d.doc));
    }
    // Term number × 2, + 1 for a context occurrence.
    let mut doc_terms: Vec<usize> = Vec::new();
    let (mut tokens, mut grouped, mut context_tokens) = (0i64, 0i64, 0i64);
    for doc in order.iter().filter_map(|&n| docs.get(n)) {
        doc_terms.clear();
        for token in doc.terms.split(' ').filter(|t| !t.is_empty()).skip(skip) {
            doc_terms.push(intern(&mut ids, &mut lists, token) * 2);
        }
        let len = u32::try_from(doc_terms.len()).unwrap_or(u32::MAX);
        let mut clen = 0u32;
        for token in doc
            .context
            .unwrap_or("")
            .split(' ')
            .filter(|t| !t.is_empty())
        {
            doc_terms.push(intern(&mut ids, &mut lists, token) * 2 + 1);
            clen = clen.saturating_add(1);
        }
        tokens += i64::from(len);
        if doc.context.is_some() {
            grouped += 1;
            context_tokens += i64::from(clen);
        }
        doc_terms.sort_unstable();
        add_runs(&doc_terms, &mut lists, len, clen, doc.doc);
    }
    let mut by_name: Vec<usize> = (0..lists.len()).collect();
    by_name.sort_unstable_by_key(|&id| lists.get(id).map(|l| l.1.term).unwrap_or_default());
    let mut out = Grouped {
        groups: Vec::new(),
        postings: Vec::with_capacity(lists.iter().map(|l| l.0.len()).sum()),
        terms: Vec::with_capacity(lists.len()),
        tokens,
        docs: docs.len(),
        grouped,
        context_tokens,
    };
    for id in by_name {
        if let Some((list, counts)) = lists.get_mut(id) {
            emit(list, counts, &mut out);
        }
    }
    out
}

/// The dense number of `token`, numbering it (with empty counts) when new.
fn intern<'a>(
    ids: &mut HashMap<&'a str, usize, foldhash::fast::RandomState>,
    lists: &mut Vec<TermList<'a>>,
    token: &'a str,
) -> usize {
    let next = lists.len();
    *ids.entry(token).or_insert_with(|| {
        lists.push((
            Vec::new(),
            TermCounts {
                term: token,
                df: 0,
                max_tf: 0,
                max_ctf: 0,
                min_clen: None,
            },
        ));
        next
    })
}

/// Postings of `docs` grouped by (term, run code, key length), sorted by
/// document; the per-term counts; the batch's totals.
pub fn group<'a>(docs: &'a [FieldDoc<'a>], skip: usize) -> Flat<'a> {
    let grouped = group_docs(docs, skip);
    let groups = grouped
        .groups
        .iter()
        .map(|(key, range)| {
            (
                *key,
                grouped
                    .postings
                    .get(range.clone())
                    .unwrap_or_default()
                    .to_vec(),
            )
        })
        .collect();
    Flat {
        groups,
        terms: grouped.terms,
        tokens: grouped.tokens,
        grouped: grouped.grouped,
        context_tokens: grouped.context_tokens,
    }
}

/// [`Grouped`] with each group's postings in its own list (for checks).
#[derive(Debug, PartialEq, Eq)]
pub struct Flat<'a> {
    /// Each group with its postings, in key order.
    pub groups: Vec<(GroupKey<'a>, Vec<Posting>)>,
    /// Per-term counts, in term order.
    pub terms: Vec<TermCounts<'a>>,
    /// Own tokens of the batch.
    pub tokens: i64,
    /// Documents with a context field.
    pub grouped: i64,
    /// Context tokens of the batch.
    pub context_tokens: i64,
}

/// Adds one document's sorted term numbers (term × 2, + 1 for a context
/// occurrence) to the term lists: one posting per term with its own and
/// context frequencies, and the term's counts.
fn add_runs(doc_terms: &[usize], lists: &mut [TermList<'_>], len: u32, clen: u32, doc: i64) {
    for run in doc_terms.chunk_by(|a, b| a / 2 == b / 2) {
        let Some(&first) = run.first() else {
            continue;
        };
        let in_context = run.iter().filter(|&&t| t % 2 == 1).count();
        let (Ok(tf), Ok(ctf)) = (
            u32::try_from(run.len() - in_context),
            u32::try_from(in_context),
        ) else {
            continue;
        };
        if let Some((list, counts)) = lists.get_mut(first / 2) {
            let key_len = if tf > 0 { len } else { clen };
            list.push((run_code(tf, ctf), key_len, doc));
            counts.df += 1;
            counts.max_tf = counts.max_tf.max(tf);
            counts.max_ctf = counts.max_ctf.max(ctf);
            if tf > 0 && ctf > 0 {
                counts.min_clen = min_option(counts.min_clen, Some(clen));
            }
        }
    }
}

/// Appends one term's counts, postings and groups (by code and length, each
/// group in document order) to `out`.
fn emit<'a>(list: &mut [(u32, u32, i64)], counts: &TermCounts<'a>, out: &mut Grouped<'a>) {
    out.terms.push(*counts);
    let term = counts.term;
    // Stable: each group keeps document order.
    list.sort_by_key(|p| (p.0, p.1));
    for run in list.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let Some(&(code, len, _)) = run.first() else {
            continue;
        };
        let start = out.postings.len();
        for &(_, _, doc) in run {
            // A document listed twice counts once (its first listing).
            if out.postings.len() == start || out.postings.last().is_none_or(|p| p.1 != doc) {
                out.postings.push((len, doc));
            }
        }
        out.groups
            .push(((term, code, len), start..out.postings.len()));
    }
}

#[cfg(test)]
mod tests;
