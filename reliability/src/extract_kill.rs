//! SIGKILL during fact extraction: a child appends turns to the dialogue
//! buffer ("I own item K") and runs extraction every few turns with a
//! scripted model that answers one fact per buffered turn; it is killed at
//! a random moment — before, during or after an extraction applied its
//! facts and marked the turns. After every kill the parent re-opens the
//! memory and runs extraction until the buffer is empty. Then every turn
//! the child had acknowledged has exactly one fact, no fact names an item
//! that was never appended, and the buffer holds nothing pending.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::agent::long_term::{LongTermOptions, run_extraction};
use agcore::llm::{ChatStream, LlmError, LlmProvider, events_from_response};
use agcore::memory::long_term::{ArchivedFilter, ListRequest, ScopedMemory};
use agcore::types::{ChatMessage, ChatRequest, ChatResponse, FinishReason};
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::error::{HarnessError, ensure};
use crate::target::Target;

const AGENT: &str = "reliability";
const USER: &str = "extraction";
const SESSION: &str = "killed";
/// Turns between two extraction runs in the child.
const EXTRACT_EVERY: u64 = 4;

/// Answers an extraction request with one fact per `I own item K` of the
/// buffered turns it shows (each item once).
#[derive(Debug, Default)]
struct FactModel;

fn items_in(text: &str) -> Vec<u64> {
    let mut items: Vec<u64> = text
        .split("I own item ")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect();
    items.sort_unstable();
    items.dedup();
    items
}

fn fact_text(item: u64) -> String {
    format!("The user owns item {item}")
}

impl FactModel {
    fn answer(request: &ChatRequest) -> ChatResponse {
        let prompt: String = request.messages.iter().map(ChatMessage::text).collect();
        let facts: Vec<Value> = items_in(&prompt)
            .into_iter()
            .map(|item| {
                json!({"content": fact_text(item), "type": "user", "tags": [],
                       "confidence": 0.9, "replace": null})
            })
            .collect();
        let message = ChatMessage::assistant(json!({ "facts": facts }).to_string());
        ChatResponse::from_message("facts", message, FinishReason::Stop)
    }
}

#[async_trait]
impl LlmProvider for FactModel {
    fn name(&self) -> &str {
        "facts"
    }

    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(Self::answer(&request))
    }

    async fn chat_stream(&self, request: ChatRequest) -> Result<ChatStream, LlmError> {
        let events = events_from_response(&Self::answer(&request));
        Ok(Box::pin(futures::stream::iter(events.into_iter().map(Ok))))
    }
}

async fn extract(scoped: &ScopedMemory) -> Result<usize, HarnessError> {
    let mut options = LongTermOptions::new();
    options.extract.max_facts = 64;
    let report = run_extraction(
        scoped.clone(),
        SESSION.to_owned(),
        Arc::new(FactModel),
        "facts".to_owned(),
        options,
    )
    .await
    .map_err(|e| HarnessError::Child(format!("extraction: {e}")))?;
    Ok(report.turns)
}

/// The child: appends turns from item `first` on, prints `appended K` once
/// each is stored, and extracts every [`EXTRACT_EVERY`] turns, forever.
///
/// # Errors
/// A storage or extraction failure.
pub async fn child(target: &Target, first: u64) -> Result<(), HarnessError> {
    let scoped = target.long_term().await?.scope(AGENT, USER)?;
    println!("ready");
    for item in first.. {
        scoped
            .buffer_append(SESSION, &format!("I own item {item}."), "Noted.")
            .await?;
        println!("appended {item}");
        if (item + 1) % EXTRACT_EVERY == 0 {
            extract(&scoped).await?;
        }
    }
    Ok(())
}

/// The parent: `kills` rounds of start, random wait, SIGKILL, recover, check.
///
/// # Errors
/// [`HarnessError::Invariant`] when an acknowledged turn has no fact or
/// several, a fact names an item never appended, or turns stay pending.
pub async fn run(
    target: &Target,
    kills: usize,
    max_delay: Duration,
) -> Result<Value, HarnessError> {
    let exe = std::env::current_exe()?;
    let started = Instant::now();
    let mut next = 0_u64;
    let mut acknowledged: Vec<std::ops::Range<u64>> = Vec::new();
    let mut recovered_turns = 0;
    for _ in 0..kills {
        let mut child = tokio::process::Command::new(&exe)
            .args(["extract-child", "--url", &target.url()])
            .args(["--first", &next.to_string()])
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
        let watcher = tokio::spawn(async move {
            let mut last = None;
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(item) = line.strip_prefix("appended ") {
                    last = item.parse::<u64>().ok();
                }
            }
            last
        });
        let delay = rand::random_range(0..=max_delay.as_millis().max(1) as u64);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        child.start_kill()?;
        child.wait().await?;
        let acked = watcher
            .await
            .map_err(|e| HarnessError::Child(e.to_string()))?;
        target.integrity_check().await?;
        let scoped = target.long_term().await?.scope(AGENT, USER)?;
        while extract(&scoped).await? > 0 {
            recovered_turns += 1;
        }
        // Items `next..=acked` were acknowledged; the one after may or may
        // not have been stored when the kill came, and is never reused.
        let in_flight = acked.map_or(next, |a| a + 1);
        acknowledged.push(next..in_flight);
        check(&scoped, &acknowledged, in_flight).await?;
        next = in_flight + 1;
    }
    target.drop_fresh().await?;
    Ok(json!({
        "campaign": "kill-extraction",
        "backend": target.kind(),
        "kills": kills,
        "turns_acknowledged": acknowledged.iter().map(|r| r.end - r.start).sum::<u64>(),
        "extraction_runs_after_restart": recovered_turns,
        "turns_without_fact": 0,
        "doubled_facts": 0,
        "pending_after_recovery": 0,
        "integrity": "ok",
        "seconds": started.elapsed().as_secs_f64(),
    }))
}

/// Every acknowledged item has exactly one fact; a fact of any other item
/// must be of an item in flight at a kill (at most `highest`), once.
async fn check(
    scoped: &ScopedMemory,
    acknowledged: &[std::ops::Range<u64>],
    highest: u64,
) -> Result<(), HarnessError> {
    let pending = scoped.buffer_pending(SESSION, 1).await?;
    ensure(pending.is_empty(), || {
        format!("{} turns still pending", pending.len())
    })?;
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    let mut counts: HashMap<u64, usize> = HashMap::new();
    for entry in scoped.list(&request).await? {
        let item = entry
            .content
            .strip_prefix("The user owns item ")
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| HarnessError::Invariant(format!("unexpected fact {entry:?}")))?;
        *counts.entry(item).or_default() += 1;
    }
    for item in acknowledged.iter().flat_map(Clone::clone) {
        let n = counts.get(&item).copied().unwrap_or(0);
        ensure(n == 1, || format!("acknowledged item {item} has {n} facts"))?;
    }
    let unacknowledged: Vec<u64> = counts
        .keys()
        .copied()
        .filter(|item| !acknowledged.iter().any(|r| r.contains(item)))
        .collect();
    ensure(
        unacknowledged
            .iter()
            .all(|item| *item <= highest && acknowledged.iter().any(|r| r.end == *item)),
        || format!("facts of items never appended: {unacknowledged:?}"),
    )?;
    ensure(counts.values().all(|n| *n == 1), || {
        format!("doubled facts: {counts:?}")
    })
}
