//! The `file` store (seed 003's `FileMemory`): files and folders cut into
//! chunks, indexed (BM25, plus vectors when an embedding is configured) and
//! persisted to `index_path`; `load()` re-indexes only new, changed and
//! deleted files. Read-only.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
use agcore_types::ChatMessage;
use async_trait::async_trait;
use serde_json::json;
use tokio::sync::Mutex;

pub use super::file_config::{FileSource, FileStoreConfig, parse_file_config};
use crate::attach::dense::DenseSide;
use crate::attach::error::AttachError;
use crate::attach::file_index::FileIndex;
use crate::attach::file_sync::{IndexStats, Source, sync};
use crate::attach::item::AttachedItem;
use crate::attach::path::child;
use crate::attach::persist::ensure_writable;
use crate::attach::registry::{StoreContext, StoreSpec};
use crate::attach::similarity::{jaccard, rescore};
use crate::attach::store::{AttachedStore, Recalled, UpdateOutcome};

struct State {
    index: FileIndex,
    loaded: bool,
    last: IndexStats,
}

/// A `file` store. `Send + Sync`.
pub struct FileStore {
    name: String,
    sources: Vec<Source>,
    index_path: PathBuf,
    config: FileStoreConfig,
    texts: Arc<InMemoryStore>,
    dense: Option<DenseSide>,
    state: Mutex<State>,
}

impl std::fmt::Debug for FileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStore")
            .field("name", &self.name)
            .field("index_path", &self.index_path)
            .field("dense", &self.dense)
            .finish_non_exhaustive()
    }
}

impl FileStore {
    /// Opens the store (the factory of type `file`); files are read by `load`.
    ///
    /// # Errors
    /// [`AttachError::Unwritable`] for an `index_path` that cannot be
    /// written; [`AttachError::Embedding`] when the model cannot be opened.
    pub async fn open(
        spec: StoreSpec,
        config: FileStoreConfig,
        ctx: StoreContext,
    ) -> Result<Self, AttachError> {
        let index_path = ctx.resolve(std::path::Path::new(&config.index_path));
        ensure_writable(
            &index_path,
            &child(&child(&spec.location, "config"), "index_path"),
        )
        .await?;
        let dense = match &config.embedding {
            Some(settings) => Some(DenseSide::new(
                &spec.name,
                ctx.embedders
                    .open(settings)
                    .await
                    .map_err(|source| AttachError::Embedding {
                        store: spec.name.clone(),
                        source,
                    })?,
                settings.params.clone(),
            )),
            None => None,
        };
        let sources = config
            .file_sources
            .iter()
            .map(|s| Source {
                path: ctx.resolve(&s.path),
                file_types: s.file_types.clone(),
                recursive: s.recursive,
                encoding: encoding_rs::Encoding::for_label(s.encoding.as_bytes())
                    .unwrap_or(encoding_rs::UTF_8),
            })
            .collect();
        let model = dense.as_ref().map(|d| d.model_id().to_owned());
        Ok(Self {
            name: spec.name,
            sources,
            index_path,
            texts: Arc::new(InMemoryStore::new()),
            state: Mutex::new(State {
                index: FileIndex::new(config.chunking, model),
                loaded: false,
                last: IndexStats::default(),
            }),
            config,
            dense,
        })
    }

    /// What the last [`AttachedStore::load`] did.
    pub async fn last_stats(&self) -> IndexStats {
        self.state.lock().await.last
    }

    fn memory(&self, source: agcore_memory::MemoryError) -> AttachError {
        AttachError::Memory {
            store: self.name.clone(),
            source,
        }
    }

    /// Embeds the chunks of `index` that have no vector.
    async fn embed_missing(
        &self,
        dense: &DenseSide,
        index: &mut FileIndex,
    ) -> Result<(), AttachError> {
        let missing: Vec<&mut crate::attach::file_index::IndexedChunk> = index
            .files
            .values_mut()
            .flat_map(|f| f.chunks.iter_mut())
            .filter(|c| c.vector.as_ref().is_none_or(|v| !dense.fits(v)))
            .collect();
        let texts: Vec<String> = missing.iter().map(|c| c.text.clone()).collect();
        let vectors = dense.embed_documents(&texts).await?;
        for (chunk, vector) in missing.into_iter().zip(vectors) {
            chunk.vector = Some(vector);
        }
        Ok(())
    }
}

