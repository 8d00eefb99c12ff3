//! CRUD, upsert, batches, counts, id validation and concurrent writers.

use std::sync::Arc;

use super::{CheckFailure, CheckResult, at, ensure, expect_invalid, hit_ids};
use agcore_memory::{MAX_ID_BYTES, MemoryFilter, MemoryItem, MemoryStore, SearchOptions};

/// Save, get, delete; a missing id reads as `None` and deletes without error;
/// a deleted item is gone from `get`, `list` and `search`.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_crud(store: Arc<dyn MemoryStore>) -> CheckResult {
    let item = MemoryItem::new("crud:1", "alpha bravo charlie")
        .with_metadata(serde_json::json!({"kind": "note", "n": 1}))
        .with_created_at(at(10));
    store.save(item.clone()).await?;
    let got = store.get("crud:1").await?;
    ensure(got.as_ref() == Some(&item), || {
        format!("get after save: expected {item:?}, got {got:?}")
    })?;
    let missing = store.get("crud:missing").await?;
    ensure(missing.is_none(), || {
        format!("get of a missing id returned {missing:?}")
    })?;
    store.delete("crud:missing").await?;
    store.delete("crud:1").await?;
    let gone = store.get("crud:1").await?;
    ensure(gone.is_none(), || {
        format!("get after delete returned {gone:?}")
    })?;
    let listed = store.list(&MemoryFilter::all()).await?;
    ensure(listed.is_empty(), || {
        format!("list after delete returned {listed:?}")
    })?;
    let hits = store.search("bravo", &SearchOptions::default()).await?;
    ensure(hits.is_empty(), || {
        format!("search after delete found {:?}", hit_ids(&hits))
    })?;
    Ok(())
}

/// Saving an existing id replaces content, metadata and time; search sees
/// only the new text.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_upsert(store: Arc<dyn MemoryStore>) -> CheckResult {
    store
        .save(MemoryItem::new("up:1", "original zebra text").with_created_at(at(1)))
        .await?;
    let new = MemoryItem::new("up:1", "replacement giraffe text")
        .with_metadata(serde_json::json!({"v": 2}))
        .with_created_at(at(2));
    store.save(new.clone()).await?;
    let got = store.get("up:1").await?;
    ensure(got.as_ref() == Some(&new), || {
        format!("after upsert expected {new:?}, got {got:?}")
    })?;
    let n = store.count(&MemoryFilter::all()).await?;
    ensure(n == 1, || {
        format!("upsert must not duplicate: count is {n}")
    })?;
    let old = store.search("zebra", &SearchOptions::default()).await?;
    ensure(old.is_empty(), || {
        format!("search found replaced text: {:?}", hit_ids(&old))
    })?;
    let fresh = store.search("giraffe", &SearchOptions::default()).await?;
    ensure(hit_ids(&fresh) == ["up:1"], || {
        format!(
            "search for new text: expected [up:1], got {:?}",
            hit_ids(&fresh)
        )
    })
}

/// `save_many` writes every item (later duplicates win) and writes nothing
/// when one item is invalid.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_save_many(store: Arc<dyn MemoryStore>) -> CheckResult {
    let batch: Vec<MemoryItem> = (0..50)
        .map(|i| {
            MemoryItem::new(format!("batch:{i:03}"), format!("item number {i}"))
                .with_created_at(at(i))
        })
        .chain([MemoryItem::new("batch:000", "replaced in batch").with_created_at(at(0))])
        .collect();
    store.save_many(batch).await?;
    let n = store.count(&MemoryFilter::all()).await?;
    ensure(n == 50, || {
        format!("save_many of 50 distinct ids: count is {n}")
    })?;
    let first = store.get("batch:000").await?.map(|i| i.content);
    ensure(first.as_deref() == Some("replaced in batch"), || {
        format!("the later duplicate in a batch must win, got {first:?}")
    })?;
    let bad = vec![
        MemoryItem::new("batch:new", "would be written"),
        MemoryItem::new("", "empty id"),
    ];
    expect_invalid("save_many with an empty id", store.save_many(bad).await)?;
    let leaked = store.get("batch:new").await?;
    ensure(leaked.is_none(), || {
        "a rejected batch must write nothing".to_owned()
    })?;
    store.save_many(Vec::new()).await?;
    Ok(())
}

