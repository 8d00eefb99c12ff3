//! A server outage: saves run while a private MariaDB server is stopped
//! and started again. Errors during the outage are recoverable
//! (`MemoryError::Unavailable`), the same store object recovers without being
//! reopened, and every save acknowledged before or after is there.
#![cfg(test)]

use crate::support;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use agcore_memory::{MemoryError, MemoryFilter, MemoryItem, MemoryStore};
use agcore_memory_mysql::MysqlDatabase;

/// One private MariaDB server at a time: two starting at once on a loaded
/// two-core machine made one fail to start.
static ONE_SERVER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_fail_recoverably_during_an_outage_and_resume_after() {
    let _one = ONE_SERVER.lock().await;
    // Runs only where the test servers are configured (CI starts them).
    let Some(_) = support::url() else { return };
    let (server, url) = support::Instance::start("mariadb");
    let db = MysqlDatabase::builder()
        .acquire_timeout(Duration::from_secs(2))
        .pool_size(2)
        .open(&url)
        .await
        .unwrap();
    let store = db.store();
    let mut acked = Vec::new();
    for i in 0..50 {
        let id = format!("before:{i}");
        store
            .save(MemoryItem::new(
                id.clone(),
                format!("saved before the outage {i}"),
            ))
            .await
            .unwrap();
        acked.push(id);
    }

    server.stop();
    for i in 0..5 {
        let err = store
            .save(MemoryItem::new(format!("during:{i}"), "the server is down"))
            .await
            .unwrap_err();
        assert!(matches!(err, MemoryError::Unavailable(_)), "{err}");
        assert!(err.is_recoverable());
        let err = store.get("before:1").await.unwrap_err();
        assert!(err.is_recoverable(), "{err}");
    }

    server.resume();
    // The pool reconnects; the first calls may still see closed connections.
    let mut recovered = false;
    for _ in 0..50 {
        match store
            .save(MemoryItem::new("after:first", "the server is back"))
            .await
        {
            Ok(()) => {
                recovered = true;
                break;
            }
            Err(err) => {
                assert!(err.is_recoverable(), "{err}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    assert!(
        recovered,
        "the store did not recover after the server came back"
    );
    acked.push("after:first".to_owned());
    for i in 0..50 {
        let id = format!("after:{i}");
        store
            .save(MemoryItem::new(
                id.clone(),
                format!("saved after the outage {i}"),
            ))
            .await
            .unwrap();
        acked.push(id);
    }

    let stored: Vec<String> = store
        .list(&MemoryFilter::all())
        .await
        .unwrap()
        .into_iter()
        .map(|item| item.id)
        .collect();
    for id in &acked {
        assert!(stored.contains(id), "acknowledged save {id} is missing");
    }
    assert!(stored.iter().all(|id| !id.starts_with("during:")));
}

/// A writer saves in a loop while the server is killed (SIGKILL) and started
/// again: every error meanwhile is recoverable, the writer carries on with
/// the same store, and every acknowledged save is there afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_loop_survives_a_killed_server() {
    let _one = ONE_SERVER.lock().await;
    let Some(_) = support::url() else { return };
    let (server, url) = support::Instance::start("mariadb");
    let db = MysqlDatabase::builder()
        .acquire_timeout(Duration::from_secs(2))
        .pool_size(2)
        .open(&url)
        .await
        .unwrap();
    let store = db.store();
    let acked = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, acked, stop) = (store.clone(), Arc::clone(&acked), Arc::clone(&stop));
        tokio::spawn(async move {
            let (mut ids, mut errors) = (Vec::new(), Vec::new());
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let id = format!("loop:{i}");
                i += 1;
                match store
                    .save(MemoryItem::new(
                        id.clone(),
                        format!("saved in a loop {i} 循环"),
                    ))
                    .await
                {
                    Ok(()) => {
                        ids.push(id);
                        acked.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(err) => {
                        errors.push(err);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            }
            (ids, errors)
        })
    };
    let wait_for = |target: usize| {
        let acked = Arc::clone(&acked);
        async move {
            for _ in 0..600 {
                if acked.load(Ordering::SeqCst) >= target {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            panic!("the writer did not reach {target} acknowledged saves");
        }
    };
    wait_for(100).await;
    let server = tokio::task::spawn_blocking(move || {
        server.kill();
        std::thread::sleep(Duration::from_secs(1));
        server.resume();
        server
    })
    .await
    .unwrap();
    let after = acked.load(Ordering::SeqCst);
    wait_for(after + 100).await;
    stop.store(true, Ordering::SeqCst);
    let (ids, errors) = writer.await.unwrap();

    assert!(!errors.is_empty(), "the writer saw the outage");
    for err in &errors {
        assert!(err.is_recoverable(), "{err}");
        assert!(matches!(err, MemoryError::Unavailable(_)), "{err}");
    }
    let stored: HashSet<String> = store
        .list(&MemoryFilter::all())
        .await
        .unwrap()
        .into_iter()
        .map(|item| item.id)
        .collect();
    for id in &ids {
        assert!(stored.contains(id), "acknowledged save {id} is missing");
    }
    drop(server);
}
