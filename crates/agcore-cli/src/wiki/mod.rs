//! `agcore wiki`: the knowledge store (LLM-Wiki pages on any memory backend,
//! SQLite by default) filled from a folder of Markdown/text notes, searched,
//! and exported as a wiki folder.

pub(crate) mod chunk;
pub(crate) mod ingest;

use std::path::PathBuf;

use agcore::memory::KnowledgeStore;
use clap::{Args, Subcommand};
use serde::Serialize;

use crate::config::AppConfig;
use crate::error::CliError;
use crate::output::{self, Table, cell};

/// Arguments of `agcore wiki`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  agcore wiki ingest docs/
  agcore wiki search \"how do I install it\" --limit 5
  agcore wiki export wiki-out/")]
pub struct WikiArgs {
    /// Wiki database: a storage URL (sqlite:///path, postgres://…, redis://…,
    /// json-file:///path) or a SQLite file path (default: `[storage] url`
    /// of agcore.toml, else `wiki.db` in the user's data dir, e.g. ~/.local/share/agcore).
    #[arg(long, global = true, value_name = "URL")]
    db: Option<String>,
    /// Print JSON for scripts instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: WikiCommand,
}

#[derive(Debug, Subcommand)]
enum WikiCommand {
    /// Read every .md/.markdown/.txt file under DIR, one page per Markdown section.
    #[command(
        after_help = "Re-ingesting a folder updates changed sections, keeps the rest and \
removes sections that are gone; nothing is duplicated.\n\nExamples:\n  agcore wiki ingest docs/\n  agcore wiki ingest notes/ --db notes.db --json"
    )]
    Ingest {
        /// The folder to read.
        dir: PathBuf,
    },
    /// Rank pages for a query (BM25 over title, summary and text).
    #[command(
        after_help = "Examples:\n  agcore wiki search \"streaming tool calls\"\n  agcore wiki search \"部署\" --limit 3 --json"
    )]
    Search {
        /// The search text.
        query: String,
        /// At most this many pages.
        #[arg(long, value_name = "N", default_value_t = 10)]
        limit: usize,
    },
    /// Write the wiki as a folder: index.md, log.md and one pages/ID.md per page.
    #[command(after_help = "Examples:\n  agcore wiki export wiki-out/")]
    Export {
        /// The folder to write (created if missing).
        dir: PathBuf,
    },
}

/// Opens the wiki at `location`, a storage URL or SQLite file path (creating
/// the file and its folder).
///
/// # Errors
/// [`CliError::Config`] when the database cannot be opened.
pub(crate) async fn open_wiki(location: &str) -> Result<KnowledgeStore, CliError> {
    let storage = crate::storage::open(location, "wiki database").await?;
    Ok(KnowledgeStore::open(storage.store()).await?)
}

#[derive(Serialize)]
struct Hit<'a> {
    score: f64,
    id: &'a str,
    title: &'a str,
    summary: &'a str,
    references: &'a [String],
    content: &'a str,
}

/// Runs `agcore wiki` with the configuration file `config` (`--config`).
///
/// # Errors
/// [`CliError::Input`] (exit 3) for a missing folder; store errors.
pub async fn run(args: WikiArgs, config: Option<PathBuf>) -> Result<(), CliError> {
    let config = AppConfig::load(config.as_deref())?;
    let location = crate::storage::location(args.db.as_deref(), &config, false, "wiki.db")?;
    let wiki = open_wiki(&location).await?;
    let shown = agcore::memory::storage::redact_url(&location);
    match args.command {
        WikiCommand::Ingest { dir } => {
            let report = ingest::ingest_dir(&wiki, &dir).await?;
            if args.json {
                return output::json(&report);
            }
            output::line(&format!(
                "ingested {} files into {}: {} sections ({} new, {} updated, {} unchanged, {} removed)",
                report.files,
                shown,
                report.sections,
                report.created,
                report.updated,
                report.unchanged,
                report.removed
            ))
        }
        WikiCommand::Search { query, limit } => {
            if limit == 0 {
                return Err(CliError::Invalid("--limit must be at least 1".to_owned()));
            }
            let hits = wiki.search_scored(&query, limit).await?;
            if args.json {
                let hits: Vec<Hit<'_>> = hits
                    .iter()
                    .map(|h| Hit {
                        score: h.score,
                        id: &h.page.id,
                        title: &h.page.title,
                        summary: &h.page.summary,
                        references: &h.page.references,
                        content: &h.page.content,
                    })
                    .collect();
                return output::json(&hits);
            }
            if hits.is_empty() {
                return output::line(&format!("no page matches {query:?}"));
            }
            let mut table = Table::new(["SCORE", "TITLE", "SUMMARY"]);
            for h in &hits {
                table.row([
                    format!("{:.3}", h.score),
                    cell(&h.page.title, 60),
                    cell(&h.page.summary, 60),
                ]);
            }
            output::emit(&table.render())
        }
        WikiCommand::Export { dir } => {
            let pages = wiki.export_dir(&dir).await?;
            if args.json {
                return output::json(&serde_json::json!({
                    "pages": pages,
                    "dir": dir.display().to_string(),
                }));
            }
            output::line(&format!(
                "exported {pages} pages to {} (index.md, log.md, pages/)",
                dir.display()
            ))
        }
    }
}
