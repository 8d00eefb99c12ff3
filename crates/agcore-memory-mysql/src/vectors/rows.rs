//! Reading and writing `agcore_vectors` rows (vectors as little-endian
//! `f32` `LONGBLOB`s, keyed by the SHA-256 of namespace and id).

use agcore_memory::MemoryError;
use agcore_memory::vector::{VectorRecord, VectorRows, vector_from_bytes, vector_to_bytes};
use async_trait::async_trait;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, TxOpts};
use sha2::{Digest, Sha256};

use crate::connections::Connections;
use crate::error::{Result, storage};

/// The row key of `(namespace, id)`: SHA-256 of the namespace, a NUL byte
/// and the id (32 bytes).
pub(crate) fn key_hash(namespace: &str, id: &str) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(namespace.as_bytes());
    hasher.update([0u8]);
    hasher.update(id.as_bytes());
    hasher.finalize().to_vec()
}

/// Every stored record.
///
/// # Errors
/// Server errors; a storage error for a corrupt vector.
pub(crate) async fn load_all(conn: &mut Conn) -> Result<Vec<VectorRecord>> {
    let rows: Vec<(String, String, Vec<u8>, String)> = conn
        .query("SELECT namespace, id, vector, content_hash FROM agcore_vectors")
        .await?;
    rows.into_iter()
        .map(|(namespace, id, blob, hash)| {
            let vector = vector_from_bytes(&blob).ok_or_else(|| {
                storage(format!(
                    "mysql vectors: the vector of {namespace}/{id} is corrupt"
                ))
            })?;
            Ok(VectorRecord::new(namespace, id, vector, hash))
        })
        .collect()
}

/// The `agcore_vectors` table of one database.
pub struct MysqlRows {
    pub(crate) conns: Connections,
}

impl MysqlRows {
    async fn upsert(&self, records: &[VectorRecord]) -> Result<()> {
        let mut conn = self.conns.get().await?;
        let mut tx = conn.start_transaction(TxOpts::default()).await?;
        tx.exec_batch(
            "INSERT INTO agcore_vectors (key_hash, namespace, id, vector, content_hash)
             VALUES (?, ?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE vector = VALUES(vector), content_hash = VALUES(content_hash)",
            records.iter().map(|r| {
                (
                    key_hash(&r.namespace, &r.id),
                    r.namespace.as_str(),
                    r.id.as_str(),
                    vector_to_bytes(&r.vector),
                    r.content_hash.as_str(),
                )
            }),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn delete(&self, namespace: &str, ids: &[String]) -> Result<usize> {
        let mut conn = self.conns.get().await?;
        let mut tx = conn.start_transaction(TxOpts::default()).await?;
        let mut removed = 0usize;
        for id in ids {
            tx.exec_drop(
                "DELETE FROM agcore_vectors WHERE key_hash = ?",
                (key_hash(namespace, id),),
            )
            .await?;
            removed += usize::try_from(tx.affected_rows()).unwrap_or(usize::MAX);
        }
        tx.commit().await?;
        Ok(removed)
    }
}

#[async_trait]
impl VectorRows for MysqlRows {
    async fn upsert_rows(&self, records: &[VectorRecord]) -> Result<(), MemoryError> {
        Ok(self.upsert(records).await?)
    }

    async fn delete_rows(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        Ok(self.delete(namespace, ids).await?)
    }
}
