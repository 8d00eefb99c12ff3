//! `agcore-reliability`: load, crash and fault campaigns against agcore.
//!
//! Each campaign prints one JSON report on stdout and exits 0 when every
//! invariant held; it exits 1 naming the broken invariant otherwise. See
//! `docs/reliability.md` for what each proves and the figures measured.
//! Subcommands ending in `-child` are the processes the campaigns start.
#![allow(clippy::print_stdout)] // the reports and the children's progress lines are the output

mod batch_kill;
mod disk_full;
mod embed_kill;
mod error;
mod extract_kill;
mod soak;
mod soak_model;
mod target;
mod writers;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};
use serde_json::Value;

use crate::error::HarnessError;
use crate::target::Target;

/// Load, crash and fault campaigns against agcore's storage and runtime.
#[derive(Debug, Parser)]
#[command(name = "agcore-reliability", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Concurrent long-term writers over several processes: nothing lost,
    /// nothing doubled, ids unique, integrity check clean.
    Writers {
        /// A SQLite file path or a `postgres://` URL (a fresh schema is made).
        #[arg(long)]
        url: String,
        /// OS processes.
        #[arg(long, default_value_t = 8)]
        processes: usize,
        /// Writer tasks over all processes.
        #[arg(long, default_value_t = 64)]
        writers: usize,
        /// Saves per writer.
        #[arg(long, default_value_t = 10_000)]
        saves: usize,
    },
    /// SIGKILL during batched inserts, `kills` times.
    KillBatch {
        /// A SQLite file path or a `postgres://` URL (a fresh schema is made).
        #[arg(long)]
        url: String,
        /// How many times the writer is killed.
        #[arg(long, default_value_t = 50)]
        kills: usize,
        /// The kill comes at a uniformly random time up to this, in ms.
        #[arg(long, default_value_t = 1_500)]
        max_delay_ms: u64,
    },
    /// SIGKILL during background embedding, `kills` times.
    KillEmbedding {
        /// A SQLite file path or a `postgres://` URL (a fresh schema is made).
        #[arg(long)]
        url: String,
        /// How many times the writer is killed.
        #[arg(long, default_value_t = 50)]
        kills: usize,
        /// Memories saved per run.
        #[arg(long, default_value_t = 40)]
        saves: usize,
        /// The kill comes at a uniformly random time up to this, in ms.
        #[arg(long, default_value_t = 1_500)]
        max_delay_ms: u64,
        /// `/v1` base URL of an OpenAI-compatible embedding server.
        #[arg(long, env = "AGCORE_TEST_E5_BASE_URL")]
        embed_url: String,
        /// Its model name.
        #[arg(long, env = "AGCORE_TEST_E5_MODEL")]
        embed_model: String,
    },
    /// SIGKILL during fact extraction from the dialogue buffer, `kills` times.
    KillExtraction {
        /// A SQLite file path or a `postgres://` URL (a fresh schema is made).
        #[arg(long)]
        url: String,
        /// How many times the child is killed.
        #[arg(long, default_value_t = 50)]
        kills: usize,
        /// The kill comes at a uniformly random time up to this, in ms.
        #[arg(long, default_value_t = 1_500)]
        max_delay_ms: u64,
    },
    /// A full disk during writes; DIR must be a small file system (a tmpfs).
    DiskFull {
        /// The directory on the small file system.
        #[arg(long)]
        dir: PathBuf,
    },
    /// Mixed agent turns with memory on for a while: memory, files and tasks stay flat.
    Soak {
        /// Directory for the database.
        #[arg(long)]
        dir: PathBuf,
        /// Run for this many minutes…
        #[arg(long, conflicts_with = "turns")]
        minutes: Option<f64>,
        /// …or this many turns.
        #[arg(long, default_value_t = 2_000)]
        turns: u64,
        /// Turns per conversation before it finishes and a new one starts.
        #[arg(long, default_value_t = 20)]
        turns_per_session: u64,
        /// Largest accepted growth of resident memory after the warm-up, in MiB.
        #[arg(long, default_value_t = 32)]
        max_rss_growth_mib: u64,
    },
    #[command(hide = true)]
    WriterChild {
        #[arg(long)]
        url: String,
        #[arg(long)]
        first: usize,
        #[arg(long)]
        count: usize,
        #[arg(long)]
        saves: usize,
    },
    #[command(hide = true)]
    BatchChild {
        #[arg(long)]
        url: String,
        #[arg(long)]
        round: usize,
    },
    #[command(hide = true)]
    ExtractChild {
        #[arg(long)]
        url: String,
        #[arg(long)]
        first: u64,
    },
    #[command(hide = true)]
    EmbedChild {
        #[arg(long)]
        url: String,
        #[arg(long)]
        round: usize,
        #[arg(long)]
        saves: usize,
        #[arg(long)]
        embed_url: String,
        #[arg(long)]
        embed_model: String,
    },
}

