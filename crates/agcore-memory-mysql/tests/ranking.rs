//! MySQL / MariaDB ranks like SQLite: the same memories (English and Chinese,
//! from the bench corpus) saved into both, the same queries, the same hits
//! in the same order with the same BM25 scores — for the store and for a
//! long-term scope among others
//! ([`agcore_memory_testkit::drivers::ranking`]). Neither search writes an
//! on-disk temporary table ([`Mysql`]'s `after_searches`).
#![cfg(test)]

use crate::support::Mysql;

use agcore_memory::long_term::LongTermMemory;
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::drivers::ranking;

async fn sqlite() -> SqliteDatabase {
    SqliteDatabase::open_in_memory().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_search_ranks_like_sqlite() {
    ranking::store_search_ranks_like_sqlite(&Mysql, &sqlite().await.store()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_ranks_like_sqlite() {
    let reference = LongTermMemory::new(sqlite().await.long_term());
    ranking::long_term_search_ranks_like_sqlite(&Mysql, reference).await;
}

/// A store of a few entries: the server reads the entries' table first and
/// the winners' derived table second, so a join's `ORDER BY` sorted the
/// rows in a temporary table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_search_of_a_small_store_ranks_like_sqlite() {
    let reference = LongTermMemory::new(sqlite().await.long_term());
    ranking::long_term_search_of_a_small_store_ranks_like_sqlite(&Mysql, reference).await;
}
