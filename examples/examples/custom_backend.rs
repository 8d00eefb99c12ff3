//! A memory backend of your own in one file: `agcore_memory_kv::KvBackend`
//! (get, scan, write) over redb, an embedded key-value database. The shared
//! layer of `agcore-memory-kv` turns it into a `MemoryStore` (`KvStore`), a
//! long-term backend (`KvLongTerm`) and a vector store (`open_vectors`);
//! the tests below run every memory testkit against it, unchanged, and
//! compare its rankings with SQLite's.
//!
//! Offline: `cargo run -p agcore-examples --example custom_backend`; the
//! tests: `cargo test -p agcore-examples --example custom_backend`.
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::path::Path;
use std::sync::Arc;

use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_kv::{KvBackend, KvError, KvStore, Op, Rows, Table, WriteBatch};
use async_trait::async_trait;
use redb::{Database, ReadableDatabase, TableDefinition};

/// One redb table per `Table`, byte keys to byte values.
fn definition(table: Table) -> TableDefinition<'static, &'static [u8], &'static [u8]> {
    TableDefinition::new(table.name())
}

/// A redb file as a `KvBackend`. redb calls block, so they run on tokio's
/// blocking pool; every write is one redb transaction, durable on commit.
struct RedbBackend {
    db: Arc<Database>,
}

impl RedbBackend {
    /// Opens (or creates) the file at `path` with every table.
    fn open(path: &Path) -> Result<Self, KvError> {
        let db = Database::create(path).map_err(KvError::backend)?;
        let txn = db.begin_write().map_err(KvError::backend)?;
        for table in Table::ALL {
            txn.open_table(definition(table))
                .map_err(KvError::backend)?;
        }
        txn.commit().map_err(KvError::backend)?;
        Ok(Self { db: Arc::new(db) })
    }

    /// Runs `work` on the database on the blocking pool.
    async fn run<T, F>(&self, work: F) -> Result<T, KvError>
    where
        T: Send + 'static,
        F: FnOnce(&Database) -> Result<T, redb::Error> + Send + 'static,
    {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || work(&db))
            .await
            .map_err(KvError::backend)?
            .map_err(KvError::backend)
    }
}

#[async_trait]
impl KvBackend for RedbBackend {
    async fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, KvError> {
        let key = key.to_vec();
        self.run(move |db| {
            let rows = db.begin_read()?.open_table(definition(table))?;
            Ok(rows.get(key.as_slice())?.map(|v| v.value().to_vec()))
        })
        .await
    }

    async fn scan(&self, table: Table, prefix: &[u8]) -> Result<Rows, KvError> {
        let prefix = prefix.to_vec();
        self.run(move |db| {
            let rows = db.begin_read()?.open_table(definition(table))?;
            let mut out = Vec::new();
            for row in rows.range(prefix.as_slice()..)? {
                let (key, value) = row?;
                if !key.value().starts_with(&prefix) {
                    break;
                }
                out.push((key.value().to_vec(), value.value().to_vec()));
            }
            Ok(out)
        })
        .await
    }

    async fn write(&self, batch: WriteBatch) -> Result<(), KvError> {
        self.run(move |db| {
            let txn = db.begin_write()?;
            for op in batch.ops {
                match op {
                    Op::Put { table, key, value } => {
                        let mut rows = txn.open_table(definition(table))?;
                        rows.insert(key.as_slice(), value.as_slice())?;
                    }
                    Op::Delete { table, key } => {
                        txn.open_table(definition(table))?.remove(key.as_slice())?;
                    }
                }
            }
            Ok(txn.commit()?)
        })
        .await
    }
}

/// Opens the `MemoryStore` of the redb file at `path`.
async fn open_store(path: &Path) -> Result<KvStore<RedbBackend>, Box<dyn Error>> {
    let backend = Arc::new(RedbBackend::open(path)?);
    Ok(KvStore::open(backend, EvictionConfig::none()).await?)
}

