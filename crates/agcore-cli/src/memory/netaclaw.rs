//! `memory import --from-netaclaw URL`: the memories of a NetaClaw MySQL /
//! MariaDB table (`netaclaw_memory`), mapped field by field by
//! [`NetaclawSource`], imported under the same scope rules as a JSONL backup.

use std::collections::BTreeSet;

use agcore::memory::MemoryError;
use agcore::memory::long_term::MemoryScope;
use agcore::memory::mysql::NetaclawSource;

use super::jsonl::{IMPORT_BATCH, ImportArgs, report, target};
use crate::error::CliError;
use crate::progress;
use crate::scope::OpenedMemory;

/// Runs `memory import --from-netaclaw`: the table's scopes are read and
/// checked first (several scopes need `--all-scopes` or `--into-scope`),
/// then its rows are imported in id order, in batches of 256 (one
/// transaction each); rows whose text the scope already holds are skipped,
/// so a re-run imports only what is new.
///
/// # Errors
/// [`CliError::Invalid`] (exit 3) for several scopes without a flag, a scope
/// that breaks the scope rules with `--all-scopes`, or a row of an unknown
/// type or empty content; [`CliError::Memory`] when the server or table
/// cannot be read; storage errors.
pub(super) async fn import(
    opened: &OpenedMemory,
    args: &ImportArgs,
    json: bool,
) -> Result<(), CliError> {
    let url = args.from_netaclaw.as_deref().unwrap_or_default();
    let shown = agcore::memory::storage::redact_url(url);
    let source = NetaclawSource::connect(url, &args.netaclaw_table).await?;
    let result = run(opened, args, json, &source, &shown).await;
    source.close().await;
    result
}

async fn run(
    opened: &OpenedMemory,
    args: &ImportArgs,
    json: bool,
    source: &NetaclawSource,
    shown: &str,
) -> Result<(), CliError> {
    let from = format!("NetaClaw table {} at {shown}", args.netaclaw_table);
    let refuse = |detail: String| CliError::Invalid(format!("the {from} {detail}"));
    let mut scopes = BTreeSet::new();
    let mut total = 0usize;
    for (agent, user, rows) in source.scopes().await? {
        if args.all_scopes {
            MemoryScope::new(agent.as_str(), user.as_str())
                .map_err(|e| CliError::Invalid(format!("{from}: scope {agent}/{user}: {e}")))?;
        }
        scopes.insert(format!("{agent}/{user}"));
        total += usize::try_from(rows).unwrap_or(usize::MAX);
    }
    let target = target(opened, args, &scopes, refuse)?;
    let bad_input = |err: MemoryError| match err {
        MemoryError::InvalidInput(m) => CliError::Invalid(format!("{from}: {m}")),
        other => CliError::Memory(other),
    };
    let bar = progress::bar(total as u64, "import");
    let (mut read, mut created, mut skipped) = (0usize, 0usize, 0usize);
    let mut after = i64::MIN;
    loop {
        let rows = source
            .read_after(after, IMPORT_BATCH)
            .await
            .map_err(bad_input)?;
        let Some(last) = rows.last().map(|(id, _)| *id) else {
            break;
        };
        after = last;
        let batch: Vec<_> = rows.into_iter().map(|(_, entry)| entry).collect();
        read += batch.len();
        let n = batch.len() as u64;
        let (made, same) = target.import(opened, batch).await.map_err(bad_input)?;
        created += made;
        skipped += same;
        bar.inc(n);
    }
    bar.finish_and_clear();
    report(opened, &target, (read, created, skipped), json).await
}
