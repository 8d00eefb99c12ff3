//! Reading and writing `agcore_vectors` rows (vectors as little-endian
//! `f32` BLOBs).

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::vector::{VectorRecord, VectorRows, vector_from_bytes, vector_to_bytes};
use async_trait::async_trait;
use rusqlite::{Connection, TransactionBehavior, params};

use crate::connection::Database;
use crate::error::Result;

/// Every stored record.
pub(crate) fn load_all(conn: &Connection) -> Result<Vec<VectorRecord>> {
    let mut stmt =
        conn.prepare("SELECT namespace, id, vector, content_hash FROM agcore_vectors")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Vec<u8>>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (namespace, id, blob, hash) = row?;
        let vector = vector_from_bytes(&blob).ok_or_else(|| {
            MemoryError::Storage(format!(
                "sqlite vectors: the BLOB of {namespace}/{id} is corrupt"
            ))
        })?;
        out.push(VectorRecord::new(namespace, id, vector, hash));
    }
    Ok(out)
}

/// The `agcore_vectors` table of one database, written on its writer thread.
pub struct SqliteRows {
    pub(crate) db: Arc<Database>,
}

#[async_trait]
impl VectorRows for SqliteRows {
    async fn upsert_rows(&self, records: &[VectorRecord]) -> Result<(), MemoryError> {
        let records = records.to_vec();
        self.db
            .exec(move |conn| {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                {
                    let mut stmt = tx.prepare_cached(
                        "INSERT INTO agcore_vectors (namespace, id, vector, content_hash)
                         VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (namespace, id) DO UPDATE
                         SET vector = excluded.vector, content_hash = excluded.content_hash",
                    )?;
                    for r in &records {
                        stmt.execute(params![
                            r.namespace,
                            r.id,
                            vector_to_bytes(&r.vector),
                            r.content_hash
                        ])?;
                    }
                }
                tx.commit()?;
                Ok(())
            })
            .await
    }

    async fn delete_rows(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        let namespace = namespace.to_owned();
        let ids = ids.to_vec();
        self.db
            .exec(move |conn| {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let mut removed = 0;
                {
                    let mut stmt = tx.prepare_cached(
                        "DELETE FROM agcore_vectors WHERE namespace = ?1 AND id = ?2",
                    )?;
                    for id in &ids {
                        removed += stmt.execute(params![namespace, id])?;
                    }
                }
                tx.commit()?;
                Ok(removed)
            })
            .await
    }
}
