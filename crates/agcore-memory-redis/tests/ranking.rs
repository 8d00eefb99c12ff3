//! Redis ranks like SQLite: the same memories (English and Chinese, from the
//! bench corpus, none in a session) saved into both, the same queries, the
//! same hits in the same order with the same BM25 scores
//! ([`agcore_memory_testkit::drivers::ranking`]).
#![cfg(test)]

use crate::support::Redis;

use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::drivers::ranking;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_search_ranks_like_sqlite() {
    let sqlite = SqliteDatabase::open_in_memory().await.unwrap().store();
    ranking::store_search_ranks_like_sqlite(&Redis, &sqlite).await;
}
