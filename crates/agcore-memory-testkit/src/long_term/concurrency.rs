//! Concurrent writers: saves and uses from several tasks at once.

use std::collections::HashSet;

use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::MemoryError;
use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory};

/// Waits for every task; a panicked or failed task fails the check.
async fn join_all(handles: Vec<tokio::task::JoinHandle<Result<(), MemoryError>>>) -> CheckResult {
    for handle in handles {
        handle
            .await
            .map_err(|e| CheckFailure(format!("a task failed: {e}")))??;
    }
    Ok(())
}

/// 8 tasks save 25 texts each at once into one scope, 5 of them shared by
/// every task (differing in case and spacing), and each task also saves
/// into a scope of its own: every private text is there once, each shared
/// text once, ids unique, and every task's own scope holds exactly its
/// entries.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_concurrent_saves(memory: LongTermMemory) -> CheckResult {
    const TASKS: usize = 8;
    const SAVES: usize = 25;
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let m = memory.scope("agent", "shared")?;
        let own = memory.scope("agent", format!("task-{task}"))?;
        handles.push(tokio::spawn(async move {
            for n in 0..SAVES {
                let text = if n % 5 == 0 {
                    let shared = format!("Shared fact {}", n / 5);
                    if task % 2 == 0 {
                        shared
                    } else {
                        format!(" {} ", shared.to_uppercase())
                    }
                } else {
                    format!("Task {task} fact {n} 任务{task}")
                };
                m.save(NewMemory::new(MemoryType::User, "", text)).await?;
                own.save(NewMemory::new(
                    MemoryType::User,
                    "",
                    format!("Own note {n}"),
                ))
                .await?;
            }
            Ok(())
        }));
    }
    join_all(handles).await?;
    let entries = memory
        .scope("agent", "shared")?
        .list(&ListRequest::all())
        .await?;
    let want = TASKS * (SAVES - SAVES / 5) + SAVES / 5;
    ensure(entries.len() == want, || {
        format!("{} entries, want {want}", entries.len())
    })?;
    let ids: HashSet<i64> = entries.iter().map(|e| e.id).collect();
    let keys: HashSet<String> = entries
        .iter()
        .map(|e| agcore_memory::long_term::content_key(&e.content))
        .collect();
    ensure(ids.len() == want && keys.len() == want, || {
        "ids or texts doubled".into()
    })?;
    for task in 0..TASKS {
        let n = memory
            .scope("agent", format!("task-{task}"))?
            .list(&ListRequest::all())
            .await?
            .len();
        ensure(n == SAVES, || {
            format!("task-{task}'s scope holds {n}, want {SAVES}")
        })?;
    }
    Ok(())
}

/// 8 tasks save 3 texts each into 32 new scopes, in the same order and at
/// once, so every scope's row is created while the other tasks' first
/// saves of that scope wait and the first task's next saves run: no save
/// fails (a backend whose creation of the scope row locks it against the
/// writers that already use it can deadlock here) and every scope holds
/// the 24 texts.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_concurrent_new_scopes(memory: LongTermMemory) -> CheckResult {
    const TASKS: usize = 8;
    const SCOPES: usize = 32;
    const SAVES: usize = 3;
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let memory = memory.clone();
        handles.push(tokio::spawn(async move {
            for s in 0..SCOPES {
                let scope = memory.scope("agent", format!("new-{s}"))?;
                for n in 0..SAVES {
                    let text = format!("Scope {s} note {n} from task {task}");
                    scope
                        .save(NewMemory::new(MemoryType::Project, "", text))
                        .await?;
                }
            }
            Ok(())
        }));
    }
    join_all(handles).await?;
    for s in 0..SCOPES {
        let n = memory
            .scope("agent", format!("new-{s}"))?
            .list(&ListRequest::all())
            .await?
            .len();
        ensure(n == TASKS * SAVES, || {
            format!("scope new-{s} holds {n} entries, want {}", TASKS * SAVES)
        })?;
    }
    let scopes = memory.scopes().await?.len();
    ensure(scopes == SCOPES, || {
        format!("{scopes} scopes listed, want {SCOPES}")
    })?;
    Ok(())
}

/// 8 tasks record 10 uses each of the same two entries at once: no use is
/// lost — use counts and usage-log rows are exact.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_concurrent_use(memory: LongTermMemory) -> CheckResult {
    const TASKS: usize = 8;
    const USES: usize = 10;
    let m = memory.scope("agent", "u1")?;
    let a = m
        .save(NewMemory::new(MemoryType::User, "", "Likes green tea"))
        .await?
        .entry;
    let b = m
        .save(NewMemory::new(MemoryType::User, "", "Walks the dog"))
        .await?
        .entry;
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let m = m.clone();
        handles.push(tokio::spawn(async move {
            for n in 0..USES {
                let session = format!("session-{task}");
                m.record_use(&session, &format!("query {n}"), &[a.id, b.id], n % 2 == 0)
                    .await?;
            }
            Ok(())
        }));
    }
    join_all(handles).await?;
    let total = TASKS * USES;
    for id in [a.id, b.id] {
        let e = m.get(id).await?;
        ensure(
            e.as_ref()
                .is_some_and(|e| usize::try_from(e.use_count).ok() == Some(total)),
            || format!("use count of {id} after {total} concurrent uses: {e:?}"),
        )?;
        let rows = m.usage_log(id).await?.len();
        ensure(rows == total, || {
            format!("{rows} usage rows for {id}, want {total}")
        })?;
    }
    Ok(())
}
