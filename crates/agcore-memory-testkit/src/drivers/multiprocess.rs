//! Several OS processes writing into one instance at once: the test binary
//! re-run as child processes.
//!
//! The driver's test module holds two tests, each calling one function here:
//! the parent ([`eight_processes_lose_and_double_nothing`]) and the child
//! ([`child_writer`], an `#[ignore]`d test that does nothing unless run by
//! the parent). The parent re-runs the test binary
//! (`std::env::current_exe()`) with `--exact <child> --ignored`, the child
//! named as libtest lists it ([`libtest_name!`](macro@crate::libtest_name)),
//! and passes the instance's name in
//! [`ServerHarness::child_instance_env`] and the child's number in
//! [`CHILD_ID_ENV`].
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use agcore_memory::{InMemoryStore, MemoryStore};
//! # use agcore_memory_testkit::drivers::{Opened, ServerHarness};
//! use agcore_memory_testkit::drivers::multiprocess;
//! # struct MyDriver;
//! # impl ServerHarness for MyDriver {
//! #     fn name(&self) -> &'static str { "mydriver" }
//! #     fn url_var(&self) -> &'static str { "AGCORE_TEST_MYDRIVER_URL" }
//! #     fn server_kind(&self) -> &'static str { "postgres" }
//! #     async fn open(&self, _: &str, _: &str, _: usize) -> Opened {
//! #         Opened { store: Arc::new(InMemoryStore::new()), long_term: None }
//! #     }
//! #     async fn open_with_timeouts(&self, _: &str) -> Arc<dyn MemoryStore> {
//! #         Arc::new(InMemoryStore::new())
//! #     }
//! #     async fn drop_instances(&self, _: &str, _: &str) {}
//! # }
//!
//! // #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
//! // #[ignore = "child process of `eight_processes_lose_and_double_nothing`"]
//! async fn multiprocess_child_writer() {
//!     multiprocess::child_writer(&MyDriver).await;
//! }
//!
//! // #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
//! async fn eight_processes_lose_and_double_nothing() {
//!     let child = agcore_memory_testkit::libtest_name!("multiprocess_child_writer");
//!     multiprocess::eight_processes_lose_and_double_nothing(&MyDriver, &child).await;
//! }
//! ```

use std::collections::HashSet;
use std::process::{Command, Stdio};

use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory};
use agcore_memory::{MemoryFilter, MemoryItem, MemoryStore, SearchOptions};

use super::{ServerHarness, instance_name, instance_prefix, long_term_of, or_fail, report};
use crate::{CheckResult, ensure};

/// The number of child processes.
pub const PROCESSES: usize = 8;
/// The long-term memories and the store items each child saves.
pub const SAVES: usize = 2_000;
/// The texts (ids) every child saves, each once per child.
pub const SHARED: usize = 50;
/// The environment variable holding a child's number (`0..PROCESSES`).
pub const CHILD_ID_ENV: &str = "AGCORE_MULTIPROCESS_CHILD";
/// The pool size of every process's connections.
const POOL: usize = 2;
/// The tag of the instances of this check.
const TAG: &str = "multi";

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

/// The child: when run by [`eight_processes_lose_and_double_nothing`] (both
/// environment variables set), saves [`SAVES`] long-term memories into scope
/// `agent`/`shared-user` and [`SAVES`] store items into the instance named by
/// [`ServerHarness::child_instance_env`]; otherwise returns at once.
///
/// # Panics
/// When a save fails (the message names the save); the parent then reports
/// "a child process failed".
pub async fn child_writer<H: ServerHarness>(harness: &H) {
    let (Ok(instance), Ok(id)) = (
        std::env::var(harness.child_instance_env()),
        std::env::var(CHILD_ID_ENV),
    ) else {
        return;
    };
    let Some(url) = super::server_url(harness) else {
        return;
    };
    report(
        "multi-process child",
        write(harness, &url, &instance, &id).await,
    );
}

async fn write<H: ServerHarness>(harness: &H, url: &str, instance: &str, id: &str) -> CheckResult {
    let process: usize = or_fail(id.parse(), "the child's number")?;
    let opened = harness.open(url, instance, POOL).await;
    let (memory, store) = (long_term_of(&opened, harness.name())?, opened.store);
    let scope = memory.scope("agent", "shared-user")?;
    for n in 0..SAVES {
        scope
            .save(NewMemory::new(MemoryType::User, "fact", text(process, n)))
            .await?;
        store.save(item(process, n)).await?;
    }
    memory.close().await?;
    Ok(())
}

