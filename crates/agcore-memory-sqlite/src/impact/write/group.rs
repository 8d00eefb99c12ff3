//! Grouping a batch's postings by (term, tf bucket, document length): the pure
//! part of an index write, with no connection, so it can run beside the
//! statements that write the documents.

use std::collections::HashMap;

use super::super::{Posting, TF_BUCKETS};

/// A (term, tf bucket, document length) group key.
pub(crate) type GroupKey<'a> = (&'a str, u32, u32);

/// The postings of a batch of documents, grouped for writing.
#[derive(Debug, Default)]
pub(crate) struct Grouped<'a> {
    /// Groups in key order: key and the range of [`Self::postings`] holding
    /// its postings, sorted by document (a document listed twice counts once).
    pub(crate) groups: Vec<(GroupKey<'a>, std::ops::Range<usize>)>,
    /// Every group's postings `(len, doc)`, group after group.
    pub(crate) postings: Vec<Posting>,
    /// Per term, in term order: documents holding it and its largest tf.
    pub(crate) terms: Vec<(&'a str, i64, u32)>,
    /// The documents' total length in tokens.
    pub(crate) tokens: i64,
    /// How many documents were grouped.
    pub(crate) docs: usize,
}

/// A term's postings `(tfb, len, doc)` in document order, the
/// documents holding it and its largest tf.
type TermList = (Vec<(u32, u32, i64)>, i64, u32);

/// Groups the postings of `docs` (`(doc, terms column)`), skipping each
/// value's first `skip` tokens.
///
/// Each token is looked up once, giving its term a dense number; postings
/// are collected per term in document order (the documents are visited in
/// that order), so a term's list needs only a stable sort by (bucket,
/// document length) — small integer keys — and the term names are sorted once.
pub(crate) fn group_docs<'a>(docs: &[(i64, &'a str)], skip: usize) -> Grouped<'a> {
    let mut ids: HashMap<&'a str, usize, foldhash::fast::RandomState> = HashMap::default();
    let mut names: Vec<&'a str> = Vec::new();
    let mut lists: Vec<TermList> = Vec::new();
    let mut order: Vec<usize> = (0..docs.len()).collect();
    if !docs.is_sorted_by_key(|d| d.0) {
        order.sort_by_key(|&n| docs.get(n).map(|d| d.0));
    }
    let mut doc_terms: Vec<usize> = Vec::new();
    let mut tokens = 0i64;
    for &(doc, text) in order.iter().filter_map(|&n| docs.get(n)) {
        doc_terms.clear();
        for token in text.split(' ').filter(|t| !t.is_empty()).skip(skip) {
            let next = names.len();
            let id = *ids.entry(token).or_insert_with(|| {
                names.push(token);
                lists.push((Vec::new(), 0, 0));
                next
            });
            doc_terms.push(id);
        }
        let len = u32::try_from(doc_terms.len()).unwrap_or(u32::MAX);
        tokens += i64::from(len);
        doc_terms.sort_unstable();
        for run in doc_terms.chunk_by(|a, b| a == b) {
            let (Some(&id), Ok(tf)) = (run.first(), u32::try_from(run.len())) else {
                continue;
            };
            if let Some((list, df, max_tf)) = lists.get_mut(id) {
                list.push((tf.min(TF_BUCKETS), len, doc));
                *df += 1;
                *max_tf = (*max_tf).max(tf);
            }
        }
    }
    let mut by_name: Vec<usize> = (0..names.len()).collect();
    by_name.sort_unstable_by_key(|&id| names.get(id).copied().unwrap_or_default());
    let mut grouped = Grouped {
        groups: Vec::new(),
        postings: Vec::with_capacity(lists.iter().map(|l| l.0.len()).sum()),
        terms: Vec::with_capacity(names.len()),
        tokens,
        docs: docs.len(),
    };
    for id in by_name {
        let (Some(&term), Some((list, df, max_tf))) = (names.get(id), lists.get_mut(id)) else {
            continue;
        };
        grouped.terms.push((term, *df, *max_tf));
        // Stable: each group keeps document order.
        list.sort_by_key(|p| (p.0, p.1));
        for run in list.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            let Some(&(tfb, len, _)) = run.first() else {
                continue;
            };
            let start = grouped.postings.len();
            for &(_, _, doc) in run {
                // A document listed twice counts once (its first listing).
                if grouped.postings.len() == start
                    || grouped.postings.last().is_none_or(|p| p.1 != doc)
                {
                    grouped.postings.push((len, doc));
                }
            }
            grouped
                .groups
                .push(((term, tfb, len), start..grouped.postings.len()));
        }
    }
    grouped
}

