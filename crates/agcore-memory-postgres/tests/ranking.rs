//! PostgreSQL ranks like SQLite: the same memories (English and Chinese,
//! from the bench corpus) saved into both, the same queries, the same hits
//! in the same order with the same BM25 scores — for the store (memories
//! without a session: plain BM25; turns of sessions, some replaced, moved
//! or deleted: BM25F with the context field) and for a long-term scope
//! among others ([`agcore_memory_testkit::drivers::ranking`]).
#![cfg(test)]

use crate::support::{self, Postgres};

use agcore_memory::long_term::LongTermMemory;
use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore};
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::corpus::Corpus;
use agcore_memory_testkit::drivers::ranking::{self, MEMORIES};

async fn sqlite() -> SqliteDatabase {
    SqliteDatabase::open_in_memory().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_search_ranks_like_sqlite() {
    ranking::store_search_ranks_like_sqlite(&Postgres, &sqlite().await.store()).await;
}

/// The corpus as turns of sessions of 20 (and every 50th memory in none).
fn turns(n: usize, seed: u64) -> Vec<MemoryItem> {
    Corpus::new()
        .memories(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let item = item.with_created_at(agcore_memory_testkit::at(i as i64));
            if i % 50 == 49 {
                item
            } else {
                item.with_metadata(serde_json::json!({ "session": format!("s{}", i / 20) }))
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_search_in_sessions_ranks_like_sqlite() {
    let Some(url) = support::url() else { return };
    let sqlite = sqlite().await.store();
    let (db, _) = support::fresh(&url, "rankctx", EvictionConfig::none()).await;
    let postgres = db.store();
    let items = turns(MEMORIES, 7);
    for chunk in items.chunks(300) {
        sqlite.save_many(chunk.to_vec()).await.unwrap();
        postgres.save_many(chunk.to_vec()).await.unwrap();
    }
    // Replacements (new text; a session moved; a later time) and deletions.
    let others = turns(60, 9);
    for (n, other) in others.iter().enumerate() {
        let id = format!("bench:{}", n * 23);
        let session = format!("s{}", (n * 7) % 40);
        let mut item = MemoryItem::new(id.clone(), other.content.clone())
            .with_metadata(serde_json::json!({ "session": session }))
            .with_created_at(agcore_memory_testkit::at((n * 23 + n % 3) as i64));
        if n % 4 == 0 {
            item = item.with_created_at(agcore_memory_testkit::at(5_000 + n as i64));
        }
        for store in [&sqlite as &dyn MemoryStore, &postgres] {
            if n % 5 == 4 {
                store.delete(&id).await.unwrap();
            } else {
                store.save(item.clone()).await.unwrap();
            }
        }
    }
    ranking::compare_store_searches(&Postgres, &url, &sqlite, &postgres).await;
    support::drop_schemas(&url, "rankctx").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_ranks_like_sqlite() {
    let reference = LongTermMemory::new(sqlite().await.long_term());
    ranking::long_term_search_ranks_like_sqlite(&Postgres, reference).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_of_a_small_store_ranks_like_sqlite() {
    let reference = LongTermMemory::new(sqlite().await.long_term());
    ranking::long_term_search_of_a_small_store_ranks_like_sqlite(&Postgres, reference).await;
}
