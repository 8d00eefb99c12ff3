//! The retrievers `agcore eval` compares, each prepared per namespace and
//! queried through one call that is timed.

use std::time::{Duration, Instant};

use agcore::memory::SearchOptions;
use agcore::memory::hybrid::{ContextConfig, HybridStore};
use agcore::memory::retriever::{ContextualBm25, MemoryRetriever};

use super::ceiling::TwoLists;
pub use super::retriever_name::RetrieverName;
use crate::EvalError;

/// A retriever ready to answer queries of each namespace.
pub enum Engine {
    /// The product path: a `HybridStore` view in one mode per namespace,
    /// each searched with its namespace's prefix filter.
    Product(Vec<HybridStore>, Vec<String>),
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
    /// Whether the data is a sequence (conversation turns), so context applies.
    pub sequential: bool,
}

impl ContextualOptions {
    /// The neighbouring-memory context of the `(…, context)` ablations:
    /// sessions as groups, `window` turns each side, weight 0.5.
    pub fn context(&self) -> Option<ContextConfig> {
        (self.sequential && self.window > 0)
            .then(|| ContextConfig::default().with_window(self.window))
    }
}

/// Results per query (`k` hits): enough for recall@k up to 50.
pub const K: usize = 50;

/// One query's answer: the ranking, its timing, and, when asked for, the
/// two candidate lists a product search fused.
#[derive(Debug, Clone, Default)]
pub struct Searched {
    /// Memory ids, best first (at most [`K`]).
    pub ids: Vec<String>,
    /// Where the time went.
    pub timing: Timing,
    /// The lexical and dense candidate lists (product searches asked for
    /// them only; ids as stored, namespace prefix included).
    pub lists: Option<TwoLists>,
}

/// Where a query's time went, for the product retrievers.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timing {
    /// The whole retrieval call.
    pub total: Duration,
    /// Embedding the query (zero for lexical retrieval).
    pub embed: Duration,
    /// Searching and fusing (the call minus query embedding).
    pub search: Duration,
}

impl Engine {
    /// The top-[`K`] memory ids for `query` in namespace `ns`, how long the
    /// retrieval call took, and, when `lists` is set and this is a product
    /// search, the two lists it fused (built after the timed call).
    ///
    /// # Errors
    /// Store and retriever errors.
    pub async fn search(&self, ns: usize, query: &str, lists: bool) -> Result<Searched, EvalError> {
        let started = Instant::now();
        let plain = |ids: Vec<String>, took: Duration| Searched {
            ids,
            timing: Timing {
                total: took,
                embed: Duration::ZERO,
                search: took,
            },
            lists: None,
        };
        match self {
            Self::Product(stores, prefixes) => {
                let (Some(store), Some(prefix)) = (stores.get(ns), prefixes.get(ns)) else {
                    return Ok(plain(Vec::new(), started.elapsed()));
                };
                let report = store
                    .search_explained(query, &SearchOptions::top_k(K).with_prefix(prefix.clone()))
                    .await?;
                let total = started.elapsed();
                let embed = Duration::from_micros(report.embed_micros);
                Ok(Searched {
                    ids: report.results().map(|h| h.item.id.clone()).collect(),
                    timing: Timing {
                        total,
                        embed,
                        search: total.saturating_sub(embed),
                    },
                    lists: lists.then(|| TwoLists::of(&report)),
                })
            }
            Self::Retriever(retrievers) => match retrievers.get(ns) {
                Some(r) => {
                    let result = r.retrieve(query).await?;
                    let took = started.elapsed();
                    let ids = result.items.iter().map(|i| i.id().to_owned()).collect();
                    Ok(plain(ids, took))
                }
                None => Ok(plain(Vec::new(), started.elapsed())),
            },
            Self::Index(indexes) => match indexes.get(ns) {
                Some(index) => {
                    let hits = index.search_indices(query, K);
                    let took = started.elapsed();
                    let ids = hits
                        .into_iter()
                        .filter_map(|(i, _)| index.items().get(i).map(|item| item.id.clone()))
                        .collect();
                    Ok(plain(ids, took))
                }
                None => Ok(plain(Vec::new(), started.elapsed())),
            },
        }
    }
}
