//! The dialogue buffer: append, pending, mark applied, purge.

use std::time::Duration;

use crate::{CheckResult, ensure};
use agcore_memory::long_term::LongTermMemory;

/// Turns get increasing ids and keep their text; they stay pending per
/// session, oldest first (at most `limit`), until marked applied up to an
/// id (marking counts, and is idempotent); sessions and scopes are apart;
/// maintenance purges applied turns older than the retention and keeps
/// pending ones.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_dialogue_buffer(memory: LongTermMemory) -> CheckResult {
    let memory = memory.with_buffer_retention(chrono::Duration::zero());
    let m = memory.scope("agent", "u1")?;
    let other = memory.scope("agent", "u2")?;
    let odd = "s'; DROP TABLE dialogue_buffer; --";
    let t1 = m.buffer_append("s1", "hi", "hello").await?;
    let t2 = m.buffer_append("s1", "我喜欢绿茶", "记住了 🍵").await?;
    let t3 = m.buffer_append("s1", "third \"quoted\"", "ok").await?;
    m.buffer_append("s2", "other session", "ok").await?;
    m.buffer_append(odd, "odd session", "ok").await?;
    other.buffer_append("s1", "other scope", "ok").await?;
    ensure(t1.id < t2.id && t2.id < t3.id, || {
        format!("turn ids must increase: {}, {}, {}", t1.id, t2.id, t3.id)
    })?;
    let pending = m.buffer_pending("s1", 10).await?;
    ensure(pending == [t1.clone(), t2.clone(), t3.clone()], || {
        format!("pending turns must equal the appended ones, oldest first: {pending:?}")
    })?;
    let two = m.buffer_pending("s1", 2).await?;
    let ids: Vec<i64> = two.iter().map(|t| t.id).collect();
    ensure(ids == [t1.id, t2.id], || format!("limit 2 gave {ids:?}"))?;
    ensure(m.buffer_mark_applied("s1", t1.id - 1).await? == 0, || {
        "marking below the first turn must mark nothing".into()
    })?;
    let n = m.buffer_mark_applied("s1", t2.id).await?;
    ensure(n == 2, || format!("marked {n}, want 2"))?;
    ensure(m.buffer_mark_applied("s1", t2.id).await? == 0, || {
        "marking again must mark nothing".into()
    })?;
    let left: Vec<i64> = m
        .buffer_pending("s1", 10)
        .await?
        .iter()
        .map(|t| t.id)
        .collect();
    ensure(left == [t3.id], || {
        format!("left {left:?}, want [{}]", t3.id)
    })?;
    for (scope, session, want) in [
        (&m, "s2", 1),
        (&m, odd, 1),
        (&other, "s1", 1),
        (&m, "s3", 0),
    ] {
        let n = scope.buffer_pending(session, 10).await?.len();
        ensure(n == want, || {
            format!(
                "{:?} session {session:?}: {n} pending, want {want}",
                scope.scope()
            )
        })?;
    }
    ensure(
        other.buffer_mark_applied("s1", i64::MAX).await? == 1,
        || "the other scope's turn must be markable on its own".into(),
    )?;
    ensure(m.buffer_pending("s2", 10).await?.len() == 1, || {
        "marking in another scope touched this one".into()
    })?;
    tokio::time::sleep(Duration::from_millis(5)).await;
    let report = m.maintenance().await?;
    ensure(report.buffer_purged == 2, || {
        format!(
            "maintenance purged {} applied turns, want 2",
            report.buffer_purged
        )
    })?;
    let left = m.buffer_pending("s1", 10).await?.len();
    ensure(left == 1, || {
        format!("maintenance removed pending turns: {left} left")
    })
}
