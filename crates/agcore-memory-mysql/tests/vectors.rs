//! The public vector suite against `MysqlVectors` on a real MySQL / MariaDB
//! server (each store in a fresh database), including reopening the
//! database (persistence and embedding-space mismatch) and resetting it to
//! another embedding space.
#![cfg(test)]

use crate::support;

use std::sync::{Arc, Mutex};

use agcore_memory::vector::{EmbeddingSpace, VectorFilter, VectorRecord, VectorStore};
use agcore_memory::{EvictionConfig, MemoryError};
use agcore_memory_mysql::{MysqlDatabase, VectorTables};
use agcore_memory_testkit::vectors;

async fn reopen(url: String, space: EmbeddingSpace) -> vectors::OpenResult {
    let db = MysqlDatabase::builder().pool_size(2).open(&url).await?;
    Ok(Arc::new(db.vectors(space).await?) as Arc<dyn VectorStore>)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_vectors_pass_the_suite_and_the_persistence_checks() {
    let Some(url) = support::url() else { return };
    let current = Arc::new(Mutex::new(String::new()));
    let fresh = |space: EmbeddingSpace| {
        let url = url.clone();
        let current = Arc::clone(&current);
        async move {
            let (db, db_url) = support::fresh(&url, "vec", EvictionConfig::none()).await;
            *current.lock().unwrap() = db_url;
            Ok(Arc::new(db.vectors(space).await?) as Arc<dyn VectorStore>)
        }
    };
    let again = |space| reopen(current.lock().unwrap().clone(), space);
    let report = vectors::vector_conformance_report(fresh).await;
    let persistence = vectors::vector_persistence_report(fresh, again).await;
    support::drop_databases(&url, "vec").await;
    assert!(report.is_success(), "{report}");
    assert!(persistence.is_success(), "{persistence}");
    assert_eq!(persistence.passed.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_vectors_switches_the_space_and_empties_the_store() {
    let Some(url) = support::url() else { return };
    let a = EmbeddingSpace::new("model-a", 4);
    let b = EmbeddingSpace::new("model-b", 3);
    let (db, db_url) = support::fresh(&url, "vecreset", EvictionConfig::none()).await;
    let store = db.vectors(a.clone()).await.unwrap();
    store
        .upsert(vec![
            VectorRecord::new("", "x", vec![1.0, 0.0, 0.0, 0.0], "h1"),
            VectorRecord::new("记忆", "用户😀", vec![0.0, 1.0, 0.0, 0.0], "h2"),
        ])
        .await
        .unwrap();
    let reset = db.reset_vectors(b.clone()).await.unwrap();
    let empty = reset.count(&VectorFilter::default()).await.unwrap();
    reset
        .upsert(vec![VectorRecord::new("", "y", vec![0.0, 0.0, 1.0], "h3")])
        .await
        .unwrap();
    let again = reopen(db_url.clone(), b.clone()).await;
    let old = reopen(db_url, a).await;
    support::drop_databases(&url, "vecreset").await;
    assert_eq!(reset.space(), &b);
    assert_eq!(empty, 0);
    let again = again.unwrap();
    assert_eq!(again.count(&VectorFilter::default()).await.unwrap(), 1);
    let hashes = again
        .content_hashes("", &["y".to_owned(), "x".to_owned()])
        .await
        .unwrap();
    assert_eq!(hashes, vec![Some("h3".to_owned()), None]);
    assert!(matches!(old, Err(MemoryError::EmbeddingMismatch { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_differing_only_in_case_or_width_are_distinct_rows() {
    let Some(url) = support::url() else { return };
    let space = EmbeddingSpace::new("m", 2);
    let (db, db_url) = support::fresh(&url, "veccase", EvictionConfig::none()).await;
    let store = db.vectors(space.clone()).await.unwrap();
    let ids = ["Ab", "ab", "AB", "ａｂ", "用户", "用戶"];
    store
        .upsert(
            ids.iter()
                .map(|id| VectorRecord::new("ns", *id, vec![1.0, 0.5], format!("h:{id}")))
                .collect(),
        )
        .await
        .unwrap();
    let again = reopen(db_url, space).await;
    support::drop_databases(&url, "veccase").await;
    let again = again.unwrap();
    assert_eq!(
        again.count(&VectorFilter::default()).await.unwrap(),
        ids.len()
    );
    let wanted: Vec<String> = ids.iter().map(|id| (*id).to_owned()).collect();
    let hashes = again.content_hashes("ns", &wanted).await.unwrap();
    let expected: Vec<Option<String>> = ids.iter().map(|id| Some(format!("h:{id}"))).collect();
    assert_eq!(hashes, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_opens_record_one_space() {
    let Some(url) = support::url() else { return };
    let (_db, db_url) = support::fresh(&url, "vecrace", EvictionConfig::none()).await;
    let opens = (0..4).map(|n| {
        let db_url = db_url.clone();
        tokio::spawn(async move {
            let space = EmbeddingSpace::new(if n % 2 == 0 { "m" } else { "other" }, 2);
            reopen(db_url, space).await.map(|_| n)
        })
    });
    let mut opened = Vec::new();
    let mut mismatched = 0;
    for open in opens {
        match open.await.unwrap() {
            Ok(n) => opened.push(n % 2),
            Err(MemoryError::EmbeddingMismatch { .. }) => mismatched += 1,
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
    support::drop_databases(&url, "vecrace").await;
    assert_eq!(opened.len(), 2, "{opened:?}");
    assert_eq!(mismatched, 2);
    assert!(opened.iter().all(|n| *n == opened[0]), "{opened:?}");
}
