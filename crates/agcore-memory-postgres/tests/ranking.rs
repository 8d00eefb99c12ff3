//! PostgreSQL ranks like SQLite: the same memories (English and Chinese,
//! from the bench corpus) saved into both, the same queries, the same hits
//! in the same order with the same BM25 scores — for the store (memories
//! without a session: plain BM25; turns of sessions, some replaced, moved
//! or deleted: BM25F with the context field) and for a long-term scope
//! among others.
#![cfg(test)]

use crate::support;

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScoredEntry};
use agcore_memory::{
    EvictionConfig, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::corpus::Corpus;

const MEMORIES: usize = 1_500;
const QUERIES: usize = 120;

/// The same hits in the same order with the same scores, near-ties in
/// either order ([`same_ranking`](agcore_memory_testkit::ranking::same_ranking)).
fn assert_same(query: &str, sqlite: &[(String, f64)], postgres: &[(String, f64)]) {
    if let Err(why) = agcore_memory_testkit::ranking::same_ranking(postgres, sqlite) {
        panic!("`{query}`, postgres against sqlite: {why}");
    }
}

fn items_of(hits: Vec<ScoredItem>) -> Vec<(String, f64)> {
    hits.into_iter().map(|h| (h.item.id, h.score)).collect()
}

fn entries(hits: Vec<ScoredEntry>) -> Vec<(String, f64)> {
    hits.into_iter()
        .map(|h| (h.entry.content, h.score))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_search_ranks_like_sqlite() {
    let Some(url) = support::url() else { return };
    let corpus = Corpus::new();
    let sqlite = SqliteDatabase::open_in_memory().await.unwrap().store();
    let (db, _) = support::fresh(&url, "rank", EvictionConfig::none()).await;
    let postgres = db.store();
    for chunk in corpus.memories(MEMORIES, 7).chunks(500) {
        sqlite.save_many(chunk.to_vec()).await.unwrap();
        postgres.save_many(chunk.to_vec()).await.unwrap();
    }
    let options = [
        SearchOptions::top_k(10),
        SearchOptions::top_k(3).with_filter(MemoryFilter::with_prefix("bench:1")),
    ];
    let mut hits = 0;
    for query in corpus.queries(QUERIES, 11) {
        for opts in &options {
            let s = items_of(sqlite.search(&query, opts).await.unwrap());
            let p = items_of(postgres.search(&query, opts).await.unwrap());
            hits += s.len();
            assert_same(&query, &s, &p);
        }
    }
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
    support::drop_schemas(&url, "rank").await;
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
    let corpus = Corpus::new();
    let sqlite = SqliteDatabase::open_in_memory().await.unwrap().store();
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
    let options = [
        SearchOptions::top_k(10),
        SearchOptions::top_k(3).with_filter(MemoryFilter::with_prefix("bench:1")),
    ];
    let mut hits = 0;
    for query in corpus.queries(QUERIES, 11) {
        for opts in &options {
            let s = items_of(sqlite.search(&query, opts).await.unwrap());
            let p = items_of(postgres.search(&query, opts).await.unwrap());
            hits += s.len();
            assert_same(&query, &s, &p);
        }
    }
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
    support::drop_schemas(&url, "rankctx").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_ranks_like_sqlite() {
    let Some(url) = support::url() else { return };
    let corpus = Corpus::new();
    let sqlite = LongTermMemory::new(SqliteDatabase::open_in_memory().await.unwrap().long_term());
    let (db, _) = support::fresh(&url, "ltrank", EvictionConfig::none()).await;
    let postgres = LongTermMemory::new(db.long_term());
    let mut scopes = Vec::new();
    for memory in [&sqlite, &postgres] {
        let (main, other) = (
            memory.scope("agent", "main").unwrap(),
            memory.scope("agent", "other").unwrap(),
        );
        for item in corpus.memories(400, 7) {
            main.save(NewMemory::new(MemoryType::User, "n", item.content))
                .await
                .unwrap();
        }
        // Another scope's entries must not change the main scope's scores.
        for item in corpus.memories(300, 8) {
            other
                .save(NewMemory::new(MemoryType::User, "n", item.content))
                .await
                .unwrap();
        }
        scopes.push(main);
    }
    let mut hits = 0;
    for query in corpus.queries(QUERIES, 11) {
        let s = entries(scopes[0].search(&query, 5).await.unwrap());
        let p = entries(scopes[1].search(&query, 5).await.unwrap());
        hits += s.len();
        assert_same(&query, &s, &p);
    }
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
    support::drop_schemas(&url, "ltrank").await;
}
