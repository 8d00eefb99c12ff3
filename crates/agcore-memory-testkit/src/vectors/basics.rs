//! Writes, deletes, content hashes, invalid input and odd ids.

use std::sync::Arc;

use super::values::{axis, keys, record, strings};
use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::MemoryError;
use agcore_memory::vector::{VectorFilter, VectorRecord, VectorStore};

fn all() -> VectorFilter {
    VectorFilter::default()
}

/// Inserted vectors are counted, found by their own direction with score
/// ≈ 1, and report their space.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_insert(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    store
        .upsert(vec![
            record("", "a", axis(d, 0)),
            record("", "b", axis(d, 1)),
            record("ns", "c", axis(d, 2)),
        ])
        .await?;
    let n = store.count(&all()).await?;
    ensure(n == 3, || format!("count after 3 inserts: {n}"))?;
    for (ns, id, ax) in [("", "a", 0), ("", "b", 1), ("ns", "c", 2)] {
        let hits = store.search(&axis(d, ax), 1, &all()).await?;
        let first = hits.first();
        ensure(
            first.is_some_and(|h| h.namespace == ns && h.id == id && (h.score - 1.0).abs() < 1e-4),
            || format!("searching the vector of {ns}/{id} returned {hits:?}"),
        )?;
    }
    Ok(())
}

/// Upserting an existing `(namespace, id)` replaces vector and hash; the
/// same id in another namespace is another record; the last duplicate of
/// a batch wins.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_upsert_replaces(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    store.upsert(vec![record("", "x", axis(d, 0))]).await?;
    store
        .upsert(vec![VectorRecord::new("", "x", axis(d, 5), "h:new")])
        .await?;
    store.upsert(vec![record("other", "x", axis(d, 0))]).await?;
    let n = store.count(&all()).await?;
    ensure(n == 2, || format!("count after replacing: {n}"))?;
    let hits = store
        .search(&axis(d, 5), 1, &VectorFilter::namespace(""))
        .await?;
    ensure(
        hits.first().is_some_and(|h| h.id == "x" && h.score > 0.999),
        || format!("the replaced vector is not found by its new direction: {hits:?}"),
    )?;
    let hashes = store.content_hashes("", &strings(&["x"])).await?;
    ensure(hashes == vec![Some("h:new".to_owned())], || {
        format!("hash after replace: {hashes:?}")
    })?;
    store
        .upsert(vec![
            VectorRecord::new("", "dup", axis(d, 1), "h:first"),
            VectorRecord::new("", "dup", axis(d, 2), "h:last"),
        ])
        .await?;
    let hashes = store.content_hashes("", &strings(&["dup"])).await?;
    ensure(hashes == vec![Some("h:last".to_owned())], || {
        format!("the last duplicate of a batch must win, hashes {hashes:?}")
    })?;
    let hits = store.search(&axis(d, 2), 1, &all()).await?;
    ensure(hits.first().is_some_and(|h| h.id == "dup"), || {
        format!("the last duplicate's vector is not stored: {hits:?}")
    })
}

/// `delete` returns how many of the ids existed (missing and repeated ids
/// count once or not at all) and leaves other namespaces alone.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_delete_counts(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    store
        .upsert(vec![
            record("n1", "a", axis(d, 0)),
            record("n1", "b", axis(d, 1)),
            record("n2", "a", axis(d, 2)),
        ])
        .await?;
    let removed = store.delete("n1", &strings(&["a", "a", "missing"])).await?;
    ensure(removed == 1, || {
        format!("delete returned {removed}, expected 1")
    })?;
    let removed = store.delete("n1", &strings(&["a"])).await?;
    ensure(removed == 0, || {
        format!("deleting again returned {removed}")
    })?;
    let removed = store.delete("n1", &[]).await?;
    ensure(removed == 0, || {
        format!("deleting no ids returned {removed}")
    })?;
    let left = keys(&store.search(&axis(d, 0), 10, &all()).await?);
    let want = vec![
        ("n2".to_owned(), "a".to_owned()),
        ("n1".to_owned(), "b".to_owned()),
    ];
    let mut sorted = left.clone();
    sorted.sort();
    let mut want_sorted = want;
    want_sorted.sort();
    ensure(sorted == want_sorted, || {
        format!("left after delete: {left:?}")
    })?;
    let n = store.count(&VectorFilter::namespace("n2")).await?;
    ensure(n == 1, || {
        format!("namespace n2 count after deleting in n1: {n}")
    })
}

/// `content_hashes` answers in the order asked, `None` for ids without a
/// vector or in another namespace; a search hit that reports a content
/// hash reports the one stored with its vector.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_content_hashes(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    store
        .upsert(vec![
            record("s", "one", axis(d, 0)),
            record("s", "two", axis(d, 1)),
        ])
        .await?;
    let got = store
        .content_hashes("s", &strings(&["two", "none", "one"]))
        .await?;
    let want = vec![Some("h:two".to_owned()), None, Some("h:one".to_owned())];
    ensure(got == want, || {
        format!("content_hashes: {got:?}, want {want:?}")
    })?;
    let other = store.content_hashes("t", &strings(&["one"])).await?;
    ensure(other == vec![None], || {
        format!("hash seen through another namespace: {other:?}")
    })?;
    let empty = store.content_hashes("s", &[]).await?;
    ensure(empty.is_empty(), || format!("no ids gave {empty:?}"))?;
    let hits = store
        .search(
            &axis(d, 1),
            2,
            &agcore_memory::vector::VectorFilter::default(),
        )
        .await?;
    ensure(
        hits.iter().all(|h| {
            h.content_hash
                .as_ref()
                .is_none_or(|hash| *hash == format!("h:{}", h.id))
        }),
        || format!("search hits report hashes other than the stored ones: {hits:?}"),
    )
}

