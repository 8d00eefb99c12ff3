//! Long-term writes under lock conflicts: first saves into new scopes from
//! many connections at once all land (the creation of a scope's row once
//! deadlocked against another writer's update of the row's statistics),
//! and a save the server fails as a deadlock victim runs again.
#![cfg(test)]

use std::time::Duration;

use crate::support;

use agcore_memory::EvictionConfig;
use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, content_key};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::long_term::check_concurrent_new_scopes;

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

/// Whether a backend waits for a lock in `UPDATE agcore_lt_scopes`.
async fn save_waits(admin: &tokio_postgres::Client) -> bool {
    admin
        .query_one(
            "SELECT count(*) FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND starts_with(query, 'UPDATE agcore_lt_scopes')",
            &[],
        )
        .await
        .unwrap()
        .get::<_, i64>(0)
        > 0
}

/// A deadlock made on purpose: another transaction holds the scope row the
/// save must update, then inserts the text the save has just inserted. The
/// save waited first, so its deadlock check runs first and the server fails
/// it (40P01); it must run again and land once the other transaction is
/// gone, instead of returning the error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_failed_as_a_deadlock_victim_runs_again() {
    let Some(url) = support::url() else { return };
    let (db, schema) = support::fresh(&url, "ltdeadlock", EvictionConfig::none()).await;
    let scope = LongTermMemory::new(db.long_term())
        .scope("agent", "u")
        .unwrap();
    let first = scope
        .save(NewMemory::new(MemoryType::User, "", "first fact"))
        .await
        .unwrap()
        .entry;
    let mut other = support::admin(&url).await;
    let watcher = support::admin(&url).await;
    let tx = other.transaction().await.unwrap();
    // This side never detects the deadlock: the save's check (1 s) does.
    tx.batch_execute(&format!(
        "SET LOCAL deadlock_timeout = '60s';
         UPDATE {schema}.agcore_lt_scopes SET docs = docs WHERE agent_name = 'agent'"
    ))
    .await
    .unwrap();
    let saving = tokio::spawn({
        let scope = scope.clone();
        async move {
            scope
                .save(NewMemory::new(MemoryType::User, "", "second fact"))
                .await
        }
    });
    let mut waiting = false;
    for _ in 0..100 {
        if save_waits(&watcher).await {
            waiting = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(waiting, "the save never waited for the scope row");
    let columns = "scope_id, agent_name, user_id, memory_type, name, content, description, \
                   metadata, tags, weight, archived, use_count, last_used_at, \
                   weight_updated_at, created_at, updated_at, len";
    // Blocks on the save's uncommitted entry until the server fails the save.
    tx.execute(
        &format!(
            "INSERT INTO {schema}.agcore_lt_entries ({columns}, content_key)
             SELECT {columns}, $1 FROM {schema}.agcore_lt_entries WHERE id = $2"
        ),
        &[&content_key("second fact"), &first.id],
    )
    .await
    .unwrap();
    tx.rollback().await.unwrap();
    let saved = saving.await.unwrap();
    let saved = saved.expect("the deadlock victim's save ran again and landed");
    assert!(saved.created);
    assert_eq!(saved.entry.content, "second fact");
    let hits = scope.search("second fact", 5).await.unwrap();
    assert_eq!(hits.first().map(|h| h.entry.id), Some(saved.entry.id));
    drop((other, watcher));
    support::drop_schemas(&url, "ltdeadlock").await;
}
