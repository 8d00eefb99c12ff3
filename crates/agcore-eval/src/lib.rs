//! Retrieval evaluation of agcore's memory (recall@5, recall@10, nDCG@10,
//! index time, query latency) on a LoCoMo file or a BEIR folder: the
//! library behind `agcore eval`. [`evaluate`] runs one [`EvalOptions`] and
//! returns a [`Report`]; [`plot::recall_curves`] draws it.
//!
//! Files: [`locomo`] and [`beir`] load the data into a [`dataset::Dataset`];
//! [`runner`] ingests it into the chosen store and runs every query through
//! each [`retrievers::RetrieverName`]; [`metrics`] scores the rankings;
//! [`ceiling`] measures what the hybrid search's two lists could give;
//! [`report`] prints them.

pub mod beir;
pub mod ceiling;
pub mod dataset;
pub mod embedder;
mod error;
pub mod locomo;
pub mod metrics;
pub mod plot;
mod prepare;
pub mod query_cache;
pub mod report;
pub mod retriever_name;
pub mod retrievers;
pub mod runner;
pub mod server;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agcore::llm::embedding::EmbeddingModel;
use agcore::memory::hybrid::{HybridConfig, ProgressFn};

pub use error::EvalError;
pub use locomo::TurnFormat;
pub use report::Report;
pub use retrievers::RetrieverName;

/// Which memory store the documents are ingested into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreKind {
    /// `InMemoryStore` (inverted index + BM25).
    Memory,
    /// `SqliteStore` (FTS5) in a temporary folder, removed afterwards.
    Sqlite,
    /// A database server at this URL: one schema, database or key prefix
    /// per namespace, removed afterwards ([`server`]).
    Server(server::ServerKind, String),
}

impl StoreKind {
    /// The store's name in reports: `memory`, `sqlite`, `postgres`, ….
    pub fn label(&self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::Sqlite => "sqlite",
            Self::Server(kind, _) => kind.label(),
        }
    }

    /// Parses `--store`: `memory`, `sqlite`, or a `postgres://`,
    /// `mysql://` / `mariadb://` or `redis://` URL.
    ///
    /// # Errors
    /// A message naming the accepted forms.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "memory" => Ok(Self::Memory),
            "sqlite" => Ok(Self::Sqlite),
            url => server::ServerKind::of(url)
                .map(|kind| Self::Server(kind, url.to_owned()))
                .ok_or_else(|| {
                    "expected memory, sqlite, or a postgres://, mysql://, mariadb:// or redis:// URL"
                        .to_owned()
                }),
        }
    }
}

/// What one evaluation run measures: the input, the store, the retrievers
/// and the indexing options (`agcore eval`'s flags, without the output ones).
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// The dataset: a LoCoMo file or a BEIR folder.
    pub input: Input,
    /// The store the documents are written to.
    pub store: StoreKind,
    /// The retriever to evaluate, or [`RetrieverName::All`].
    pub retriever: RetrieverName,
    /// How a LoCoMo turn becomes a memory (ignored for BEIR).
    pub format: TurnFormat,
    /// Neighbouring turns on each side indexed as a turn's context (0: off).
    pub context_window: usize,
    /// Index without stemming in the contextual retrievers (ablations).
    pub no_stemming: bool,
    /// The embedding model of the dense and hybrid retrievers.
    pub embedder: Option<embedder::EmbedderSpec>,
    /// How an `openai:` server is told queries from documents.
    pub query_style: embedder::QueryStyle,
}

/// The dataset of an [`EvalOptions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A LoCoMo JSON file (list of samples with `conversation` and `qa`):
    /// each turn is one memory, each conversation its own namespace.
    Locomo(PathBuf),
    /// A BEIR folder: `corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`.
    Beir(PathBuf),
}

