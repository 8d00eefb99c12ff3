//! [`BTreeBackend`]: a [`KvBackend`] over `BTreeMap`s in process memory,
//! the reference implementation (and the backend of this crate's tests).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use crate::backend::{KvBackend, KvError, Op, Rows, Table, WriteBatch};

type Tables = BTreeMap<Table, BTreeMap<Vec<u8>, Vec<u8>>>;

/// Ordered maps in process memory. Clones share the data; [`reopen`](Self::reopen)
/// gives a new, open handle on the same data (what reopening a file is for
/// a disk backend). [`fail_writes`](Self::fail_writes) makes writes fail,
/// to test how the layer above handles a failing backend.
#[derive(Debug, Clone, Default)]
pub struct BTreeBackend {
    tables: Arc<Mutex<Tables>>,
    closed: Arc<AtomicBool>,
    failing: Arc<AtomicBool>,
}

impl BTreeBackend {
    /// An empty backend.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new open handle on the same data (not closed, not failing).
    pub fn reopen(&self) -> Self {
        Self {
            tables: Arc::clone(&self.tables),
            closed: Arc::default(),
            failing: Arc::default(),
        }
    }

    /// Makes every later [`write`](KvBackend::write) fail (`true`) or succeed.
    pub fn fail_writes(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// How many rows `table` holds.
    ///
    /// # Errors
    /// [`KvError::Backend`] when the lock is poisoned.
    pub fn row_count(&self, table: Table) -> Result<usize, KvError> {
        Ok(self.tables()?.get(&table).map_or(0, BTreeMap::len))
    }

    fn tables(&self) -> Result<MutexGuard<'_, Tables>, KvError> {
        self.tables
            .lock()
            .map_err(|_| KvError::Backend("btree backend: lock poisoned".into()))
    }

    fn open_tables(&self) -> Result<MutexGuard<'_, Tables>, KvError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(KvError::Closed);
        }
        self.tables()
    }
}

#[async_trait]
impl KvBackend for BTreeBackend {
    async fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, KvError> {
        Ok(self
            .open_tables()?
            .get(&table)
            .and_then(|t| t.get(key))
            .cloned())
    }

    async fn scan(&self, table: Table, prefix: &[u8]) -> Result<Rows, KvError> {
        let tables = self.open_tables()?;
        let Some(rows) = tables.get(&table) else {
            return Ok(Vec::new());
        };
        Ok(rows
            .range(prefix.to_vec()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    async fn write(&self, batch: WriteBatch) -> Result<(), KvError> {
        let mut tables = self.open_tables()?;
        if self.failing.load(Ordering::SeqCst) {
            return Err(KvError::Backend("btree backend: writes fail (test)".into()));
        }
        for op in batch.ops {
            match op {
                Op::Put { table, key, value } => {
                    tables.entry(table).or_default().insert(key, value);
                }
                Op::Delete { table, key } => {
                    if let Some(rows) = tables.get_mut(&table) {
                        rows.remove(&key);
                    }
                }
            }
        }
        Ok(())
    }

    async fn close(&self) -> Result<(), KvError> {
        self.closed.store(true, Ordering::SeqCst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn scans_by_prefix_in_key_order_and_reopens() {
        let backend = BTreeBackend::new();
        let mut batch = WriteBatch::new();
        for key in ["b2", "a1", "b1", "c"] {
            batch.put(Table::Items, key.into(), "值".as_bytes().to_vec());
        }
        batch.delete(Table::Items, b"c".to_vec());
        backend.write(batch).await.unwrap();
        let keys: Vec<Vec<u8>> = backend
            .scan(Table::Items, b"b")
            .await
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, [b"b1".to_vec(), b"b2".to_vec()]);
        backend.close().await.unwrap();
        assert!(matches!(
            backend.get(Table::Items, b"a1").await,
            Err(KvError::Closed)
        ));
        let again = backend.reopen();
        assert_eq!(again.row_count(Table::Items).unwrap(), 3);
        again.fail_writes(true);
        assert!(again.write(WriteBatch::new()).await.is_err());
    }
}
