//! `memory export` and `memory import`: one [`MemoryEntry`] per JSONL line,
//! every field kept (ids are reassigned on import).

use std::io::Write;
use std::path::{Path, PathBuf};

use agcore::memory::MemoryError;
use agcore::memory::long_term::{ArchivedFilter, ListOrder, ListRequest, MemoryEntry};
use clap::Args;

use super::jsonl_reader::JsonlReader;
use super::scope_label;
use crate::error::CliError;
use crate::output;
use crate::progress;
use crate::scope::OpenedMemory;

/// Entries per import batch (one transaction each).
const IMPORT_BATCH: usize = 256;

/// Arguments of `memory export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output file (default: stdout). Written to a temporary file first, then renamed.
    file: Option<PathBuf>,
    /// Every scope of the database, not only --agent/--user.
    #[arg(long)]
    all_scopes: bool,
}

/// Arguments of `memory import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A JSONL file written by `agcore memory export`.
    file: PathBuf,
    /// Keep each line's own agent and user instead of importing into --agent/--user.
    #[arg(long)]
    all_scopes: bool,
}

fn everything() -> ListRequest {
    let mut request = ListRequest::all().order(ListOrder::Created);
    request.archived = ArchivedFilter::Include;
    request
}

/// Runs `memory export`.
///
/// # Errors
/// Storage errors; [`CliError::Io`] when the file cannot be written.
pub async fn export(opened: &OpenedMemory, args: &ExportArgs, json: bool) -> Result<(), CliError> {
    let mut entries = Vec::new();
    if args.all_scopes {
        for scope in opened.memory.scopes().await? {
            let scoped = opened.memory.scoped(scope);
            entries.extend(scoped.list(&everything()).await?);
        }
        entries.sort_by_key(|e| e.id);
    } else {
        entries = opened.scoped.list(&everything()).await?;
    }
    let mut text = String::new();
    for entry in &entries {
        text.push_str(
            &serde_json::to_string(entry).map_err(|e| CliError::Io(std::io::Error::other(e)))?,
        );
        text.push('\n');
    }
    let Some(file) = &args.file else {
        return output::emit(&text);
    };
    write_atomically(file, text.as_bytes())?;
    if json {
        return output::json(&serde_json::json!({
            "exported": entries.len(),
            "path": file.display().to_string(),
        }));
    }
    let from = if args.all_scopes {
        "every scope".to_owned()
    } else {
        scope_label(opened)
    };
    output::line(&format!(
        "exported {} memories of {from} to {}",
        entries.len(),
        file.display()
    ))
}

/// Writes `bytes` to `path` through a temporary sibling and a rename, so a
/// failure never leaves a half-written backup.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Runs `memory import`: the whole file is read and checked before
/// anything is written (line by line: memory use does not grow with the
/// file), then imported in batches of 256, one transaction each.
///
/// # Errors
/// [`CliError::Input`] (exit 3) for a missing or unreadable file or a bad
/// line; storage errors.
pub async fn import(opened: &OpenedMemory, args: &ImportArgs, json: bool) -> Result<(), CliError> {
    let path = &args.file;
    // First pass: every line is read and checked before anything is written.
    let total = {
        let mut reader = JsonlReader::open(path)?;
        let mut n = 0usize;
        while let Some(entry) = reader.next_entry()? {
            n += 1;
            if args.all_scopes {
                entry.scope().map_err(|err| {
                    CliError::input(path, format!("memory {n} of the file: {err}"))
                })?;
            }
        }
        n
    };
    let bad_input = |err: MemoryError| match err {
        MemoryError::InvalidInput(m) => CliError::input(path, m),
        other => CliError::Memory(other),
    };
    // Second pass: batches of IMPORT_BATCH, one transaction each, so only one
    // batch is in memory; a re-run skips what an interrupted one imported.
    let scope = opened.scoped.scope().clone();
    let bar = progress::bar(total as u64, "import");
    let (mut created, mut skipped) = (0usize, 0usize);
    let mut reader = JsonlReader::open(path)?;
    loop {
        let mut batch: Vec<MemoryEntry> = Vec::with_capacity(IMPORT_BATCH);
        while batch.len() < IMPORT_BATCH {
            let Some(mut entry) = reader.next_entry()? else {
                break;
            };
            if !args.all_scopes {
                scope.agent().clone_into(&mut entry.agent_name);
                scope.user().clone_into(&mut entry.user_id);
            }
            batch.push(entry);
        }
        if batch.is_empty() {
            break;
        }
        let n = batch.len() as u64;
        let outcomes = opened
            .memory
            .import_entries(batch)
            .await
            .map_err(bad_input)?;
        created += outcomes.iter().filter(|o| o.created).count();
        skipped += outcomes.iter().filter(|o| !o.created).count();
        bar.inc(n);
    }
    bar.finish_and_clear();
    if json {
        return output::json(&serde_json::json!({
            "read": total,
            "imported": created,
            "skipped": skipped,
        }));
    }
    let into = if args.all_scopes {
        "their own scopes".to_owned()
    } else {
        scope_label(opened)
    };
    output::line(&format!(
        "imported {created} memories into {into} ({skipped} skipped: same text already there)"
    ))
}
