//! The background embedding queue of a [`HybridStore`](super::HybridStore).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use agcore_llm::embedding::{EmbeddingModel, InputKind};
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};

use crate::MemoryError;
use crate::vector::{VectorRecord, VectorStore};

/// The hash recorded with a vector: SHA-256 of the embedding model id, a
/// NUL byte and the text, hex. A vector whose hash matches is up to date.
pub fn content_hash(model_id: &str, text: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(model_id.as_bytes());
    hasher.update([0u8]);
    hasher.update(text.as_bytes());
    // One formatting call for the whole digest: per-byte `format!` made this
    // hash most of a hybrid search's time (it runs for every dense candidate).
    format!("{:x}", hasher.finalize())
}

/// Model calls' worth of texts the queue takes at once and sorts by length.
const SORTED_BATCHES: usize = 8;

pub(super) enum Job {
    Embed { key: Key, text: String },
    Delete { key: Key },
    Flush(oneshot::Sender<()>),
}

/// `(namespace, id)` of a vector.
pub(super) type Key = (String, String);

/// Counters of the queue, readable at any time.
#[derive(Debug, Default)]
pub(super) struct QueueStats {
    /// Texts accepted and not yet embedded, skipped or given up.
    pub pending: AtomicUsize,
    /// Texts embedded and written.
    pub embedded: AtomicU64,
    /// Texts skipped because their vector was up to date.
    pub skipped: AtomicU64,
    /// Failed embedding calls (each retried later).
    pub failures: AtomicU64,
}

pub(super) struct Worker {
    pub embedder: Arc<dyn EmbeddingModel>,
    pub vectors: Arc<dyn VectorStore>,
    pub batch_size: usize,
    pub retry_delay: Duration,
    pub stats: Arc<QueueStats>,
}

