//! `agcore`: chat with long-term memory, memory administration, the knowledge wiki and
//! retrieval evaluation, from the command line.
//!
//! Run `agcore --help` or `agcore <command> --help` for every option with an example.
//! Exit codes are documented on [`error::CliError::exit_code`].

mod attach;
mod chat;
mod config;
mod config_agent;
mod config_cmd;
mod config_doc;
#[cfg(test)]
mod config_readers;
mod demo;
mod error;
mod eval;
mod logging;
mod memory;
mod output;
mod places;
mod progress;
mod scope;
mod serve;
mod storage;
mod wiki;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;

/// agcore: LLM agents that remember.
#[derive(Debug, Parser)]
#[command(name = "agcore", version, about, long_about = None, propagate_version = true)]
#[command(
    after_help = "Examples:\n  agcore chat --user alice\n  agcore memory search \"coffee\" --user alice\n  agcore wiki ingest docs/\n  agcore chat --config agents.yaml --agent helper\n  agcore eval --locomo locomo10.json\n  agcore demo"
)]
struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); `RUST_LOG` overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,

    /// Configuration file, TOML or YAML (by a `.yaml` / `.yml` extension)
    /// (default: agcore.toml in the user's config dir, e.g.
    /// ~/.config/agcore/agcore.toml).
    #[arg(long, global = true, env = "AGCORE_CONFIG", value_name = "PATH")]
    config: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Chat with an agent that remembers you across sessions.
    Chat(chat::ChatArgs),
    /// Administer long-term memories: list, search, add, delete, clean, stats, export, import.
    Memory(memory::MemoryArgs),
    /// The knowledge wiki: ingest a folder of Markdown/text, search it, export it.
    Wiki(wiki::WikiArgs),
    /// Evaluate retrieval (recall@k, nDCG@10, latency) on LoCoMo or a BEIR-style folder.
    Eval(eval::EvalArgs),
    /// A tour on real text with nothing configured: ingest docs, recall, long-term memory.
    Demo(demo::DemoArgs),
    /// The configuration file: print the JSON Schema of its memory attachments.
    Config(config_cmd::ConfigArgs),
    /// Memory over HTTP and MCP for agents in any language: `agcore serve`, `agcore serve keys create`.
    Serve(serve::ServeArgs),
    /// The memory tools of one --agent / --user as an MCP server over stdio.
    Mcp(serve::McpArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return report(&CliError::Io(err)),
    };
    let config = cli.config;
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Chat(args) => chat::run(args, config).await,
            Command::Memory(args) => memory::run(args, config).await,
            Command::Wiki(args) => wiki::run(args, config).await,
            Command::Eval(args) => eval::run(args).await,
            Command::Demo(args) => demo::run(args).await,
            Command::Config(args) => config_cmd::run(&args),
            Command::Serve(args) => serve::run(args, config).await,
            Command::Mcp(args) => serve::run_mcp(args, config).await,
        }
    });
    // A blocking stdin read (chat at its prompt) must not hold the exit up.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => report(&err),
    }
}

/// Prints `err` as one line on stderr and maps it to its exit code.
fn report(err: &CliError) -> ExitCode {
    eprintln!("error: {err}");
    ExitCode::from(err.exit_code())
}
