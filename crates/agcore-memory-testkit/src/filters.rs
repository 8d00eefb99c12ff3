//! `list` filters: order, limit, prefix, time range, metadata, invalid filters.

use std::sync::Arc;

use super::{CheckResult, at, ensure, expect_invalid, hit_ids, ids};
use agcore_memory::{MemoryFilter, MemoryItem, MemoryStore, SearchOptions};

/// `list` orders by `created_at`, then id, whatever the insertion order, and
/// `limit` keeps the first items of that order.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_list_order_and_limit(store: Arc<dyn MemoryStore>) -> CheckResult {
    let spec = [
        ("ord:c", 3),
        ("ord:a", 1),
        ("ord:e", 2),
        ("ord:b", 2),
        ("ord:d", 0),
    ];
    for (id, t) in spec {
        store
            .save(MemoryItem::new(id, "ordered").with_created_at(at(t)))
            .await?;
    }
    let all = store.list(&MemoryFilter::all()).await?;
    let want = ["ord:d", "ord:a", "ord:b", "ord:e", "ord:c"];
    ensure(ids(&all) == want, || {
        format!("list order: expected {want:?}, got {:?}", ids(&all))
    })?;
    let first = store.list(&MemoryFilter::all().limit(2)).await?;
    ensure(ids(&first) == ["ord:d", "ord:a"], || {
        format!("limit 2: expected [ord:d, ord:a], got {:?}", ids(&first))
    })?;
    let big = store.list(&MemoryFilter::all().limit(100)).await?;
    ensure(big.len() == 5, || {
        format!("limit above the count returned {}", big.len())
    })
}

/// A prefix selects its namespace only (byte-wise, `a:` does not match `ab:`),
/// in `list`, `count`, `search`; deleting in one namespace leaves the others.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_prefix_isolation(store: Arc<dyn MemoryStore>) -> CheckResult {
    for (id, t) in [
        ("a:1", 1),
        ("a:2", 2),
        ("ab:1", 3),
        ("b:1", 4),
        ("A:1", 5),
        ("a%:1", 6),
        ("a_1", 7),
    ] {
        store
            .save(MemoryItem::new(id, "shared keyword lighthouse").with_created_at(at(t)))
            .await?;
    }
    let a = store.list(&MemoryFilter::with_prefix("a:")).await?;
    ensure(ids(&a) == ["a:1", "a:2"], || {
        format!("prefix a: listed {:?}", ids(&a))
    })?;
    let pct = store.list(&MemoryFilter::with_prefix("a%")).await?;
    ensure(ids(&pct) == ["a%:1"], || {
        format!("prefix a% (LIKE wildcard) listed {:?}", ids(&pct))
    })?;
    let und = store.list(&MemoryFilter::with_prefix("a_")).await?;
    ensure(ids(&und) == ["a_1"], || {
        format!("prefix a_ (LIKE wildcard) listed {:?}", ids(&und))
    })?;
    let n = store.count(&MemoryFilter::with_prefix("a")).await?;
    ensure(n == 5, || {
        format!("prefix `a` counts a:1 a:2 ab:1 a%:1 a_1, got {n}")
    })?;
    let opts = SearchOptions::top_k(10).with_prefix("a:");
    let hits = store.search("lighthouse", &opts).await?;
    let mut got = hit_ids(&hits);
    got.sort_unstable();
    ensure(got == ["a:1", "a:2"], || {
        format!("search with prefix a: found {got:?}")
    })?;
    store.delete("a:1").await?;
    let b = store.list(&MemoryFilter::with_prefix("b:")).await?;
    ensure(ids(&b) == ["b:1"], || {
        format!("delete in a: changed b: {:?}", ids(&b))
    })?;
    let none = store.list(&MemoryFilter::with_prefix("zzz:")).await?;
    ensure(none.is_empty(), || {
        format!("unknown prefix listed {:?}", ids(&none))
    })
}