fn chunk_item(
    path: &std::path::Path,
    n: usize,
    chunk: &crate::attach::file_index::IndexedChunk,
) -> MemoryItem {
    MemoryItem::new(chunk.id.clone(), chunk.text.clone()).with_metadata(json!({
        "source": path.display().to_string(),
        "title": chunk.title,
        "chunk": n,
    }))
}

#[async_trait]
impl AttachedStore for FileStore {
    fn name(&self) -> &str {
        &self.name
    }

    fn store_type(&self) -> &str {
        "file"
    }

    fn writable(&self) -> bool {
        false
    }

    async fn load(&self) -> Result<(), AttachError> {
        let mut state = self.state.lock().await;
        let first = !state.loaded;
        let mut old =
            std::mem::replace(&mut state.index, FileIndex::new(self.config.chunking, None));
        let (sources, chunking, path) = (
            self.sources.clone(),
            self.config.chunking,
            self.index_path.clone(),
        );
        let model = self.dense.as_ref().map(|d| d.model_id().to_owned());
        let result = tokio::task::spawn_blocking(move || {
            if first && let Some(persisted) = FileIndex::read(&path, &chunking, model.as_deref())? {
                old = persisted;
            }
            sync(&sources, old, &chunking)
        })
        .await
        .map_err(|e| AttachError::Io {
            path: self.index_path.clone(),
            message: e.to_string(),
            recoverable: false,
        })?;
        let mut result = match result {
            Ok(result) => result,
            Err(err) => {
                state.index = FileIndex::new(
                    self.config.chunking,
                    self.dense.as_ref().map(|d| d.model_id().to_owned()),
                );
                return Err(err);
            }
        };
        if let Some(dense) = &self.dense {
            self.embed_missing(dense, &mut result.index).await?;
        }
        let fresh: HashSet<&str> = if first {
            HashSet::new()
        } else {
            result.added.iter().map(String::as_str).collect()
        };
        let mut items = Vec::new();
        let mut rows = Vec::new();
        for (path, file) in &result.index.files {
            for (n, chunk) in file.chunks.iter().enumerate() {
                if first || fresh.contains(chunk.id.as_str()) {
                    items.push(chunk_item(path, n, chunk));
                    if let (Some(dense), Some(vector)) = (&self.dense, &chunk.vector) {
                        rows.push((chunk.id.clone(), vector.clone(), dense.hash(&chunk.text)));
                    }
                }
            }
        }
        for id in &result.removed {
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
        let changed = first || result.stats.files_indexed + result.stats.files_removed > 0;
        if changed {
            let (index, path) = (result.index.clone(), self.index_path.clone());
            tokio::task::spawn_blocking(move || index.write(&path))
                .await
                .map_err(|e| AttachError::Io {
                    path: self.index_path.clone(),
                    message: e.to_string(),
                    recoverable: false,
                })??;
        }
        state.index = result.index;
        state.last = result.stats;
        state.loaded = true;
        Ok(())
    }

    async fn retrieve(&self, query: &str, top_k: usize) -> Result<Vec<Recalled>, AttachError> {
        if !self.state.lock().await.loaded {
            self.load().await?;
        }
        let query = query.trim();
        if query.is_empty() || top_k == 0 {
            return Ok(Vec::new());
        }
        let candidates = (top_k * 4).max(20);
        let mut out = Vec::new();
        if let Some(dense) = &self.dense {
            for (id, cosine) in dense.nearest(query, candidates).await? {
                if let Some(item) = self.texts.get(&id).await.map_err(|e| self.memory(e))? {
                    let score = rescore(cosine, query, &item.content, self.config.lexical_weight);
                    out.push(Recalled {
                        item: AttachedItem::from_memory_item(item),
                        score: Some(score),
                    });
                }
            }
            out.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
        } else {
            let hits = self
                .texts
                .search(query, &SearchOptions::top_k(candidates))
                .await
                .map_err(|e| self.memory(e))?;
            for hit in hits {
                let score = jaccard(query, &hit.item.content);
                out.push(Recalled {
                    item: AttachedItem::from_memory_item(hit.item),
                    score: Some(score),
                });
            }
        }
        out.truncate(top_k);
        Ok(out)
    }

    async fn update(
        &self,
        _: &[ChatMessage],
        _: &[ChatMessage],
    ) -> Result<UpdateOutcome, AttachError> {
        Err(AttachError::ReadOnly {
            store: self.name.clone(),
            reason: "a `file` store indexes its sources; edit the files instead".into(),
        })
    }

    async fn save(&self) -> Result<(), AttachError> {
        Ok(())
    }
}
