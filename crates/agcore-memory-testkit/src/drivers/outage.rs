//! A server outage: a private server of the driver
//! ([`PrivateServer`]) is stopped or killed and started again while its
//! store saves. Errors meanwhile are recoverable
//! ([`MemoryError::Unavailable`]), the same store object recovers without
//! being reopened, and every save acknowledged before or after is there.
//!
//! One private server at a time per test process: two starting at once on a
//! loaded two-core machine made one fail to start.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use agcore_memory::{MemoryError, MemoryFilter, MemoryItem, MemoryStore};

use super::{PrivateServer, ServerHarness, or_fail, report};
use crate::{CheckFailure, CheckResult, ensure};

/// One private server at a time in this process.
static ONE_SERVER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Saves 50 items into a private server, stops it cleanly, checks that 5
/// saves and 5 reads fail with recoverable errors (the saves with
/// [`MemoryError::Unavailable`]), starts it again, retries a save until it
/// succeeds (up to 50 tries, 200 ms apart, every error recoverable), saves
/// 50 more, and finds every acknowledged save and none of the failed ones.
///
/// Returns early when the driver's shared server is not configured (fails
/// under `CI=true`): the private server needs the same installation.
///
/// # Panics
/// With the unexpected error, "the store did not recover after the server
/// came back", "acknowledged save {id} is missing", "a failed save was
/// stored", or the script's failure.
pub async fn saves_fail_recoverably_during_an_outage<H: ServerHarness>(harness: &H) {
    let _one = ONE_SERVER.lock().await;
    // Runs only where the test servers are configured (CI starts them).
    if super::server_url(harness).is_none() {
        return;
    }
    report("outage", stop_and_resume(harness).await);
}

async fn stop_and_resume<H: ServerHarness>(harness: &H) -> CheckResult {
    let (server, url) = PrivateServer::start(harness.server_kind())?;
    let store = harness.open_with_timeouts(&url).await;
    let mut acked = save_numbered(store.as_ref(), "before", "saved before the outage").await?;
    server.stop()?;
    for i in 0..5 {
        let item = MemoryItem::new(format!("during:{i}"), "the server is down");
        let err = match store.save(item).await {
            Ok(()) => return Err(CheckFailure(format!("save during:{i} succeeded"))),
            Err(err) => err,
        };
        ensure(matches!(err, MemoryError::Unavailable(_)), || {
            err.to_string()
        })?;
        ensure(err.is_recoverable(), || err.to_string())?;
        match store.get("before:1").await {
            Ok(_) => return Err(CheckFailure("a read succeeded with the server down".into())),
            Err(err) => ensure(err.is_recoverable(), || err.to_string())?,
        }
    }
    server.resume()?;
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
                ensure(err.is_recoverable(), || err.to_string())?;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    ensure(recovered, || {
        "the store did not recover after the server came back".to_owned()
    })?;
    acked.push("after:first".to_owned());
    acked.extend(save_numbered(store.as_ref(), "after", "saved after the outage").await?);
    let stored: HashSet<String> = ids(store.as_ref()).await?;
    all_stored(&acked, &stored)?;
    ensure(stored.iter().all(|id| !id.starts_with("during:")), || {
        "a failed save was stored".to_owned()
    })
}

/// Saves `{tag}:0` … `{tag}:49`; returns their ids.
async fn save_numbered(
    store: &dyn MemoryStore,
    tag: &str,
    text: &str,
) -> Result<Vec<String>, CheckFailure> {
    let mut saved = Vec::new();
    for i in 0..50 {
        let id = format!("{tag}:{i}");
        store
            .save(MemoryItem::new(id.clone(), format!("{text} {i}")))
            .await?;
        saved.push(id);
    }
    Ok(saved)
}

async fn ids(store: &dyn MemoryStore) -> Result<HashSet<String>, CheckFailure> {
    let items = store.list(&MemoryFilter::all()).await?;
    Ok(items.into_iter().map(|item| item.id).collect())
}

fn all_stored(acked: &[String], stored: &HashSet<String>) -> CheckResult {
    for id in acked {
        ensure(stored.contains(id), || {
            format!("acknowledged save {id} is missing")
        })?;
    }
    Ok(())
}

/// A writer saves in a loop into a private server while the server is
/// killed (SIGKILL) and, a second later, started again: the writer reaches
/// 100 acknowledged saves before the kill and 100 more after the restart
/// (each within 60 s), saw at least one error, every error was recoverable
/// ([`MemoryError::Unavailable`]), it carried on with the same store, and
/// every acknowledged save is there afterwards.
///
/// Returns early when the driver's shared server is not configured (fails
/// under `CI=true`).
///
/// # Panics
/// "the writer saw the outage" (no error seen), "the writer did not reach
/// {n} acknowledged saves", the unexpected error, "acknowledged save {id} is
/// missing", or the script's failure.
pub async fn save_loop_survives_a_killed_server<H: ServerHarness>(harness: &H) {
    let _one = ONE_SERVER.lock().await;
    if super::server_url(harness).is_none() {
        return;
    }
    report("killed server", kill_and_resume(harness).await);
}

type Writer = tokio::task::JoinHandle<(Vec<String>, Vec<MemoryError>)>;

/// Saves `loop:{i}` until `stop`, counting acknowledged saves in `acked`.
fn spawn_writer(
    store: Arc<dyn MemoryStore>,
    acked: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> Writer {
    tokio::spawn(async move {
        let (mut ids, mut errors) = (Vec::new(), Vec::new());
        let mut i = 0;
        while !stop.load(Ordering::SeqCst) {
            let id = format!("loop:{i}");
            i += 1;
            let item = MemoryItem::new(id.clone(), format!("saved in a loop {i} 循环"));
            match store.save(item).await {
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
}

/// Waits (up to 60 s) until `acked` reaches `target`.
async fn wait_for(acked: &AtomicUsize, target: usize) -> CheckResult {
    for _ in 0..600 {
        if acked.load(Ordering::SeqCst) >= target {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(CheckFailure(format!(
        "the writer did not reach {target} acknowledged saves"
    )))
}

async fn kill_and_resume<H: ServerHarness>(harness: &H) -> CheckResult {
    let (server, url) = PrivateServer::start(harness.server_kind())?;
    let store = harness.open_with_timeouts(&url).await;
    let acked = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = spawn_writer(Arc::clone(&store), Arc::clone(&acked), Arc::clone(&stop));
    wait_for(&acked, 100).await?;
    let restart = tokio::task::spawn_blocking(move || {
        server.kill()?;
        std::thread::sleep(Duration::from_secs(1));
        server.resume()?;
        Ok::<_, CheckFailure>(server)
    });
    let server = or_fail(restart.await, "restarting the server")??;
    let after = acked.load(Ordering::SeqCst);
    wait_for(&acked, after + 100).await?;
    stop.store(true, Ordering::SeqCst);
    let (ids, errors) = or_fail(writer.await, "the writer")?;

    ensure(!errors.is_empty(), || {
        "the writer saw the outage".to_owned()
    })?;
    for err in &errors {
        ensure(err.is_recoverable(), || err.to_string())?;
        ensure(matches!(err, MemoryError::Unavailable(_)), || {
            err.to_string()
        })?;
    }
    let stored = self::ids(store.as_ref()).await?;
    all_stored(&ids, &stored)?;
    drop(server);
    Ok(())
}
