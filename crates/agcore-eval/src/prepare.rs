//! Building each retriever of `agcore eval` over the ingested stores
//! ([`Engine::prepare`]): views of the product store in a mode and an
//! ablation's configuration, copies of the stores, or indexes of their own.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::memory::hybrid::{
    ContextLists, DenseFeedback, GroupEvidence, HybridConfig, HybridStore, RetrievalMode,
};
use agcore::memory::retriever::{
    Analyzer, Bm25, ContextualBm25, ContextualBm25Config, Fusion, MemoryRetriever, RetrieverConfig,
    Rm3Config, TextOverlap,
};
use agcore::memory::{InMemoryStore, MemoryFilter, MemoryStore};

use crate::EvalError;
use crate::dataset::Dataset;
use crate::retrievers::{ContextualOptions, Engine, K, RetrieverName};

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
        let started = Instant::now();
        let engine = match name {
            RetrieverName::Lexical | RetrieverName::All => {
                Self::Product(views(stores, RetrievalMode::Lexical, |c| c), prefixes)
            }
            RetrieverName::LexicalNoContextField => {
                Self::Product(without_context_field(stores).await?, prefixes)
            }
            RetrieverName::LexicalOneStore => {
                let one = one_store(stores).await?;
                Self::Product(vec![one; prefixes.len()], prefixes)
            }
            RetrieverName::LexicalContext => {
                let context = options.context();
                let configure = |c: HybridConfig| c.with_context(context.clone());
                Self::Product(views(stores, RetrievalMode::Lexical, configure), prefixes)
            }
            RetrieverName::TextOverlap | RetrieverName::Bm25 => {
                Self::Retriever(classic_retrievers(name, stores, prefixes))
            }
            RetrieverName::ContextualBm25 | RetrieverName::ContextualBm25Rm3 => {
                let config = contextual_config(name, dataset, options);
                Self::Index(contextual_indexes(stores, prefixes, &config).await?)
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
                let configure = |c: HybridConfig| ablation(name, c, &options);
                Self::Product(views(stores, dense_mode(name), configure), prefixes)
            }
        };
        Ok((engine, started.elapsed()))
    }
}

/// A view of each store in `mode`, its configuration changed by `config`.
fn views(
    stores: &[HybridStore],
    mode: RetrievalMode,
    config: impl Fn(HybridConfig) -> HybridConfig,
) -> Vec<HybridStore> {
    stores
        .iter()
        .map(|s| {
            let view = s.view(mode);
            let c = config(view.config().clone());
            view.with_config(c)
        })
        .collect()
}

/// Copies of the stores indexing no context field (lexical only).
async fn without_context_field(stores: &[HybridStore]) -> Result<Vec<HybridStore>, EvalError> {
    let mut plain = Vec::with_capacity(stores.len());
    for store in stores {
        let copy = InMemoryStore::new().with_context_field(None);
        copy.save_many(store.inner().list(&MemoryFilter::default()).await?)
            .await?;
        plain.push(HybridStore::lexical(Arc::new(copy)).with_config(store.config().clone()));
    }
    Ok(plain)
}

/// Every store's memories in one lexical store (collection statistics
/// shared across namespaces).
async fn one_store(stores: &[HybridStore]) -> Result<HybridStore, EvalError> {
    let one = InMemoryStore::new();
    for store in stores {
        one.save_many(store.inner().list(&MemoryFilter::default()).await?)
            .await?;
    }
    let config = stores
        .first()
        .map(|s| s.config().clone())
        .unwrap_or_default();
    Ok(HybridStore::lexical(Arc::new(one)).with_config(config))
}

/// Dense-only for the `dense …` ablations, else hybrid.
fn dense_mode(name: RetrieverName) -> RetrievalMode {
    if matches!(
        name,
        RetrieverName::Dense
            | RetrieverName::DenseOneVector
            | RetrieverName::DenseGroup
            | RetrieverName::DensePrf
    ) {
        RetrievalMode::Dense
    } else {
        RetrievalMode::Hybrid
    }
}

/// `config` changed as the dense or hybrid ablation `name` asks.
fn ablation(
    name: RetrieverName,
    mut config: HybridConfig,
    options: &ContextualOptions,
) -> HybridConfig {
    match name {
        RetrieverName::HybridContext => config.context = options.context(),
        RetrieverName::HybridContextBoth => {
            config.context = options.context().map(|c| c.with_lists(ContextLists::Both));
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
}

/// A `MemoryRetriever` per namespace scoring with BM25 or text overlap.
fn classic_retrievers(
    name: RetrieverName,
    stores: &[HybridStore],
    prefixes: Vec<String>,
) -> Vec<MemoryRetriever> {
    prefixes
        .into_iter()
        .zip(stores)
        .map(|(prefix, store)| {
            let config = RetrieverConfig::default()
                .with_max_results(K)
                .with_min_score(0.0)
                .with_filter(MemoryFilter::with_prefix(prefix));
            let retriever =
                MemoryRetriever::new(config).with_memory_store(Arc::clone(store.inner()));
            if name == RetrieverName::Bm25 {
                retriever.with_scorer(Arc::new(Bm25::default()))
            } else {
                retriever.with_scorer(Arc::new(TextOverlap))
            }
        })
        .collect()
}

/// The contextual BM25 index settings of `name` (RM3 for the `+rm3` one).
fn contextual_config(
    name: RetrieverName,
    dataset: &Dataset,
    options: ContextualOptions,
) -> ContextualBm25Config {
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
    config
}

/// A contextual BM25 index per namespace.
async fn contextual_indexes(
    stores: &[HybridStore],
    prefixes: Vec<String>,
    config: &ContextualBm25Config,
) -> Result<Vec<ContextualBm25>, EvalError> {
    let mut indexes = Vec::with_capacity(prefixes.len());
    for (prefix, store) in prefixes.into_iter().zip(stores) {
        let filter = MemoryFilter::with_prefix(prefix);
        indexes.push(
            ContextualBm25::from_store(store.inner().as_ref(), &filter, config.clone()).await?,
        );
    }
    Ok(indexes)
}
