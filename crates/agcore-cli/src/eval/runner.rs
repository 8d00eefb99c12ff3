//! Ingestion into the chosen store and the evaluation loop.

use agcore::memory::SqliteStore;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::memory::{InMemoryStore, MemoryItem, MemoryStore};
use indicatif::{ProgressBar, ProgressStyle};

use super::StoreKind;
use super::dataset::Dataset;
use super::metrics::{Accumulator, Latency};
use super::report::RetrieverReport;
use super::retrievers::{ContextualOptions, Engine, K, RetrieverName};
use crate::error::CliError;

/// Memories written per `save_many` call.
const BATCH: usize = 256;

/// The store under evaluation; a SQLite store lives in a temporary folder
/// removed when this is dropped.
pub struct EvalStore {
    /// The store.
    pub store: Arc<dyn MemoryStore>,
    _dir: Option<tempfile::TempDir>,
}

impl EvalStore {
    /// Opens an empty store of `kind`.
    ///
    /// # Errors
    /// I/O errors creating the temporary folder; store errors.
    pub async fn open(kind: StoreKind) -> Result<Self, CliError> {
        match kind {
            StoreKind::Memory => Ok(Self {
                store: Arc::new(InMemoryStore::new()),
                _dir: None,
            }),
            StoreKind::Sqlite => {
                let dir = tempfile::Builder::new().prefix("agcore-eval-").tempdir()?;
                let store = SqliteStore::open(dir.path().join("eval.db")).await?;
                Ok(Self {
                    store: Arc::new(store),
                    _dir: Some(dir),
                })
            }
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

/// Writes every document into `store`; returns the time taken.
///
/// # Errors
/// Store errors.
pub async fn ingest(store: &Arc<dyn MemoryStore>, dataset: &Dataset) -> Result<Duration, CliError> {
    let bar = progress(dataset.documents(), "ingesting");
    let started = Instant::now();
    for ns in &dataset.namespaces {
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

/// Runs every query of `dataset` through retriever `name`.
///
/// # Errors
/// Store and retriever errors.
pub async fn evaluate(
    name: RetrieverName,
    store: &Arc<dyn MemoryStore>,
    dataset: &Dataset,
    ingest: Duration,
    options: ContextualOptions,
) -> Result<RetrieverReport, CliError> {
    let (engine, build) = Engine::prepare(name, store, dataset, options).await?;
    let bar = progress(dataset.queries(), name.label());
    let mut per_category: BTreeMap<String, Accumulator> = BTreeMap::new();
    let mut latencies = Vec::with_capacity(dataset.queries());
    for (i, ns) in dataset.namespaces.iter().enumerate() {
        let prefix = ns.prefix();
        for query in &ns.queries {
            let (ids, took) = engine.search(i, &query.text).await?;
            latencies.push(took);
            let ranked: Vec<String> = ids
                .into_iter()
                .take(K)
                .map(|id| id.strip_prefix(&prefix).map_or(id.clone(), str::to_owned))
                .collect();
            per_category
                .entry(query.category.clone())
                .or_default()
                .add(&ranked, &query.relevant);
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
        if dataset.kind != "locomo" || matches!(category.as_str(), "1" | "2" | "3" | "4") {
            headline.merge(acc);
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Ok(RetrieverReport {
        retriever: name.label(),
        build_ms: ms(build),
        index_ms: ms(ingest + build),
        overall: headline.scores(label),
        categories: per_category.iter().map(|(c, acc)| acc.scores(c)).collect(),
        latency: Latency::of(&mut latencies),
    })
}
