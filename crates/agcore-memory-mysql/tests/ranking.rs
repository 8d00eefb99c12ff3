//! MySQL / MariaDB ranks like SQLite: the same memories (English and Chinese,
//! from the bench corpus) saved into both, the same queries, the same hits
//! in the same order with the same BM25 scores — for the store and for a
//! long-term scope among others. Neither search writes an on-disk
//! temporary table.
#![cfg(test)]

use crate::support;

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScoredEntry};
use agcore_memory::{EvictionConfig, MemoryFilter, MemoryStore, ScoredItem, SearchOptions};
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::corpus::Corpus;

const MEMORIES: usize = 1_500;
const QUERIES: usize = 120;

/// Entries whose first words each occur in one of them.
const TINY: [&str; 4] = [
    "violin lessons on tuesday evenings",
    "marathon training in the park",
    "puppy named biscuit",
    "小提琴 老师 很好",
];

/// The same hits in the same order with the same scores, near-ties in
/// either order ([`same_ranking`](agcore_memory_testkit::ranking::same_ranking)).
fn assert_same(query: &str, sqlite: &[(String, f64)], mysql: &[(String, f64)]) {
    if let Err(why) = agcore_memory_testkit::ranking::same_ranking(mysql, sqlite) {
        panic!("`{query}`, mysql against sqlite: {why}");
    }
}

/// A search copying its rows, `BLOB`/`TEXT` columns included, into a
/// temporary table makes it an on-disk one (a file pair in the server's
/// `tmpdir`, per search). The counter is the server's, shared with the
/// tests running meanwhile (the whole suite writes none), hence a
/// bound well under one per search rather than zero.
async fn assert_few_disk_temp_tables(url: &str, before: u64, searches: usize) {
    let written = support::disk_temp_tables(url).await.saturating_sub(before);
    assert!(
        written < (searches / 8) as u64,
        "{searches} searches wrote {written} on-disk temporary tables"
    );
}

fn items(hits: Vec<ScoredItem>) -> Vec<(String, f64)> {
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
    let mysql = db.store();
    for chunk in corpus.memories(MEMORIES, 7).chunks(500) {
        sqlite.save_many(chunk.to_vec()).await.unwrap();
        mysql.save_many(chunk.to_vec()).await.unwrap();
    }
    let options = [
        SearchOptions::top_k(10),
        SearchOptions::top_k(3).with_filter(MemoryFilter::with_prefix("bench:1")),
    ];
    let mut hits = 0;
    let before = support::disk_temp_tables(&url).await;
    for query in corpus.queries(QUERIES, 11) {
        for opts in &options {
            let s = items(sqlite.search(&query, opts).await.unwrap());
            let p = items(mysql.search(&query, opts).await.unwrap());
            hits += s.len();
            assert_same(&query, &s, &p);
        }
    }
    assert_few_disk_temp_tables(&url, before, QUERIES * options.len()).await;
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
    support::drop_databases(&url, "rank").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_ranks_like_sqlite() {
    let Some(url) = support::url() else { return };
    let corpus = Corpus::new();
    let sqlite = LongTermMemory::new(SqliteDatabase::open_in_memory().await.unwrap().long_term());
    let (db, _) = support::fresh(&url, "ltrank", EvictionConfig::none()).await;
    let mysql = LongTermMemory::new(db.long_term());
    let mut scopes = Vec::new();
    for memory in [&sqlite, &mysql] {
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
    let before = support::disk_temp_tables(&url).await;
    for query in corpus.queries(QUERIES, 11) {
        let s = entries(scopes[0].search(&query, 5).await.unwrap());
        let p = entries(scopes[1].search(&query, 5).await.unwrap());
        hits += s.len();
        assert_same(&query, &s, &p);
    }
    assert_few_disk_temp_tables(&url, before, QUERIES).await;
    assert!(hits > QUERIES, "the queries find something ({hits} hits)");
    support::drop_databases(&url, "ltrank").await;
}

/// A store of a few entries: the server reads the entries' table first and
/// the winners' derived table second, so a join's `ORDER BY` sorted the
/// rows in a temporary table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_of_a_small_store_ranks_like_sqlite() {
    let Some(url) = support::url() else { return };
    let sqlite = LongTermMemory::new(SqliteDatabase::open_in_memory().await.unwrap().long_term());
    let (db, _) = support::fresh(&url, "lttiny", EvictionConfig::none()).await;
    let mysql = LongTermMemory::new(db.long_term());
    let mut scopes = Vec::new();
    for memory in [&sqlite, &mysql] {
        let scope = memory.scope("agent", "main").unwrap();
        for text in TINY {
            scope
                .save(NewMemory::new(MemoryType::User, "n", text))
                .await
                .unwrap();
        }
        scopes.push(scope);
    }
    let words: Vec<String> = TINY
        .iter()
        .flat_map(|t| t.split(' ').take(2))
        .map(str::to_string)
        .collect();
    let queries: Vec<String> = (0..QUERIES)
        .map(|i| match i % 3 {
            0 => words[i % words.len()].clone(),
            1 => format!(
                "{} {}",
                words[i % words.len()],
                words[(i / 3) % words.len()]
            ),
            _ => format!("{} tuesday park", words[i % words.len()]),
        })
        .collect();
    let before = support::disk_temp_tables(&url).await;
    for query in &queries {
        let s = entries(scopes[0].search(query, 5).await.unwrap());
        let p = entries(scopes[1].search(query, 5).await.unwrap());
        assert!(!s.is_empty(), "`{query}` finds something");
        assert_same(query, &s, &p);
    }
    assert_few_disk_temp_tables(&url, before, queries.len()).await;
    support::drop_databases(&url, "lttiny").await;
}
