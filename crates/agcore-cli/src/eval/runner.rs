//! Ingestion into the chosen store and the evaluation loop.

use agcore::memory::SqliteStore;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::llm::embedding::EmbeddingModel;
use agcore::memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore};
use agcore::memory::vector::{InMemoryVectors, VectorStore};
use agcore::memory::{InMemoryStore, MemoryItem, MemoryStore, Storage};
use indicatif::{ProgressBar, ProgressStyle};

use super::StoreKind;
use super::ceiling::{CeilingAccumulator, TwoLists};
use super::dataset::Dataset;
use super::metrics::{Accumulator, Latency};
use super::report::RetrieverReport;
use super::retrievers::{ContextualOptions, Engine, K, RetrieverName};
use super::server::ServerStores;
use crate::error::CliError;

/// Memories written per `save_many` call.
const BATCH: usize = 256;

/// The stores under evaluation, as agents use them: one [`HybridStore`] per
/// namespace (a LoCoMo conversation is one user's memory, searched on its
/// own, so its BM25 collection statistics are its own, as in every anchor
/// the figures are compared with) over the chosen backend, lexical only
/// without an embedder. SQLite stores live in a temporary folder removed
/// when this is dropped.
pub struct EvalStore {
    /// One store per namespace of the dataset, in the dataset's order.
    pub stores: Vec<HybridStore>,
    _dir: Option<tempfile::TempDir>,
    server: Option<ServerStores>,
}

impl EvalStore {
    /// Opens `namespaces` empty stores of `kind`, with dense retrieval when
    /// `embedder` is given (one embedding queue shared by the stores; on a
    /// server, the vectors are stored there, in the first namespace's
    /// schema, database or prefix, as an agent on that backend stores them).
    ///
    /// # Errors
    /// I/O errors creating the temporary folder; store errors. Stores made
    /// on a server before an error are removed.
    pub async fn open(
        kind: &StoreKind,
        embedder: Option<Arc<dyn EmbeddingModel>>,
        config: HybridConfig,
        namespaces: usize,
    ) -> Result<Self, CliError> {
        let dir = match kind {
            StoreKind::Sqlite => Some(tempfile::Builder::new().prefix("agcore-eval-").tempdir()?),
            StoreKind::Memory | StoreKind::Server(..) => None,
        };
        let mut server = match kind {
            StoreKind::Server(kind, url) => Some(ServerStores::new(*kind, url)),
            _ => None,
        };
        let built = Self::build(dir.as_ref(), server.as_mut(), embedder, config, namespaces).await;
        match built {
            Ok(stores) => Ok(Self {
                stores,
                _dir: dir,
                server,
            }),
            Err(err) => {
                if let Some(made) = server {
                    // The error that stopped the run is the one to report.
                    let _ = made.remove().await;
                }
                Err(err)
            }
        }
    }

    /// The stores of [`Self::open`]: SQLite files in `dir`, stores on
    /// `server`, or in memory.
    async fn build(
        dir: Option<&tempfile::TempDir>,
        mut server: Option<&mut ServerStores>,
        embedder: Option<Arc<dyn EmbeddingModel>>,
        config: HybridConfig,
        namespaces: usize,
    ) -> Result<Vec<HybridStore>, CliError> {
        let mut bases: Vec<Arc<dyn MemoryStore>> = Vec::with_capacity(namespaces);
        let mut first: Option<Storage> = None;
        for n in 0..namespaces {
            bases.push(match (dir, server.as_deref_mut()) {
                (Some(dir), _) => {
                    Arc::new(SqliteStore::open(dir.path().join(format!("eval-{n}.db"))).await?)
                }
                (None, Some(made)) => {
                    let storage = made.open(n).await?;
                    let store = storage.store();
                    first.get_or_insert(storage);
                    store
                }
                (None, None) => Arc::new(InMemoryStore::new()),
            });
        }
        // One embedding queue and one vector store for all of them, each
        // store's vectors in its own namespace: one model, called by one
        // queue as in an agent process.
        let dense = match &embedder {
            None => None,
            Some(embedder) => {
                let vectors: Arc<dyn VectorStore> = match &first {
                    Some(storage) => storage.vectors(embedder.space()).await?,
                    None => Arc::new(InMemoryVectors::new(embedder.space())),
                };
                Some(DenseIndex::new(
                    Arc::clone(embedder),
                    vectors,
                    EmbeddingQueueConfig::default(),
                )?)
            }
        };
        Ok(bases
            .into_iter()
            .enumerate()
            .map(|(n, base)| match &dense {
                None => HybridStore::lexical(base).with_config(config.clone()),
                Some(dense) => HybridStore::new(
                    base,
                    Arc::clone(dense),
                    config.clone().with_namespace(format!("ns{n}")),
                ),
            })
            .collect())
    }

