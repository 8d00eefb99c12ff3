//! The cached SQLite bench databases (the data comes from
//! `agcore_memory_testkit::corpus`).

use std::path::PathBuf;
use std::time::Instant;

use agcore_memory::MemoryStore;
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::corpus::Corpus;

pub use agcore_memory_testkit::corpus::{ms, percentiles, sizes};

/// The SQLite bench database of `n` memories, built once and cached in the
/// temp dir (`agcore-memory-bench/v3-{n}.db`: store schema 5, so a binary
/// built before it never opens a newer file).
pub async fn cached_sqlite(corpus: &Corpus, n: usize) -> SqliteStore {
    let dir = std::env::temp_dir().join("agcore-memory-bench");
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let path: PathBuf = dir.join(format!("v3-{n}.db"));
    let store = SqliteStore::open(&path).await.unwrap();
    let have = store
        .count(&agcore_memory::MemoryFilter::all())
        .await
        .unwrap();
    if have != n {
        drop(store);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let store = SqliteStore::open(&path).await.unwrap();
        let started = Instant::now();
        for chunk in corpus.memories(n, 7).chunks(10_000) {
            store.save_many(chunk.to_vec()).await.unwrap();
        }
        eprintln!(
            "built {} in {:.1}s",
            path.display(),
            started.elapsed().as_secs_f64()
        );
        return store;
    }
    store
}
