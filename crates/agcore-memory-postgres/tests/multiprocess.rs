//! Eight OS processes save 2,000 long-term memories and 2,000 store items
//! each into one PostgreSQL database at once (this test binary re-run as
//! children): every private memory and item is there exactly once, the 50
//! texts (ids) that every process saves are merged into one entry (item)
//! each, and long-term ids are unique.
#![cfg(test)]

use crate::support;

use std::collections::HashSet;
use std::process::{Command, Stdio};

use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory};
use agcore_memory::{MemoryFilter, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_postgres::PostgresDatabase;

const PROCESSES: usize = 8;
const SAVES: usize = 2_000;
const SHARED: usize = 50;
const CHILD_DB_ENV: &str = "AGCORE_MULTIPROCESS_SCHEMA";
const CHILD_ID_ENV: &str = "AGCORE_MULTIPROCESS_CHILD";

/// The store item of save `n` of `process`: every 40th is a shared id.
fn item(process: usize, n: usize) -> MemoryItem {
    if n.is_multiple_of(SAVES / SHARED) {
        MemoryItem::new(
            format!("shared:{}", n / (SAVES / SHARED)),
            format!("shared item from process {process}"),
        )
    } else {
        MemoryItem::new(format!("p{process}:{n}"), text(process, n))
    }
}

/// Every 40th save of each process is one of the shared texts.
fn text(process: usize, n: usize) -> String {
    if n.is_multiple_of(SAVES / SHARED) {
        format!("Shared fact number {}", n / (SAVES / SHARED))
    } else {
        format!("Process {process} private fact {n} 进程{process}事实{n}")
    }
}

async fn open(url: &str, schema: &str) -> PostgresDatabase {
    PostgresDatabase::builder()
        .schema(schema)
        .pool_size(2)
        .open(url)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "child process of `eight_processes_lose_and_double_nothing`"]
async fn multiprocess_child_writer() {
    let (Ok(schema), Ok(id)) = (std::env::var(CHILD_DB_ENV), std::env::var(CHILD_ID_ENV)) else {
        return;
    };
    let Some(url) = support::url() else { return };
    let process: usize = id.parse().unwrap();
    let db = open(&url, &schema).await;
    let (memory, store) = (LongTermMemory::new(db.long_term()), db.store());
    let scope = memory.scope("agent", "shared-user").unwrap();
    for n in 0..SAVES {
        scope
            .save(NewMemory::new(MemoryType::User, "fact", text(process, n)))
            .await
            .unwrap();
        store.save(item(process, n)).await.unwrap();
    }
    memory.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_processes_lose_and_double_nothing() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("multi");
    // Create and migrate the schema first, as a deployment would.
    open(&url, &schema).await;

    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|process| {
            Command::new(&exe)
                .args([
                    "--exact",
                    &agcore_memory_testkit::libtest_name!("multiprocess_child_writer"),
                    "--ignored",
                    "--test-threads=1",
                ])
                .env(CHILD_DB_ENV, &schema)
                .env(CHILD_ID_ENV, process.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a child process failed");
    }

    let db = open(&url, &schema).await;
    let memory = LongTermMemory::new(db.long_term());
    let scope = memory.scope("agent", "shared-user").unwrap();
    let entries = scope.list(&ListRequest::all()).await.unwrap();
    let private = PROCESSES * (SAVES - SHARED);
    assert_eq!(entries.len(), private + SHARED);
    let ids: HashSet<i64> = entries.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), entries.len(), "ids are unique");
    let contents: HashSet<&str> = entries.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents.len(), entries.len(), "no content doubled");
    for process in 0..PROCESSES {
        for n in (0..SAVES).filter(|n| !n.is_multiple_of(SAVES / SHARED)) {
            assert!(
                contents.contains(text(process, n).as_str()),
                "lost {process}/{n}"
            );
        }
    }
    for k in 0..SHARED {
        // Saved by all eight processes, stored once.
        assert!(contents.contains(format!("Shared fact number {k}").as_str()));
    }

    let store = db.store();
    assert_eq!(
        store.count(&MemoryFilter::all()).await.unwrap(),
        private + SHARED
    );
    let items = store.list(&MemoryFilter::all()).await.unwrap();
    assert_eq!(items.len(), private + SHARED);
    for item in &items {
        let expected = match item.id.strip_prefix("shared:") {
            Some(_) => item.content.starts_with("shared item from process "),
            None => {
                let (process, n) = item.id.trim_start_matches('p').split_once(':').unwrap();
                item.content == text(process.parse().unwrap(), n.parse().unwrap())
            }
        };
        assert!(expected, "{} holds {:?}", item.id, item.content);
    }
    let hits: HashSet<String> = store
        .search("private fact 1999", &SearchOptions::top_k(20))
        .await
        .unwrap()
        .into_iter()
        .map(|hit| hit.item.id)
        .filter(|id| id.ends_with(":1999"))
        .collect();
    assert_eq!(hits.len(), PROCESSES, "{hits:?}");
    support::drop_schemas(&url, "multi").await;
}