fn expect_invalid<T: std::fmt::Debug>(what: &str, got: Result<T, MemoryError>) -> CheckResult {
    match got {
        Err(MemoryError::InvalidInput(_)) => Ok(()),
        other => Err(CheckFailure(format!(
            "{what}: expected InvalidInput, got {other:?}"
        ))),
    }
}

/// Wrong-length, NaN and infinite vectors and empty ids are refused with
/// `InvalidInput` and nothing of their batch is written; bad queries too.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_invalid_vectors(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    let good = record("", "good", axis(d, 0));
    let mut nan = axis(d, 1);
    if let Some(x) = nan.first_mut() {
        *x = f32::NAN;
    }
    let mut inf = axis(d, 1);
    if let Some(x) = inf.get_mut(1) {
        *x = f32::INFINITY;
    }
    let bad = [
        ("short vector", record("", "bad", vec![1.0; d - 1])),
        ("long vector", record("", "bad", vec![1.0; d + 1])),
        ("NaN component", record("", "bad", nan)),
        ("infinite component", record("", "bad", inf)),
        ("empty id", record("", "", axis(d, 2))),
    ];
    for (what, bad) in bad {
        expect_invalid(what, store.upsert(vec![good.clone(), bad]).await)?;
        let n = store.count(&all()).await?;
        ensure(n == 0, || format!("{what}: the batch wrote {n} records"))?;
    }
    expect_invalid(
        "short query",
        store.search(&vec![1.0; d - 1], 3, &all()).await,
    )?;
    expect_invalid(
        "NaN query",
        store.search(&vec![f32::NAN; d], 3, &all()).await,
    )?;
    Ok(())
}

/// An empty store searches to nothing; `k = 0` returns nothing.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_empty_store_and_k_zero(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    let hits = store.search(&axis(d, 0), 5, &all()).await?;
    ensure(hits.is_empty(), || format!("empty store returned {hits:?}"))?;
    let n = store.count(&all()).await?;
    ensure(n == 0, || format!("empty store counts {n}"))?;
    let removed = store.delete("", &strings(&["nothing"])).await?;
    ensure(removed == 0, || {
        format!("delete on an empty store: {removed}")
    })?;
    store.upsert(Vec::new()).await?;
    store.upsert(vec![record("", "a", axis(d, 0))]).await?;
    let hits = store.search(&axis(d, 0), 0, &all()).await?;
    ensure(hits.is_empty(), || format!("k = 0 returned {hits:?}"))?;
    let hits = store.search(&axis(d, 0), 100, &all()).await?;
    ensure(hits.len() == 1, || format!("k > count returned {hits:?}"))
}

/// Chinese, emoji, quote, wildcard and separator characters in ids and
/// namespaces round-trip; prefix filters treat `%`, `_` and `\` literally.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_odd_ids(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    let ids = [
        ("记忆", "用户:偏好"),
        ("记忆", "用户:语言🙂"),
        ("记忆", "用%"),
        ("记忆", "用_x"),
        ("it's", "a'b\"c;--"),
        ("it's", "back\\slash"),
        ("it's", "%_"),
        ("", "line\nbreak\ttab"),
    ];
    let records: Vec<VectorRecord> = ids
        .iter()
        .enumerate()
        .map(|(i, (ns, id))| record(ns, id, axis(d, i)))
        .collect();
    store.upsert(records).await?;
    for (i, (ns, id)) in ids.iter().enumerate() {
        let hits = store.search(&axis(d, i), 1, &all()).await?;
        ensure(
            hits.first()
                .is_some_and(|h| h.namespace == *ns && h.id == *id),
            || format!("{ns}/{id} did not round-trip: {hits:?}"),
        )?;
        let hash = store.content_hashes(ns, &[(*id).to_owned()]).await?;
        ensure(hash == vec![Some(format!("h:{id}"))], || {
            format!("hash of {ns}/{id}: {hash:?}")
        })?;
    }
    for (filter, want) in [
        (VectorFilter::namespace("记忆").with_id_prefix("用户"), 2),
        (VectorFilter::namespace("记忆").with_id_prefix("用%"), 1),
        (VectorFilter::namespace("记忆").with_id_prefix("用_"), 1),
        (VectorFilter::namespace("it's").with_id_prefix("%"), 1),
        (VectorFilter::namespace("it's").with_id_prefix("back\\"), 1),
        (VectorFilter::default().with_id_prefix("a'b\""), 1),
    ] {
        let n = store.count(&filter).await?;
        ensure(n == want, || format!("count {filter:?}: {n}, want {want}"))?;
        let hits = store.search(&axis(d, 0), 10, &filter).await?;
        ensure(hits.len() == want, || {
            format!("search {filter:?} returned {hits:?}, want {want} hits")
        })?;
    }
    let removed = store.delete("记忆", &strings(&["用户:偏好"])).await?;
    ensure(removed == 1, || {
        format!("deleting a Chinese id returned {removed}")
    })
}
