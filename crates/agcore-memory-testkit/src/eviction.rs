//! TTL and capacity eviction, and the `check_interval` cadence (see `docs/memory.md`, *Eviction*).

use std::future::Future;
use std::sync::Arc;

use chrono::Utc;

use super::{CheckResult, at, ensure, hit_ids, ids};
use agcore_memory::{EvictionConfig, MemoryFilter, MemoryItem, MemoryStore, SearchOptions};

/// With `EvictionConfig::ttl(3600, 1)`, an item created two hours ago is
/// dropped at the next write; recent items stay.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_ttl_eviction<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let store = make(EvictionConfig::ttl(3600, 1)).await;
    let now = Utc::now();
    let old = now - chrono::Duration::hours(2);
    store
        .save(MemoryItem::new("ttl:fresh", "fresh juniper").with_created_at(now))
        .await?;
    store
        .save(MemoryItem::new("ttl:old", "stale juniper").with_created_at(old))
        .await?;
    store
        .save(MemoryItem::new("ttl:fresh2", "another juniper").with_created_at(now))
        .await?;
    let gone = store.get("ttl:old").await?;
    ensure(gone.is_none(), || {
        "an item older than the TTL survived a write".to_owned()
    })?;
    let listed = store.list(&MemoryFilter::all()).await?;
    ensure(ids(&listed) == ["ttl:fresh", "ttl:fresh2"], || {
        format!("after TTL eviction listed {:?}", ids(&listed))
    })?;
    let hits = store.search("juniper", &SearchOptions::default()).await?;
    ensure(!hit_ids(&hits).contains(&"ttl:old"), || {
        "search found an evicted item".to_owned()
    })
}

/// With `EvictionConfig::capacity(3, 1)`, only the 3 newest (by `created_at`,
/// then id) remain; an item older than all of them is dropped at once.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_capacity_eviction<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let store = make(EvictionConfig::capacity(3, 1)).await;
    for i in 0..5 {
        store
            .save(MemoryItem::new(format!("cap:{i}"), "capped").with_created_at(at(i)))
            .await?;
    }
    let listed = store.list(&MemoryFilter::all()).await?;
    ensure(ids(&listed) == ["cap:2", "cap:3", "cap:4"], || {
        format!("capacity 3 kept {:?}", ids(&listed))
    })?;
    store
        .save(MemoryItem::new("cap:ancient", "capped").with_created_at(at(-100)))
        .await?;
    let listed = store.list(&MemoryFilter::all()).await?;
    ensure(ids(&listed) == ["cap:2", "cap:3", "cap:4"], || {
        format!(
            "an item older than all kept ones must go first: {:?}",
            ids(&listed)
        )
    })?;
    let ties = make(EvictionConfig::capacity(2, 1)).await;
    for id in ["tie:b", "tie:a", "tie:c"] {
        ties.save(MemoryItem::new(id, "tied").with_created_at(at(0)))
            .await?;
    }
    let listed = ties.list(&MemoryFilter::all()).await?;
    ensure(ids(&listed) == ["tie:b", "tie:c"], || {
        format!(
            "equal times evict the smallest id first: kept {:?}",
            ids(&listed)
        )
    })
}

/// With `EvictionConfig::capacity(2, 3)`, the policy holds after every third
/// write (single saves and `save_many` items both count).
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_check_interval<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let store = make(EvictionConfig::capacity(2, 3)).await;
    for i in 0..6 {
        store
            .save(MemoryItem::new(format!("int:{i}"), "interval").with_created_at(at(i)))
            .await?;
        if i % 3 == 2 {
            let n = store.count(&MemoryFilter::all()).await?;
            ensure(n == 2, || {
                format!("after write {} (a multiple of 3) count is {n}", i + 1)
            })?;
        }
    }
    let listed = store.list(&MemoryFilter::all()).await?;
    ensure(ids(&listed) == ["int:4", "int:5"], || {
        format!("kept {:?}", ids(&listed))
    })?;
    let batch = (10..20)
        .map(|i| MemoryItem::new(format!("int:{i}"), "batched").with_created_at(at(i)))
        .collect();
    store.save_many(batch).await?;
    let listed = store.list(&MemoryFilter::all()).await?;
    ensure(ids(&listed) == ["int:18", "int:19"], || {
        format!("after a batch of 10 writes kept {:?}", ids(&listed))
    })
}
