//! The `simple` store (seed 003's `SimpleMemory`): turns written by the
//! agent, deduplicated by summary, retrieved densely (re-scored by keyword
//! overlap) when an embedding is configured, else by agcore's BM25 search.

use std::sync::Arc;

use agcore_memory::{MemoryFilter, MemoryStore, SearchOptions};
use agcore_types::ChatMessage;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::AgentError;
use crate::attach::dense::DenseSide;
use crate::attach::embedding::EmbeddingSettings;
use crate::attach::factory::{StoreContext, StoreSpec};
use crate::attach::item::{AttachedItem, messages_text, summary_hash};
use crate::attach::persist::open_items;
use crate::attach::similarity::{LexicalMeasure, rescore_with, truncate_chars};
use crate::attach::store::{AttachedStore, Recalled, UpdateOutcome};

/// Metadata key of a persisted vector: `{"model": id, "hash": h, "vector": [...]}`.
const VECTOR_KEY: &str = "embedding";

/// `config` of a `simple` store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimpleStoreConfig {
    /// A JSON file path, `auto` (`<session dir>/<store>.json`), a backend
    /// URL (`sqlite:///…`), or absent: in memory only.
    #[serde(default)]
    pub memory_path: Option<String>,
    /// The embedding model of dense retrieval; absent: BM25 only.
    #[serde(default)]
    pub embedding: Option<EmbeddingSettings>,
    /// Most characters of the query and of a stored summary. Default 2000.
    #[serde(default = "default_max_content_length")]
    pub max_content_length: usize,
    /// Weight of the keyword overlap (Jaccard) in a dense hit's score,
    /// `[0, 1]`. Default 0.3.
    #[serde(default = "default_lexical_weight")]
    pub lexical_weight: f64,
    /// The keyword overlap that re-scores hits: `jaccard` (default) or `lcs`.
    #[serde(default)]
    pub lexical_measure: LexicalMeasure,
}

fn default_max_content_length() -> usize {
    2000
}

fn default_lexical_weight() -> f64 {
    0.3
}

/// A `simple` store. `Send + Sync`.
pub struct SimpleStore {
    name: String,
    config: SimpleStoreConfig,
    items: Arc<dyn MemoryStore>,
    dense: Option<DenseSide>,
    loaded: OnceCell<()>,
}

impl std::fmt::Debug for SimpleStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimpleStore")
            .field("name", &self.name)
            .field("config", &self.config)
            .field("dense", &self.dense)
            .finish_non_exhaustive()
    }
}

impl SimpleStore {
    /// Opens the store `config` describes (the factory of type `simple`).
    ///
    /// # Errors
    /// As `persist::open_items` (file, `auto`, URL, memory); [`AgentError::StoreEmbedding`] when the model cannot be opened.
    pub async fn open(
        spec: StoreSpec,
        config: SimpleStoreConfig,
        ctx: StoreContext,
    ) -> Result<Self, AgentError> {
        let items = open_items(config.memory_path.as_deref(), &spec, &ctx).await?;
        let dense = match &config.embedding {
            Some(settings) => {
                let model = ctx.embedders.open(settings).await.map_err(|source| {
                    AgentError::StoreEmbedding {
                        store: spec.name.clone(),
                        source,
                    }
                })?;
                Some(DenseSide::new(&spec.name, model, settings.params.clone()))
            }
            None => None,
        };
        Ok(Self {
            name: spec.name,
            config,
            items,
            dense,
            loaded: OnceCell::new(),
        })
    }

    fn memory(&self, source: agcore_memory::MemoryError) -> AgentError {
        AgentError::Store {
            store: self.name.clone(),
            source,
        }
    }

    /// Loads persisted vectors into the dense side, embedding items that
    /// have none (or one of another model).
    async fn load_vectors(&self, dense: &DenseSide) -> Result<(), AgentError> {
        let items = self
            .items
            .list(&MemoryFilter::all())
            .await
            .map_err(|e| self.memory(e))?;
        let mut rows = Vec::new();
        let mut missing = Vec::new();
        for item in items {
            let stored = item.metadata.get(VECTOR_KEY);
            let hash = dense.hash(&item.content);
            let vector: Option<Vec<f32>> = stored
                .filter(|v| v.get("hash").and_then(Value::as_str) == Some(hash.as_str()))
                .and_then(|v| v.get("vector"))
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .filter(|v: &Vec<f32>| dense.fits(v));
            match vector {
                Some(vector) => rows.push((item.id, vector, hash)),
                None => missing.push(item),
            }
        }
        let texts: Vec<String> = missing.iter().map(|i| i.content.clone()).collect();
        let vectors = dense.embed_documents(&texts).await?;
        for (mut item, vector) in missing.into_iter().zip(vectors) {
            let hash = dense.hash(&item.content);
            set_vector(&mut item.metadata, dense.model_id(), &hash, &vector);
            rows.push((item.id.clone(), vector, hash));
            self.items.save(item).await.map_err(|e| self.memory(e))?;
        }
        dense.insert(rows).await
    }