async fn show(store: &KvStore<RedbBackend>, query: &str) -> Result<(), Box<dyn Error>> {
    for hit in store.search(query, &SearchOptions::top_k(3)).await? {
        println!(
            "  {query:?} -> {} ({:.3}): {}",
            hit.item.id, hit.score, hit.item.content
        );
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("memory.redb");
    let store = open_store(&path).await?;
    store
        .save_many(vec![
            MemoryItem::new("pref:tea", "The user drinks green tea, never coffee"),
            MemoryItem::new("pref:茶", "用户喜欢喝绿茶，不喝咖啡"),
            MemoryItem::new("home", "The user lives in Lyon, 用户住在里昂"),
        ])
        .await?;
    println!(
        "saved {} memories to {}",
        store.count(&Default::default()).await?,
        path.display()
    );
    show(&store, "green tea").await?;
    drop(store);

    let store = open_store(&path).await?;
    println!(
        "after reopening, {} memories:",
        store.count(&Default::default()).await?
    );
    show(&store, "绿茶").await?;
    show(&store, "where does the user live").await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use agcore_memory::long_term::LongTermMemory;
    use agcore_memory::vector::{EmbeddingSpace, VectorStore};
    use agcore_memory::{EvictionConfig, MemoryStore, SearchOptions};
    use agcore_memory_kv::{KvLongTerm, KvStore, open_vectors};
    use agcore_memory_sqlite::SqliteDatabase;
    use agcore_memory_testkit::long_term::{LONG_TERM_CHECKS, long_term_report};
    use agcore_memory_testkit::{corpus::Corpus, ranking::same_ranking, turns, vectors};

    use super::RedbBackend;

    /// A fresh redb file in `dir` for each call.
    fn fresh(dir: &tempfile::TempDir, next: &AtomicUsize) -> Arc<RedbBackend> {
        let path = dir
            .path()
            .join(format!("{}.redb", next.fetch_add(1, Ordering::Relaxed)));
        Arc::new(RedbBackend::open(&path).unwrap())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redb_passes_the_memory_store_suite() {
        let (dir, next) = (tempfile::tempdir().unwrap(), AtomicUsize::new(0));
        let (dir, next) = (&dir, &next);
        agcore_memory_testkit::run_conformance(move |eviction: EvictionConfig| async move {
            let store = KvStore::open(fresh(dir, next), eviction).await.unwrap();
            Arc::new(store) as Arc<dyn MemoryStore>
        })
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redb_passes_the_long_term_suite() {
        let (dir, next) = (tempfile::tempdir().unwrap(), AtomicUsize::new(0));
        let report = long_term_report(|| async {
            LongTermMemory::new(KvLongTerm::open(fresh(&dir, &next)).await.unwrap())
        })
        .await;
        assert!(report.is_success(), "{report}");
        assert_eq!(report.passed, LONG_TERM_CHECKS);
    }

    async fn vector_store(path: PathBuf, space: EmbeddingSpace) -> vectors::OpenResult {
        let backend = Arc::new(RedbBackend::open(&path)?);
        Ok(Arc::new(open_vectors(backend, space).await?) as Arc<dyn VectorStore>)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redb_passes_the_vector_suite_and_the_persistence_checks() {
        let (dir, next) = (tempfile::tempdir().unwrap(), AtomicUsize::new(0));
        let current = Mutex::new(PathBuf::new());
        let fresh = |space| {
            let path = dir
                .path()
                .join(format!("v{}.redb", next.fetch_add(1, Ordering::Relaxed)));
            *current.lock().unwrap() = path.clone();
            vector_store(path, space)
        };
        let reopen = |space| vector_store(current.lock().unwrap().clone(), space);
        let report = vectors::vector_conformance_report(fresh).await;
        assert!(report.is_success(), "{report}");
        let report = vectors::vector_persistence_report(fresh, reopen).await;
        assert!(report.is_success(), "{report}");
        assert_eq!(report.passed.len(), 2);
    }

    /// Top-10 ids and scores of `store` for each query.
    async fn top10(store: &dyn MemoryStore, queries: &[String]) -> Vec<Vec<(String, f64)>> {
        let mut lists = Vec::new();
        for query in queries {
            let hits = store
                .search(query, &SearchOptions::top_k(10))
                .await
                .unwrap();
            lists.push(hits.into_iter().map(|h| (h.item.id, h.score)).collect());
        }
        lists
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redb_ranks_like_sqlite_on_a_conversation_before_and_after_reopening() {
        let corpus = Corpus::new();
        let conversation = turns::as_turns(&corpus.memories(600, 7));
        let queries = corpus.queries(80, 11);
        let sqlite = SqliteDatabase::open_in_memory().await.unwrap().store();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rank.redb");
        let redb = super::open_store(&path).await.unwrap();
        sqlite.save_many(conversation.clone()).await.unwrap();
        redb.save_many(conversation).await.unwrap();
        let want = top10(&sqlite, &queries).await;
        assert!(want.iter().map(Vec::len).sum::<usize>() > 80);
        let got = top10(&redb, &queries).await;
        drop(redb);
        let reopened = top10(&super::open_store(&path).await.unwrap(), &queries).await;
        for (i, (q, w)) in queries.iter().zip(&want).enumerate() {
            same_ranking(&got[i], w).unwrap_or_else(|why| panic!("`{q}`: {why}"));
            same_ranking(&reopened[i], w).unwrap_or_else(|why| panic!("`{q}`, reopened: {why}"));
        }
    }
}
