//! First saves into new long-term scopes from many connections at once:
//! no save fails (the creation of a scope's row once deadlocked against
//! another writer's update of the row's statistics).
#![cfg(test)]

use crate::support;

use agcore_memory::long_term::LongTermMemory;
use agcore_memory::testkit::long_term::check_concurrent_new_scopes;
use agcore_memory_postgres::PostgresDatabase;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_saves_into_new_scopes_from_many_connections_all_land() {
    let Some(url) = support::url() else { return };
    // Rounds of the shared check, each on fresh scopes, with a connection
    // per writer (the conformance suite's pool has 4).
    for round in 0..4 {
        let schema = support::schema_name("ltconc");
        let db = PostgresDatabase::builder()
            .schema(schema)
            .pool_size(8)
            .open(&url)
            .await
            .unwrap();
        let result = check_concurrent_new_scopes(LongTermMemory::new(db.long_term())).await;
        assert!(result.is_ok(), "round {round}: {result:?}");
    }
    support::drop_schemas(&url, "ltconc").await;
}
