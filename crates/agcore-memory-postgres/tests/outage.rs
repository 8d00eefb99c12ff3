//! A server outage: saves run while a private PostgreSQL server is stopped
//! and started again. Errors during the outage are recoverable
//! (`MemoryError::Unavailable`), the same store object recovers without being
//! reopened, and every save acknowledged before or after is there.
#![cfg(test)]

mod support;

use std::time::Duration;

use agcore_memory::{MemoryError, MemoryFilter, MemoryItem, MemoryStore};
use agcore_memory_postgres::PostgresDatabase;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_fail_recoverably_during_an_outage_and_resume_after() {
    // Runs only where the test servers are configured (CI starts them).
    let Some(_) = support::url() else { return };
    let (server, url) = support::Instance::start("postgres");
    let db = PostgresDatabase::builder()
        .connect_timeout(Duration::from_secs(2))
        .wait_timeout(Duration::from_secs(2))
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
