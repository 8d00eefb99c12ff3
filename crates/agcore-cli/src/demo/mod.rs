//! `agcore demo`: the zero-configuration tour on real text. It ingests a folder of
//! Markdown (by default agcore's own documentation) into a SQLite knowledge wiki,
//! answers recall queries with BM25 and their latencies, then shows long-term memory
//! carrying a user's preference from one agent session to the next.

mod long_term;

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use crate::error::CliError;
use crate::output;
use crate::wiki::{self, ingest};

/// Queries asked of agcore's own documentation when none are given.
const DEFAULT_QUERIES: &[&str] = &[
    "how do tests find the real servers",
    "which feature enables the MCP client",
    "export memories to JSONL and import them back",
    "how does the SQLite backend tokenise CJK text",
    "recall@10 on LoCoMo",
];

/// Arguments of `agcore demo`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  agcore demo
  agcore demo \"how do I configure the endpoint\"
  agcore demo --docs ~/notes \"meeting with the design team\"")]
pub struct DemoArgs {
    /// Folder of Markdown/text to ingest (default: the agcore source tree this program
    /// was built from, else the current folder).
    #[arg(long, value_name = "DIR")]
    docs: Option<PathBuf>,
    /// Keep the wiki in this SQLite file instead of a temporary one.
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Top pages shown per query.
    #[arg(long, value_name = "N", default_value_t = 3)]
    limit: usize,
    /// Your own queries (default: five questions about agcore's documentation).
    queries: Vec<String>,
}

/// The folder the demo reads when `--docs` is not given: the workspace this binary
/// was built from when it still exists, else the current folder.
fn default_docs() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if workspace.join("crates").is_dir() {
        workspace.canonicalize().unwrap_or(workspace)
    } else {
        PathBuf::from(".")
    }
}

/// Runs `agcore demo`.
///
/// # Errors
/// [`CliError::Input`] when the folder cannot be read; store errors.
pub async fn run(args: DemoArgs) -> Result<(), CliError> {
    if args.limit == 0 {
        return Err(CliError::Invalid("--limit must be at least 1".to_owned()));
    }
    let temp = tempfile::tempdir()?;
    let docs = args.docs.unwrap_or_else(default_docs);
    let kept = args.db.clone();
    let db = args.db.unwrap_or_else(|| temp.path().join("wiki.db"));

    output::line("== 1. knowledge wiki on real text")?;
    let wiki = wiki::open_wiki(&db.display().to_string()).await?;
    let started = Instant::now();
    let report = ingest::ingest_dir(&wiki, &docs).await?;
    let took = started.elapsed();
    if report.sections == 0 {
        return Err(CliError::input(&docs, "no Markdown or text file found"));
    }
    output::line(&format!(
        "read {} files under {}: {} sections, indexed into SQLite (FTS5) in {:.1} ms",
        report.files,
        docs.display(),
        report.sections,
        took.as_secs_f64() * 1e3
    ))?;

    let queries: Vec<String> = if args.queries.is_empty() {
        DEFAULT_QUERIES.iter().map(|q| (*q).to_owned()).collect()
    } else {
        args.queries
    };
    for query in &queries {
        let started = Instant::now();
        let hits = wiki.search_scored(query, args.limit).await?;
        let micros = started.elapsed().as_micros();
        output::line(&format!("\n? {query}   (BM25, {micros} µs)"))?;
        if hits.is_empty() {
            output::line("    no match")?;
        }
        for hit in &hits {
            output::line(&format!("  {:>6.2}  {}", hit.score, hit.page.title))?;
        }
    }

    output::line("\n== 2. long-term memory across sessions (scripted model, no endpoint needed)")?;
    long_term::run(temp.path()).await?;
    if let Some(kept) = kept {
        output::line(&format!("\nwiki kept in {}", kept.display()))?;
    }
    Ok(())
}
