//! `agcore config`: facts about the configuration file.

use clap::{Args, Subcommand};

use crate::error::CliError;

/// Arguments of `agcore config`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  agcore config schema > agcore-config.schema.json")]
pub struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Print the JSON Schema (draft 2020-12) of the memory attachments of the
    /// configuration file: `memory.stores` (one variant per store type, with
    /// its `config`) and `agents` — for editors and UIs.
    #[command(
        after_help = "Examples:\n  agcore config schema\n  agcore config schema | jq '.\"$defs\".AttachmentConfig'"
    )]
    Schema,
}

/// Runs `agcore config`.
///
/// # Errors
/// [`CliError::Io`] when stdout cannot be written (a closed pipe is not an error).
pub fn run(args: &ConfigArgs) -> Result<(), CliError> {
    match args.command {
        ConfigCommand::Schema => crate::output::json(&agcore::attach::schema()),
    }
}
