//! SIGKILL during background embedding: a child saves long-term memories
//! with a dense index on a real embedding server (saves return after the
//! lexical write; vectors are written by the background queue) and is
//! killed at a random moment. After every kill the memories are re-opened,
//! `LongTermMemory::backfill_vectors` queues what the queue lost and the
//! queue is flushed: then every memory must have exactly one vector, made
//! from its current text, and no vector may belong to no memory.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::llm::embedding::{EmbeddingModel, OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode};
use agcore::memory::hybrid::{EmbeddingQueueConfig, HybridConfig, content_hash};
use agcore::memory::long_term::{
    ArchivedFilter, ListRequest, LongTermMemory, MemoryType, NewMemory,
};
use agcore::memory::vector::VectorFilter;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::error::{HarnessError, ensure};
use crate::target::Target;

const AGENT: &str = "reliability";
const USER: &str = "embedding";

/// The embedding server.
#[derive(Debug, Clone)]
pub struct Server {
    /// `/v1` base URL.
    pub base_url: String,
    /// Model name.
    pub model: String,
}

fn embedder(server: &Server) -> Result<Arc<dyn EmbeddingModel>, HarnessError> {
    let config = OpenAiEmbeddingConfig::new(&server.base_url, &server.model).with_query_mode(
        QueryMode::InputType {
            query: "query".into(),
            document: "passage".into(),
        },
    );
    let model = OpenAiEmbedder::new(config)
        .map_err(|e| HarnessError::Usage(format!("embedding server: {e}")))?;
    Ok(Arc::new(model))
}

async fn open(target: &Target, server: &Server) -> Result<LongTermMemory, HarnessError> {
    let storage = target.open().await?;
    let model = embedder(server)?;
    // Learn the dimensions before opening the vectors.
    model
        .embed(
            &["probe".to_owned()],
            agcore::llm::embedding::InputKind::Document,
        )
        .await
        .map_err(|e| HarnessError::Usage(format!("embedding server: {e}")))?;
    let dense = storage
        .dense_index(model, EmbeddingQueueConfig::default())
        .await?;
    Ok(storage
        .long_term()?
        .with_dense(dense, HybridConfig::default()))
}

fn text(round: usize, n: usize) -> String {
    format!("round {round} note {n}: the parcel for flat {n} goes to the neighbour 邻居代收{n}")
}

/// The child: saves `saves` memories, then waits to be killed.
///
/// # Errors
/// A save that fails.
pub async fn child(
    target: &Target,
    server: &Server,
    round: usize,
    saves: usize,
) -> Result<(), HarnessError> {
    let memory = open(target, server).await?;
    let scope = memory.scope(AGENT, USER)?;
    println!("ready");
    for n in 0..saves {
        scope
            .save(NewMemory::new(MemoryType::Project, "note", text(round, n)))
            .await?;
    }
    println!("saved");
    if let Some(dense) = memory.dense_index() {
        dense.flush().await;
    }
    println!("flushed");
    tokio::time::sleep(Duration::from_secs(3600)).await;
    Ok(())
}

/// The parent: `kills` rounds of start, random wait, SIGKILL, recover, check.
///
/// # Errors
/// [`HarnessError::Invariant`] when a memory has no vector, a stale one, or
/// a vector belongs to no memory; storage and server errors.
pub async fn run(
    target: &Target,
    server: &Server,
    kills: usize,
    saves: usize,
    max_delay: Duration,
) -> Result<Value, HarnessError> {
    let exe = std::env::current_exe()?;
    let mut backfilled = 0;
    let mut killed_before_flush = 0;
    let started = Instant::now();
    for round in 0..kills {
        let mut child = tokio::process::Command::new(&exe)
            .args([
                "embed-child",
                "--url",
                &target.url(),
                "--round",
                &round.to_string(),
            ])
            .args(["--saves", &saves.to_string()])
            .args([
                "--embed-url",
                &server.base_url,
                "--embed-model",
                &server.model,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| HarnessError::Child("no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        while let Some(line) = lines.next_line().await? {
            if line == "ready" {
                break;
            }
        }
        let delay = rand::random_range(0..=max_delay.as_millis().max(1) as u64);
        let watcher = tokio::spawn(async move {
            let mut flushed = false;
            while let Ok(Some(line)) = lines.next_line().await {
                flushed |= line == "flushed";
            }
            flushed
        });
        tokio::time::sleep(Duration::from_millis(delay)).await;
        child.start_kill()?;
        child.wait().await?;
        if !watcher
            .await
            .map_err(|e| HarnessError::Child(e.to_string()))?
        {
            killed_before_flush += 1;
        }
        target.integrity_check().await?;
        backfilled += recover_and_check(target, server).await?;
    }
    target.drop_fresh().await?;
    Ok(json!({
        "campaign": "kill-embedding",
        "backend": target.kind(),
        "kills": kills,
        "killed_before_queue_flushed": killed_before_flush,
        "memories_queued_by_backfill_after_restart": backfilled,
        "memories_without_vector": 0,
        "stale_or_orphan_vectors": 0,
        "integrity": "ok",
        "seconds": started.elapsed().as_secs_f64(),
    }))
}

/// Re-opens, backfills, flushes and checks; returns how many were queued.
async fn recover_and_check(target: &Target, server: &Server) -> Result<usize, HarnessError> {
    let memory = open(target, server).await?;
    let queued = memory.backfill_vectors().await?;
    let dense = memory
        .dense_index()
        .ok_or_else(|| HarnessError::Usage("no dense index".into()))?
        .clone();
    dense.flush().await;
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    let scoped = memory.scope(AGENT, USER)?;
    let entries = scoped.list(&request).await?;
    let namespace = LongTermMemory::vector_namespace(scoped.scope());
    let ids: Vec<String> = entries.iter().map(|e| e.id.to_string()).collect();
    let hashes = dense.vectors().content_hashes(&namespace, &ids).await?;
    let model = dense.embedder().model_id().to_owned();
    for (entry, hash) in entries.iter().zip(&hashes) {
        ensure(
            hash.as_deref() == Some(content_hash(&model, &entry.search_text()).as_str()),
            || {
                format!(
                    "memory {} has {} vector",
                    entry.id,
                    if hash.is_some() { "a stale" } else { "no" }
                )
            },
        )?;
    }
    let filter = VectorFilter {
        namespace: Some(namespace),
        id_prefix: None,
    };
    let vectors = dense.vectors().count(&filter).await?;
    ensure(vectors == entries.len(), || {
        format!("{vectors} vectors for {} memories", entries.len())
    })?;
    dense.close().await;
    memory.close().await?;
    Ok(queued)
}
