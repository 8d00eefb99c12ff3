//! The consistency check of a stored impact-ordered index against the
//! documents it indexes: what a backend read from its tables
//! ([`StoredIndex`]) against a fresh [`group`](fn@super::group) of the
//! documents.

use std::collections::BTreeMap;

use super::group::{TermCounts, group};
use super::layout::{FieldDoc, Posting};

/// One stored term's statistics: `(df, max_tf, max_ctf, min_clen)`.
pub type StoredTerm = (i64, u32, u32, Option<u32>);

/// What a backend holds for one scope of its index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredIndex {
    /// `(docs, tokens, grouped, context_tokens)` (all 0 when absent).
    pub stats: (i64, i64, i64, i64),
    /// Every term with `df > 0` and its statistics.
    pub terms: BTreeMap<String, StoredTerm>,
    /// Every posting by (term, run code, key length), in any order.
    pub postings: BTreeMap<(String, u32, u32), Vec<Posting>>,
}

/// Consistency problems of `stored` against `docs` (every document of the
/// scope, the first `skip` tokens of each not document terms): statistics,
/// document frequencies and postings must match them exactly, and each
/// term's run bounds (largest tf and context tf, smallest context length)
/// must hold for them (stored bounds may be looser after deletions). Empty
/// when consistent.
#[must_use]
pub fn problems(docs: &[FieldDoc<'_>], skip: usize, mut stored: StoredIndex) -> Vec<String> {
    let mut problems = Vec::new();
    let flat = group(docs, skip);
    let n = i64::try_from(docs.len()).unwrap_or(i64::MAX);
    let expected_stats = (n, flat.tokens, flat.grouped, flat.context_tokens);
    if stored.stats != expected_stats {
        problems.push(format!(
            "bm25 index: statistics {:?}, rows give {expected_stats:?}",
            stored.stats
        ));
    }
    let expected: BTreeMap<&str, &TermCounts<'_>> =
        flat.terms.iter().map(|t| (t.term, t)).collect();
    let terms = &stored.terms;
    let dfs_differ = terms.len() != expected.len()
        || terms
            .iter()
            .any(|(term, s)| expected.get(term.as_str()).is_none_or(|e| e.df != s.0));
    if dfs_differ {
        problems.push("bm25 index: document frequencies differ from the rows".to_owned());
    }
    let bounds_fail = terms.iter().any(|(term, &(_, max_tf, max_ctf, min_clen))| {
        expected.get(term.as_str()).is_some_and(|e| {
            e.max_tf > max_tf
                || e.max_ctf > max_ctf
                || e.min_clen.is_some_and(|c| min_clen.is_none_or(|m| m > c))
        })
    });
    if bounds_fail {
        problems.push("bm25 index: a term's run bounds do not hold for the rows".to_owned());
    }
    for list in stored.postings.values_mut() {
        list.sort_unstable_by_key(|p| p.1);
    }
    let expected: BTreeMap<(String, u32, u32), Vec<Posting>> = flat
        .groups
        .into_iter()
        .map(|((t, b, l), d)| ((t.to_owned(), b, l), d))
        .collect();
    if stored.postings != expected {
        problems.push("bm25 index: postings differ from the rows".to_owned());
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored_from(docs: &[FieldDoc<'_>]) -> StoredIndex {
        let flat = group(docs, 0);
        StoredIndex {
            stats: (
                i64::try_from(docs.len()).unwrap(),
                flat.tokens,
                flat.grouped,
                flat.context_tokens,
            ),
            terms: flat
                .terms
                .iter()
                .map(|t| (t.term.to_owned(), (t.df, t.max_tf, t.max_ctf, t.min_clen)))
                .collect(),
            postings: flat
                .groups
                .iter()
                .map(|((t, b, l), p)| ((t.to_string(), *b, *l), p.clone()))
                .collect(),
        }
    }

    #[test]
    fn a_faithful_index_has_no_problems_and_each_fault_is_named() {
        let docs = [
            FieldDoc::plain(1, "a b a"),
            FieldDoc {
                doc: 2,
                terms: "b",
                context: Some("a c"),
            },
        ];
        assert!(problems(&docs, 0, stored_from(&docs)).is_empty());
        let mut loose = stored_from(&docs);
        for term in loose.terms.values_mut() {
            term.1 += 3; // looser bounds still hold
        }
        assert!(problems(&docs, 0, loose).is_empty());
        let mut bad = stored_from(&docs);
        bad.stats.1 += 1;
        if let Some(t) = bad.terms.get_mut("a") {
            t.0 += 1;
            t.1 = 0;
        }
        bad.postings.clear();
        let found = problems(&docs, 0, bad);
        assert_eq!(found.len(), 4, "{found:?}");
    }
}
