//! Redis ranks like SQLite: the same memories (English and Chinese, from the
//! bench corpus, none in a session) saved into both, the same queries, the
//! same hits in the same order with the same BM25 scores.
#![cfg(test)]

use crate::support;

use agcore_memory::{EvictionConfig, MemoryFilter, MemoryStore, ScoredItem, SearchOptions};
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::corpus::Corpus;
use agcore_memory_testkit::ranking::same_ranking;

const MEMORIES: usize = 1_500;
const QUERIES: usize = 120;

fn items(hits: Vec<ScoredItem>) -> Vec<(String, f64)> {
    hits.into_iter().map(|h| (h.item.id, h.score)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_search_ranks_like_sqlite() {
    let Some(url) = support::url() else { return };
    let corpus = Corpus::new();
    let sqlite = SqliteDatabase::open_in_memory().await.unwrap().store();
    let redis = support::fresh(&url, "rank", EvictionConfig::none()).await;
    for chunk in corpus.memories(MEMORIES, 7).chunks(500) {
        sqlite.save_many(chunk.to_vec()).await.unwrap();
        redis.save_many(chunk.to_vec()).await.unwrap();
    }
    let options = [
        SearchOptions::top_k(10),
        SearchOptions::top_k(3).with_filter(MemoryFilter::with_prefix("bench:1")),
    ];
    let mut hits = 0;
    for query in corpus.queries(QUERIES, 11) {
        for opts in &options {
            let s = items(sqlite.search(&query, opts).await.unwrap());
            let r = items(redis.search(&query, opts).await.unwrap());
            hits += s.len();
            if let Err(why) = same_ranking(&r, &s) {
                panic!("`{query}`, redis against sqlite: {why}");
            }
        }
    }
    support::drop_keys(&url, "rank");
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
}