impl Worker {
    /// Runs until every sender is dropped and the last batch is written.
    pub async fn run(self, mut rx: mpsc::Receiver<Job>) {
        let batch_size = self.batch_size.min(self.embedder.max_batch()).max(1);
        // Texts taken at once: sorted by length, then embedded `batch_size`
        // at a time, so a backlog is embedded with little padding.
        let block = batch_size.saturating_mul(SORTED_BATCHES);
        // Latest text per id, in arrival order of first appearance.
        let mut waiting: Vec<(Key, String)> = Vec::new();
        let mut index: HashMap<Key, usize> = HashMap::new();
        let mut flushes: Vec<oneshot::Sender<()>> = Vec::new();
        let mut delay = self.retry_delay;
        let mut open = true;
        while open || !waiting.is_empty() {
            if waiting.is_empty() {
                match rx.recv().await {
                    Some(job) => self.accept(job, &mut waiting, &mut index, &mut flushes),
                    None => open = false,
                }
            }
            while waiting.len() < block {
                match rx.try_recv() {
                    Ok(job) => self.accept(job, &mut waiting, &mut index, &mut flushes),
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            if waiting.is_empty() {
                answer(&mut flushes);
                continue;
            }
            let take = waiting.len().min(block);
            let batch: Vec<(Key, String)> = waiting.drain(..take).collect();
            reindex(&waiting, &mut index);
            match self.write_batch(&batch, batch_size).await {
                Ok((embedded, skipped)) => {
                    self.stats.embedded.fetch_add(embedded, Ordering::Relaxed);
                    self.stats.skipped.fetch_add(skipped, Ordering::Relaxed);
                    self.stats.pending.fetch_sub(take, Ordering::Relaxed);
                    delay = self.retry_delay;
                }
                Err(err) if err.is_recoverable() && open => {
                    self.stats.failures.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(error = %err, texts = batch.len(), retry_in_ms = delay.as_millis() as u64,
                        "embedding failed; the texts stay searchable by words and are retried");
                    let dropped = requeue(batch, &mut waiting, &mut index);
                    self.stats.pending.fetch_sub(dropped, Ordering::Relaxed);
                    answer(&mut flushes);
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(self.retry_delay * 32);
                    continue;
                }
                Err(err) => {
                    // Not recoverable, or every handle is gone (nobody left to
                    // wait for a retry): give the batch up.
                    self.stats.failures.fetch_add(1, Ordering::Relaxed);
                    self.stats.pending.fetch_sub(take, Ordering::Relaxed);
                    tracing::error!(error = %err, texts = take,
                        "embedding failed and will not be retried; the texts stay searchable by words");
                }
            }
            if waiting.is_empty() {
                answer(&mut flushes);
            }
        }
        answer(&mut flushes);
    }

    fn accept(
        &self,
        job: Job,
        waiting: &mut Vec<(Key, String)>,
        index: &mut HashMap<Key, usize>,
        flushes: &mut Vec<oneshot::Sender<()>>,
    ) {
        match job {
            Job::Embed { key, text } => match index.get(&key) {
                Some(&i) => {
                    if let Some(slot) = waiting.get_mut(i) {
                        slot.1 = text;
                    }
                    self.stats.pending.fetch_sub(1, Ordering::Relaxed);
                }
                None => {
                    index.insert(key.clone(), waiting.len());
                    waiting.push((key, text));
                }
            },
            Job::Delete { key } => {
                if let Some(i) = index.remove(&key) {
                    waiting.remove(i);
                    self.stats.pending.fetch_sub(1, Ordering::Relaxed);
                    index.clear();
                    for (j, (other, _)) in waiting.iter().enumerate() {
                        index.insert(other.clone(), j);
                    }
                }
            }
            Job::Flush(tx) => flushes.push(tx),
        }
    }

    /// Embeds and writes the texts whose vector is missing or stale, sorted
    /// by length, `batch_size` per model call; returns (embedded, skipped as
    /// up to date). After an error, the calls before it are written.
    async fn write_batch(
        &self,
        batch: &[(Key, String)],
        batch_size: usize,
    ) -> Result<(u64, u64), MemoryError> {
        let model = self.embedder.model_id().to_owned();
        // Stored hashes, asked per namespace.
        let mut by_namespace: HashMap<&str, Vec<String>> = HashMap::new();
        for ((namespace, id), _) in batch {
            by_namespace.entry(namespace).or_default().push(id.clone());
        }
        let mut stored: HashMap<Key, String> = HashMap::new();
        for (namespace, ids) in by_namespace {
            let hashes = self.vectors.content_hashes(namespace, &ids).await?;
            for (id, hash) in ids.into_iter().zip(hashes) {
                if let Some(hash) = hash {
                    stored.insert((namespace.to_owned(), id), hash);
                }
            }
        }
        let mut todo: Vec<(Key, String, String)> = Vec::new();
        for (key, text) in batch {
            let hash = content_hash(&model, text);
            if stored.get(key) != Some(&hash) {
                todo.push((key.clone(), text.clone(), hash));
            }
        }
        let skipped = (batch.len() - todo.len()) as u64;
        if todo.is_empty() {
            return Ok((0, skipped));
        }
        todo.sort_by_key(|(_, text, _)| text.len());
        let mut n = 0u64;
        for chunk in todo.chunks(batch_size.max(1)) {
            n += self.write_chunk(chunk).await?;
        }
        Ok((n, skipped))
    }
}

/// A failed embedding call as a [`MemoryError`]: recoverable failures
/// (server down, timeout) are [`MemoryError::Embedding`], refusals
/// [`MemoryError::InvalidInput`].
pub(super) fn model_error(e: agcore_llm::LlmError) -> MemoryError {
    if e.is_recoverable() {
        MemoryError::Embedding(e.to_string())
    } else {
        MemoryError::InvalidInput(format!("embedding model refused the texts: {e}"))
    }
}

impl Worker {
    /// Embeds one model call's texts and writes their vectors; returns how many.
    async fn write_chunk(&self, todo: &[(Key, String, String)]) -> Result<u64, MemoryError> {
        let texts: Vec<String> = todo.iter().map(|(_, text, _)| text.clone()).collect();
        let embedded = self
            .embedder
            .embed(&texts, InputKind::Document)
            .await
            .map_err(model_error)?;
        if embedded.vectors.len() != todo.len() {
            return Err(MemoryError::InvalidInput(format!(
                "the embedding model returned {} vectors for {} texts",
                embedded.vectors.len(),
                todo.len()
            )));
        }
        let records: Vec<VectorRecord> = todo
            .iter()
            .zip(embedded.vectors)
            .map(|(((namespace, id), _, hash), vector)| {
                VectorRecord::new(namespace.clone(), id.clone(), vector, hash.clone())
            })
            .collect();
        let n = records.len() as u64;
        self.vectors.upsert(records).await?;
        Ok(n)
    }
}

fn answer(flushes: &mut Vec<oneshot::Sender<()>>) {
    for tx in flushes.drain(..) {
        let _ = tx.send(());
    }
}

/// Rebuilds the id → position map of `waiting`.
fn reindex(waiting: &[(Key, String)], index: &mut HashMap<Key, usize>) {
    index.clear();
    for (i, (id, _)) in waiting.iter().enumerate() {
        index.insert(id.clone(), i);
    }
}

/// Puts a failed `batch` back in front of `waiting`, except the ids a newer
/// text arrived for meanwhile; returns how many were dropped so.
fn requeue(
    batch: Vec<(Key, String)>,
    waiting: &mut Vec<(Key, String)>,
    index: &mut HashMap<Key, usize>,
) -> usize {
    let taken = batch.len();
    let mut back: Vec<(Key, String)> = batch
        .into_iter()
        .filter(|(id, _)| !index.contains_key(id))
        .collect();
    let dropped = taken - back.len();
    back.append(waiting);
    *waiting = back;
    reindex(waiting, index);
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_sha256_of_model_nul_text_in_lowercase_hex() {
        // Stored vectors carry this hash: its text must never change.
        assert_eq!(
            content_hash("model", "hello"),
            "9dd648936a502ec7b57502a7437928c35c5a638d6687eb67cfa15a0ba16792bb"
        );
    }
}
