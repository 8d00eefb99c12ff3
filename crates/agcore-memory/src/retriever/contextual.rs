//! [`ContextualBm25`]: a BM25F index of memories with a context field built
//! from neighbouring memories, and optional RM3 feedback — the memory side
//! of [`agcore_search::ContextualIndex`], which holds the index and the
//! formulas.

use agcore_search::{ContextualIndex, ContextualParams, IndexDocument};

use super::{Bm25, ContextualBm25Config};
use crate::{MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem};

/// An in-memory retrieval index over [`MemoryItem`]s, built once and
/// searched many times (query latency in microseconds at thousands of
/// memories).
///
/// Each memory is a document with two fields:
/// - its own text (`content`, analysed by [`Analyzer`](super::Analyzer):
///   keywords, CJK bigrams, Snowball stemming), weight 1;
/// - a context field: the text of the `context_window` memories before and
///   after it in the same group (metadata [`ContextualBm25Config::group_key`],
///   ordered by `created_at` then id), weight `context_weight`. This is
///   document expansion with the surrounding conversation, so a reply such
///   as "Yes, last Saturday!" is found by the question its neighbour asked
///   (contextual expansion: Ogilvie & Callan 2003, "Combining document
///   representations for known-item search", SIGIR).
///
/// Fields are combined with BM25F (Robertson, Zaragoza & Taylor 2004,
/// "Simple BM25 extension to multiple weighted fields", CIKM; Zaragoza et al.
/// 2004, "Microsoft Cambridge at TREC-13"): per field a length-normalised
/// term frequency `tf_f / (1 − b + b·len_f/avglen_f)`, weighted and summed,
/// then saturated once, `idf · tf~·(k1 + 1)/(k1 + tf~)`, with the
/// non-negative idf of [`Bm25::idf`]. With [`ContextualBm25Config::rm3`] set,
/// the query is expanded by RM3 pseudo-relevance feedback and run again.
///
/// Scores are finite, ≥ 0, and do not depend on the order the memories were
/// given in. The index is `Send + Sync`; share it behind an `Arc` and rebuild
/// it when the memories change.
///
/// # Examples
/// ```
/// use agcore_memory::MemoryItem;
/// use agcore_memory::retriever::{ContextualBm25, ContextualBm25Config};
/// use serde_json::json;
///
/// let turn = |id: &str, text: &str| MemoryItem::new(id, text).with_metadata(json!({"session": 1}));
/// let items = vec![
///     turn("t1", "Did you finish the marathon in Boston?"),
///     turn("t2", "Yes, last Saturday! My legs still hurt."),
///     turn("t3", "I adopted a puppy named Oscar."),
/// ];
/// let index = ContextualBm25::new(items, ContextualBm25Config::default());
/// let hits = index.search("When did she run the marathon?", 3);
/// assert_eq!(hits[0].item.id, "t1");
/// assert!(hits.iter().any(|h| h.item.id == "t2")); // found through its context
/// assert_eq!(index.search("adopting puppies", 1)[0].item.id, "t3"); // stemming
/// ```
#[derive(Debug, Clone)]
pub struct ContextualBm25 {
    config: ContextualBm25Config,
    items: Vec<MemoryItem>,
    index: ContextualIndex,
}

impl ContextualBm25 {
    /// Builds the index over `items` (CPU-bound: for large sets call it from
    /// `spawn_blocking`, or use [`ContextualBm25::from_store`]).
    pub fn new(items: Vec<MemoryItem>, config: ContextualBm25Config) -> Self {
        let mut keyed: Vec<(Option<String>, MemoryItem)> = items
            .into_iter()
            .map(|item| {
                let group = config
                    .group_key
                    .as_deref()
                    .and_then(|key| item.metadata.get(key))
                    .map(ToString::to_string);
                (group, item)
            })
            .collect();
        keyed.sort_by(|(ga, a), (gb, b)| {
            ga.cmp(gb)
                .then_with(|| a.created_at.cmp(&b.created_at))
                .then_with(|| a.id.cmp(&b.id))
        });
        let documents: Vec<IndexDocument<'_>> = keyed
            .iter()
            .map(|(group, item)| IndexDocument {
                id: &item.id,
                text: &item.content,
                group: group.as_deref(),
            })
            .collect();
        let params = ContextualParams {
            bm25: Bm25::new(config.k1, config.b),
            context_window: config.context_window,
            context_weight: config.context_weight,
            rm3: config.rm3,
            analyzer: config.analyzer.clone(),
        };
        let index = ContextualIndex::new(&documents, params);
        let items = keyed.into_iter().map(|(_, item)| item).collect();
        Self {
            config,
            items,
            index,
        }
    }

    /// Lists the memories of `store` matching `filter` and builds the index
    /// on a blocking thread.
    ///
    /// # Errors
    /// The store's [`MemoryStore::list`] errors; [`MemoryError::Storage`] when
    /// the build task fails.
    pub async fn from_store(
        store: &dyn MemoryStore,
        filter: &MemoryFilter,
        config: ContextualBm25Config,
    ) -> Result<Self, MemoryError> {
        let items = store.list(filter).await?;
        tokio::task::spawn_blocking(move || Self::new(items, config))
            .await
            .map_err(|e| MemoryError::Storage(format!("index build task failed: {e}")))
    }

    /// The configuration.
    pub fn config(&self) -> &ContextualBm25Config {
        &self.config
    }

    /// Number of indexed memories.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the index holds no memory.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The indexed memories, in index order (group, `created_at`, id).
    pub fn items(&self) -> &[MemoryItem] {
        &self.items
    }

    /// The best `k` memories for `query`, best first (score descending, ties
    /// by id). Only memories whose own text or context field shares a term
    /// with the (expanded) query are returned; a query without terms or
    /// `k == 0` gives no hits.
    pub fn search(&self, query: &str, k: usize) -> Vec<ScoredItem> {
        self.search_indices(query, k)
            .into_iter()
            .filter_map(|(doc, score)| {
                self.items.get(doc).map(|item| ScoredItem {
                    item: item.clone(),
                    score,
                })
            })
            .collect()
    }

    /// As [`ContextualBm25::search`], as (index into [`ContextualBm25::items`], score).
    pub fn search_indices(&self, query: &str, k: usize) -> Vec<(usize, f64)> {
        self.index.search(query, k)
    }
}
