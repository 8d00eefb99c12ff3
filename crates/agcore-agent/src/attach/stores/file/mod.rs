//! The `file` store (seed 003's `FileMemory`): files and folders cut into
//! chunks, indexed (BM25, plus vectors when an embedding is configured) and
//! persisted to `index_path`; `load()` re-indexes only new, changed and
//! deleted files. Read-only.
//!
//! With a backend opener that has an embedded database (the `agcore`
//! facade: SQLite), the chunks and their full-text index live in
//! `<index_path stem>.sqlite3` beside the index file, so a restart over
//! unchanged files reads only file metadata; without one, the chunks are
//! indexed in memory at the first `load()`.

mod load;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agcore_memory::{InMemoryStore, MemoryStore, SearchOptions};
use agcore_types::ChatMessage;
use async_trait::async_trait;
use tokio::sync::Mutex;

pub use super::file_config::{
    DEFAULT_MAX_FILE_BYTES, FileSource, FileStoreConfig, parse_file_config,
};
use crate::AgentError;
use crate::attach::dense::DenseSide;
use crate::attach::factory::{StoreContext, StoreSpec};
use crate::attach::file_index::FileIndex;
use crate::attach::file_sync::{IndexStats, Source};
use crate::attach::item::AttachedItem;
use crate::attach::path::child;
use crate::attach::persist::ensure_writable;
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
    /// The chunks as items, searched by BM25.
    texts: Arc<dyn MemoryStore>,
    /// Whether `texts` outlives the process (an on-disk index).
    persistent: bool,
    dense: Option<DenseSide>,
    state: Mutex<State>,
}

impl std::fmt::Debug for FileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStore")
            .field("name", &self.name)
            .field("index_path", &self.index_path)
            .field("persistent", &self.persistent)
            .field("dense", &self.dense)
            .finish_non_exhaustive()
    }
}

impl FileStore {
    /// Opens the store (the factory of type `file`); files are read by `load`.
    ///
    /// # Errors
    /// [`AgentError::Unwritable`] for an `index_path` that cannot be
    /// written; [`AgentError::StoreEmbedding`] when the model cannot be
    /// opened; [`AgentError::Store`] when the on-disk index cannot be opened.
    pub async fn open(
        spec: StoreSpec,
        config: FileStoreConfig,
        ctx: StoreContext,
    ) -> Result<Self, AgentError> {
        let index_path = ctx.resolve(std::path::Path::new(&config.index_path));
        ensure_writable(
            &index_path,
            &child(&child(&spec.location, "config"), "index_path"),
        )
        .await?;
        let dense = match &config.embedding {
            Some(settings) => Some(DenseSide::new(
                &spec.name,
                ctx.embedders.open(settings).await.map_err(|source| {
                    AgentError::StoreEmbedding {
                        store: spec.name.clone(),
                        source,
                    }
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
                max_file_bytes: config.max_file_bytes,
            })
            .collect();
        let model = dense.as_ref().map(|d| d.model_id().to_owned());
        let on_disk = match &ctx.backends {
            Some(opener) => opener
                .open_index(&index_db_path(&index_path))
                .await
                .map_err(|source| AgentError::Store {
                    store: spec.name.clone(),
                    source,
                })?,
            None => None,
        };
        let persistent = on_disk.is_some();
        let texts = on_disk.unwrap_or_else(|| Arc::new(InMemoryStore::new()));
        Ok(Self {
            name: spec.name,
            sources,
            index_path,
            texts,
            persistent,
            state: Mutex::new(State {
                index: FileIndex::new(config.chunking, model),
                loaded: false,
                last: IndexStats::default(),
            }),
            config,
            dense,
        })
    }

    /// Whether the chunks' full-text index is on disk (see the module docs).
    pub fn is_persistent(&self) -> bool {
        self.persistent
    }

    /// What the last [`AttachedStore::load`] did.
    pub async fn last_stats(&self) -> IndexStats {
        self.state.lock().await.last
    }

    fn memory(&self, source: agcore_memory::MemoryError) -> AgentError {
        AgentError::Store {
            store: self.name.clone(),
            source,
        }
    }
}

/// The database beside `index_path`: the same name with extension
/// `sqlite3` (`index.json` → `index.sqlite3`).
pub fn index_db_path(index_path: &Path) -> PathBuf {
    let db = index_path.with_extension("sqlite3");
    if db == index_path {
        index_path.with_extension("sqlite3.db")
    } else {
        db
    }
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

    async fn load(&self) -> Result<(), AgentError> {
        self.load_with_progress(Arc::new(|_| {})).await
    }

    async fn retrieve(&self, query: &str, top_k: usize) -> Result<Vec<Recalled>, AgentError> {
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
    ) -> Result<UpdateOutcome, AgentError> {
        Err(AgentError::ReadOnly {
            store: self.name.clone(),
            reason: "a `file` store indexes its sources; edit the files instead".into(),
        })
    }

    async fn save(&self) -> Result<(), AgentError> {
        Ok(())
    }
}
