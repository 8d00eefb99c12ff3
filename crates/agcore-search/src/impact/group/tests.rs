//! The grouping against a reference spelled out with ordered maps, and
//! the two-thread grouping against the plain one.

use std::collections::BTreeMap;

use super::super::layout::{TF_BUCKETS, term_frequencies};
use super::super::parallel::{PARALLEL_MIN, group_docs_parallel, merge};
use super::*;

/// The grouping spelled out with ordered maps over `term_frequencies`.
fn reference<'a>(docs: &'a [FieldDoc<'a>], skip: usize) -> Flat<'a> {
    let mut groups: BTreeMap<GroupKey<'a>, BTreeMap<i64, u32>> = BTreeMap::new();
    let mut terms: BTreeMap<&str, TermCounts<'a>> = BTreeMap::new();
    let (mut tokens, mut grouped, mut context_tokens) = (0, 0, 0);
    for doc in docs {
        let (len, tfs) = term_frequencies(doc.terms, skip);
        let (clen, ctfs) = term_frequencies(doc.context.unwrap_or(""), 0);
        tokens += i64::from(len);
        if doc.context.is_some() {
            grouped += 1;
            context_tokens += i64::from(clen);
        }
        let mut both: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
        for (term, tf) in tfs {
            both.entry(term).or_default().0 = tf;
        }
        for (term, ctf) in ctfs {
            both.entry(term).or_default().1 = ctf;
        }
        for (term, (tf, ctf)) in both {
            let key_len = if tf > 0 { len } else { clen };
            groups
                .entry((term, run_code(tf, ctf), key_len))
                .or_default()
                .entry(doc.doc)
                .or_insert(key_len);
            let t = terms.entry(term).or_insert(TermCounts {
                term,
                df: 0,
                max_tf: 0,
                max_ctf: 0,
                min_clen: None,
            });
            t.df += 1;
            t.max_tf = t.max_tf.max(tf);
            t.max_ctf = t.max_ctf.max(ctf);
            if tf > 0 && ctf > 0 {
                t.min_clen = min_option(t.min_clen, Some(clen));
            }
        }
    }
    Flat {
        groups: groups
            .into_iter()
            .map(|(k, d)| (k, d.into_iter().map(|(doc, len)| (len, doc)).collect()))
            .collect(),
        terms: terms.into_values().collect(),
        tokens,
        grouped,
        context_tokens,
    }
}

fn plain<'a>(texts: &'a [(i64, String)]) -> Vec<FieldDoc<'a>> {
    texts
        .iter()
        .map(|(d, t)| FieldDoc {
            doc: *d,
            terms: t,
            context: None,
        })
        .collect()
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
    let contexts: Vec<String> = (0..3000)
        .map(|d| format!("w{} again w{} 记忆", d % 41, d % 13))
        .collect();
    let mut docs = plain(&texts);
    for skip in [0, 1] {
        assert_eq!(group(&docs, skip), reference(&docs, skip));
    }
    // Every third document in a sequence (every ninth with an empty field).
    for (n, doc) in docs.iter_mut().enumerate() {
        if n % 3 == 0 {
            doc.context = Some(if n % 9 == 0 { "" } else { &contexts[n] });
        }
    }
    for skip in [0, 1] {
        assert_eq!(group(&docs, skip), reference(&docs, skip));
    }
    let grouped = group_docs(&docs, 0);
    assert_eq!(grouped.docs, 3000);
    assert_eq!(grouped.grouped, 1000);
    let (larger, smaller) = docs.split_at(1700);
    let merged = merge(group_docs(smaller, 1), group_docs(larger, 1));
    let whole = group_docs(&docs, 1);
    assert_eq!(merged.groups, whole.groups);
    assert_eq!(merged.postings, whole.postings);
    assert_eq!(merged.terms, whole.terms);
    assert_eq!(
        (
            merged.tokens,
            merged.docs,
            merged.grouped,
            merged.context_tokens
        ),
        (
            whole.tokens,
            whole.docs,
            whole.grouped,
            whole.context_tokens
        )
    );
    assert!(
        grouped
            .groups
            .iter()
            .any(|((_, code, _), _)| *code == TF_BUCKETS)
    );
    assert!(
        grouped
            .groups
            .iter()
            .any(|((_, code, _), _)| *code > TF_BUCKETS),
        "context runs"
    );
}

#[test]
fn the_parallel_grouping_equals_the_plain_one() {
    let texts: Vec<(i64, String)> = (0..(PARALLEL_MIN as i64 + 999))
        .map(|d| (d / 2, format!("w{} w{} common w{}", d % 13, d % 7, d % 13)))
        .collect();
    let mut docs: Vec<FieldDoc<'_>> = plain(&texts).into_iter().rev().collect();
    for doc in docs.iter_mut().step_by(5) {
        doc.context = Some("common w3 w3");
    }
    let (a, b) = (group_docs_parallel(&docs, 0), group_docs(&docs, 0));
    assert_eq!(
        (&a.groups, &a.postings, &a.terms),
        (&b.groups, &b.postings, &b.terms)
    );
    assert_eq!(
        (a.tokens, a.docs, a.grouped, a.context_tokens),
        (b.tokens, b.docs, b.grouped, b.context_tokens)
    );
}

#[test]
fn empty_and_repeated_documents() {
    let empty = group(&[], 0);
    assert!(empty.groups.is_empty() && empty.terms.is_empty());
    assert_eq!(empty.tokens, 0);
    let texts = [
        (4, "a  b a".to_owned()),
        (4, "a b a".to_owned()),
        (2, String::new()),
    ];
    let docs = plain(&texts);
    let flat = group(&docs, 0);
    assert_eq!(flat.tokens, 6);
    let counts: Vec<(&str, i64, u32)> = flat
        .terms
        .iter()
        .map(|t| (t.term, t.df, t.max_tf))
        .collect();
    assert_eq!(counts, [("a", 2, 2), ("b", 2, 1)]);
    assert_eq!(
        flat.groups,
        [(("a", 2, 3), vec![(3, 4)]), (("b", 1, 3), vec![(3, 4)])]
    );
}

#[test]
fn context_postings_are_keyed_by_the_field_that_orders_them() {
    let docs = [FieldDoc {
        doc: 7,
        terms: "a b",
        context: Some("b c c x y"),
    }];
    let flat = group(&docs, 0);
    let keys: Vec<GroupKey<'_>> = flat.groups.iter().map(|g| g.0).collect();
    // a: own only (length 2); b: both (own length); c: context only,
    // keyed by the context length.
    assert_eq!(
        keys,
        [
            ("a", run_code(1, 0), 2),
            ("b", run_code(1, 1), 2),
            ("c", run_code(0, 2), 5),
            ("x", run_code(0, 1), 5),
            ("y", run_code(0, 1), 5),
        ]
    );
    assert_eq!(flat.terms[1].min_clen, Some(5));
    assert_eq!(flat.terms[0].min_clen, None);
    assert_eq!((flat.grouped, flat.context_tokens), (1, 5));
}
