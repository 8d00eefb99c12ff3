//! [`KvVectors`]: a [`VectorStore`](agcore_memory::vector::VectorStore)
//! whose records live in a [`KvBackend`], searched through agcore-memory's
//! [`CachedVectors`] (an in-memory index loaded on open, written through).

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::vector::{
    CachedVectors, EmbeddingSpace, InMemoryVectorsConfig, VectorRecord, VectorRows, check_space,
};
use async_trait::async_trait;

use crate::backend::{KvBackend, KvError, Table, WriteBatch};
use crate::codec::{decode, encode, vector_key};

/// The key of the embedding space in [`Table::Meta`].
const SPACE: &[u8] = b"vectors.space";

/// A vector store over any [`KvBackend`]: the records are rows of
/// [`Table::Vectors`] (key: namespace and id; value: the components as
/// little-endian `f32` and the content hash), the space a row of
/// [`Table::Meta`]; searches, counts and reads are served in memory, so
/// rankings equal [`InMemoryVectors`](agcore_memory::vector::InMemoryVectors)'.
pub type KvVectors<B> = CachedVectors<KvRows<B>>;

/// The [`VectorRows`] of [`KvVectors`]: writes records to the backend.
#[derive(Debug)]
pub struct KvRows<B> {
    backend: Arc<B>,
}

/// Opens the vectors of `backend` in `space` with the default index
/// configuration (see [`open_vectors_with`]).
///
/// # Errors
/// As [`open_vectors_with`].
pub async fn open_vectors<B: KvBackend>(
    backend: Arc<B>,
    space: EmbeddingSpace,
) -> Result<KvVectors<B>, MemoryError> {
    open_vectors_with(backend, space, InMemoryVectorsConfig::default()).await
}

/// Opens the vectors of `backend` in `space`, loading every record into
/// an index configured by `config`. A backend without vectors is bound to
/// `space` on first open.
///
/// # Errors
/// [`MemoryError::EmbeddingMismatch`] when the backend holds another space;
/// [`MemoryError::Storage`] when it fails or holds a corrupt record.
pub async fn open_vectors_with<B: KvBackend>(
    backend: Arc<B>,
    space: EmbeddingSpace,
    config: InMemoryVectorsConfig,
) -> Result<KvVectors<B>, MemoryError> {
    match backend.get(Table::Meta, SPACE).await? {
        Some(bytes) => check_space(&decode(Table::Meta, &bytes)?, &space)?,
        None => {
            let mut batch = WriteBatch::new();
            batch.put(Table::Meta, SPACE.to_vec(), encode(Table::Meta, &space)?);
            backend.write(batch).await?;
        }
    }
    let mut stored = Vec::new();
    for (key, value) in backend.scan(Table::Vectors, b"").await? {
        stored.push(decode_record(&key, &value)?);
    }
    CachedVectors::load(KvRows { backend }, space, config, stored).await
}

/// Deletes every vector of `backend` and its space, in one batch, then
/// opens the vectors of `space` (how a backend switches embedding models).
///
/// # Errors
/// [`MemoryError::Storage`] when the backend fails.
pub async fn reset_vectors<B: KvBackend>(
    backend: Arc<B>,
    space: EmbeddingSpace,
) -> Result<KvVectors<B>, MemoryError> {
    let mut batch = WriteBatch::new();
    for (key, _) in backend.scan(Table::Vectors, b"").await? {
        batch.delete(Table::Vectors, key);
    }
    batch.delete(Table::Meta, SPACE.to_vec());
    backend.write(batch).await?;
    open_vectors(backend, space).await
}

fn corrupt(reason: &str) -> KvError {
    KvError::Corrupt {
        table: Table::Vectors.name(),
        reason: reason.to_owned(),
    }
}

fn encode_value(record: &VectorRecord) -> Vec<u8> {
    let dims = u32::try_from(record.vector.len()).unwrap_or(u32::MAX);
    let mut value = Vec::with_capacity(4 + 4 * record.vector.len() + record.content_hash.len());
    value.extend_from_slice(&dims.to_le_bytes());
    for x in &record.vector {
        value.extend_from_slice(&x.to_le_bytes());
    }
    value.extend_from_slice(record.content_hash.as_bytes());
    value
}

fn split_u32(bytes: &[u8]) -> Result<(usize, &[u8]), KvError> {
    let (head, rest) = bytes
        .split_at_checked(4)
        .ok_or_else(|| corrupt("truncated"))?;
    let head: [u8; 4] = head.try_into().map_err(|_| corrupt("truncated"))?;
    Ok((u32::from_le_bytes(head) as usize, rest))
}

fn decode_record(key: &[u8], value: &[u8]) -> Result<VectorRecord, KvError> {
    let (len, rest) = key.split_at_checked(4).ok_or_else(|| corrupt("bad key"))?;
    let len: [u8; 4] = len.try_into().map_err(|_| corrupt("bad key"))?;
    let (namespace, id) = rest
        .split_at_checked(u32::from_be_bytes(len) as usize)
        .ok_or_else(|| corrupt("bad key"))?;
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).map_err(|_| corrupt("not UTF-8"));
    let (dims, rest) = split_u32(value)?;
    let (components, hash) = rest
        .split_at_checked(dims.saturating_mul(4))
        .ok_or_else(|| corrupt("truncated vector"))?;
    let vector = components
        .chunks_exact(4)
        .map(|c| c.try_into().map(f32::from_le_bytes))
        .collect::<Result<Vec<f32>, _>>()
        .map_err(|_| corrupt("truncated vector"))?;
    Ok(VectorRecord::new(
        text(namespace)?,
        text(id)?,
        vector,
        text(hash)?,
    ))
}

#[async_trait]
impl<B: KvBackend> VectorRows for KvRows<B> {
    async fn upsert_rows(&self, records: &[VectorRecord]) -> Result<(), MemoryError> {
        let mut batch = WriteBatch::new();
        for record in records {
            let key = vector_key(&record.namespace, &record.id);
            batch.put(Table::Vectors, key, encode_value(record));
        }
        Ok(self.backend.write(batch).await?)
    }

    async fn delete_rows(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        let mut batch = WriteBatch::new();
        let mut existed = 0;
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        for id in unique {
            let key = vector_key(namespace, id);
            if self.backend.get(Table::Vectors, &key).await?.is_some() {
                existed += 1;
                batch.delete(Table::Vectors, key);
            }
        }
        if !batch.is_empty() {
            self.backend.write(batch).await?;
        }
        Ok(existed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_exactly() {
        let record = VectorRecord::new("记忆", "id:1", vec![0.1, -2.5e-8, 1.0], "哈希");
        let key = vector_key(&record.namespace, &record.id);
        assert_eq!(decode_record(&key, &encode_value(&record)).unwrap(), record);
        assert!(decode_record(&key, &[1, 0, 0, 0, 9]).is_err());
    }
}
