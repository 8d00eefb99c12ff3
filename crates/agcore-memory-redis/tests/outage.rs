//! A server outage: saves run while a private Redis server is stopped (or
//! killed) and started again (append-only persistence). Errors during the outage are
//! recoverable, the same store object recovers, every acknowledged save is
//! kept ([`agcore_memory_testkit::drivers::outage`]); and a native TTL
//! expires items, whose index entries go with them.
#![cfg(test)]

use crate::support::{self, Redis};

use std::time::Duration;

use agcore_memory::{EvictionConfig, MemoryFilter, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_testkit::drivers::outage;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_fail_recoverably_during_an_outage_and_resume_after() {
    outage::saves_fail_recoverably_during_an_outage(&Redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_loop_survives_a_killed_server() {
    outage::save_loop_survives_a_killed_server(&Redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_ttl_expires_items_and_their_index_entries() {
    let Some(url) = support::url() else { return };
    let store = support::fresh(&url, "ttl", EvictionConfig::ttl(1, 1)).await;
    store
        .save(MemoryItem::new("short", "a juniper note"))
        .await
        .unwrap();
    assert_eq!(
        store
            .search("juniper", &SearchOptions::top_k(5))
            .await
            .unwrap()
            .len(),
        1
    );
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(
        store.get("short").await.unwrap().is_none(),
        "the item outlived its TTL"
    );
    assert!(
        store
            .search("juniper", &SearchOptions::top_k(5))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.count(&MemoryFilter::all()).await.unwrap(), 0);
    // The sweep removed the index entries too: no key of the item is left.
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let left: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:*short*", store.prefix()))
        .query(&mut conn)
        .unwrap();
    assert!(left.is_empty(), "{left:?}");
    support::drop_keys(&url, "ttl");
}
