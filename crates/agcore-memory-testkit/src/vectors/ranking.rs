//! Ranking: exact top-k, ties, filters and normalisation.

use std::sync::Arc;

use super::values::{axis, brute_force, random_unit_vectors, record};
use crate::{CheckResult, ensure};
use agcore_memory::vector::{VectorFilter, VectorHit, VectorRecord, VectorStore};

const TOLERANCE: f32 = 1e-4;

/// 300 seeded random records over three namespaces and three id prefixes.
fn random_records(d: usize) -> Vec<VectorRecord> {
    random_unit_vectors(300, d, 7)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let ns = ["alpha", "beta", "记忆"].get(i % 3).copied().unwrap_or("");
            let prefix = ["doc:", "page:", "fact:"]
                .get((i / 3) % 3)
                .copied()
                .unwrap_or("");
            record(ns, &format!("{prefix}{i:04}"), v)
        })
        .collect()
}

/// `got` equals `want` up to float noise: same length, scores equal
/// within 1e-4 rank by rank, and every returned hit's true score (from
/// `records`) equal to the score returned. Near-equal neighbours may swap.
fn same_ranking(
    records: &[VectorRecord],
    query: &[f32],
    got: &[VectorHit],
    want: &[VectorHit],
) -> bool {
    if got.len() != want.len() {
        return false;
    }
    let all = brute_force(records, query, records.len(), &VectorFilter::default());
    got.iter().zip(want).all(|(g, w)| {
        (g.score - w.score).abs() < TOLERANCE
            && all
                .iter()
                .find(|h| h.namespace == g.namespace && h.id == g.id)
                .is_some_and(|t| (t.score - g.score).abs() < TOLERANCE)
    })
}

/// Top-k of 20 seeded random queries (k = 1, 10, 50) equals brute force.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_top_k_matches_brute_force(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    let records = random_records(d);
    store.upsert(records.clone()).await?;
    let all = VectorFilter::default();
    for (i, query) in random_unit_vectors(20, d, 99).iter().enumerate() {
        let k = [1, 10, 50].get(i % 3).copied().unwrap_or(10);
        let got = store.search(query, k, &all).await?;
        let want = brute_force(&records, query, k, &all);
        ensure(same_ranking(&records, query, &got, &want), || {
            format!("query {i}, k = {k}: got {got:?}, want {want:?}")
        })?;
    }
    Ok(())
}

/// Equal scores rank by namespace, then id, ascending.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_ties(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    let v = axis(d, 3);
    store
        .upsert(vec![
            record("b", "1", v.clone()),
            record("a", "2", v.clone()),
            record("a", "10", v.clone()),
            record("b", "0", v.clone()),
            record("a", "other", axis(d, 4)),
        ])
        .await?;
    let hits = store.search(&v, 4, &VectorFilter::default()).await?;
    let got: Vec<(&str, &str)> = hits
        .iter()
        .map(|h| (h.namespace.as_str(), h.id.as_str()))
        .collect();
    let want = vec![("a", "10"), ("a", "2"), ("b", "0"), ("b", "1")];
    ensure(got == want, || format!("tie order {got:?}, want {want:?}"))
}

/// Namespace, id-prefix and combined filters: counts and exact top-k
/// within the filtered subset.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_filters(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    let records = random_records(d);
    store.upsert(records.clone()).await?;
    let filters = [
        VectorFilter::namespace("beta"),
        VectorFilter::namespace("记忆"),
        VectorFilter::default().with_id_prefix("page:"),
        VectorFilter::namespace("alpha").with_id_prefix("fact:"),
        VectorFilter::namespace("alpha").with_id_prefix("fact:00"),
        VectorFilter::namespace("missing"),
    ];
    let queries = random_unit_vectors(4, d, 1234);
    for filter in &filters {
        let want_n = records
            .iter()
            .filter(|r| filter.matches(&r.namespace, &r.id))
            .count();
        let n = store.count(filter).await?;
        ensure(n == want_n, || {
            format!("count {filter:?}: {n}, want {want_n}")
        })?;
        for query in &queries {
            let got = store.search(query, 10, filter).await?;
            let want = brute_force(&records, query, 10, filter);
            ensure(
                got.iter().all(|h| filter.matches(&h.namespace, &h.id))
                    && same_ranking(&records, query, &got, &want),
                || format!("search {filter:?}: got {got:?}, want {want:?}"),
            )?;
        }
    }
    Ok(())
}

/// Vectors and queries of any length are compared by direction: a scaled
/// vector scores ≈ 1 against its direction, an opposite one ≈ −1.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_normalisation(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    let scaled: Vec<f32> = axis(d, 0).iter().map(|x| x * 7.5).collect();
    let opposite: Vec<f32> = axis(d, 0).iter().map(|x| -x * 0.25).collect();
    store
        .upsert(vec![
            record("", "scaled", scaled),
            record("", "opposite", opposite),
        ])
        .await?;
    let query: Vec<f32> = axis(d, 0).iter().map(|x| x * 0.001).collect();
    let hits = store.search(&query, 2, &VectorFilter::default()).await?;
    let ok = matches!(hits.as_slice(), [a, b]
        if a.id == "scaled" && (a.score - 1.0).abs() < TOLERANCE
            && b.id == "opposite" && (b.score + 1.0).abs() < TOLERANCE);
    ensure(ok, || format!("scores of scaled vectors: {hits:?}"))
}