/// Loads the dataset, ingests it into the store, runs every retriever and
/// returns the [`Report`]; server stores are removed whether or not the
/// run succeeds. `progress` follows the bulk embedding.
///
/// # Errors
/// [`EvalError::Input`] for unreadable or malformed input;
/// [`EvalError::Config`] for an unusable embedder or store;
/// [`EvalError::Memory`] for store failures.
pub async fn evaluate(
    options: &EvalOptions,
    progress: Option<ProgressFn<'_>>,
) -> Result<Report, EvalError> {
    let (dataset, input) = match &options.input {
        Input::Locomo(path) => (locomo::load(path, options.format)?, path),
        Input::Beir(dir) => (beir::load(dir)?, dir),
    };
    tracing::info!(
        documents = dataset.documents(),
        queries = dataset.queries(),
        dropped = dataset.dropped_ids,
        skipped = dataset.skipped_queries,
        "loaded {}",
        dataset.kind
    );
    let model = match &options.embedder {
        // Every dense row asks the same questions: embedded once, shared.
        Some(spec) => Some(Arc::new(query_cache::QueryCache::new(
            spec.build(options.query_style).await?,
        )) as Arc<dyn EmbeddingModel>),
        None => None,
    };
    let embedder = model.as_ref().map(|m| m.space().to_string());
    // The product rows run the default configuration; the `(…, context)`
    // ablation rows add neighbouring-turn context.
    let store = store::EvalStore::open(
        &options.store,
        model,
        HybridConfig::default(),
        dataset.namespaces.len(),
    )
    .await?;
    let measured = measure(options, &store, &dataset, embedder.is_some(), progress).await;
    let removed = store.close().await;
    let (ingest, embedding, results) = measured?;
    removed?;
    Ok(Report {
        dataset: dataset.kind,
        input: input.display().to_string(),
        store: options.store.label(),
        embedder,
        embed_ms: embedding.as_secs_f64() * 1e3,
        format: (dataset.kind == "locomo").then_some(options.format),
        context_window: if dataset.sequential {
            options.context_window
        } else {
            0
        },
        stemming: !options.no_stemming,
        namespaces: dataset.namespaces.len(),
        documents: dataset.documents(),
        questions_scored: dataset.queries(),
        questions_skipped: dataset.skipped_queries,
        ids_dropped: dataset.dropped_ids,
        ingest_ms: ingest.as_secs_f64() * 1e3,
        results,
    })
}

/// Ingests `dataset` into `store` and runs every retriever of `args`:
/// ingest time, background embedding time, one result per retriever.
async fn measure(
    args: &EvalOptions,
    store: &store::EvalStore,
    dataset: &dataset::Dataset,
    has_embedder: bool,
    progress: Option<ProgressFn<'_>>,
) -> Result<
    (
        std::time::Duration,
        std::time::Duration,
        Vec<report::RetrieverReport>,
    ),
    EvalError,
> {
    let ingest = runner::ingest(&store.stores, dataset).await?;
    let embedding = runner::embed(&store.stores, progress).await?;
    let options = retrievers::ContextualOptions {
        window: args.context_window,
        stemming: !args.no_stemming,
        sequential: dataset.sequential,
    };
    let mut results = Vec::new();
    for name in args.retriever.expand(has_embedder) {
        let index = if name.needs_embedder() {
            ingest + embedding
        } else {
            ingest
        };
        results.push(runner::evaluate(name, &store.stores, dataset, index, options).await?);
    }
    Ok((ingest, embedding, results))
}

/// A [`EvalError::Input`] describing a JSON parse failure of `path`: truncated
/// input, invalid syntax, or a wrong shape (`expected` names the shape).
fn json_error(path: &Path, expected: &str, err: &serde_json::Error) -> EvalError {
    use serde_json::error::Category;
    let message = match err.classify() {
        Category::Eof => format!(
            "truncated JSON: the input ends early (line {}, column {})",
            err.line(),
            err.column()
        ),
        Category::Syntax => format!("invalid JSON: {err}"),
        Category::Data => format!("wrong schema, expected {expected}: {err}"),
        Category::Io => format!("cannot read: {err}"),
    };
    EvalError::input(path, message)
}