/// `since` is inclusive, `until` exclusive, and both combine.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_time_filters(store: Arc<dyn MemoryStore>) -> CheckResult {
    for t in 0..6 {
        store
            .save(MemoryItem::new(format!("time:{t}"), "timed").with_created_at(at(t * 60)))
            .await?;
    }
    let since = store.list(&MemoryFilter::all().since(at(180))).await?;
    ensure(ids(&since) == ["time:3", "time:4", "time:5"], || {
        format!("since (inclusive) listed {:?}", ids(&since))
    })?;
    let until = store.list(&MemoryFilter::all().until(at(120))).await?;
    ensure(ids(&until) == ["time:0", "time:1"], || {
        format!("until (exclusive) listed {:?}", ids(&until))
    })?;
    let both = store
        .list(
            &MemoryFilter::with_prefix("time:")
                .since(at(60))
                .until(at(180))
                .limit(1),
        )
        .await?;
    ensure(ids(&both) == ["time:1"], || {
        format!("since+until+limit listed {:?}", ids(&both))
    })?;
    let opts = SearchOptions::default().with_filter(MemoryFilter::all().since(at(240)));
    let hits = store.search("timed", &opts).await?;
    let mut got = hit_ids(&hits);
    got.sort_unstable();
    ensure(got == ["time:4", "time:5"], || {
        format!("search with since found {got:?}")
    })
}

/// Metadata conditions compare top-level scalar values exactly (type
/// included); items without the key never match.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_metadata_filter(store: Arc<dyn MemoryStore>) -> CheckResult {
    let metas = [
        (
            "meta:1",
            serde_json::json!({"user": "ann", "score": 3, "pinned": true}),
        ),
        (
            "meta:2",
            serde_json::json!({"user": "bob", "score": 3, "pinned": false}),
        ),
        ("meta:3", serde_json::json!({"user": "ann", "score": "3"})),
        ("meta:4", serde_json::json!({"user": null})),
        ("meta:5", serde_json::Value::Null),
    ];
    for (i, (id, meta)) in metas.into_iter().enumerate() {
        let t = i64::try_from(i).unwrap_or(0);
        store
            .save(
                MemoryItem::new(id, "metadata")
                    .with_metadata(meta)
                    .with_created_at(at(t)),
            )
            .await?;
    }
    let cases: [(MemoryFilter, &[&str]); 5] = [
        (
            MemoryFilter::all().metadata_eq("user", serde_json::json!("ann")),
            &["meta:1", "meta:3"],
        ),
        (
            MemoryFilter::all().metadata_eq("score", serde_json::json!(3)),
            &["meta:1", "meta:2"],
        ),
        (
            MemoryFilter::all()
                .metadata_eq("user", serde_json::json!("ann"))
                .metadata_eq("pinned", serde_json::json!(true)),
            &["meta:1"],
        ),
        (
            MemoryFilter::all().metadata_eq("user", serde_json::Value::Null),
            &["meta:4"],
        ),
        (
            MemoryFilter::all().metadata_eq("absent", serde_json::json!("x")),
            &[],
        ),
    ];
    for (filter, want) in cases {
        let got = store.list(&filter).await?;
        ensure(ids(&got) == want, || {
            format!(
                "metadata {:?}: expected {want:?}, got {:?}",
                filter.metadata,
                ids(&got)
            )
        })?;
    }
    Ok(())
}

/// Invalid filters are `InvalidInput` in `list`, `count` and `search`;
/// a search `limit` of 0 and a NaN `min_score` too.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_invalid_filters(store: Arc<dyn MemoryStore>) -> CheckResult {
    store.save(MemoryItem::new("inv:1", "valid item")).await?;
    let bad = [
        ("limit 0", MemoryFilter::all().limit(0)),
        (
            "until before since",
            MemoryFilter::all().since(at(10)).until(at(5)),
        ),
        (
            "until equals since",
            MemoryFilter::all().since(at(10)).until(at(10)),
        ),
        (
            "empty metadata key",
            MemoryFilter::all().metadata_eq("", serde_json::json!(1)),
        ),
        (
            "array metadata value",
            MemoryFilter::all().metadata_eq("k", serde_json::json!([1])),
        ),
        (
            "object metadata value",
            MemoryFilter::all().metadata_eq("k", serde_json::json!({"a": 1})),
        ),
    ];
    for (what, filter) in bad {
        expect_invalid(&format!("list with {what}"), store.list(&filter).await)?;
        if filter.limit.is_some() {
            continue; // count and search ignore the filter's limit
        }
        expect_invalid(&format!("count with {what}"), store.count(&filter).await)?;
        let opts = SearchOptions::default().with_filter(filter);
        expect_invalid(
            &format!("search with {what}"),
            store.search("valid", &opts).await,
        )?;
    }
    expect_invalid(
        "search with limit 0",
        store.search("valid", &SearchOptions::top_k(0)).await,
    )?;
    expect_invalid(
        "search with a NaN min_score",
        store
            .search("valid", &SearchOptions::top_k(5).with_min_score(f64::NAN))
            .await,
    )?;
    let n = store.count(&MemoryFilter::all()).await?;
    ensure(n == 1, || {
        format!("invalid filters must change nothing, count is {n}")
    })
}
