//! A bounded soak: mixed agent turns (tool calls to `memory_save` and
//! `memory_recall`, prefetch into `<memory-context>`, fact extraction,
//! plain answers) on [`SoakModel`] with long-term memory in SQLite, for a
//! fixed time or number of turns. Users come and go: each conversation
//! ends with `AgentSession::finish` after `turns_per_session` turns. The
//! process's resident memory, open file descriptors and live Tokio tasks are
//! sampled after a warm-up and at the end; they must stay flat.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::agent::ChatAgent;
use agcore::memory::long_term::LongTermMemory;
use serde_json::{Value, json};

use crate::error::{HarnessError, ensure};
use crate::soak_model::SoakModel;

/// How long to run.
#[derive(Debug, Clone, Copy)]
pub enum Length {
    /// Wall-clock time.
    Time(Duration),
    /// Number of turns.
    Turns(u64),
}

/// What the process holds at one moment.
#[derive(Debug, Clone, Copy)]
struct Sample {
    rss_kib: u64,
    fds: usize,
    tasks: usize,
}

fn sample() -> Sample {
    let rss_kib = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0);
    let fds = std::fs::read_dir("/proc/self/fd")
        .map(Iterator::count)
        .unwrap_or(0);
    let tasks = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    Sample {
        rss_kib,
        fds,
        tasks,
    }
}

/// Runs the soak with the database in `dir`.
///
/// Flat means: after the warm-up (a tenth of the run), resident memory grows
/// by at most `max_rss_growth_kib`, and open files and live tasks are back
/// to their warm-up counts (± 2) at the end.
///
/// # Errors
/// A failed turn; [`HarnessError::Invariant`] when a resource grows.
pub async fn run(
    dir: &Path,
    length: Length,
    turns_per_session: u64,
    max_rss_growth_kib: u64,
) -> Result<Value, HarnessError> {
    let storage = agcore::memory::open(&dir.join("soak.db").display().to_string()).await?;
    let memory: LongTermMemory = storage.long_term()?;
    let model = Arc::new(SoakModel::default());
    let agent = ChatAgent::builder()
        .shared_provider(Arc::clone(&model) as Arc<dyn agcore::llm::LlmProvider>)
        .instructions("You are a helpful assistant with long-term memory.")
        .long_term_memory(memory.clone())
        .build()
        .await
        .map_err(|e| HarnessError::Child(format!("building the agent: {e}")))?;
    let started = Instant::now();
    let warm_up = match length {
        Length::Time(d) => Length::Time(d / 10),
        Length::Turns(n) => Length::Turns(n / 10),
    };
    let done = |turns: u64, length: Length| match length {
        Length::Time(d) => started.elapsed() >= d,
        Length::Turns(n) => turns >= n,
    };
    let mut turns = 0_u64;
    let mut sessions = 0_u64;
    let mut warm: Option<(Sample, u64)> = None;
    let mut peak_rss = 0;
    while !done(turns, length) {
        let mut session = agent
            .session(format!("user-{}", sessions % 50))
            .map_err(|e| HarnessError::Usage(format!("session user id: {e}")))?;
        for t in 0..turns_per_session {
            session
                .submit_turn(format!(
                    "Turn {t}: how did the build on runner {} go?",
                    t % 7
                ))
                .await
                .map_err(|e| HarnessError::Child(format!("turn {turns}: {e}")))?;
            turns += 1;
        }
        session
            .finish()
            .await
            .map_err(|e| HarnessError::Child(format!("finishing session {sessions}: {e}")))?;
        drop(session);
        sessions += 1;
        let now = sample();
        peak_rss = peak_rss.max(now.rss_kib);
        if warm.is_none() && done(turns, warm_up) {
            warm = Some((now, turns));
        }
    }
    agent
        .finish()
        .await
        .map_err(|e| HarnessError::Child(format!("finishing the agent: {e}")))?;
    let end = sample();
    let (start, start_turns) = warm.unwrap_or((end, turns));
    let seconds = started.elapsed().as_secs_f64();
    let growth = end.rss_kib.saturating_sub(start.rss_kib);
    let (requests, extractions, tool_calls) = model.counts();
    let mut memories = 0;
    for scope in memory.scopes().await? {
        memories += memory
            .scope(scope.agent(), scope.user())?
            .list(&agcore::memory::long_term::ListRequest::all())
            .await?
            .len();
    }
    let report = json!({
        "campaign": "soak",
        "backend": "sqlite",
        "seconds": seconds,
        "turns": turns,
        "sessions": sessions,
        "turns_per_second": turns as f64 / seconds.max(1e-9),
        "warm_up_turns": start_turns,
        "rss_kib_after_warm_up": start.rss_kib,
        "rss_kib_end": end.rss_kib,
        "rss_kib_peak": peak_rss,
        "open_files_after_warm_up": start.fds,
        "open_files_end": end.fds,
        "tasks_after_warm_up": start.tasks,
        "tasks_end": end.tasks,
        "model_requests": requests,
        "fact_extractions": extractions,
        "tool_calls": tool_calls,
        "memories_at_end": memories,
    });
    ensure(extractions > 0 && tool_calls > 0 && memories > 0, || {
        format!("the soak did not exercise tools, extraction and memory: {report}")
    })?;
    ensure(growth <= max_rss_growth_kib, || {
        format!("resident memory grew by {growth} KiB (limit {max_rss_growth_kib}): {report}")
    })?;
    ensure(end.fds <= start.fds + 2, || {
        format!("open files grew: {report}")
    })?;
    ensure(end.tasks <= start.tasks + 2, || {
        format!("live tasks grew: {report}")
    })?;
    memory.close().await?;
    Ok(report)
}
