//! The key-value store ranks like SQLite: one conversation of the bench
//! corpus (English and Chinese turns in sessions of 20), the same queries,
//! the same top-10 ids in the same order with the same scores — before and
//! after reopening. Long-term search likewise ranks like SQLite's long-term
//! backend, with archived entries and mixed types in the collection.

use std::sync::Arc;

use agcore_memory::long_term::{
    ArchivedFilter, HistoryReason, LongTermBackend, MemoryScope, MemoryType, MemoryUpdate,
    NewMemory, ScoredEntry, SearchRequest, WeightRules,
};
use agcore_memory::{EvictionConfig, MemoryStore, ScoredItem, SearchOptions};
use agcore_memory_kv::{BTreeBackend, KvLongTerm, KvStore};
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::corpus::Corpus;
use agcore_memory_testkit::ranking::same_ranking;
use agcore_memory_testkit::turns::as_turns;
use chrono::Utc;

const TURNS: usize = 600;
const QUERIES: usize = 80;

fn items(hits: Vec<ScoredItem>) -> Vec<(String, f64)> {
    hits.into_iter().map(|h| (h.item.id, h.score)).collect()
}

async fn compare(kv: &dyn MemoryStore, sqlite: &dyn MemoryStore, queries: &[String]) -> usize {
    let mut hits = 0;
    for query in queries {
        let options = SearchOptions::top_k(10);
        let want = items(sqlite.search(query, &options).await.unwrap());
        let got = items(kv.search(query, &options).await.unwrap());
        hits += want.len();
        if let Err(why) = same_ranking(&got, &want) {
            panic!("`{query}`, kv against sqlite: {why}");
        }
    }
    hits
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_search_ranks_like_sqlite_before_and_after_reopening() {
    let corpus = Corpus::new();
    let conversation = as_turns(&corpus.memories(TURNS, 7));
    let queries = corpus.queries(QUERIES, 11);
    let sqlite = SqliteDatabase::open_in_memory().await.unwrap().store();
    let backend = BTreeBackend::new();
    let kv = KvStore::open(Arc::new(backend.clone()), EvictionConfig::none())
        .await
        .unwrap();
    for chunk in conversation.chunks(100) {
        sqlite.save_many(chunk.to_vec()).await.unwrap();
        kv.save_many(chunk.to_vec()).await.unwrap();
    }
    let hits = compare(&kv, &sqlite, &queries).await;
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
    drop(kv);
    let kv = KvStore::open(Arc::new(backend.reopen()), EvictionConfig::none())
        .await
        .unwrap();
    assert_eq!(compare(&kv, &sqlite, &queries).await, hits);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_ranks_like_sqlite_after_reopening() {
    let corpus = Corpus::new();
    let scope = MemoryScope::new("agent", "用户").unwrap();
    let (rules, now) = (WeightRules::default(), Utc::now());
    let reference = SqliteDatabase::open_in_memory().await.unwrap().long_term();
    let backend = BTreeBackend::new();
    let kv = KvLongTerm::open(Arc::new(backend.clone())).await.unwrap();
    for (i, item) in corpus.memories(300, 5).into_iter().enumerate() {
        // Mixed types, and every seventh entry archived: the statistics
        // count the whole scope, the filters apply after scoring.
        let ty = MemoryType::ALL[i % MemoryType::ALL.len()];
        let new = NewMemory::new(ty, "", item.content);
        let saved = reference.save(&scope, new.clone(), &rules, now).await;
        let id = saved.unwrap().entry.id;
        kv.save(&scope, new, &rules, now).await.unwrap();
        if i % 7 == 3 {
            let archive = MemoryUpdate::default().archived(true);
            let reason = HistoryReason::Update;
            let a = reference.update(&scope, id, archive.clone(), reason, &rules, now);
            a.await.unwrap();
            kv.update(&scope, id, archive, reason, &rules, now)
                .await
                .unwrap();
        }
    }
    drop(kv);
    let kv = KvLongTerm::open(Arc::new(backend.reopen())).await.unwrap();
    let requests = [
        SearchRequest::default(),
        SearchRequest::default()
            .of_type(MemoryType::Project)
            .archived(ArchivedFilter::Include),
    ];
    let mut hits = 0;
    for query in corpus.queries(QUERIES, 13) {
        for request in &requests {
            let want = scored(reference.search(&scope, &query, request).await.unwrap());
            let got = scored(kv.search(&scope, &query, request).await.unwrap());
            hits += want.len();
            if let Err(why) = same_ranking(&got, &want) {
                panic!("`{query}` ({request:?}), kv against sqlite: {why}");
            }
        }
    }
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
}

fn scored(hits: Vec<ScoredEntry>) -> Vec<(String, f64)> {
    let id = |h: &ScoredEntry| h.entry.id.to_string();
    hits.iter().map(|h| (id(h), h.score)).collect()
}
