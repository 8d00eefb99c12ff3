//! `load()` of a `file` store: read the persisted index once, bring it up
//! to date with the files, write the changed chunks to the item store (and
//! vectors), and persist the index again when something changed.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use agcore_memory::{MemoryFilter, MemoryItem};
use serde_json::json;

use super::FileStore;
use crate::AgentError;
use crate::attach::dense::DenseSide;
use crate::attach::file_index::{FileIndex, IndexedChunk};
use crate::attach::file_sync::{LoadProgress, ProgressFn, sync};

impl FileStore {
    /// [`crate::attach::AttachedStore::load`], reporting each file checked
    /// and the chunks being embedded to `progress` (called from a blocking
    /// thread; keep it quick, e.g. a progress bar's `set_position`).
    ///
    /// # Errors
    /// As `load`: [`AgentError::Io`] when a source or the index file cannot
    /// be read or written, [`AgentError::Store`] and
    /// [`AgentError::StoreEmbedding`] from the item store and the model.
    pub async fn load_with_progress(&self, progress: ProgressFn) -> Result<(), AgentError> {
        let mut state = self.state.lock().await;
        let first = !state.loaded;
        let model = self.dense.as_ref().map(|d| d.model_id().to_owned());
        let mut old = std::mem::replace(
            &mut state.index,
            FileIndex::new(self.config.chunking, model.clone()),
        );
        if first {
            old = self.read_persisted().await?;
        }
        // Every chunk goes to the item store unless the store already holds
        // exactly the chunks of `old` (a running store, or an on-disk index
        // that matches the index file).
        let rewrite_all = first && (old.files.is_empty() || !self.persistent);
        let (sources, chunking) = (self.sources.clone(), self.config.chunking);
        let reporter = Arc::clone(&progress);
        let result = tokio::task::spawn_blocking(move || sync(&sources, old, &chunking, &reporter))
            .await
            .map_err(|e| self.join_error(&e))?;
        let mut result = match result {
            Ok(result) => result,
            Err(err) => {
                state.index = FileIndex::new(self.config.chunking, model);
                return Err(err);
            }
        };
        if let Some(dense) = &self.dense {
            embed_missing(dense, &mut result.index, &progress).await?;
        }
        let fresh: HashSet<&str> = result.added.iter().map(String::as_str).collect();
        let mut items = Vec::new();
        let mut rows = Vec::new();
        for (path, file) in &result.index.files {
            for (n, chunk) in file.chunks.iter().enumerate() {
                if rewrite_all || fresh.contains(chunk.id.as_str()) {
                    items.push(chunk_item(path, n, chunk));
                }
                if let (true, Some(dense), Some(vector)) = (
                    first || fresh.contains(chunk.id.as_str()),
                    &self.dense,
                    &chunk.vector,
                ) {
                    rows.push((chunk.id.clone(), vector.clone(), dense.hash(&chunk.text)));
                }
            }
        }
        let mut removed = result.removed.clone();
        if rewrite_all && self.persistent {
            removed.extend(self.stale_items(&result.index).await?);
        }
        for id in &removed {
            self.texts.delete(id).await.map_err(|e| self.memory(e))?;
        }
        self.texts
            .save_many(items)
            .await
            .map_err(|e| self.memory(e))?;
        if let Some(dense) = &self.dense {
            dense.remove(&result.removed).await?;
            dense.insert(rows).await?;
        }
        if first || result.stats.files_indexed + result.stats.files_removed > 0 {
            self.write_index(&result.index).await?;
        }
        state.index = result.index;
        state.last = result.stats;
        state.loaded = true;
        Ok(())
    }

