//! The public vector suite against `SqliteVectors`, including reopening
//! the file (persistence and embedding-space mismatch).
#![cfg(test)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agcore_memory::vector::{EmbeddingSpace, VectorStore};
use agcore_memory_sqlite::{SqliteDatabase, VectorTables};
use agcore_memory_testkit::vectors;

async fn open(path: PathBuf, space: EmbeddingSpace) -> vectors::OpenResult {
    let db = SqliteDatabase::open(&path).await?;
    Ok(Arc::new(db.vectors(space).await?) as Arc<dyn VectorStore>)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_vectors_pass_the_suite_and_the_persistence_checks() {
    let dir = tempfile::tempdir().unwrap();
    let counter = Arc::new(Mutex::new(0usize));
    let current = Arc::new(Mutex::new(PathBuf::new()));
    let fresh = |space| {
        let mut n = counter.lock().unwrap();
        *n += 1;
        let path = dir.path().join(format!("v{n}.db"));
        *current.lock().unwrap() = path.clone();
        open(path, space)
    };
    let reopen = |space| open(current.lock().unwrap().clone(), space);
    let report = vectors::vector_conformance_report(fresh).await;
    assert!(report.is_success(), "{report}");
    let report = vectors::vector_persistence_report(fresh, reopen).await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_live_beside_the_store_in_one_file() {
    let db = SqliteDatabase::open_in_memory().await.unwrap();
    let space = EmbeddingSpace::new("m", 4);
    let store = db.vectors(space.clone()).await.unwrap();
    store
        .upsert(vec![agcore_memory::vector::VectorRecord::new(
            "",
            "a",
            vec![1.0, 0.0, 0.0, 0.0],
            "h",
        )])
        .await
        .unwrap();
    let again = db.vectors(space).await.unwrap();
    assert_eq!(
        again.count(&Default::default()).await.unwrap(),
        1,
        "a second handle loads the committed rows"
    );
    let other = db.vectors(EmbeddingSpace::new("m", 8)).await;
    assert!(matches!(
        other,
        Err(agcore_memory::MemoryError::EmbeddingMismatch { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_vectors_switches_the_space_and_empties_the_store() {
    use agcore_memory::vector::VectorRecord;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reset.db");
    let a = EmbeddingSpace::new("model-a", 4);
    let b = EmbeddingSpace::new("model-b", 3);
    let db = SqliteDatabase::open(&path).await.unwrap();
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
    drop(db);
    let db = SqliteDatabase::open(&path).await.unwrap();
    let again = db.vectors(b).await.unwrap();
    assert_eq!(again.count(&Default::default()).await.unwrap(), 1);
    assert!(matches!(
        db.vectors(a).await,
        Err(agcore_memory::MemoryError::EmbeddingMismatch { .. })
    ));
}
