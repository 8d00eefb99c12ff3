//! `memory weight`, `memory restore`, `memory core` and `memory archived`:
//! the weight and archive administration of one scope.

use agcore::memory::MemoryError;
use agcore::memory::long_term::{MemoryEntry, MemoryUpdate};
use clap::Args;

use super::{entries_table, scope_label};
use crate::error::CliError;
use crate::output;
use crate::scope::OpenedMemory;

/// Arguments of `memory weight`.
#[derive(Debug, Args)]
pub struct WeightArgs {
    /// The memory id (see `agcore memory list`).
    id: i64,
    /// The new weight: a finite number between `weights.min` and
    /// `weights.max` of `[memory.long_term]` (0.0 and 10.0 by default).
    #[arg(allow_negative_numbers = true)]
    value: f64,
}

/// Arguments of `memory restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The id of the archived memory (see `agcore memory archived`).
    id: i64,
}

/// Arguments of `memory core` and `memory archived`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// At most this many memories.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

/// A library error as the CLI reports it: an unknown id is exit 4, bad
/// input exit 3.
fn cli_error(opened: &OpenedMemory, id: i64, error: MemoryError) -> CliError {
    match error {
        MemoryError::NotFound(_) => CliError::NotFound(format!(
            "memory {id} does not exist in {}",
            scope_label(opened)
        )),
        MemoryError::InvalidInput(m) => CliError::Invalid(m),
        other => CliError::Memory(other),
    }
}

/// Runs `memory weight`: sets the weight of one memory (kept in its
/// history as an update).
///
/// # Errors
/// [`CliError::Invalid`] for a weight outside `[min, max]` or not finite;
/// [`CliError::NotFound`] for an unknown id; storage errors.
pub async fn weight(opened: &OpenedMemory, args: &WeightArgs, json: bool) -> Result<(), CliError> {
    let rules = opened.scoped.rules();
    if !args.value.is_finite() || args.value < rules.min || args.value > rules.max {
        return Err(CliError::Invalid(format!(
            "weight {} is outside [{}, {}] (weights.min and weights.max)",
            args.value, rules.min, rules.max
        )));
    }
    let entry = opened
        .scoped
        .update(args.id, MemoryUpdate::new().weight(args.value))
        .await
        .map_err(|e| cli_error(opened, args.id, e))?;
    if json {
        return output::json(&entry);
    }
    let core = if entry.weight >= rules.core_threshold {
        " (core)"
    } else {
        ""
    };
    output::line(&format!(
        "memory {} weight {:.2}{core}",
        entry.id, entry.weight
    ))
}

/// Runs `memory restore`: makes an archived memory active again.
///
/// # Errors
/// [`CliError::NotFound`] for an unknown id; storage errors.
pub async fn restore(
    opened: &OpenedMemory,
    args: &RestoreArgs,
    json: bool,
) -> Result<(), CliError> {
    let before = opened.scoped.get(args.id).await?;
    let entry = opened
        .scoped
        .restore(args.id)
        .await
        .map_err(|e| cli_error(opened, args.id, e))?;
    if json {
        return output::json(&entry);
    }
    let was = if before.is_some_and(|e| e.archived) {
        "restored"
    } else {
        "already active:"
    };
    output::line(&format!("{was} memory {} {:?}", entry.id, entry.name))
}

/// Runs `memory core`: the active memories at or above `core_threshold`,
/// heaviest first (those offered to the model on every turn).
///
/// # Errors
/// Storage errors.
pub async fn core(opened: &OpenedMemory, args: &ShowArgs, json: bool) -> Result<(), CliError> {
    let entries = limited(opened.scoped.core().await?, args.limit);
    let threshold = opened.scoped.rules().core_threshold;
    show(
        opened,
        &entries,
        json,
        &format!("core memories (weight ≥ {threshold})"),
    )
}

/// Runs `memory archived`: the archived memories, most recently updated
/// first.
///
/// # Errors
/// Storage errors.
pub async fn archived(opened: &OpenedMemory, args: &ShowArgs, json: bool) -> Result<(), CliError> {
    let entries = limited(opened.scoped.archived().await?, args.limit);
    show(opened, &entries, json, "archived memories")
}

fn limited(mut entries: Vec<MemoryEntry>, limit: Option<usize>) -> Vec<MemoryEntry> {
    if let Some(limit) = limit {
        entries.truncate(limit);
    }
    entries
}

fn show(
    opened: &OpenedMemory,
    entries: &[MemoryEntry],
    json: bool,
    what: &str,
) -> Result<(), CliError> {
    if json {
        return output::json(&entries);
    }
    if entries.is_empty() {
        return output::line(&format!("no {what} in {}", scope_label(opened)));
    }
    output::emit(&entries_table(entries).render())
}
