//! `agcore memory`: administer the long-term memories of one (agent, user)
//! scope — list, search, add, delete, clean, stats, export, import, reembed,
//! weight, restore, core, archived —
//! run maintenance over every scope (`maintain`),
//! and index the `file` stores of memory attachments (`index-files`).

mod admin;
mod clean;
mod edit;
mod explain;
mod index_files;
mod jsonl;
mod jsonl_reader;
mod maintain;
mod netaclaw;
mod reembed;
mod stats;
mod view;

pub(crate) use view::entries_table;

use std::path::PathBuf;

use agcore::memory::long_term::MemoryType;
use clap::{Args, Subcommand};

use crate::config::AppConfig;
use crate::error::CliError;
use crate::scope::{self, ScopeArgs};

/// Arguments of `agcore memory`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  agcore memory add \"Alice prefers green tea\" --type user --tags drinks --user alice
  agcore memory list --user alice
  agcore memory search \"tea\" --user alice --json
  agcore memory export backup.jsonl --all-scopes")]
pub struct MemoryArgs {
    #[command(flatten)]
    scope: ScopeArgs,
    /// Print JSON for scripts instead of a table.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: MemoryCommand,
}

#[derive(Debug, Subcommand)]
enum MemoryCommand {
    /// List the memories of the scope, most recently updated first.
    #[command(
        after_help = "Examples:\n  agcore memory list --user alice\n  agcore memory list --type project --archived --limit 20"
    )]
    List(view::ListArgs),
    /// Search the memories of the scope (BM25 over name, content, description,
    /// fused with dense similarity when `[embedding]` is configured).
    #[command(
        after_help = "Examples:\n  agcore memory search \"green tea\" --user alice\n  agcore memory search \"部署\" --limit 5 --json\n  agcore memory search \"the trip to the coast\" --explain"
    )]
    Search(view::SearchArgs),
    /// Save a memory; the same text saved again updates the existing memory.
    #[command(
        after_help = "Examples:\n  agcore memory add \"Alice prefers green tea\" --type user --name drink --tags drinks,preferences"
    )]
    Add(edit::AddArgs),
    /// Delete a memory by id (its text stays in the memory's history).
    #[command(after_help = "Examples:\n  agcore memory delete 42 --user alice")]
    Delete(edit::DeleteArgs),
    /// Archive (or delete) memories by rule: weight, age, type; --dry-run shows what would change.
    #[command(
        after_help = "Examples:\n  agcore memory clean --below-weight 0.3 --dry-run\n  agcore memory clean --older-than 90 --type project --delete"
    )]
    Clean(clean::CleanArgs),
    /// Run maintenance over every scope now: age decay, archiving below the
    /// threshold, near duplicates superseded (archived, never deleted), old
    /// applied buffer turns purged; prints the counts.
    #[command(
        after_help = "Examples:\n  agcore memory maintain\n  agcore memory maintain --dry-run --json"
    )]
    Maintain(maintain::MaintainArgs),
    /// Counts per scope and type, archived memories, database size.
    #[command(
        after_help = "Examples:\n  agcore memory stats\n  agcore memory stats --all-scopes --json"
    )]
    Stats(stats::StatsArgs),
    /// Write the memories as JSONL (one entry per line) to FILE or stdout.
    #[command(
        after_help = "Examples:\n  agcore memory export backup.jsonl --user alice\n  agcore memory export --all-scopes > all.jsonl"
    )]
    Export(jsonl::ExportArgs),
    /// Read memories from a JSONL file written by `export` (every field kept, ids reassigned).
    #[command(
        after_help = "Examples:\n  agcore memory import backup.jsonl --user alice\n  agcore memory import all.jsonl --all-scopes\n  agcore memory import --from-netaclaw mysql://user:pass@localhost:3306/netaclaw --all-scopes"
    )]
    Import(jsonl::ImportArgs),
    /// Embed every memory with the `[embedding]` model (those already up to
    /// date are skipped), showing progress; `--reset` after changing model.
    #[command(
        after_help = "Examples:\n  agcore memory reembed\n  agcore memory reembed --reset --json"
    )]
    Reembed(reembed::ReembedArgs),
    /// Build or refresh the index of every `file` memory store declared in
    /// CONFIG (memory attachments) ahead of time, showing progress; prints the
    /// files new, changed, removed and unchanged and the chunks indexed.
    #[command(
        after_help = "Examples:\n  agcore memory index-files agents.yaml\n  agcore memory index-files agcore.toml --store project_docs --json"
    )]
    IndexFiles(index_files::IndexFilesArgs),
    /// Set the weight of a memory (at or above `weights.core_threshold` it
    /// becomes a core memory, offered to the model on every turn).
    #[command(after_help = "Examples:\n  agcore memory weight 42 3.0 --user alice")]
    Weight(admin::WeightArgs),
    /// Make an archived memory active again.
    #[command(after_help = "Examples:\n  agcore memory restore 42 --user alice")]
    Restore(admin::RestoreArgs),
    /// List the core memories (active, weight at or above
    /// `weights.core_threshold`), heaviest first.
    #[command(after_help = "Examples:\n  agcore memory core --user alice --json")]
    Core(admin::ShowArgs),
    /// List the archived memories, most recently updated first (search them
    /// with `agcore memory search --archived`).
    #[command(after_help = "Examples:\n  agcore memory archived --user alice --limit 20")]
    Archived(admin::ShowArgs),
}

