//! [`KvVectors`]: a [`VectorStore`](agcore_memory::vector::VectorStore)
//! whose records live in a [`KvBackend`], searched through agcore-memory's
//! [`CachedVectors`] (an in-memory index loaded on open, written through).

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::vector::{
    CachedVectors, EmbeddingSpace, VectorRecord, VectorRows, VectorTables, check_space,
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

/// The vector storage of a [`KvBackend`]: [`VectorTables`] gives it
/// [`vectors`](VectorTables::vectors), [`reset_vectors`](VectorTables::reset_vectors)
/// and the [`VectorBackend`](agcore_memory::storage::VectorBackend) that
/// [`Storage::vectors`](agcore_memory::Storage::vectors) opens. Each open
/// loads its own in-memory index, so open the vectors of a space once and
/// share them.
#[derive(Debug)]
pub struct KvVectorBackend<B> {
    backend: Arc<B>,
}

impl<B> KvVectorBackend<B> {
    /// The vector storage of `backend`.
    pub fn new(backend: Arc<B>) -> Self {
        Self { backend }
    }
}

/// A backend without vectors is bound to `space` on first open; a reset
/// deletes every vector and the space in one batch first.
#[async_trait]
impl<B: KvBackend> VectorTables for KvVectorBackend<B> {
    type Rows = KvRows<B>;

    async fn open_rows(
        &self,
        space: &EmbeddingSpace,
        reset: bool,
    ) -> Result<(KvRows<B>, Vec<VectorRecord>), MemoryError> {
        let backend = &self.backend;
        let stored = if reset {
            None
        } else {
            backend.get(Table::Meta, SPACE).await?
        };
        let mut batch = WriteBatch::new();
        if reset {
            for (key, _) in backend.scan(Table::Vectors, b"").await? {
                batch.delete(Table::Vectors, key);
            }
        }
        match stored {
            Some(bytes) => check_space(&decode(Table::Meta, &bytes)?, space)?,
            None => batch.put(Table::Meta, SPACE.to_vec(), encode(Table::Meta, space)?),
        }
        if !batch.is_empty() {
            backend.write(batch).await?;
        }
        let mut records = Vec::new();
        for (key, value) in backend.scan(Table::Vectors, b"").await? {
            records.push(decode_record(&key, &value)?);
        }
        let rows = KvRows {
            backend: Arc::clone(backend),
        };
        Ok((rows, records))
    }
}

/// Opens the vectors of `backend` in `space` with the default index
/// configuration: [`VectorTables::vectors`] of a [`KvVectorBackend`].
///
/// # Errors
/// [`MemoryError::EmbeddingMismatch`] when the backend holds another space;
/// [`MemoryError::Storage`] when it fails or holds a corrupt record.
pub async fn open_vectors<B: KvBackend>(
    backend: Arc<B>,
    space: EmbeddingSpace,
) -> Result<KvVectors<B>, MemoryError> {
    KvVectorBackend::new(backend).vectors(space).await
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
