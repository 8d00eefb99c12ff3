//! Reading and writing the `P:vectors` / `P:vector_hashes` hashes (vectors
//! as little-endian `f32` bytes), each write one `MULTI` transaction.

use std::collections::HashMap;

use agcore_memory::MemoryError;
use agcore_memory::vector::{VectorRecord, VectorRows, vector_from_bytes, vector_to_bytes};
use async_trait::async_trait;
use redis::aio::ConnectionManager;

use crate::error::{Result, storage};

/// The hash field of `(namespace, id)`: `{namespace}\0{id}`.
pub(crate) fn field(namespace: &str, id: &str) -> Vec<u8> {
    [namespace.as_bytes(), b"\0", id.as_bytes()].concat()
}

/// The `(namespace, id)` of a field written by [`field`].
fn split_field(field: &[u8]) -> Option<(String, String)> {
    let at = field.iter().position(|b| *b == 0)?;
    let (namespace, rest) = field.split_at(at);
    let id = rest.get(1..)?;
    Some((
        String::from_utf8(namespace.to_vec()).ok()?,
        String::from_utf8(id.to_vec()).ok()?,
    ))
}

/// The two hashes as read: field → vector bytes, field → content hash.
type Stored = (HashMap<Vec<u8>, Vec<u8>>, HashMap<Vec<u8>, String>);

/// Every stored record, read in one transaction.
///
/// # Errors
/// Server errors; a storage error for a corrupt field or vector.
pub(crate) async fn load_all(
    conn: &mut ConnectionManager,
    vectors: &str,
    hashes: &str,
) -> Result<Vec<VectorRecord>> {
    let (stored, mut content): Stored = redis::pipe()
        .atomic()
        .hgetall(vectors)
        .hgetall(hashes)
        .query_async(conn)
        .await?;
    stored
        .into_iter()
        .map(|(key, bytes)| {
            let corrupt = || {
                storage(format!(
                    "redis vectors: the entry {key:?} of `{vectors}` is corrupt"
                ))
            };
            let (namespace, id) = split_field(&key).ok_or_else(corrupt)?;
            let vector = vector_from_bytes(&bytes).ok_or_else(corrupt)?;
            let hash = content.remove(&key).ok_or_else(corrupt)?;
            Ok(VectorRecord::new(namespace, id, vector, hash))
        })
        .collect()
}

/// The vector hashes under one prefix.
pub struct RedisRows {
    pub(crate) conn: ConnectionManager,
    pub(crate) vectors: String,
    pub(crate) hashes: String,
}

impl RedisRows {
    async fn upsert(&self, records: &[VectorRecord]) -> Result<()> {
        let vectors: Vec<(Vec<u8>, Vec<u8>)> = records
            .iter()
            .map(|r| (field(&r.namespace, &r.id), vector_to_bytes(&r.vector)))
            .collect();
        let hashes: Vec<(Vec<u8>, &str)> = records
            .iter()
            .map(|r| (field(&r.namespace, &r.id), r.content_hash.as_str()))
            .collect();
        let mut conn = self.conn.clone();
        let () = redis::pipe()
            .atomic()
            .hset_multiple(&self.vectors, &vectors)
            .ignore()
            .hset_multiple(&self.hashes, &hashes)
            .ignore()
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    async fn delete(&self, namespace: &str, ids: &[String]) -> Result<usize> {
        let fields: Vec<Vec<u8>> = ids.iter().map(|id| field(namespace, id)).collect();
        let mut conn = self.conn.clone();
        let (removed, _): (usize, usize) = redis::pipe()
            .atomic()
            .hdel(&self.vectors, &fields)
            .hdel(&self.hashes, &fields)
            .query_async(&mut conn)
            .await?;
        Ok(removed)
    }
}

#[async_trait]
impl VectorRows for RedisRows {
    async fn upsert_rows(&self, records: &[VectorRecord]) -> Result<(), MemoryError> {
        Ok(self.upsert(records).await?)
    }

    async fn delete_rows(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        Ok(self.delete(namespace, ids).await?)
    }
}
