//! Concurrent saves from many tasks: 32 tasks × 50 saves, a third of them the
//! same few texts written by every task; no entry lost, none doubled.
#![cfg(test)]

use agcore_memory_sqlite::SqliteLongTerm;
use std::collections::HashSet;
use std::sync::Arc;

use agcore_memory::long_term::{
    InMemoryLongTerm, ListRequest, LongTermMemory, MemoryType, NewMemory, content_key,
};

const TASKS: usize = 32;
const SAVES: usize = 50;
const SHARED: usize = 5;

fn text(task: usize, n: usize) -> String {
    if n.is_multiple_of(3) {
        // Shared texts, spelled differently by each task (case, spacing).
        let k = (n / 3) % SHARED;
        if task.is_multiple_of(2) {
            format!("Shared fact number {k}")
        } else {
            format!("  shared FACT   number {k} ")
        }
    } else {
        format!("Task {task} private fact {n} 任务{task}事实{n}")
    }
}

async fn hammer(name: &str, memory: LongTermMemory) {
    let memory = Arc::new(memory);
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let memory = Arc::clone(&memory);
        handles.push(tokio::spawn(async move {
            // Two users written concurrently: the second must stay apart.
            let user = if task % 4 == 3 { "other" } else { "u" };
            let m = memory.scope("agent", user).unwrap();
            let mut created = 0;
            for n in 0..SAVES {
                let out = m
                    .save(NewMemory::new(MemoryType::User, "", text(task, n)))
                    .await
                    .unwrap();
                created += usize::from(out.created);
                if n % 10 == 0 {
                    m.search("shared fact", 5).await.unwrap();
                }
            }
            (user, created)
        }));
    }
    let mut created_by_user = std::collections::HashMap::new();
    for h in handles {
        let (user, created) = h.await.unwrap();
        *created_by_user.entry(user).or_insert(0) += created;
    }
    let private_per_task = (0..SAVES).filter(|n| n % 3 != 0).count();
    let shared_used = (0..SAVES)
        .filter(|n| n % 3 == 0)
        .map(|n| (n / 3) % SHARED)
        .collect::<HashSet<_>>()
        .len();
    for (user, tasks) in [
        ("u", (0..TASKS).filter(|t| t % 4 != 3).count()),
        ("other", TASKS / 4),
    ] {
        let m = memory.scope("agent", user).unwrap();
        let all = m.list(&ListRequest::all()).await.unwrap();
        let expected = tasks * private_per_task + shared_used;
        assert_eq!(all.len(), expected, "{name}/{user}: entries");
        assert_eq!(
            created_by_user[user], expected,
            "{name}/{user}: `created` reported once per entry"
        );
        let keys: HashSet<String> = all.iter().map(|e| content_key(&e.content)).collect();
        assert_eq!(keys.len(), all.len(), "{name}/{user}: doubled entries");
        let ids: HashSet<i64> = all.iter().map(|e| e.id).collect();
        assert_eq!(ids.len(), all.len());
        for task in (0..TASKS).filter(|t| (t % 4 == 3) == (user == "other")) {
            for n in (0..SAVES).filter(|n| n % 3 != 0) {
                assert!(
                    keys.contains(&content_key(&text(task, n))),
                    "{name}/{user}: lost {task}/{n}"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_saves_lose_and_double_nothing() {
    hammer("in-memory", LongTermMemory::new(InMemoryLongTerm::new())).await;
    let dir = tempfile::tempdir().unwrap();
    hammer(
        "sqlite-file",
        LongTermMemory::new(SqliteLongTerm::open(dir.path().join("c.db")).await.unwrap()),
    )
    .await;
    // Two handles on the same file (separate connections) race too.
    let path = dir.path().join("two.db");
    let a = SqliteLongTerm::open(&path).await.unwrap();
    let b = SqliteLongTerm::open(&path).await.unwrap();
    let (ma, mb) = (LongTermMemory::new(a), LongTermMemory::new(b));
    let mut handles = Vec::new();
    for (i, m) in [ma.clone(), mb.clone(), ma.clone(), mb.clone()]
        .into_iter()
        .enumerate()
    {
        handles.push(tokio::spawn(async move {
            let s = m.scope("agent", "u").unwrap();
            for n in 0..40 {
                s.save(NewMemory::new(
                    MemoryType::User,
                    "",
                    format!("fact {}", n % 20 + 100 * (i % 2)),
                ))
                .await
                .unwrap();
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    let all = ma
        .scope("agent", "u")
        .unwrap()
        .list(&ListRequest::all())
        .await
        .unwrap();
    assert_eq!(all.len(), 40, "two connections");
}
