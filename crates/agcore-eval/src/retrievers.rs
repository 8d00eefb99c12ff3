//! The retrievers `agcore eval` compares, each prepared per namespace and
//! queried through one call that is timed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::memory::hybrid::{
    ContextConfig, ContextLists, DenseFeedback, GroupEvidence, HybridConfig, HybridStore,
    RetrievalMode,
};
use agcore::memory::retriever::{
    Analyzer, Bm25, ContextualBm25, ContextualBm25Config, Fusion, MemoryRetriever, RetrieverConfig,
    Rm3Config, TextOverlap,
};
use agcore::memory::{InMemoryStore, MemoryFilter, MemoryStore, SearchOptions};

use super::ceiling::TwoLists;
use super::dataset::Dataset;
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
    /// Prepares `name` over the ingested `stores` (one per namespace);
    /// returns the engine and the time its own index took to build (zero
    /// for store-backed retrievers).
    ///
    /// # Errors
    /// Store errors while listing memories; [`EvalError::Config`] for a
    /// dense retriever without an embedder.
    pub async fn prepare(
        name: RetrieverName,
        stores: &[HybridStore],
        dataset: &Dataset,
        options: ContextualOptions,
    ) -> Result<(Self, Duration), EvalError> {
        let prefixes: Vec<String> = dataset.namespaces.iter().map(|n| n.prefix()).collect();
        let views = |mode: RetrievalMode, config: &dyn Fn(HybridConfig) -> HybridConfig| {
            stores
                .iter()
                .map(|s| {
                    let view = s.view(mode);
                    let c = config(view.config().clone());
                    view.with_config(c)
                })
                .collect::<Vec<_>>()
        };
        let started = Instant::now();
        let engine = match name {
            RetrieverName::Lexical | RetrieverName::All => {
                Self::Product(views(RetrievalMode::Lexical, &|c| c), prefixes)
            }
            RetrieverName::LexicalNoContextField => {
                let mut plain = Vec::with_capacity(stores.len());
                for store in stores {
                    let copy = InMemoryStore::new().with_context_field(None);
                    copy.save_many(store.inner().list(&MemoryFilter::default()).await?)
                        .await?;
                    plain.push(
                        HybridStore::lexical(Arc::new(copy)).with_config(store.config().clone()),
                    );
                }
                Self::Product(plain, prefixes)
            }
            RetrieverName::LexicalOneStore => {
                let one = InMemoryStore::new();
                for store in stores {
                    one.save_many(store.inner().list(&MemoryFilter::default()).await?)
                        .await?;
                }
                let config = stores
                    .first()
                    .map(|s| s.config().clone())
                    .unwrap_or_default();
                let one = HybridStore::lexical(Arc::new(one)).with_config(config);
                Self::Product(vec![one; prefixes.len()], prefixes)
            }
            RetrieverName::LexicalContext => {
                let context = options.context();
                Self::Product(
                    views(RetrievalMode::Lexical, &|c| c.with_context(context.clone())),
                    prefixes,
                )
            }
            RetrieverName::Dense
            | RetrieverName::Hybrid
            | RetrieverName::HybridContext
            | RetrieverName::HybridContextBoth
            | RetrieverName::HybridRrf
            | RetrieverName::HybridTmm
            | RetrieverName::HybridZScore
            | RetrieverName::HybridOneVector
            | RetrieverName::DenseOneVector
            | RetrieverName::HybridGroup
            | RetrieverName::DenseGroup
            | RetrieverName::HybridPrf
            | RetrieverName::DensePrf => {
                if stores.iter().any(|s| s.dense().is_none()) {
                    return Err(EvalError::Config(format!(
                        "--retriever {} needs --embedder",
                        name.label()
                    )));
                }
                let mode = if matches!(
                    name,
                    RetrieverName::Dense
                        | RetrieverName::DenseOneVector
                        | RetrieverName::DenseGroup
                        | RetrieverName::DensePrf
                ) {
                    RetrievalMode::Dense
                } else {
                    RetrievalMode::Hybrid
                };
                let context = options.context();
                let configure = |mut config: HybridConfig| {
                    match name {
                        RetrieverName::HybridContext => config.context = context.clone(),
                        RetrieverName::HybridContextBoth => {
                            config.context =
                                context.clone().map(|c| c.with_lists(ContextLists::Both));
                        }
                        RetrieverName::HybridRrf => config.fusion = Fusion::rrf(),
                        RetrieverName::HybridTmm => {
                            config.fusion = Fusion::TheoreticalMinMax {
                                lexical_weight: 0.5,
                            };
                        }
                        RetrieverName::HybridZScore => {
                            config.fusion = Fusion::ZScore {
                                lexical_weight: 0.5,
                            };
                        }
                        RetrieverName::HybridOneVector | RetrieverName::DenseOneVector => {
                            config.dense_context = None;
                        }
                        RetrieverName::HybridGroup | RetrieverName::DenseGroup => {
                            config.group_evidence = Some(GroupEvidence::default());
                        }
                        RetrieverName::HybridPrf | RetrieverName::DensePrf => {
                            config.feedback = Some(DenseFeedback::default());
                        }
                        _ => {}
                    }
                    config
                };
                Self::Product(views(mode, &configure), prefixes)
            }
            RetrieverName::TextOverlap | RetrieverName::Bm25 => {
                let retrievers = prefixes
                    .into_iter()
                    .zip(stores)
                    .map(|(prefix, store)| {
                        let config = RetrieverConfig::default()
                            .with_max_results(K)
                            .with_min_score(0.0)
                            .with_filter(MemoryFilter::with_prefix(prefix));
                        let retriever = MemoryRetriever::new(config)
                            .with_memory_store(Arc::clone(store.inner()));
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
                for (prefix, store) in prefixes.into_iter().zip(stores) {
                    let filter = MemoryFilter::with_prefix(prefix);
                    indexes.push(
                        ContextualBm25::from_store(store.inner().as_ref(), &filter, config.clone())
                            .await?,
                    );
                }
                Self::Index(indexes)
            }
        };
        Ok((engine, started.elapsed()))
    }

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
