//! A turn whose native TTL passes leaves its neighbours' context fields when
//! the next call sweeps it (the shared suite covers capacity eviction).
#![cfg(test)]

use crate::support;

use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};

fn turn(id: &str, secs_ago: i64, text: &str) -> MemoryItem {
    MemoryItem::new(id, text)
        .with_metadata(serde_json::json!({ "session": "s" }))
        .with_created_at(chrono::Utc::now() - chrono::Duration::seconds(secs_ago))
}

async fn ids(store: &dyn MemoryStore, query: &str) -> Vec<String> {
    store
        .search(query, &SearchOptions::top_k(10))
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.item.id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_turn_leaves_its_neighbours_fields() {
    let Some(url) = support::url() else { return };
    let store = support::fresh(&url, "ctxttl", EvictionConfig::ttl(10, 1)).await;
    // t1 was created 8 s ago: it expires 2 s from now; t2 and t3, its later
    // neighbours in the session, live for 10 s (margins for a slow machine).
    store
        .save_many(vec![
            turn("t1", 8, "where is the violin"),
            turn("t2", 0, "in the attic"),
            turn("t3", 0, "thanks a lot"),
        ])
        .await
        .unwrap();
    assert_eq!(ids(&store, "violin").await, ["t1", "t2"]);
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert!(ids(&store, "violin").await.is_empty(), "t2's field lost t1");
    assert_eq!(ids(&store, "attic").await, ["t2", "t3"]);
    assert_eq!(store.count(&Default::default()).await.unwrap(), 2);
    support::drop_keys(&url, "ctxttl");
}
