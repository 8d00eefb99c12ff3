//! The `blackboard` store (seed 003's `BlackboardMemory`): an append-only
//! log of turns, read newest first, trimmed by count and age. No vectors.

use std::sync::Arc;
use std::time::Duration;

use agcore_memory::{MemoryFilter, MemoryStore};
use agcore_types::ChatMessage;
use async_trait::async_trait;
use chrono::Utc;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::AgentError;
use crate::attach::factory::{StoreContext, StoreSpec};
use crate::attach::item::{AttachedItem, summary_hash};
use crate::attach::persist::open_items;
use crate::attach::similarity::truncate_chars;
use crate::attach::store::{AttachedStore, Recalled, UpdateOutcome};
use crate::attach::stores::simple::turn_summary;

/// Id prefix of blackboard entries: `bb:<UTC nanoseconds, 20 digits>:<hash>`,
/// so ids sort by time.
const PREFIX: &str = "bb:";

/// `config` of a `blackboard` store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlackboardConfig {
    /// A JSON file path, `auto`, a backend URL, or absent (in memory only).
    #[serde(default)]
    pub memory_path: Option<String>,
    /// Most entries kept; the oldest go first. Default 500.
    #[serde(default = "default_max_items")]
    pub max_items: usize,
    /// Entries older than this many seconds are dropped; absent keeps them.
    #[serde(default)]
    pub max_age_secs: Option<u64>,
    /// Most characters of an entry's summary. Default 2000.
    #[serde(default = "default_max_content_length")]
    pub max_content_length: usize,
}

fn default_max_items() -> usize {
    500
}

fn default_max_content_length() -> usize {
    2000
}

/// A `blackboard` store. `Send + Sync`.
pub struct BlackboardStore {
    name: String,
    config: BlackboardConfig,
    items: Arc<dyn MemoryStore>,
}

impl std::fmt::Debug for BlackboardStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlackboardStore")
            .field("name", &self.name)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl BlackboardStore {
    /// Opens the store `config` describes (the factory of type `blackboard`).
    ///
    /// # Errors
    /// As `persist::open_items` (file, `auto`, URL, memory); [`AgentError::InvalidConfig`] for `max_items: 0`.
    pub async fn open(
        spec: StoreSpec,
        config: BlackboardConfig,
        ctx: StoreContext,
    ) -> Result<Self, AgentError> {
        if config.max_items == 0 {
            return Err(AgentError::invalid_config(
                crate::attach::path::child(
                    &crate::attach::path::child(&spec.location, "config"),
                    "max_items",
                ),
                "must be at least 1",
            ));
        }
        let items = open_items(config.memory_path.as_deref(), &spec, &ctx).await?;
        Ok(Self {
            name: spec.name,
            config,
            items,
        })
    }

    fn memory(&self, source: agcore_memory::MemoryError) -> AgentError {
        AgentError::Store {
            store: self.name.clone(),
            source,
        }
    }

    fn live_filter(&self) -> MemoryFilter {
        let mut filter = MemoryFilter::with_prefix(PREFIX);
        if let Some(secs) = self.config.max_age_secs
            && let Ok(age) = chrono::Duration::from_std(Duration::from_secs(secs))
        {
            filter = filter.since(Utc::now() - age);
        }
        filter
    }

    /// Deletes entries beyond `max_items` (oldest first) and older than
    /// `max_age_secs`. Returns how many went.
    ///
    /// # Errors
    /// Backend errors.
    pub async fn trim(&self) -> Result<usize, AgentError> {
        let all = self
            .items
            .list(&MemoryFilter::with_prefix(PREFIX))
            .await
            .map_err(|e| self.memory(e))?;
        let live = self.live_filter();
        let mut kept = 0usize;
        let mut doomed = Vec::new();
        // Newest first: the first `max_items` live entries stay.
        for item in all.iter().rev() {
            if live.matches(item) && kept < self.config.max_items {
                kept += 1;
            } else {
                doomed.push(item.id.clone());
            }
        }
        for id in &doomed {
            self.items.delete(id).await.map_err(|e| self.memory(e))?;
        }
        Ok(doomed.len())
    }
}

#[async_trait]
impl AttachedStore for BlackboardStore {
    fn name(&self) -> &str {
        &self.name
    }

    fn store_type(&self) -> &str {
        "blackboard"
    }

    async fn load(&self) -> Result<(), AgentError> {
        self.trim().await.map(|_| ())
    }

    /// The newest `top_k` live entries, newest first; `query` is not used.
    async fn retrieve(&self, _query: &str, top_k: usize) -> Result<Vec<Recalled>, AgentError> {
        let items = self
            .items
            .list(&self.live_filter())
            .await
            .map_err(|e| self.memory(e))?;
        Ok(items
            .into_iter()
            .rev()
            .take(top_k)
            .map(|item| Recalled {
                item: AttachedItem::from_memory_item(item),
                score: None,
            })
            .collect())
    }

    async fn update(
        &self,
        input: &[ChatMessage],
        output: &[ChatMessage],
    ) -> Result<UpdateOutcome, AgentError> {
        let summary = turn_summary(input, output);
        let summary = truncate_chars(&summary, self.config.max_content_length).to_owned();
        if summary.is_empty() {
            return Ok(UpdateOutcome::Skipped);
        }
        let now = Utc::now();
        let nanos = now.timestamp_nanos_opt().unwrap_or_default();
        let id = format!(
            "{PREFIX}{nanos:020}:{}",
            summary_hash(&summary).get(..8).unwrap_or("")
        );
        let mut item = AttachedItem::from_turn(id.clone(), summary, input, output);
        item.created_at = now;
        self.items
            .save(item.to_memory_item())
            .await
            .map_err(|e| self.memory(e))?;
        self.trim().await?;
        Ok(UpdateOutcome::Written { id })
    }

    async fn save(&self) -> Result<(), AgentError> {
        Ok(())
    }
}
