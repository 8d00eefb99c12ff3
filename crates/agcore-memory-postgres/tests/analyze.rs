//! Planner statistics after a bulk write: a `save_many` of more rows than
//! the threshold makes the store ask the server to `ANALYZE` its tables
//! (seen in `pg_stat_user_tables.last_analyze`, which autovacuum never sets:
//! it sets `last_autoanalyze`), and searches keep their results meanwhile.
#![cfg(test)]

use std::time::Duration;

use crate::support;

use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};

/// When `table` of `schema` was last analysed on request, if ever.
async fn analysed(client: &tokio_postgres::Client, schema: &str, table: &str) -> bool {
    client
        .query_one(
            "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables
             WHERE schemaname = $1 AND relname = $2",
            &[&schema, &table],
        )
        .await
        .unwrap()
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_write_has_the_tables_analysed() {
    let Some(url) = support::url() else { return };
    let (db, schema) = support::fresh(&url, "analyze", EvictionConfig::none()).await;
    let client = support::admin(&url).await;
    let store = db.store();
    let items: Vec<MemoryItem> = (0..600)
        .map(|i| {
            MemoryItem::new(
                format!("m{i:04}"),
                format!("note {i} about the garden and tomatoes"),
            )
        })
        .collect();
    store.save_many(items).await.unwrap();
    // The request runs on a task of its own: wait for it (up to 30 s).
    let mut done = false;
    for _ in 0..300 {
        if analysed(&client, &schema, "agcore_items").await
            && analysed(&client, &schema, "agcore_postings").await
        {
            done = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(done, "agcore_items and agcore_postings were not analysed");
    let hits = store
        .search("garden tomatoes", &SearchOptions::top_k(5))
        .await
        .unwrap();
    assert_eq!(hits.len(), 5);
    drop(client);
    support::drop_schemas(&url, "analyze").await;
}