/// Eight OS processes ([`PROCESSES`]) save [`SAVES`] long-term memories and
/// [`SAVES`] store items each into one fresh instance at once: every private
/// memory and item is there exactly once, the [`SHARED`] texts (ids) that
/// every process saves are merged into one entry (item) each, long-term ids
/// are unique, and a search finds each process's last private item.
///
/// `child` is the libtest name of the driver's test calling
/// [`child_writer`] (`libtest_name!("…")` in the driver's test module).
/// Returns early when the server is not configured (fails under `CI=true`).
///
/// # Panics
/// "a child process failed", "lost {process}/{n}", "ids are unique", "no
/// content doubled", "{id} holds {content}", or a count that differs.
pub async fn eight_processes_lose_and_double_nothing<H: ServerHarness>(harness: &H, child: &str) {
    let Some(url) = super::server_url(harness) else {
        return;
    };
    let instance = instance_name(harness.separator(), TAG);
    harness.create(&url, &instance).await;
    // Create and migrate the schema first, as a deployment would.
    harness.open(&url, &instance, POOL).await;
    report("multi-process", run_children(harness, &instance, child));
    let opened = harness.open(&url, &instance, POOL).await;
    report(
        "multi-process",
        check_long_term(&opened, harness.name()).await,
    );
    report("multi-process", check_store(opened.store.as_ref()).await);
    let prefix = instance_prefix(harness.separator(), TAG);
    harness.drop_instances(&url, &prefix).await;
}

fn run_children<H: ServerHarness>(harness: &H, instance: &str, child: &str) -> CheckResult {
    let exe = or_fail(std::env::current_exe(), "the test binary")?;
    let children = (0..PROCESSES)
        .map(|process| {
            Command::new(&exe)
                .args(["--exact", child, "--ignored", "--test-threads=1"])
                .env(harness.child_instance_env(), instance)
                .env(CHILD_ID_ENV, process.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
        })
        .collect::<Result<Vec<_>, _>>();
    for mut child in or_fail(children, "starting a child process")? {
        let status = or_fail(child.wait(), "waiting for a child process")?;
        ensure(status.success(), || "a child process failed".to_owned())?;
    }
    Ok(())
}

async fn check_long_term(opened: &super::Opened, driver: &str) -> CheckResult {
    let memory: LongTermMemory = long_term_of(opened, driver)?;
    let scope = memory.scope("agent", "shared-user")?;
    let entries = scope.list(&ListRequest::all()).await?;
    let private = PROCESSES * (SAVES - SHARED);
    ensure(entries.len() == private + SHARED, || {
        format!("{} entries instead of {}", entries.len(), private + SHARED)
    })?;
    let ids: HashSet<i64> = entries.iter().map(|e| e.id).collect();
    ensure(ids.len() == entries.len(), || "ids are unique".to_owned())?;
    let contents: HashSet<&str> = entries.iter().map(|e| e.content.as_str()).collect();
    ensure(contents.len() == entries.len(), || {
        "no content doubled".to_owned()
    })?;
    for process in 0..PROCESSES {
        for n in (0..SAVES).filter(|n| !n.is_multiple_of(SAVES / SHARED)) {
            ensure(contents.contains(text(process, n).as_str()), || {
                format!("lost {process}/{n}")
            })?;
        }
    }
    for k in 0..SHARED {
        // Saved by all eight processes, stored once.
        let shared = format!("Shared fact number {k}");
        ensure(contents.contains(shared.as_str()), || {
            format!("lost shared fact {k}")
        })?;
    }
    Ok(())
}

async fn check_store(store: &dyn MemoryStore) -> CheckResult {
    let expected = PROCESSES * (SAVES - SHARED) + SHARED;
    let count = store.count(&MemoryFilter::all()).await?;
    ensure(count == expected, || {
        format!("count is {count} instead of {expected}")
    })?;
    let items = store.list(&MemoryFilter::all()).await?;
    ensure(items.len() == expected, || {
        format!("{} items listed instead of {expected}", items.len())
    })?;
    for item in &items {
        ensure(holds_its_text(item), || {
            format!("{} holds {:?}", item.id, item.content)
        })?;
    }
    let hits: HashSet<String> = store
        .search("private fact 1999", &SearchOptions::top_k(20))
        .await?
        .into_iter()
        .map(|hit| hit.item.id)
        .filter(|id| id.ends_with(":1999"))
        .collect();
    ensure(hits.len() == PROCESSES, || format!("{hits:?}"))
}

/// Whether `item` holds the text its id was saved with.
fn holds_its_text(item: &MemoryItem) -> bool {
    if item.id.starts_with("shared:") {
        return item.content.starts_with("shared item from process ");
    }
    let parsed = item
        .id
        .trim_start_matches('p')
        .split_once(':')
        .and_then(|(process, n)| Some((process.parse().ok()?, n.parse().ok()?)));
    parsed.is_some_and(|(process, n)| item.content == text(process, n))
}