    /// The index file as it was written, or an empty index when there is
    /// none, it does not match the configuration, or (with an on-disk item
    /// store) the store does not hold its chunks: then everything is
    /// indexed again.
    async fn read_persisted(&self) -> Result<FileIndex, AgentError> {
        let model = self.dense.as_ref().map(|d| d.model_id().to_owned());
        let empty = FileIndex::new(self.config.chunking, model.clone());
        let (path, chunking) = (self.index_path.clone(), self.config.chunking);
        let read = tokio::task::spawn_blocking(move || {
            FileIndex::read(&path, &chunking, model.as_deref())
        })
        .await
        .map_err(|e| self.join_error(&e))??;
        let Some(index) = read else {
            return Ok(empty);
        };
        let complete = index.files.values().flat_map(|f| &f.chunks).all(|c| {
            let has_vector = match (&self.dense, &c.vector) {
                (None, _) => true,
                (Some(dense), Some(v)) => dense.fits(v),
                (Some(_), None) => false,
            };
            has_vector && (self.texts_elsewhere() || !c.text.is_empty())
        });
        if !complete {
            return Ok(empty);
        }
        if self.persistent {
            let held = self
                .texts
                .count(&MemoryFilter::default())
                .await
                .map_err(|e| self.memory(e))?;
            if held != index.chunk_count() {
                tracing::info!(
                    store = %self.name,
                    held,
                    indexed = index.chunk_count(),
                    "file store: the on-disk index does not match the index file; indexing again"
                );
                return Ok(empty);
            }
        }
        Ok(index)
    }

    /// Ids in the item store that `index` does not hold (left by an index
    /// file that was lost or out of date).
    async fn stale_items(&self, index: &FileIndex) -> Result<Vec<String>, AgentError> {
        let keep: HashSet<&str> = index
            .files
            .values()
            .flat_map(|f| &f.chunks)
            .map(|c| c.id.as_str())
            .collect();
        let held = self
            .texts
            .list(&MemoryFilter::default())
            .await
            .map_err(|e| self.memory(e))?;
        Ok(held
            .into_iter()
            .map(|item| item.id)
            .filter(|id| !keep.contains(id.as_str()))
            .collect())
    }

    /// Whether the index file leaves the chunks' texts out: the on-disk
    /// item store holds them and no vector needs them (a vector's record
    /// carries the hash of its text).
    fn texts_elsewhere(&self) -> bool {
        self.persistent && self.dense.is_none()
    }

    /// Writes `index` to the index file, without the chunks' texts when
    /// [`Self::texts_elsewhere`].
    async fn write_index(&self, index: &FileIndex) -> Result<(), AgentError> {
        let mut index = index.clone();
        if self.texts_elsewhere() {
            for chunk in index.files.values_mut().flat_map(|f| f.chunks.iter_mut()) {
                chunk.text.clear();
            }
        }
        let path = self.index_path.clone();
        tokio::task::spawn_blocking(move || index.write(&path))
            .await
            .map_err(|e| self.join_error(&e))?
    }

    fn join_error(&self, err: &tokio::task::JoinError) -> AgentError {
        AgentError::Io {
            path: self.index_path.clone(),
            message: err.to_string(),
            recoverable: false,
        }
    }
}

/// Embeds the chunks of `index` that have no vector (or one of another
/// model's size).
async fn embed_missing(
    dense: &DenseSide,
    index: &mut FileIndex,
    progress: &ProgressFn,
) -> Result<(), AgentError> {
    let missing: Vec<&mut IndexedChunk> = index
        .files
        .values_mut()
        .flat_map(|f| f.chunks.iter_mut())
        .filter(|c| c.vector.as_ref().is_none_or(|v| !dense.fits(v)))
        .collect();
    if !missing.is_empty() {
        progress(LoadProgress::Embedding {
            chunks: missing.len(),
        });
    }
    let texts: Vec<String> = missing.iter().map(|c| c.text.clone()).collect();
    let vectors = dense.embed_documents(&texts).await?;
    for (chunk, vector) in missing.into_iter().zip(vectors) {
        chunk.vector = Some(vector);
    }
    Ok(())
}

/// The item of chunk `n` of the file at `path`.
fn chunk_item(path: &Path, n: usize, chunk: &IndexedChunk) -> MemoryItem {
    MemoryItem::new(chunk.id.clone(), chunk.text.clone()).with_metadata(json!({
        "source": path.display().to_string(),
        "title": chunk.title,
        "chunk": n,
    }))
}