    /// Removes the stores made on a server (the temporary folder goes when
    /// this is dropped).
    ///
    /// # Errors
    /// [`CliError::Config`] naming a schema, database or prefix that could
    /// not be removed.
    pub async fn close(self) -> Result<(), CliError> {
        drop(self.stores);
        match self.server {
            Some(server) => server.remove().await,
            None => Ok(()),
        }
    }
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn progress(len: usize, message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(u64::try_from(len).unwrap_or(u64::MAX));
    if let Ok(style) = ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(message);
    bar
}

/// Writes every namespace's documents into its store through the public `MemoryStore` API;
/// returns the time taken. Embedding runs in the background meanwhile:
/// [`embed`] waits for it.
///
/// # Errors
/// Store errors.
pub async fn ingest(stores: &[HybridStore], dataset: &Dataset) -> Result<Duration, CliError> {
    let bar = progress(dataset.documents(), "ingesting");
    let started = Instant::now();
    for (ns, store) in dataset.namespaces.iter().zip(stores) {
        let prefix = ns.prefix();
        let items: Vec<MemoryItem> = ns
            .docs
            .iter()
            .map(|d| {
                MemoryItem::new(format!("{prefix}{}", d.id), d.content.clone())
                    .with_metadata(d.metadata.clone())
                    .with_created_at(d.created_at)
            })
            .collect();
        for chunk in items.chunks(BATCH) {
            store.save_many(chunk.to_vec()).await?;
            bar.inc(u64::try_from(chunk.len()).unwrap_or(0));
        }
    }
    bar.finish_and_clear();
    Ok(started.elapsed())
}

/// Waits until the background queue the stores share has embedded every
/// document (and window), with a progress bar; returns the time waited
/// (zero without an embedder).
///
/// # Errors
/// [`CliError::Config`] when documents are left unembedded (server down).
pub async fn embed(stores: &[HybridStore], documents: usize) -> Result<Duration, CliError> {
    if stores.iter().all(|s| s.dense().is_none()) {
        return Ok(Duration::ZERO);
    }
    let started = Instant::now();
    let bar = progress(documents, "embedding");
    // The stores share one queue (see `EvalStore::open`): its counters.
    let counts = |stores: &[HybridStore]| {
        let c = stores
            .first()
            .map(HybridStore::queue_counts)
            .unwrap_or_default();
        (c.pending, c.failures)
    };
    let flush = futures::future::join_all(stores.iter().map(HybridStore::flush));
    tokio::pin!(flush);
    loop {
        tokio::select! {
            _ = &mut flush => break,
            () = tokio::time::sleep(Duration::from_millis(200)) => {
                let left = counts(stores).0;
                bar.set_position(u64::try_from(documents.saturating_sub(left)).unwrap_or(0));
            }
        }
    }
    bar.finish_and_clear();
    let (pending, failures) = counts(stores);
    if pending > 0 {
        return Err(CliError::Config(format!(
            "{pending} documents could not be embedded ({failures} failed calls); is the embedding server up?"
        )));
    }
    Ok(started.elapsed())
}

/// Runs every query of `dataset` through retriever `name`.
///
/// # Errors
/// Store and retriever errors.
pub async fn evaluate(
    name: RetrieverName,
    stores: &[HybridStore],
    dataset: &Dataset,
    ingest: Duration,
    options: ContextualOptions,
) -> Result<RetrieverReport, CliError> {
    let (engine, build) = Engine::prepare(name, stores, dataset, options).await?;
    let bar = progress(dataset.queries(), name.label());
    let mut per_category: BTreeMap<String, Accumulator> = BTreeMap::new();
    let mut latencies = Vec::with_capacity(dataset.queries());
    let mut embed_latencies = Vec::with_capacity(dataset.queries());
    let mut search_latencies = Vec::with_capacity(dataset.queries());
    let mut ceiling = CeilingAccumulator::default();
    for (i, ns) in dataset.namespaces.iter().enumerate() {
        let prefix = ns.prefix();
        for query in &ns.queries {
            let searched = engine.search(i, &query.text).await?;
            let timing = searched.timing;
            latencies.push(timing.total);
            embed_latencies.push(timing.embed);
            search_latencies.push(timing.search);
            let strip = |id: &String| id.strip_prefix(&prefix).map_or(id.clone(), str::to_owned);
            let ranked: Vec<String> = searched.ids.iter().take(K).map(strip).collect();
            per_category
                .entry(query.category.clone())
                .or_default()
                .add(&ranked, &query.relevant);
            if let Some(lists) = searched.lists.filter(|_| name == RetrieverName::Hybrid)
                && headline_category(dataset, &query.category)
            {
                let strip_all = |list: Vec<(String, f64)>| {
                    list.into_iter().map(|(id, s)| (strip(&id), s)).collect()
                };
                let lists = TwoLists {
                    lexical: strip_all(lists.lexical),
                    dense: strip_all(lists.dense),
                };
                ceiling.add(&lists, &query.relevant);
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let mut headline = Accumulator::default();
    let label = if dataset.kind == "locomo" {
        "1-4"
    } else {
        "all"
    };
    for (category, acc) in &per_category {
        if headline_category(dataset, category) {
            headline.merge(acc);
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let split = !matches!(
        name,
        RetrieverName::Lexical
            | RetrieverName::TextOverlap
            | RetrieverName::Bm25
            | RetrieverName::ContextualBm25
            | RetrieverName::ContextualBm25Rm3
            | RetrieverName::LexicalContext
            | RetrieverName::LexicalNoContextField
            | RetrieverName::LexicalOneStore
            | RetrieverName::All
    );
    Ok(RetrieverReport {
        retriever: name.label(),
        build_ms: ms(build),
        index_ms: ms(ingest + build),
        overall: headline.scores(label),
        categories: per_category.iter().map(|(c, acc)| acc.scores(c)).collect(),
        latency: Latency::of(&mut latencies),
        embed_latency: split.then(|| Latency::of(&mut embed_latencies)),
        search_latency: split.then(|| Latency::of(&mut search_latencies)),
        fusion_ceiling: ceiling.ceiling(label),
    })
}

/// Whether `category` counts in the headline group: LoCoMo categories 1–4
/// (5, adversarial, is reported apart), every BEIR group.
fn headline_category(dataset: &Dataset, category: &str) -> bool {
    dataset.kind != "locomo" || matches!(category, "1" | "2" | "3" | "4")
}