/// Runs `agcore memory` with the configuration file `config` (`--config`).
///
/// # Errors
/// Every [`CliError`]: bad input data (3), unknown ids (4), configuration (2),
/// storage failures (1).
pub async fn run(args: MemoryArgs, config: Option<PathBuf>) -> Result<(), CliError> {
    // Attachment indexes need no memory database.
    if let MemoryCommand::IndexFiles(a) = &args.command {
        return index_files::run(a, args.json).await;
    }
    let config = AppConfig::load(config.as_deref())?;
    let reset = matches!(&args.command, MemoryCommand::Reembed(a) if a.reset);
    let opened = scope::open_memory_with(&args.scope, &config, reset).await?;
    let json = args.json;
    let user_given = args.scope.user.is_some();
    let result = match args.command {
        MemoryCommand::List(a) => view::list(&opened, &a, json).await,
        MemoryCommand::Search(a) => view::search(&opened, &a, json).await,
        MemoryCommand::Add(a) => edit::add(&opened, a, json).await,
        MemoryCommand::Delete(a) => edit::delete(&opened, &a, json).await,
        MemoryCommand::Clean(a) => clean::clean(&opened, &a, json).await,
        MemoryCommand::Maintain(a) => maintain::maintain(&opened, &a, json).await,
        MemoryCommand::Stats(a) => stats::stats(&opened, &a, json, user_given).await,
        MemoryCommand::Export(a) => jsonl::export(&opened, &a, json).await,
        MemoryCommand::Import(a) if a.file.is_none() => netaclaw::import(&opened, &a, json).await,
        MemoryCommand::Import(a) => jsonl::import(&opened, &a, json).await,
        MemoryCommand::Reembed(a) => reembed::reembed(&opened, &a, json).await,
        MemoryCommand::IndexFiles(a) => index_files::run(&a, json).await,
        MemoryCommand::Weight(a) => admin::weight(&opened, &a, json).await,
        MemoryCommand::Restore(a) => admin::restore(&opened, &a, json).await,
        MemoryCommand::Core(a) => admin::core(&opened, &a, json).await,
        MemoryCommand::Archived(a) => admin::archived(&opened, &a, json).await,
    };
    opened.finish().await;
    let closed = opened.memory.close().await;
    result?;
    Ok(closed?)
}

/// Parses a `--type` value.
///
/// # Errors
/// [`CliError::Invalid`] (exit 3) naming the four types.
pub(crate) fn parse_type(text: &str) -> Result<MemoryType, CliError> {
    match text.trim().to_lowercase().as_str() {
        "user" => Ok(MemoryType::User),
        "project" => Ok(MemoryType::Project),
        "feedback" => Ok(MemoryType::Feedback),
        "reference" => Ok(MemoryType::Reference),
        other => Err(CliError::Invalid(format!(
            "unknown memory type `{other}`: use user, project, feedback or reference"
        ))),
    }
}

/// `agent/user` for messages.
pub(crate) fn scope_label(opened: &scope::OpenedMemory) -> String {
    opened.scoped.scope().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_parse_and_unknown_ones_are_bad_input() {
        assert_eq!(parse_type(" Project ").unwrap(), MemoryType::Project);
        let err = parse_type("fact").unwrap_err();
        assert_eq!(err.exit_code(), 3);
        assert!(err.to_string().contains("unknown memory type `fact`"));
    }
}
