//! `memory export` and `memory import`: one [`MemoryEntry`] per JSONL line,
//! every field kept (ids are reassigned on import).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use agcore::memory::MemoryError;
use agcore::memory::long_term::{
    ArchivedFilter, ListOrder, ListRequest, MemoryEntry, MemoryScope, ScopedMemory,
};
use clap::Args;

use super::jsonl_reader::JsonlReader;
use super::scope_label;
use crate::error::CliError;
use crate::output;
use crate::progress;
use crate::scope::OpenedMemory;

/// Entries per import batch (one transaction each).
pub(super) const IMPORT_BATCH: usize = 256;

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
    #[arg(required_unless_present = "from_netaclaw")]
    pub(super) file: Option<PathBuf>,
    /// Read the memories of a NetaClaw MySQL / MariaDB table instead of a file
    /// (mysql://user:password@host:port/database; the table is only read).
    #[arg(long, value_name = "URL", conflicts_with = "file")]
    pub(super) from_netaclaw: Option<String>,
    /// With --from-netaclaw: the table to read (`name` or `database.name`).
    #[arg(long, value_name = "NAME", requires = "from_netaclaw",
          default_value = agcore::memory::mysql::NETACLAW_TABLE)]
    pub(super) netaclaw_table: String,
    /// Keep each line's own agent and user instead of importing into --agent/--user.
    #[arg(long, conflicts_with = "into_scope")]
    pub(super) all_scopes: bool,
    /// Import every line into this scope, whatever scopes the file holds
    /// (merging them). A file holding several scopes needs this or --all-scopes.
    #[arg(long, value_name = "AGENT/USER", value_parser = parse_scope)]
    into_scope: Option<MemoryScope>,
}

/// Parses `AGENT/USER` (the user may not contain `/`).
fn parse_scope(text: &str) -> Result<MemoryScope, String> {
    let (agent, user) = text
        .split_once('/')
        .ok_or_else(|| format!("{text:?} is not AGENT/USER"))?;
    MemoryScope::new(agent, user).map_err(|e| e.to_string())
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

/// Where the lines of an import go.
pub(super) enum Target {
    /// Each line into its own scope (`--all-scopes`).
    OwnScopes,
    /// Every line into this scope.
    Into(Box<ScopedMemory>),
}

impl Target {
    /// Imports `batch` (one transaction) where the target says; the counts
    /// `(imported, skipped: same text already there)`.
    ///
    /// # Errors
    /// The store's errors ([`MemoryError::InvalidInput`] for a bad entry).
    pub(super) async fn import(
        &self,
        opened: &OpenedMemory,
        batch: Vec<MemoryEntry>,
    ) -> Result<(usize, usize), MemoryError> {
        let outcomes = match self {
            Self::OwnScopes => opened.memory.import_entries(batch).await,
            Self::Into(scoped) => scoped.import_entries_merged(batch).await,
        }?;
        let created = outcomes.iter().filter(|o| o.created).count();
        Ok((created, outcomes.len() - created))
    }
}

/// First pass of `memory import`: every line read and checked before
/// anything is written; returns the number of lines and the scopes they
/// name (`agent/user`, sorted).
fn check_file(path: &Path, all_scopes: bool) -> Result<(usize, BTreeSet<String>), CliError> {
    let mut reader = JsonlReader::open(path)?;
    let mut n = 0usize;
    let mut scopes = BTreeSet::new();
    while let Some(entry) = reader.next_entry()? {
        n += 1;
        if all_scopes {
            entry
                .scope()
                .map_err(|err| CliError::input(path, format!("memory {n} of the file: {err}")))?;
        }
        scopes.insert(format!("{}/{}", entry.agent_name, entry.user_id));
    }
    Ok((n, scopes))
}

/// The target of an import: `--all-scopes`, `--into-scope`, or
/// --agent/--user when the source holds at most one scope; `refuse` makes
/// the error from a sentence missing its subject (`holds memories of …`).
pub(super) fn target(
    opened: &OpenedMemory,
    args: &ImportArgs,
    scopes: &BTreeSet<String>,
    refuse: impl FnOnce(String) -> CliError,
) -> Result<Target, CliError> {
    if args.all_scopes {
        return Ok(Target::OwnScopes);
    }
    if let Some(scope) = &args.into_scope {
        return Ok(Target::Into(Box::new(opened.memory.scoped(scope.clone()))));
    }
    if scopes.len() > 1 {
        let names: Vec<&str> = scopes.iter().map(String::as_str).collect();
        return Err(refuse(format!(
            "holds memories of {} scopes ({}); pass --all-scopes to keep each \
             memory's scope, or --into-scope AGENT/USER to import them all into one scope",
            scopes.len(),
            names.join(", ")
        )));
    }
    Ok(Target::Into(Box::new(opened.scoped.clone())))
}

/// Runs `memory import`: the whole file is read and checked before
/// anything is written (line by line: memory use does not grow with the
/// file), then imported in batches of 256, one transaction each. A file
/// holding several scopes needs `--all-scopes` or `--into-scope`.
///
/// # Errors
/// [`CliError::Input`] (exit 3) for a missing or unreadable file, a bad
/// line, or several scopes without a flag saying what to do; storage errors.
pub async fn import(opened: &OpenedMemory, args: &ImportArgs, json: bool) -> Result<(), CliError> {
    let Some(path) = &args.file else {
        return Err(CliError::Config(
            "memory import needs a FILE (or --from-netaclaw URL)".to_owned(),
        ));
    };
    let (total, scopes) = check_file(path, args.all_scopes)?;
    let target = target(opened, args, &scopes, |m| {
        CliError::input(path, format!("the file {m}"))
    })?;
    let bad_input = |err: MemoryError| match err {
        MemoryError::InvalidInput(m) => CliError::input(path, m),
        other => CliError::Memory(other),
    };
    // Second pass: batches of IMPORT_BATCH, one transaction each, so only one
    // batch is in memory; a re-run skips what an interrupted one imported.
    let bar = progress::bar(total as u64, "import");
    let (mut created, mut skipped) = (0usize, 0usize);
    let mut reader = JsonlReader::open(path)?;
    loop {
        let mut batch: Vec<MemoryEntry> = Vec::with_capacity(IMPORT_BATCH);
        while batch.len() < IMPORT_BATCH {
            let Some(entry) = reader.next_entry()? else {
                break;
            };
            batch.push(entry);
        }
        if batch.is_empty() {
            break;
        }
        let n = batch.len() as u64;
        let (made, same) = target.import(opened, batch).await.map_err(bad_input)?;
        created += made;
        skipped += same;
        bar.inc(n);
    }
    bar.finish_and_clear();
    report(opened, &target, (total, created, skipped), json).await
}

/// Waits for the embedding of what was imported, then reports the counts
/// `(read, imported, skipped)`.
///
/// # Errors
/// Stdout failures.
pub(super) async fn report(
    opened: &OpenedMemory,
    target: &Target,
    (total, created, skipped): (usize, usize, usize),
    json: bool,
) -> Result<(), CliError> {
    if let Some(dense) = &opened.dense {
        // Imported texts are embedded by the queue, length-sorted in blocks.
        super::reembed::wait_for_queue(dense, created).await;
    }
    if json {
        return output::json(&serde_json::json!({
            "read": total,
            "imported": created,
            "skipped": skipped,
        }));
    }
    let into = match target {
        Target::OwnScopes => "their own scopes".to_owned(),
        Target::Into(scoped) => scoped.scope().to_string(),
    };
    output::line(&format!(
        "imported {created} memories into {into} ({skipped} skipped: same text already there)"
    ))
}
