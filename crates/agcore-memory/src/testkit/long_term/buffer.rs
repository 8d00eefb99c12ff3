//! The dialogue buffer, backup import and concurrent saves.

use std::collections::HashSet;

use chrono::SubsecRound;

use crate::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory, apply};
use crate::testkit::{CheckFailure, CheckResult, ensure};

/// Turns stay pending per session, oldest first, until marked applied up
/// to an id; sessions and scopes are apart.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_dialogue_buffer(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let other = memory.scope("agent", "u2")?;
    let t1 = m.buffer_append("s1", "hi", "hello").await?;
    let t2 = m.buffer_append("s1", "我喜欢绿茶", "记住了").await?;
    m.buffer_append("s2", "other session", "ok").await?;
    other.buffer_append("s1", "other scope", "ok").await?;
    let pending = m.buffer_pending("s1", 10).await?;
    let ids: Vec<i64> = pending.iter().map(|t| t.id).collect();
    ensure(ids == [t1.id, t2.id], || format!("pending {ids:?}"))?;
    ensure(
        pending.get(1).is_some_and(|t| t.user_query == "我喜欢绿茶"),
        || "turn text changed".into(),
    )?;
    let n = m.buffer_mark_applied("s1", t1.id).await?;
    ensure(n == 1, || format!("marked {n}"))?;
    let left: Vec<i64> = m
        .buffer_pending("s1", 10)
        .await?
        .iter()
        .map(|t| t.id)
        .collect();
    ensure(left == [t2.id], || format!("left {left:?}"))?;
    ensure(m.buffer_pending("s2", 10).await?.len() == 1, || {
        "session s2 was touched".into()
    })?;
    ensure(other.buffer_pending("s1", 10).await?.len() == 1, || {
        "the other scope was touched".into()
    })
}

/// Import keeps every field but the id, skips texts already in the scope
/// (reporting the stored entry), and writes nothing when an entry is invalid.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_import(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let existing = m
        .save(NewMemory::new(MemoryType::User, "tea", "Likes green tea"))
        .await?
        .entry;
    let rules = *memory.rules();
    // Stored times have microseconds, as `LongTermMemory` makes them.
    let when = (chrono::Utc::now() - chrono::Duration::days(3)).trunc_subsecs(6);
    let mut a = apply::new_entry(
        m.scope(),
        NewMemory::new(MemoryType::Project, "p", "Imported project note").with_tags(["x"]),
        &rules,
        when,
    );
    a.weight = 2.5;
    a.use_count = 7;
    a.id = 424_242;
    let dup = apply::new_entry(
        m.scope(),
        NewMemory::new(MemoryType::User, "tea", "likes GREEN tea"),
        &rules,
        when,
    );
    let outcomes = m.import_entries(vec![a.clone(), dup]).await?;
    let (first, second) = match outcomes.as_slice() {
        [first, second] => (first, second),
        other => {
            return Err(CheckFailure(format!(
                "{} outcomes for 2 entries",
                other.len()
            )));
        }
    };
    ensure(first.created && first.entry.id != 424_242, || {
        "an imported entry gets a new id".into()
    })?;
    let stored = m.get(first.entry.id).await?;
    let same = stored.as_ref().is_some_and(|s| {
        s.weight == a.weight
            && s.use_count == 7
            && s.created_at == a.created_at
            && s.tags == a.tags
            && s.content == a.content
    });
    ensure(same, || format!("imported fields changed: {stored:?}"))?;
    ensure(!second.created && second.entry.id == existing.id, || {
        "a duplicate import reports the stored entry".into()
    })?;
    let before = m.list(&ListRequest::all()).await?.len();
    let mut bad = apply::new_entry(
        m.scope(),
        NewMemory::new(MemoryType::User, "ok", "A fine entry"),
        &rules,
        when,
    );
    bad.weight = f64::NAN;
    let good = apply::new_entry(
        m.scope(),
        NewMemory::new(MemoryType::User, "ok2", "Another fine entry"),
        &rules,
        when,
    );
    let result = m.import_entries(vec![good, bad]).await;
    ensure(result.is_err(), || {
        "an invalid entry must fail the import".into()
    })?;
    let after = m.list(&ListRequest::all()).await?.len();
    ensure(after == before, || {
        format!("a failed import wrote entries: {before} -> {after}")
    })
}

/// 8 tasks save 25 texts each at once, 5 of them shared by every task:
/// every private text is there once, each shared text once, ids unique.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_concurrent_saves(memory: LongTermMemory) -> CheckResult {
    const TASKS: usize = 8;
    const SAVES: usize = 25;
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let m = memory.scope("agent", "shared")?;
        handles.push(tokio::spawn(async move {
            for n in 0..SAVES {
                let text = if n % 5 == 0 {
                    format!("Shared fact {}", n / 5)
                } else {
                    format!("Task {task} fact {n} 任务{task}")
                };
                m.save(NewMemory::new(MemoryType::User, "", text)).await?;
            }
            Ok::<_, crate::MemoryError>(())
        }));
    }
    for handle in handles {
        handle
            .await
            .map_err(|e| CheckFailure(format!("a saving task failed: {e}")))??;
    }
    let entries = memory
        .scope("agent", "shared")?
        .list(&ListRequest::all())
        .await?;
    let want = TASKS * (SAVES - SAVES / 5) + SAVES / 5;
    ensure(entries.len() == want, || {
        format!("{} entries, want {want}", entries.len())
    })?;
    let ids: HashSet<i64> = entries.iter().map(|e| e.id).collect();
    let texts: HashSet<&str> = entries.iter().map(|e| e.content.as_str()).collect();
    ensure(ids.len() == want && texts.len() == want, || {
        "ids or texts doubled".into()
    })
}
