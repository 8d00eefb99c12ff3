//! Concurrent writers over several processes: `processes` OS processes run
//! `writers` tasks in all, each saving `saves` long-term memories. Every
//! 100th save of every writer is one of the texts all writers share, which
//! must be merged into one entry; the others are private. Afterwards every
//! private text must be there exactly once, each shared text once, ids
//! unique, and the database must pass its integrity check.

use std::collections::{HashMap, HashSet};
use std::process::Stdio;
use std::time::Instant;

use agcore::memory::long_term::{ArchivedFilter, ListRequest, MemoryType, NewMemory};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::error::{HarnessError, ensure};
use crate::target::{Target, with_retries};

/// One writer in `SHARED_EVERY` saves a shared text.
pub const SHARED_EVERY: usize = 100;
/// Private texts are spread over this many users of one agent.
const USERS: usize = 8;
/// Agent id of every scope written.
const AGENT: &str = "reliability";

/// What the campaign asks for.
#[derive(Debug, Clone, Copy)]
pub struct WritersPlan {
    /// OS processes.
    pub processes: usize,
    /// Concurrent writer tasks over all processes.
    pub writers: usize,
    /// Saves per writer.
    pub saves: usize,
}

fn private_text(writer: usize, n: usize) -> String {
    format!("writer {writer} fact {n}: the meeting moved to room {n} 写入第{n}条")
}

fn shared_text(k: usize) -> String {
    format!("shared fact {k}: every writer knows this 共享{k}")
}

fn user_of(writer: usize) -> String {
    format!("user-{}", writer % USERS)
}

/// The child side: writers `first..first + count`, each saving `saves`
/// memories. Returns the number of recoverable errors retried.
///
/// # Errors
/// A save that failed with an error that is not recoverable, or kept
/// failing.
pub async fn child(
    target: &Target,
    first: usize,
    count: usize,
    saves: usize,
) -> Result<usize, HarnessError> {
    let memory = target.long_term().await?;
    let mut tasks = tokio::task::JoinSet::new();
    for writer in first..first + count {
        let memory = memory.clone();
        tasks.spawn(async move {
            let private = memory.scope(AGENT, user_of(writer))?;
            let shared = memory.scope(AGENT, "shared")?;
            let mut retries = 0;
            for n in 0..saves {
                let (scope, text) = if n % SHARED_EVERY == 0 {
                    (&shared, shared_text(n / SHARED_EVERY))
                } else {
                    (&private, private_text(writer, n))
                };
                let ((), r) = with_retries(200, || async {
                    scope
                        .save(NewMemory::new(MemoryType::Project, "fact", text.clone()))
                        .await
                        .map(|_| ())
                })
                .await?;
                retries += r;
            }
            Ok::<usize, HarnessError>(retries)
        });
    }
    let mut retries = 0;
    while let Some(done) = tasks.join_next().await {
        retries += done.map_err(|e| HarnessError::Child(e.to_string()))??;
    }
    memory.close().await?;
    Ok(retries)
}

/// The parent side: prepares the database, starts the processes, waits,
/// then checks every invariant. Returns the report.
///
/// # Errors
/// [`HarnessError::Invariant`] for lost or doubled memories, duplicate ids
/// or a failed integrity check; process failures.
pub async fn run(target: &Target, plan: WritersPlan) -> Result<Value, HarnessError> {
    if plan.processes == 0 || plan.writers < plan.processes || plan.saves == 0 {
        return Err(HarnessError::Usage(
            "need processes ≥ 1, writers ≥ processes and saves ≥ 1".into(),
        ));
    }
    // Create and migrate first, as a deployment would.
    target.long_term().await?.close().await?;
    let exe = std::env::current_exe()?;
    let started = Instant::now();
    let mut children = Vec::new();
    let per = plan.writers / plan.processes;
    for p in 0..plan.processes {
        let first = p * per;
        let count = if p + 1 == plan.processes {
            plan.writers - first
        } else {
            per
        };
        let child = tokio::process::Command::new(&exe)
            .args(["writer-child", "--url", &target.url()])
            .args(["--first", &first.to_string(), "--count", &count.to_string()])
            .args(["--saves", &plan.saves.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        children.push(child);
    }
    let mut retries = 0_usize;
    for mut child in children {
        let mut out = String::new();
        if let Some(stdout) = child.stdout.as_mut() {
            stdout.read_to_string(&mut out).await?;
        }
        let status = child.wait().await?;
        if !status.success() {
            return Err(HarnessError::Child(format!(
                "a writer process exited with {status}"
            )));
        }
        retries += out.trim().parse::<usize>().unwrap_or(0);
    }
    let seconds = started.elapsed().as_secs_f64();
    let checked = verify(target, plan).await?;
    target.integrity_check().await?;
    target.drop_fresh().await?;
    let total = plan.writers * plan.saves;
    Ok(json!({
        "campaign": "writers",
        "backend": target.kind(),
        "processes": plan.processes,
        "writers": plan.writers,
        "saves_per_writer": plan.saves,
        "saves": total,
        "seconds": seconds,
        "saves_per_second": total as f64 / seconds.max(1e-9),
        "retried_recoverable_errors": retries,
        "entries": checked,
        "lost": 0,
        "doubled": 0,
        "integrity": "ok",
    }))
}

/// Checks what the writers left; returns the number of entries.
async fn verify(target: &Target, plan: WritersPlan) -> Result<usize, HarnessError> {
    let memory = target.long_term().await?;
    let mut expected: HashMap<String, HashSet<String>> = HashMap::new();
    for writer in 0..plan.writers {
        let set = expected.entry(user_of(writer)).or_default();
        for n in (0..plan.saves).filter(|n| n % SHARED_EVERY != 0) {
            set.insert(private_text(writer, n));
        }
    }
    let shared: HashSet<String> = (0..plan.saves.div_ceil(SHARED_EVERY))
        .map(shared_text)
        .collect();
    expected.insert("shared".to_owned(), shared);
    let mut ids = HashSet::new();
    let mut entries = 0;
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    for (user, want) in &expected {
        let got = memory.scope(AGENT, user.clone())?.list(&request).await?;
        let mut seen = HashSet::new();
        for entry in &got {
            ensure(ids.insert(entry.id), || {
                format!("id {} appears twice", entry.id)
            })?;
            ensure(seen.insert(entry.content.clone()), || {
                format!("{user}: `{}` is stored twice", entry.content)
            })?;
            ensure(want.contains(&entry.content), || {
                format!("{user}: unexpected entry `{}`", entry.content)
            })?;
        }
        ensure(seen.len() == want.len(), || {
            format!(
                "{user}: {} of {} memories are there (lost {})",
                seen.len(),
                want.len(),
                want.len() - seen.len()
            )
        })?;
        entries += got.len();
    }
    memory.close().await?;
    Ok(entries)
}
