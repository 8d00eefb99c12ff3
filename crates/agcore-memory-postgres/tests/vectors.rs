//! The public vector suite against `PostgresVectors` on a real server with
//! pgvector (each store in a fresh schema), including reopening the schema
//! (persistence and embedding-space mismatch).
#![cfg(test)]

use crate::support;

use std::sync::{Arc, Mutex};

use agcore_memory::EvictionConfig;
use agcore_memory::vector::{EmbeddingSpace, VectorStore};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::vectors;

async fn reopen(url: String, schema: String, space: EmbeddingSpace) -> vectors::OpenResult {
    let db = PostgresDatabase::builder()
        .schema(schema)
        .pool_size(2)
        .open(&url)
        .await?;
    Ok(Arc::new(db.vectors(space).await?) as Arc<dyn VectorStore>)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_vectors_pass_the_suite_and_the_persistence_checks() {
    let Some(url) = support::url() else { return };
    let current = Arc::new(Mutex::new(String::new()));
    let fresh = |space: EmbeddingSpace| {
        let url = url.clone();
        let current = Arc::clone(&current);
        async move {
            let (db, schema) = support::fresh(&url, "vec", EvictionConfig::none()).await;
            *current.lock().unwrap() = schema;
            Ok(Arc::new(db.vectors(space).await?) as Arc<dyn VectorStore>)
        }
    };
    let again = |space| reopen(url.clone(), current.lock().unwrap().clone(), space);
    let report = vectors::vector_conformance_report(fresh).await;
    let persistence = vectors::vector_persistence_report(fresh, again).await;
    drop_schemas(&url).await;
    assert!(report.is_success(), "{report}");
    assert!(persistence.is_success(), "{persistence}");
    assert_eq!(persistence.passed.len(), 2);
}

/// Drops this process's `agt_vec…` schemas, through a connection whose own
/// (fresh) schema is dropped last: the server's default schema may belong
/// to another library version.
async fn drop_schemas(url: &str) {
    let (db, own) = support::fresh(url, "vecdrop", EvictionConfig::none()).await;
    let client = db.pool().get().await.unwrap();
    let prefix = format!("agt_vec_{}_", std::process::id());
    let rows = client
        .query(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)",
            &[&prefix],
        )
        .await
        .unwrap();
    for row in rows {
        let name: String = row.get(0);
        client
            .batch_execute(&format!("DROP SCHEMA \"{name}\" CASCADE"))
            .await
            .unwrap();
    }
    client
        .batch_execute(&format!("DROP SCHEMA \"{own}\" CASCADE"))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_vectors_switches_the_space_and_empties_the_store() {
    use agcore_memory::vector::VectorRecord;
    let Some(url) = support::url() else { return };
    let a = EmbeddingSpace::new("model-a", 4);
    let b = EmbeddingSpace::new("model-b", 3);
    let (db, schema) = support::fresh(&url, "vecreset", EvictionConfig::none()).await;
    let store = db.vectors(a.clone()).await.unwrap();
    store
        .upsert(vec![
            VectorRecord::new("", "x", vec![1.0, 0.0, 0.0, 0.0], "h1"),
            VectorRecord::new("记忆", "用户", vec![0.0, 1.0, 0.0, 0.0], "h2"),
        ])
        .await
        .unwrap();
    let reset = db.reset_vectors(b.clone()).await.unwrap();
    assert_eq!(reset.space(), &b);
    assert_eq!(reset.count(&Default::default()).await.unwrap(), 0);
    reset
        .upsert(vec![VectorRecord::new("", "y", vec![0.0, 0.0, 1.0], "h3")])
        .await
        .unwrap();
    let again = reopen(url.clone(), schema.clone(), b).await.unwrap();
    let count = again.count(&Default::default()).await.unwrap();
    let old = reopen(url.clone(), schema.clone(), a).await;
    let client = db.pool().get().await.unwrap();
    client
        .batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .await
        .unwrap();
    assert_eq!(count, 1);
    assert!(matches!(
        old,
        Err(agcore_memory::MemoryError::EmbeddingMismatch { .. })
    ));
}