/// Postings of `docs` grouped by (term, tf bucket, document length), sorted by
/// document; per term: (documents, largest tf); the total length.
#[allow(clippy::type_complexity)]
pub(crate) fn group<'a>(
    docs: &'a [(i64, &'a str)],
    skip: usize,
) -> (
    Vec<(GroupKey<'a>, Vec<Posting>)>,
    Vec<(&'a str, i64, u32)>,
    i64,
) {
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
    (groups, grouped.terms, grouped.tokens)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::super::term_frequencies;
    use super::super::parallel::{PARALLEL_MIN, group_docs_parallel, merge};
    use super::*;

    /// The grouping spelled out with ordered maps over `term_frequencies`.
    #[allow(clippy::type_complexity)]
    fn reference<'a>(
        docs: &'a [(i64, &'a str)],
        skip: usize,
    ) -> (
        Vec<(GroupKey<'a>, Vec<Posting>)>,
        Vec<(&'a str, i64, u32)>,
        i64,
    ) {
        let mut groups: BTreeMap<GroupKey<'a>, BTreeMap<i64, u32>> = BTreeMap::new();
        let mut terms: BTreeMap<&str, (i64, u32)> = BTreeMap::new();
        let mut tokens = 0;
        for &(doc, text) in docs {
            let (len, tfs) = term_frequencies(text, skip);
            tokens += i64::from(len);
            for (term, tf) in tfs {
                groups
                    .entry((term, tf.min(TF_BUCKETS), len))
                    .or_default()
                    .entry(doc)
                    .or_insert(len);
                let t = terms.entry(term).or_insert((0, 0));
                t.0 += 1;
                t.1 = t.1.max(tf);
            }
        }
        (
            groups
                .into_iter()
                .map(|(k, d)| (k, d.into_iter().map(|(doc, len)| (len, doc)).collect()))
                .collect(),
            terms.into_iter().map(|(t, (n, m))| (t, n, m)).collect(),
            tokens,
        )
    }

    #[test]
    fn matches_the_reference_grouping() {
        let texts: Vec<(i64, String)> = (0..3000)
            .map(|d| {
                let words: Vec<String> = (0..(d % 23))
                    .map(|i| format!("w{}", (d * 7 + i * i) % 41))
                    .collect();
                let repeated = "again ".repeat(d as usize % 7);
                (
                    1000 - d * 3,
                    format!("scope {} 记忆 记忆 {repeated}", words.join(" ")),
                )
            })
            .collect();
        let docs: Vec<(i64, &str)> = texts.iter().map(|(d, t)| (*d, t.as_str())).collect();
        for skip in [0, 1] {
            assert_eq!(group(&docs, skip), reference(&docs, skip));
        }
        let grouped = group_docs(&docs, 0);
        assert_eq!(grouped.docs, 3000);
        let (larger, smaller) = docs.split_at(1700);
        let merged = merge(group_docs(smaller, 1), group_docs(larger, 1));
        let whole = group_docs(&docs, 1);
        assert_eq!(merged.groups, whole.groups);
        assert_eq!(merged.postings, whole.postings);
        assert_eq!(merged.terms, whole.terms);
        assert_eq!((merged.tokens, merged.docs), (whole.tokens, whole.docs));
        assert!(
            grouped
                .groups
                .iter()
                .any(|((_, tfb, _), _)| *tfb == TF_BUCKETS)
        );
    }

    #[test]
    fn the_parallel_grouping_equals_the_plain_one() {
        let texts: Vec<(i64, String)> = (0..(PARALLEL_MIN as i64 + 999))
            .map(|d| (d / 2, format!("w{} w{} common w{}", d % 13, d % 7, d % 13)))
            .collect();
        let docs: Vec<(i64, &str)> = texts.iter().rev().map(|(d, t)| (*d, t.as_str())).collect();
        let (a, b) = (group_docs_parallel(&docs, 0), group_docs(&docs, 0));
        assert_eq!(
            (&a.groups, &a.postings, &a.terms),
            (&b.groups, &b.postings, &b.terms)
        );
        assert_eq!((a.tokens, a.docs), (b.tokens, b.docs));
    }

    #[test]
    fn empty_and_repeated_documents() {
        assert_eq!(group(&[], 0), (Vec::new(), Vec::new(), 0));
        let docs = [(4, "a  b a"), (4, "a b a"), (2, "")];
        let (groups, terms, tokens) = group(&docs, 0);
        assert_eq!(tokens, 6);
        assert_eq!(terms, [("a", 2, 2), ("b", 2, 1)]);
        assert_eq!(
            groups,
            [(("a", 2, 3), vec![(3, 4)]), (("b", 1, 3), vec![(3, 4)])]
        );
    }
}
