//! `memory maintain`: one maintenance run over every scope of the database —
//! age decay, archiving below the threshold, the dedupe of near duplicates
//! (superseded, never deleted), the purge of old applied buffer turns — with
//! the counts printed; `--dry-run` counts without writing.

use std::time::Instant;

use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::output;
use crate::scope::OpenedMemory;

/// Arguments of `memory maintain`.
#[derive(Debug, Args)]
pub struct MaintainArgs {
    /// Count what would change without writing anything (applied buffer
    /// turns to purge are not counted).
    #[arg(long)]
    dry_run: bool,
}

/// The printed counts (`--json`).
#[derive(Debug, Serialize)]
struct Counts {
    dry_run: bool,
    decayed: usize,
    archived: usize,
    deduplicated: usize,
    buffer_purged: usize,
    active: usize,
    elapsed_ms: u64,
}

/// Runs (or with `--dry-run` previews) maintenance over every scope and
/// prints the counts.
///
/// # Errors
/// [`CliError`] for storage failures.
pub async fn maintain(
    opened: &OpenedMemory,
    args: &MaintainArgs,
    json: bool,
) -> Result<(), CliError> {
    let started = Instant::now();
    let report = if args.dry_run {
        opened.memory.maintenance_preview().await?
    } else {
        opened.memory.maintenance_all().await?
    };
    let counts = Counts {
        dry_run: args.dry_run,
        decayed: report.decayed,
        archived: report.archived,
        deduplicated: report.deduplicated,
        buffer_purged: report.buffer_purged,
        active: report.active,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    tracing::info!(
        dry_run = counts.dry_run,
        decayed = counts.decayed,
        archived = counts.archived,
        deduplicated = counts.deduplicated,
        buffer_purged = counts.buffer_purged,
        active = counts.active,
        elapsed_ms = counts.elapsed_ms,
        "long-term memory maintenance"
    );
    if json {
        return output::json(&counts);
    }
    let verb = if counts.dry_run { "would be " } else { "" };
    let purged = if counts.dry_run {
        "not counted in a dry run".to_owned()
    } else {
        counts.buffer_purged.to_string()
    };
    output::emit(&format!(
        "maintenance{} over every scope in {} ms\n\
         decayed       {} ({verb}weight lowered by age)\n\
         archived      {} ({verb}below the archive threshold)\n\
         deduplicated  {} ({verb}superseded near duplicates)\n\
         buffer purged {purged}\n\
         active        {}\n",
        if counts.dry_run { " (dry run)" } else { "" },
        counts.elapsed_ms,
        counts.decayed,
        counts.archived,
        counts.deduplicated,
        counts.active,
    ))
}
