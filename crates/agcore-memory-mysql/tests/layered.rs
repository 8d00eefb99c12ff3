//! The knowledge wiki and conversation history over the MySQL / MariaDB store.
#![cfg(test)]

use crate::support;

use std::sync::Arc;

use agcore_memory::EvictionConfig;
use agcore_memory_testkit as testkit;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wiki_and_conversation_run_on_mysql() {
    let Some(url) = support::url() else { return };
    let (db, _) = support::fresh(&url, "layer", EvictionConfig::none()).await;
    let result = testkit::check_wiki_and_conversation(Arc::new(db.store())).await;
    support::drop_databases(&url, "layer").await;
    result.unwrap();
}