async fn run(command: Command) -> Result<Option<Value>, HarnessError> {
    let server = |base_url: String, model: String| embed_kill::Server { base_url, model };
    Ok(match command {
        Command::Writers {
            url,
            processes,
            writers,
            saves,
        } => Some(
            writers::run(
                &Target::fresh(&url, "writers"),
                writers::WritersPlan {
                    processes,
                    writers,
                    saves,
                },
            )
            .await?,
        ),
        Command::KillBatch {
            url,
            kills,
            max_delay_ms,
        } => Some(
            batch_kill::run(
                &Target::fresh(&url, "batch"),
                kills,
                Duration::from_millis(max_delay_ms),
            )
            .await?,
        ),
        Command::KillEmbedding {
            url,
            kills,
            saves,
            max_delay_ms,
            embed_url,
            embed_model,
        } => Some(
            embed_kill::run(
                &Target::fresh(&url, "embed"),
                &server(embed_url, embed_model),
                kills,
                saves,
                Duration::from_millis(max_delay_ms),
            )
            .await?,
        ),
        Command::KillExtraction {
            url,
            kills,
            max_delay_ms,
        } => Some(
            extract_kill::run(
                &Target::fresh(&url, "extract"),
                kills,
                Duration::from_millis(max_delay_ms),
            )
            .await?,
        ),
        Command::DiskFull { dir } => Some(disk_full::run(&dir).await?),
        Command::Soak {
            dir,
            minutes,
            turns,
            turns_per_session,
            max_rss_growth_mib,
        } => {
            let length = match minutes {
                Some(m) => soak::Length::Time(Duration::from_secs_f64(m * 60.0)),
                None => soak::Length::Turns(turns),
            };
            Some(
                soak::run(
                    &dir,
                    length,
                    turns_per_session.max(1),
                    max_rss_growth_mib * 1024,
                )
                .await?,
            )
        }
        Command::WriterChild {
            url,
            first,
            count,
            saves,
        } => {
            let retries = writers::child(&Target::parse(&url), first, count, saves).await?;
            println!("{retries}");
            None
        }
        Command::BatchChild { url, round } => {
            batch_kill::child(&Target::parse(&url), round).await?;
            None
        }
        Command::ExtractChild { url, first } => {
            extract_kill::child(&Target::parse(&url), first).await?;
            None
        }
        Command::EmbedChild {
            url,
            round,
            saves,
            embed_url,
            embed_model,
        } => {
            embed_kill::child(
                &Target::parse(&url),
                &server(embed_url, embed_model),
                round,
                saves,
            )
            .await?;
            None
        }
    })
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(cli.command).await {
        Ok(Some(report)) => {
            println!("{report}");
            std::process::ExitCode::SUCCESS
        }
        Ok(None) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            let again = if err.is_recoverable() {
                " (may pass when run again)"
            } else {
                ""
            };
            eprintln!("agcore-reliability: {err}{again}");
            std::process::ExitCode::FAILURE
        }
    }
}