/// `count` agrees with `list` for several filters and ignores `limit`.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_count(store: Arc<dyn MemoryStore>) -> CheckResult {
    let n0 = store.count(&MemoryFilter::all()).await?;
    ensure(n0 == 0, || {
        format!("a fresh store must be empty, count is {n0}")
    })?;
    for i in 0..12 {
        let ns = if i % 3 == 0 { "cnt:a:" } else { "cnt:b:" };
        store
            .save(
                MemoryItem::new(format!("{ns}{i}"), "counted")
                    .with_metadata(serde_json::json!({"even": i % 2 == 0}))
                    .with_created_at(at(i)),
            )
            .await?;
    }
    let filters = [
        MemoryFilter::all(),
        MemoryFilter::with_prefix("cnt:a:"),
        MemoryFilter::all().since(at(5)),
        MemoryFilter::all().metadata_eq("even", serde_json::json!(true)),
        MemoryFilter::with_prefix("cnt:b:").limit(2),
    ];
    let expected = [12, 4, 7, 6, 8];
    for (filter, want) in filters.iter().zip(expected) {
        let n = store.count(filter).await?;
        ensure(n == want, || {
            format!("count({filter:?}) = {n}, expected {want}")
        })?;
    }
    Ok(())
}

/// Empty, oversized and NUL-holding ids are `InvalidInput` for every method
/// and write nothing; an id of exactly the limit works.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_invalid_ids(store: Arc<dyn MemoryStore>) -> CheckResult {
    let long = "x".repeat(MAX_ID_BYTES + 1);
    for bad in ["", long.as_str(), "nul\0id"] {
        let shown: String = bad.chars().take(20).collect();
        expect_invalid(
            &format!("save id {shown:?}"),
            store.save(MemoryItem::new(bad, "c")).await,
        )?;
        expect_invalid(&format!("get id {shown:?}"), store.get(bad).await)?;
        expect_invalid(&format!("delete id {shown:?}"), store.delete(bad).await)?;
    }
    let n = store.count(&MemoryFilter::all()).await?;
    ensure(n == 0, || {
        format!("rejected saves must write nothing, count is {n}")
    })?;
    let max = "é".repeat(MAX_ID_BYTES / 2);
    store
        .save(MemoryItem::new(max.clone(), "at the limit"))
        .await?;
    let got = store.get(&max).await?;
    ensure(got.is_some(), || {
        "an id of exactly MAX_ID_BYTES must be stored".to_owned()
    })
}

/// `get_many` answers one entry per id in the order asked — `None` for a
/// missing id, a repeated id each time, the same items `get` gives, Chinese
/// ids included — and rejects the whole call when one id is invalid.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_get_many(store: Arc<dyn MemoryStore>) -> CheckResult {
    let items: Vec<MemoryItem> = ["many:b", "many:a", "many:记忆"]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            MemoryItem::new(*id, format!("item number {i}"))
                .with_metadata(serde_json::json!({"i": i}))
                .with_created_at(at(i as i64))
        })
        .collect();
    store.save_many(items.clone()).await?;
    let ids: Vec<String> = ["many:记忆", "many:missing", "many:b", "many:a", "many:b"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let got = store.get_many(&ids).await?;
    let pick = |id: &str| items.iter().find(|i| i.id == id).cloned();
    let want = vec![
        pick("many:记忆"),
        None,
        pick("many:b"),
        pick("many:a"),
        pick("many:b"),
    ];
    ensure(got == want, || {
        format!("get_many({ids:?}): expected {want:?}, got {got:?}")
    })?;
    let none = store.get_many(&[]).await?;
    ensure(none.is_empty(), || {
        format!("get_many of no id returned {none:?}")
    })?;
    expect_invalid(
        "get_many with an empty id",
        store.get_many(&["many:a".to_owned(), String::new()]).await,
    )
}

/// 8 tasks × 25 writes at once: every write lands, reads stay consistent.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_concurrent_writers(store: Arc<dyn MemoryStore>) -> CheckResult {
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..8 {
        let store = Arc::clone(&store);
        tasks.spawn(async move {
            for i in 0..25 {
                let id = format!("conc:{t}:{i:02}");
                store
                    .save(MemoryItem::new(id.clone(), format!("writer {t} wrote {i}")))
                    .await?;
                if store.get(&id).await?.is_none() {
                    return Err(CheckFailure(format!("{id} not readable after its save")));
                }
            }
            Ok::<(), CheckFailure>(())
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined.map_err(|e| CheckFailure(format!("writer task failed: {e}")))??;
    }
    let n = store.count(&MemoryFilter::with_prefix("conc:")).await?;
    ensure(n == 200, || format!("200 concurrent writes: count is {n}"))
}