    async fn ensure_loaded(&self) -> Result<(), AgentError> {
        self.loaded
            .get_or_try_init(|| async {
                if let Some(dense) = &self.dense {
                    self.load_vectors(dense).await?;
                }
                Ok::<(), AgentError>(())
            })
            .await
            .map(|_| ())
    }

    async fn fetch(&self, id: &str) -> Result<Option<AttachedItem>, AgentError> {
        let item = self.items.get(id).await.map_err(|e| self.memory(e))?;
        Ok(item.map(|mut item| {
            if let Some(meta) = item.metadata.as_object_mut() {
                meta.remove(VECTOR_KEY);
            }
            AttachedItem::from_memory_item(item)
        }))
    }
}

fn set_vector(metadata: &mut Value, model: &str, hash: &str, vector: &[f32]) {
    if !metadata.is_object() {
        *metadata = json!({});
    }
    if let Some(map) = metadata.as_object_mut() {
        map.insert(
            VECTOR_KEY.to_owned(),
            json!({"model": model, "hash": hash, "vector": vector}),
        );
    }
}

/// The summary of a turn: `User: …` and `Assistant: …` lines.
pub fn turn_summary(input: &[ChatMessage], output: &[ChatMessage]) -> String {
    let (asked, answered) = (messages_text(input), messages_text(output));
    match (asked.trim(), answered.trim()) {
        ("", "") => String::new(),
        (q, "") => format!("User: {q}"),
        ("", a) => format!("Assistant: {a}"),
        (q, a) => format!("User: {q}\nAssistant: {a}"),
    }
}

#[async_trait]
impl AttachedStore for SimpleStore {
    fn name(&self) -> &str {
        &self.name
    }

    fn store_type(&self) -> &str {
        "simple"
    }

    async fn load(&self) -> Result<(), AgentError> {
        self.ensure_loaded().await
    }

    async fn retrieve(&self, query: &str, top_k: usize) -> Result<Vec<Recalled>, AgentError> {
        self.ensure_loaded().await?;
        let query = truncate_chars(query.trim(), self.config.max_content_length);
        if query.is_empty() || top_k == 0 {
            return Ok(Vec::new());
        }
        let candidates = (top_k * 4).max(20);
        let mut out = Vec::new();
        if let Some(dense) = &self.dense {
            for (id, cosine) in dense.nearest(query, candidates).await? {
                if let Some(item) = self.fetch(&id).await? {
                    let score = rescore_with(
                        self.config.lexical_measure,
                        cosine,
                        query,
                        &item.content_summary,
                        self.config.lexical_weight,
                    );
                    out.push(Recalled {
                        item,
                        score: Some(score),
                    });
                }
            }
            out.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
        } else {
            let hits = self
                .items
                .search(query, &SearchOptions::top_k(candidates))
                .await
                .map_err(|e| self.memory(e))?;
            for hit in hits {
                let mut item = hit.item;
                if let Some(meta) = item.metadata.as_object_mut() {
                    meta.remove(VECTOR_KEY);
                }
                let item = AttachedItem::from_memory_item(item);
                let score = self
                    .config
                    .lexical_measure
                    .score(query, &item.content_summary);
                out.push(Recalled {
                    item,
                    score: Some(score),
                });
            }
        }
        out.truncate(top_k);
        Ok(out)
    }

    async fn update(
        &self,
        input: &[ChatMessage],
        output: &[ChatMessage],
    ) -> Result<UpdateOutcome, AgentError> {
        self.ensure_loaded().await?;
        let summary = turn_summary(input, output);
        let summary = truncate_chars(&summary, self.config.max_content_length).to_owned();
        if summary.is_empty() {
            return Ok(UpdateOutcome::Skipped);
        }
        let id = format!("mem:{}", summary_hash(&summary));
        if self
            .items
            .get(&id)
            .await
            .map_err(|e| self.memory(e))?
            .is_some()
        {
            return Ok(UpdateOutcome::Duplicate { id });
        }
        let mut item = AttachedItem::from_turn(id.clone(), summary, input, output).to_memory_item();
        if let Some(dense) = &self.dense {
            let vector = dense
                .embed_documents(std::slice::from_ref(&item.content))
                .await?
                .into_iter()
                .next()
                .unwrap_or_default();
            let hash = dense.hash(&item.content);
            set_vector(&mut item.metadata, dense.model_id(), &hash, &vector);
            dense.insert(vec![(id.clone(), vector, hash)]).await?;
        }
        self.items.save(item).await.map_err(|e| self.memory(e))?;
        Ok(UpdateOutcome::Written { id })
    }

    async fn save(&self) -> Result<(), AgentError> {
        // Every write reached the item store (JSON file, backend) already.
        Ok(())
    }
}
