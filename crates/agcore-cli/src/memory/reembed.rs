//! `agcore memory reembed`: (re)computes the vectors of every memory with the
//! embedding model of `[embedding]`.

use std::time::{Duration, Instant};

use clap::Args;

use crate::error::CliError;
use crate::output;
use crate::scope::OpenedMemory;

/// Arguments of `memory reembed`.
#[derive(Debug, Args)]
pub struct ReembedArgs {
    /// Delete every stored vector first: needed after changing the model
    /// (the store refuses vectors of another model until then).
    #[arg(long)]
    pub reset: bool,
}

/// Queues the memories of every scope and waits while the background queue
/// embeds them, with a progress bar on a terminal. Memories whose vector is
/// up to date cost no model call.
///
/// # Errors
/// [`CliError::Config`] without `[embedding]`, or when memories are left
/// unembedded (server down); storage errors.
pub async fn reembed(
    opened: &OpenedMemory,
    args: &ReembedArgs,
    json: bool,
) -> Result<(), CliError> {
    let Some(dense) = &opened.dense else {
        return Err(CliError::Config(
            "no embedding model is configured: add an [embedding] section to agcore.toml".into(),
        ));
    };
    let started = Instant::now();
    let before = dense.counts();
    let queued = opened.memory.backfill_vectors().await?;
    let bar = crate::progress::bar(u64::try_from(queued).unwrap_or(u64::MAX), "embedding");
    let flush = dense.flush();
    tokio::pin!(flush);
    loop {
        tokio::select! {
            () = &mut flush => break,
            () = tokio::time::sleep(Duration::from_millis(200)) => {
                let left = dense.counts().pending;
                bar.set_position(u64::try_from(queued.saturating_sub(left)).unwrap_or(0));
            }
        }
    }
    bar.finish_and_clear();
    let after = dense.counts();
    let report = serde_json::json!({
        "model": dense.embedder().space().to_string(),
        "reset": args.reset,
        "memories": queued,
        "embedded": after.embedded - before.embedded,
        "up_to_date": after.skipped - before.skipped,
        "pending": after.pending,
        "seconds": started.elapsed().as_secs_f64(),
    });
    if after.pending > 0 {
        return Err(CliError::Config(format!(
            "{} memories could not be embedded ({} failed calls); is the embedding server up?",
            after.pending, after.failures
        )));
    }
    if json {
        return output::json(&report);
    }
    output::line(&format!(
        "{} memories: {} embedded, {} already up to date ({}) in {:.1} s",
        queued,
        after.embedded - before.embedded,
        after.skipped - before.skipped,
        dense.embedder().space(),
        started.elapsed().as_secs_f64()
    ))
}
