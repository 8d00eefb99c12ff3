//! `agcore memory reembed`: (re)computes the vectors of every memory with the
//! embedding model of `[embedding]`.

use std::time::{Duration, Instant};

use agcore::memory::MemoryError;
use agcore::memory::hybrid::DenseIndex;

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

/// Embeds the memories of every scope now, in bulk
/// ([`LongTermMemory::reembed`](agcore::memory::long_term::LongTermMemory::reembed):
/// each distinct text once, length-sorted batches of the model's size),
/// with a progress bar (texts/s, time left) on a terminal. Memories whose
/// vector is up to date cost no model call.
///
/// # Errors
/// [`CliError::Config`] without `[embedding]`, or when the model or its
/// server fails; storage errors.
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
    let bar = crate::progress::rate_bar("embedding");
    let done = opened
        .memory
        .reembed(Some(&crate::progress::embed_reporter(&bar)))
        .await;
    bar.finish_and_clear();
    let report = done.map_err(|e| match e {
        MemoryError::Embedding(m) => CliError::Config(format!(
            "memories could not be embedded: {m}; is the embedding server up?"
        )),
        other => CliError::Memory(other),
    })?;
    let seconds = started.elapsed().as_secs_f64();
    if json {
        return output::json(&serde_json::json!({
            "model": dense.embedder().space().to_string(),
            "reset": args.reset,
            "memories": report.texts,
            "embedded": report.embedded,
            "up_to_date": report.up_to_date,
            "model_texts": report.model_texts,
            "pending": 0,
            "seconds": seconds,
        }));
    }
    output::line(&format!(
        "{} memories: {} embedded, {} already up to date ({}) in {seconds:.1} s",
        report.texts,
        report.embedded,
        report.up_to_date,
        dense.embedder().space(),
    ))
}

/// Waits while the background queue of `dense` embeds what was just
/// written (`queued` texts), with a progress bar (texts/s, time left) on a
/// terminal; returns how many are still pending (their embedding failed;
/// `memory reembed` catches up).
pub async fn wait_for_queue(dense: &DenseIndex, queued: usize) -> usize {
    let bar = crate::progress::rate_bar("embedding");
    bar.set_length(u64::try_from(queued).unwrap_or(u64::MAX));
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
    dense.counts().pending
}
