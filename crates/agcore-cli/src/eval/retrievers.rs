//! The retrievers `agcore eval` compares, each prepared per namespace and
//! queried through one call that is timed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::memory::retriever::{
    Analyzer, Bm25, ContextualBm25, ContextualBm25Config, MemoryRetriever, RetrieverConfig,
    Rm3Config, TextOverlap,
};
use agcore::memory::{MemoryFilter, MemoryStore, SearchOptions};

use super::dataset::Dataset;
use crate::error::CliError;

/// Every retriever agcore ships, by its command-line name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RetrieverName {
    /// The store's own full-text search (`MemoryStore::search`).
    Store,
    /// `MemoryRetriever` rescoring store candidates with `TextOverlap` (Dice).
    TextOverlap,
    /// `MemoryRetriever` rescoring store candidates with `Bm25`.
    Bm25,
    /// `ContextualBm25`: stemmed BM25F with neighbouring turns as context.
    ContextualBm25,
    /// `ContextualBm25` with RM3 pseudo-relevance feedback.
    ContextualBm25Rm3,
    /// All of the above, one after the other on the same ingested store.
    All,
}

impl RetrieverName {
    /// The retrievers this name stands for.
    pub fn expand(self) -> Vec<Self> {
        match self {
            Self::All => vec![
                Self::Store,
                Self::TextOverlap,
                Self::Bm25,
                Self::ContextualBm25,
                Self::ContextualBm25Rm3,
            ],
            other => vec![other],
        }
    }

    /// The command-line name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Store => "store",
            Self::TextOverlap => "text-overlap",
            Self::Bm25 => "bm25",
            Self::ContextualBm25 => "contextual-bm25",
            Self::ContextualBm25Rm3 => "contextual-bm25-rm3",
            Self::All => "all",
        }
    }
}

/// A retriever ready to answer queries of each namespace.
pub enum Engine {
    /// Store-native search with a prefix filter per namespace.
    Store(Arc<dyn MemoryStore>, Vec<String>),
    /// One `MemoryRetriever` per namespace.
    Retriever(Vec<MemoryRetriever>),
    /// One index per namespace.
    Index(Vec<ContextualBm25>),
}

/// Settings of the contextual retrievers that `agcore eval` exposes for
/// ablations.
#[derive(Debug, Clone, Copy)]
pub struct ContextualOptions {
    /// Neighbouring turns on each side indexed as context (0 = none).
    pub window: usize,
    /// Whether terms are stemmed.
    pub stemming: bool,
}

/// Results per query (`k` hits).
pub const K: usize = 10;

impl Engine {
    /// Prepares `name` over the ingested `store`; returns the engine and the
    /// time its own index took to build (zero for store-backed retrievers).
    ///
    /// # Errors
    /// Store errors while listing memories.
    pub async fn prepare(
        name: RetrieverName,
        store: &Arc<dyn MemoryStore>,
        dataset: &Dataset,
        options: ContextualOptions,
    ) -> Result<(Self, Duration), CliError> {
        let prefixes: Vec<String> = dataset.namespaces.iter().map(|n| n.prefix()).collect();
        let started = Instant::now();
        let engine = match name {
            RetrieverName::Store | RetrieverName::All => Self::Store(Arc::clone(store), prefixes),
            RetrieverName::TextOverlap | RetrieverName::Bm25 => {
                let retrievers = prefixes
                    .into_iter()
                    .map(|prefix| {
                        let config = RetrieverConfig::default()
                            .with_max_results(K)
                            .with_min_score(0.0)
                            .with_filter(MemoryFilter::with_prefix(prefix));
                        let retriever =
                            MemoryRetriever::new(config).with_memory_store(Arc::clone(store));
                        if name == RetrieverName::Bm25 {
                            retriever.with_scorer(Arc::new(Bm25::default()))
                        } else {
                            retriever.with_scorer(Arc::new(TextOverlap))
                        }
                    })
                    .collect();
                Self::Retriever(retrievers)
            }
            RetrieverName::ContextualBm25 | RetrieverName::ContextualBm25Rm3 => {
                let window = if dataset.sequential {
                    options.window
                } else {
                    0
                };
                let mut config = ContextualBm25Config::default().with_context_window(window);
                if !options.stemming {
                    config = config.with_analyzer(Analyzer::keywords_only());
                }
                if name == RetrieverName::ContextualBm25Rm3 {
                    config = config.with_rm3(Some(Rm3Config::default()));
                }
                let mut indexes = Vec::with_capacity(prefixes.len());
                for prefix in prefixes {
                    let filter = MemoryFilter::with_prefix(prefix);
                    indexes.push(
                        ContextualBm25::from_store(store.as_ref(), &filter, config.clone()).await?,
                    );
                }
                Self::Index(indexes)
            }
        };
        Ok((engine, started.elapsed()))
    }

    /// The top-[`K`] memory ids for `query` in namespace `ns`, and how long the
    /// retrieval call took.
    ///
    /// # Errors
    /// Store and retriever errors.
    pub async fn search(
        &self,
        ns: usize,
        query: &str,
    ) -> Result<(Vec<String>, Duration), CliError> {
        let started = Instant::now();
        let ids: Vec<String> = match self {
            Self::Store(store, prefixes) => {
                let prefix = prefixes.get(ns).cloned().unwrap_or_default();
                let hits = store
                    .search(query, &SearchOptions::top_k(K).with_prefix(prefix))
                    .await?;
                let took = started.elapsed();
                return Ok((hits.into_iter().map(|h| h.item.id).collect(), took));
            }
            Self::Retriever(retrievers) => match retrievers.get(ns) {
                Some(r) => {
                    let result = r.retrieve(query).await?;
                    let took = started.elapsed();
                    return Ok((
                        result.items.iter().map(|i| i.id().to_owned()).collect(),
                        took,
                    ));
                }
                None => Vec::new(),
            },
            Self::Index(indexes) => match indexes.get(ns) {
                Some(index) => {
                    let hits = index.search_indices(query, K);
                    let took = started.elapsed();
                    let ids = hits
                        .into_iter()
                        .filter_map(|(i, _)| index.items().get(i).map(|item| item.id.clone()))
                        .collect();
                    return Ok((ids, took));
                }
                None => Vec::new(),
            },
        };
        Ok((ids, started.elapsed()))
    }
}
